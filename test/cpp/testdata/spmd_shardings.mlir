module @spmd {
  func.func public @main(%arg0: tensor<8x4xf32> {mhlo.sharding = "{devices=[4,1]0,1,2,3}"}) -> (tensor<8x4xf32> {mhlo.sharding = "{devices=[2,2]0,1,2,3}"}) {
    %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %1 = "stablehlo.custom_call"(%0) {call_target_name = "Sharding", mhlo.sharding = "{devices=[2,2]0,1,2,3}"} : (tensor<8x4xf32>) -> tensor<8x4xf32>
    return %1 : tensor<8x4xf32>
  }
}
