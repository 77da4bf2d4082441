module @"train step" {
  func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32, mhlo.sharding = "{devices=[2]0,1}"}, %arg1: tensor<4xf32> {jax.buffer_donor = true}, %arg2: tensor<f32>) -> (tensor<4xf32>, tensor<4xf32> {mhlo.sharding = "{replicated}"}) {
    %0 = "stablehlo.broadcast_in_dim"(%arg2) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %1 = "stablehlo.multiply"(%arg1, %0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %2 = "stablehlo.subtract"(%arg0, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %3 = "stablehlo.constant"() {value = dense<0x00000000> : tensor<4xf32>} : () -> tensor<4xf32>
    return %2, %3 : tensor<4xf32>, tensor<4xf32>
  }
}
