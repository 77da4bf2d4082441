module @placeholders {
  func.func public @main(%arg0: tensor<2x3xbf16>, %arg1: tensor<3x4xbf16>) -> (tensor<2x3xbf16>) {
    %0 = "stablehlo.sine"(%arg0) : (tensor<2x3xbf16>) -> tensor<2x3xbf16>
    %1 = "stablehlo.dot_general"(%0, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<2x3xbf16>, tensor<3x4xbf16>) -> tensor<2x4xbf16>
    %2 = "stablehlo.transpose"(%arg1) {permutation = array<i64: 1, 0>} : (tensor<3x4xbf16>) -> tensor<4x3xbf16>
    %3 = "stablehlo.dot_general"(%1, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>} : (tensor<2x4xbf16>, tensor<3x4xbf16>) -> tensor<2x3xbf16>
    return %3 : tensor<2x3xbf16>
  }
}
