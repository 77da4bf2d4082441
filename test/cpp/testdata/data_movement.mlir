module @data_movement {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<f32>, %arg2: tensor<i32>, %arg3: tensor<1x2xf32>) -> (tensor<4x2x3xf32>, tensor<2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<1x2xf32>, tensor<2x3xf32>, tensor<2x9xf32>, tensor<3x4xf32>) {
    %0 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64: 1, 2>} : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
    %1 = "stablehlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<2xf32>
    %2 = "stablehlo.reshape"(%arg0) : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %3 = "stablehlo.transpose"(%arg0) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %4 = "stablehlo.reverse"(%arg0) {dimensions = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %5 = "stablehlo.slice"(%arg0) {start_indices = array<i64: 0, 1>, limit_indices = array<i64: 2, 3>, strides = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
    %6 = "stablehlo.slice"(%arg0) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 2, 3>, strides = array<i64: 1, 2>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
    %7 = "stablehlo.dynamic_slice"(%arg0, %arg2, %arg2) {slice_sizes = array<i64: 1, 2>} : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
    %8 = "stablehlo.dynamic_update_slice"(%arg0, %arg3, %arg2, %arg2) : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
    %9 = "stablehlo.concatenate"(%arg0, %arg0, %arg0) {dimension = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
    %10 = "stablehlo.pad"(%arg0, %arg1) {edge_padding_low = array<i64: 1, 0>, edge_padding_high = array<i64: 0, -1>, interior_padding = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x4xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<4x2x3xf32>, tensor<2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<1x2xf32>, tensor<2x3xf32>, tensor<2x9xf32>, tensor<3x4xf32>
  }
}
