module @"edge cases" {
  func.func public @main(%arg0: tensor<2xf32>, %arg1: tensor<3xf32>, %arg2: tensor<2x3xf32>, %arg3: tensor<0x3xf32>, %arg4: tensor<i1>, %arg5: tensor<2xf16>, %arg6: tensor<2xui64>, %arg7: tensor<2xi16>, %arg8: tensor<3xui64>, %arg9: tensor<i64>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<0x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf16>, tensor<2xf64>, tensor<2xi1>, tensor<2xui64>, tensor<2xbf16>, tensor<2xf16>, tensor<f16>, tensor<2xui32>, tensor<2xf32>) {
    %0 = "stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<>} : (tensor<2xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %1 = "stablehlo.constant"() {value = dense<0x00000000> : tensor<f32>} : () -> tensor<f32>
    %2 = "stablehlo.reduce"(%arg2, %1) ({
      ^bb0(%3: tensor<f32>, %4: tensor<f32>):
        %5 = "stablehlo.add"(%3, %4) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%5) : (tensor<f32>) -> ()
    }) {dimensions = array<i64>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %6 = "stablehlo.constant"() {value = dense<0xFF800000> : tensor<f32>} : () -> tensor<f32>
    %7 = "stablehlo.reduce"(%arg3, %6) ({
      ^bb0(%8: tensor<f32>, %9: tensor<f32>):
        %10 = "stablehlo.maximum"(%8, %9) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%10) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<0x3xf32>, tensor<f32>) -> tensor<3xf32>
    %11 = "stablehlo.slice"(%arg2) {start_indices = array<i64: 1, 1>, limit_indices = array<i64: 1, 3>, strides = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<0x2xf32>
    %12 = "stablehlo.concatenate"(%arg2) {dimension = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %13 = "stablehlo.select"(%arg4, %arg2, %arg2) : (tensor<i1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %14 = "stablehlo.clamp"(%arg2, %arg2, %arg2) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %15 = "stablehlo.add"(%arg5, %arg5) : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
    %16 = "stablehlo.convert"(%arg5) : (tensor<2xf16>) -> tensor<2xf64>
    %17 = "stablehlo.compare"(%arg6, %arg6) {comparison_direction = #stablehlo<comparison_direction GT>, compare_type = #stablehlo<comparison_type UNSIGNED>} : (tensor<2xui64>, tensor<2xui64>) -> tensor<2xi1>
    %18 = "stablehlo.shift_right_logical"(%arg6, %arg6) : (tensor<2xui64>, tensor<2xui64>) -> tensor<2xui64>
    %19 = "stablehlo.bitcast_convert"(%arg7) : (tensor<2xi16>) -> tensor<2xbf16>
    %20 = "stablehlo.constant"() {value = dense<0x7BFF> : tensor<2xf16>} : () -> tensor<2xf16>
    %21 = "stablehlo.constant"() {value = dense<0x0000> : tensor<f16>} : () -> tensor<f16>
    %22:2 = "stablehlo.rng_bit_generator"(%arg8) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<3xui64>) -> (tensor<3xui64>, tensor<2xui32>)
    %23:2 = "stablehlo.while"(%arg0, %arg9) ({
      ^bb0(%24: tensor<2xf32>, %25: tensor<i64>):
        %26 = "stablehlo.constant"() {value = dense<4> : tensor<i64>} : () -> tensor<i64>
        %27 = "stablehlo.compare"(%25, %26) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<i64>, tensor<i64>) -> tensor<i1>
        "stablehlo.return"(%27) : (tensor<i1>) -> ()
    }, {
      ^bb0(%28: tensor<2xf32>, %29: tensor<i64>):
        %30 = "stablehlo.constant"() {value = dense<0x40000000> : tensor<2xf32>} : () -> tensor<2xf32>
        %31 = "stablehlo.multiply"(%28, %30) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
        %32 = "stablehlo.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
        %33:2 = "stablehlo.while"(%31, %32) ({
          ^bb0(%34: tensor<2xf32>, %35: tensor<i64>):
            %36 = "stablehlo.constant"() {value = dense<3> : tensor<i64>} : () -> tensor<i64>
            %37 = "stablehlo.compare"(%35, %36) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<i64>, tensor<i64>) -> tensor<i1>
            "stablehlo.return"(%37) : (tensor<i1>) -> ()
        }, {
          ^bb0(%38: tensor<2xf32>, %39: tensor<i64>):
            %40 = "stablehlo.constant"() {value = dense<0x3F000000> : tensor<2xf32>} : () -> tensor<2xf32>
            %41 = "stablehlo.multiply"(%38, %40) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
            %42 = "stablehlo.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
            %43 = "stablehlo.add"(%39, %42) : (tensor<i64>, tensor<i64>) -> tensor<i64>
            "stablehlo.return"(%41, %43) : (tensor<2xf32>, tensor<i64>) -> ()
        }) : (tensor<2xf32>, tensor<i64>) -> (tensor<2xf32>, tensor<i64>)
        %44 = "stablehlo.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
        %45 = "stablehlo.add"(%29, %44) : (tensor<i64>, tensor<i64>) -> tensor<i64>
        "stablehlo.return"(%33#0, %45) : (tensor<2xf32>, tensor<i64>) -> ()
    }) : (tensor<2xf32>, tensor<i64>) -> (tensor<2xf32>, tensor<i64>)
    return %0, %2, %7, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22#1, %23#0 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<0x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf16>, tensor<2xf64>, tensor<2xi1>, tensor<2xui64>, tensor<2xbf16>, tensor<2xf16>, tensor<f16>, tensor<2xui32>, tensor<2xf32>
  }
}
