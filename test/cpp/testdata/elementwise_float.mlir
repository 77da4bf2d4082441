module @elementwise_float {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
    %0 = "stablehlo.abs"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = "stablehlo.negate"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %2 = "stablehlo.exponential"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %3 = "stablehlo.exponential_minus_one"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %4 = "stablehlo.log"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %5 = "stablehlo.log_plus_one"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %6 = "stablehlo.sqrt"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %7 = "stablehlo.rsqrt"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %8 = "stablehlo.cbrt"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %9 = "stablehlo.sine"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %10 = "stablehlo.cosine"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %11 = "stablehlo.tan"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %12 = "stablehlo.tanh"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %13 = "stablehlo.logistic"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %14 = "stablehlo.floor"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %15 = "stablehlo.ceil"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %16 = "stablehlo.round_nearest_even"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %17 = "stablehlo.sign"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %18 = "stablehlo.is_finite"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xi1>
    %19 = "chlo.erf"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %20 = "chlo.acos"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %21 = "chlo.acosh"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %22 = "chlo.asin"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %23 = "chlo.asinh"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %24 = "chlo.atanh"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %25 = "chlo.cosh"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %26 = "chlo.sinh"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %27 = "stablehlo.add"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %28 = "stablehlo.subtract"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %29 = "stablehlo.multiply"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %30 = "stablehlo.divide"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %31 = "stablehlo.remainder"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %32 = "stablehlo.power"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %33 = "stablehlo.maximum"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %34 = "stablehlo.minimum"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %35 = "stablehlo.atan2"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
  }
}
