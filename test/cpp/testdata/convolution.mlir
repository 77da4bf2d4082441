module @convolution {
  func.func public @main(%arg0: tensor<1x4x8x8xf32>, %arg1: tensor<6x4x3x3xf32>, %arg2: tensor<6x2x3x3xf32>, %arg3: tensor<2x3x7xbf16>, %arg4: tensor<5x3x2xbf16>, %arg5: tensor<1x6x6x6xf32>) -> (tensor<1x6x3x7xf32>, tensor<1x6x13x13xf32>, tensor<2x5x6xf32>, tensor<6x2x3x3xf32>) {
    %0 = "stablehlo.convolution"(%arg0, %arg1) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, feature_group_count = 1 : i64, padding = dense<[[1, 1], [1, 0]]> : tensor<2x2xi64>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>], rhs_dilation = array<i64: 2, 1>, window_strides = array<i64: 2, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x3x7xf32>
    %1 = "stablehlo.convolution"(%arg0, %arg2) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, feature_group_count = 2 : i64, lhs_dilation = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x13x13xf32>
    %2 = "stablehlo.convolution"(%arg3, %arg4) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, f, 0]x[o, i, 0]->[b, f, 0]>, feature_group_count = 1 : i64} : (tensor<2x3x7xbf16>, tensor<5x3x2xbf16>) -> tensor<2x5x6xf32>
    %3 = "stablehlo.convolution"(%arg0, %arg5) {batch_group_count = 2 : i64, dimension_numbers = #stablehlo.conv<[f, b, 0, 1]x[i, o, 0, 1]->[f, b, 0, 1]>, feature_group_count = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<1x6x6x6xf32>) -> tensor<6x2x3x3xf32>
    return %0, %1, %2, %3 : tensor<1x6x3x7xf32>, tensor<1x6x13x13xf32>, tensor<2x5x6xf32>, tensor<6x2x3x3xf32>
  }
}
