module @rng {
  func.func public @main(%arg0: tensor<2xui64>) -> (tensor<2xui64>, tensor<2x3xui32>, tensor<4xui64>) {
    %0:2 = "stablehlo.rng_bit_generator"(%arg0) {rng_algorithm = #stablehlo<rng_algorithm DEFAULT>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x3xui32>)
    %1:2 = "stablehlo.rng_bit_generator"(%0#0) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui64>)
    return %1#0, %0#1, %1#1 : tensor<2xui64>, tensor<2x3xui32>, tensor<4xui64>
  }
}
