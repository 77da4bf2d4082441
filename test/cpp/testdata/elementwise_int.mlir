module @elementwise_int {
  func.func public @main(%arg0: tensor<4xi32>, %arg1: tensor<4xi32>, %arg2: tensor<4xui8>, %arg3: tensor<4xi1>, %arg4: tensor<4xi1>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xui8>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
    %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %1 = "stablehlo.divide"(%arg0, %arg1) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %2 = "stablehlo.remainder"(%arg0, %arg1) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %3 = "stablehlo.shift_left"(%arg0, %arg1) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %4 = "stablehlo.shift_right_arithmetic"(%arg0, %arg1) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %5 = "stablehlo.shift_right_logical"(%arg0, %arg1) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %6 = "stablehlo.and"(%arg0, %arg1) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %7 = "stablehlo.not"(%arg0) : (tensor<4xi32>) -> tensor<4xi32>
    %8 = "stablehlo.abs"(%arg0) : (tensor<4xi32>) -> tensor<4xi32>
    %9 = "stablehlo.sign"(%arg0) : (tensor<4xi32>) -> tensor<4xi32>
    %10 = "stablehlo.maximum"(%arg2, %arg2) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
    %11 = "stablehlo.xor"(%arg3, %arg4) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    %12 = "stablehlo.or"(%arg3, %arg4) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    %13 = "stablehlo.not"(%arg3) : (tensor<4xi1>) -> tensor<4xi1>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xui8>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
  }
}
