module @window {
  func.func public @main(%arg0: tensor<2x5x5xf32>, %arg1: tensor<2x5x5xi32>, %arg2: tensor<2x5x5xi64>, %arg3: tensor<2x3x3xf32>, %arg4: tensor<2x2x2xi32>) -> (tensor<2x3x3xf32>, tensor<2x4x4xi32>, tensor<2x8x3xf32>, tensor<2x3x3xf32>, tensor<2x3x3xi64>, tensor<2x5x5xf32>, tensor<2x5x5xi32>) {
    %0 = "stablehlo.constant"() {value = dense<0x00000000> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) ({
      ^bb0(%2: tensor<f32>, %3: tensor<f32>):
        %4 = "stablehlo.add"(%2, %3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%4) : (tensor<f32>) -> ()
    }) {padding = dense<[[0, 0], [1, 1], [1, 1]]> : tensor<3x2xi64>, window_dimensions = array<i64: 1, 3, 3>, window_strides = array<i64: 1, 2, 2>} : (tensor<2x5x5xf32>, tensor<f32>) -> tensor<2x3x3xf32>
    %5 = "stablehlo.constant"() {value = dense<-2147483648> : tensor<i32>} : () -> tensor<i32>
    %6 = "stablehlo.reduce_window"(%arg1, %5) ({
      ^bb0(%7: tensor<i32>, %8: tensor<i32>):
        %9 = "stablehlo.maximum"(%7, %8) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        "stablehlo.return"(%9) : (tensor<i32>) -> ()
    }) {window_dimensions = array<i64: 1, 2, 2>} : (tensor<2x5x5xi32>, tensor<i32>) -> tensor<2x4x4xi32>
    %10 = "stablehlo.constant"() {value = dense<0x7F800000> : tensor<f32>} : () -> tensor<f32>
    %11 = "stablehlo.reduce_window"(%arg0, %10) ({
      ^bb0(%12: tensor<f32>, %13: tensor<f32>):
        %14 = "stablehlo.minimum"(%12, %13) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%14) : (tensor<f32>) -> ()
    }) {base_dilations = array<i64: 1, 2, 1>, window_dimensions = array<i64: 1, 2, 2>, window_dilations = array<i64: 1, 1, 2>} : (tensor<2x5x5xf32>, tensor<f32>) -> tensor<2x8x3xf32>
    %15 = "stablehlo.constant"() {value = dense<0xFF800000> : tensor<f32>} : () -> tensor<f32>
    %16 = "stablehlo.constant"() {value = dense<9223372036854775807> : tensor<i64>} : () -> tensor<i64>
    %17:2 = "stablehlo.reduce_window"(%arg0, %arg2, %15, %16) ({
      ^bb0(%18: tensor<f32>, %19: tensor<i64>, %20: tensor<f32>, %21: tensor<i64>):
        %22 = "stablehlo.compare"(%21, %19) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<i64>, tensor<i64>) -> tensor<i1>
        %23 = "stablehlo.compare"(%20, %18) {comparison_direction = #stablehlo<comparison_direction EQ>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
        %24 = "stablehlo.and"(%23, %22) : (tensor<i1>, tensor<i1>) -> tensor<i1>
        %25 = "stablehlo.compare"(%20, %18) {comparison_direction = #stablehlo<comparison_direction GT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
        %26 = "stablehlo.or"(%25, %24) : (tensor<i1>, tensor<i1>) -> tensor<i1>
        %27 = "stablehlo.compare"(%18, %18) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
        %28 = "stablehlo.compare"(%21, %19) {comparison_direction = #stablehlo<comparison_direction GT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<i64>, tensor<i64>) -> tensor<i1>
        %29 = "stablehlo.not"(%27) : (tensor<i1>) -> tensor<i1>
        %30 = "stablehlo.or"(%29, %28) : (tensor<i1>, tensor<i1>) -> tensor<i1>
        %31 = "stablehlo.compare"(%20, %20) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
        %32 = "stablehlo.and"(%31, %30) : (tensor<i1>, tensor<i1>) -> tensor<i1>
        %33 = "stablehlo.or"(%26, %32) : (tensor<i1>, tensor<i1>) -> tensor<i1>
        %34 = "stablehlo.select"(%33, %20, %18) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
        %35 = "stablehlo.select"(%33, %21, %19) : (tensor<i1>, tensor<i64>, tensor<i64>) -> tensor<i64>
        "stablehlo.return"(%34, %35) : (tensor<f32>, tensor<i64>) -> ()
    }) {padding = dense<[[0, 0], [1, 1], [1, 1]]> : tensor<3x2xi64>, window_dimensions = array<i64: 1, 3, 3>, window_strides = array<i64: 1, 2, 2>} : (tensor<2x5x5xf32>, tensor<2x5x5xi64>, tensor<f32>, tensor<i64>) -> (tensor<2x3x3xf32>, tensor<2x3x3xi64>)
    %36 = "stablehlo.constant"() {value = dense<0x00000000> : tensor<f32>} : () -> tensor<f32>
    %37 = "stablehlo.select_and_scatter"(%arg0, %arg3, %36) ({
      ^bb0(%38: tensor<f32>, %39: tensor<f32>):
        %40 = "stablehlo.compare"(%39, %38) {comparison_direction = #stablehlo<comparison_direction GT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
        %41 = "stablehlo.compare"(%39, %39) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
        %42 = "stablehlo.or"(%40, %41) : (tensor<i1>, tensor<i1>) -> tensor<i1>
        %43 = "stablehlo.not"(%42) : (tensor<i1>) -> tensor<i1>
        "stablehlo.return"(%43) : (tensor<i1>) -> ()
    }, {
      ^bb0(%44: tensor<f32>, %45: tensor<f32>):
        %46 = "stablehlo.add"(%44, %45) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%46) : (tensor<f32>) -> ()
    }) {padding = dense<[[0, 0], [1, 1], [1, 1]]> : tensor<3x2xi64>, window_dimensions = array<i64: 1, 3, 3>, window_strides = array<i64: 1, 2, 2>} : (tensor<2x5x5xf32>, tensor<2x3x3xf32>, tensor<f32>) -> tensor<2x5x5xf32>
    %47 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
    %48 = "stablehlo.select_and_scatter"(%arg1, %arg4, %47) ({
      ^bb0(%49: tensor<i32>, %50: tensor<i32>):
        %51 = "stablehlo.compare"(%50, %49) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %52 = "stablehlo.not"(%51) : (tensor<i1>) -> tensor<i1>
        "stablehlo.return"(%52) : (tensor<i1>) -> ()
    }, {
      ^bb0(%53: tensor<i32>, %54: tensor<i32>):
        %55 = "stablehlo.add"(%53, %54) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        "stablehlo.return"(%55) : (tensor<i32>) -> ()
    }) {window_dimensions = array<i64: 1, 2, 2>, window_strides = array<i64: 1, 2, 2>} : (tensor<2x5x5xi32>, tensor<2x2x2xi32>, tensor<i32>) -> tensor<2x5x5xi32>
    return %1, %6, %11, %17#0, %17#1, %37, %48 : tensor<2x3x3xf32>, tensor<2x4x4xi32>, tensor<2x8x3xf32>, tensor<2x3x3xf32>, tensor<2x3x3xi64>, tensor<2x5x5xf32>, tensor<2x5x5xi32>
  }
}
