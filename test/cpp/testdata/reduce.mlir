module @reduce {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xi32>, %arg2: tensor<4xi1>, %arg3: tensor<8xbf16>) -> (tensor<2xf32>, tensor<f32>, tensor<3xf32>, tensor<2xf32>, tensor<2xi32>, tensor<3xi32>, tensor<i1>, tensor<i1>, tensor<bf16>) {
    %0 = "stablehlo.constant"() {value = dense<0x00000000> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.reduce"(%arg0, %0) ({
      ^bb0(%2: tensor<f32>, %3: tensor<f32>):
        %4 = "stablehlo.add"(%2, %3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%4) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %5 = "stablehlo.constant"() {value = dense<0xFF800000> : tensor<f32>} : () -> tensor<f32>
    %6 = "stablehlo.reduce"(%arg0, %5) ({
      ^bb0(%7: tensor<f32>, %8: tensor<f32>):
        %9 = "stablehlo.maximum"(%7, %8) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%9) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
    %10 = "stablehlo.constant"() {value = dense<0x7F800000> : tensor<f32>} : () -> tensor<f32>
    %11 = "stablehlo.reduce"(%arg0, %10) ({
      ^bb0(%12: tensor<f32>, %13: tensor<f32>):
        %14 = "stablehlo.minimum"(%12, %13) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%14) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
    %15 = "stablehlo.constant"() {value = dense<0x3F800000> : tensor<f32>} : () -> tensor<f32>
    %16 = "stablehlo.reduce"(%arg0, %15) ({
      ^bb0(%17: tensor<f32>, %18: tensor<f32>):
        %19 = "stablehlo.multiply"(%17, %18) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%19) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %20 = "stablehlo.constant"() {value = dense<-2147483648> : tensor<i32>} : () -> tensor<i32>
    %21 = "stablehlo.reduce"(%arg1, %20) ({
      ^bb0(%22: tensor<i32>, %23: tensor<i32>):
        %24 = "stablehlo.maximum"(%22, %23) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        "stablehlo.return"(%24) : (tensor<i32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
    %25 = "stablehlo.constant"() {value = dense<-1> : tensor<i32>} : () -> tensor<i32>
    %26 = "stablehlo.reduce"(%arg1, %25) ({
      ^bb0(%27: tensor<i32>, %28: tensor<i32>):
        %29 = "stablehlo.and"(%27, %28) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        "stablehlo.return"(%29) : (tensor<i32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<2x3xi32>, tensor<i32>) -> tensor<3xi32>
    %30 = "stablehlo.constant"() {value = dense<false> : tensor<i1>} : () -> tensor<i1>
    %31 = "stablehlo.reduce"(%arg2, %30) ({
      ^bb0(%32: tensor<i1>, %33: tensor<i1>):
        %34 = "stablehlo.or"(%32, %33) : (tensor<i1>, tensor<i1>) -> tensor<i1>
        "stablehlo.return"(%34) : (tensor<i1>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<4xi1>, tensor<i1>) -> tensor<i1>
    %35 = "stablehlo.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
    %36 = "stablehlo.reduce"(%arg2, %35) ({
      ^bb0(%37: tensor<i1>, %38: tensor<i1>):
        %39 = "stablehlo.and"(%37, %38) : (tensor<i1>, tensor<i1>) -> tensor<i1>
        "stablehlo.return"(%39) : (tensor<i1>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<4xi1>, tensor<i1>) -> tensor<i1>
    %40 = "stablehlo.constant"() {value = dense<0xFF80> : tensor<bf16>} : () -> tensor<bf16>
    %41 = "stablehlo.reduce"(%arg3, %40) ({
      ^bb0(%42: tensor<bf16>, %43: tensor<bf16>):
        %44 = "stablehlo.maximum"(%42, %43) : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
        "stablehlo.return"(%44) : (tensor<bf16>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<8xbf16>, tensor<bf16>) -> tensor<bf16>
    return %1, %6, %11, %16, %21, %26, %31, %36, %41 : tensor<2xf32>, tensor<f32>, tensor<3xf32>, tensor<2xf32>, tensor<2xi32>, tensor<3xi32>, tensor<i1>, tensor<i1>, tensor<bf16>
  }
}
