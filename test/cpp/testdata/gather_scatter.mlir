module @gather_scatter {
  func.func public @main(%arg0: tensor<10x4xf32>, %arg1: tensor<3x1xi64>, %arg2: tensor<3x4xf32>, %arg3: tensor<2x5xf32>, %arg4: tensor<2x3x1xi32>) -> (tensor<3x4xf32>, tensor<10x4xf32>, tensor<10x4xf32>, tensor<2x3xf32>) {
    %0 = "stablehlo.gather"(%arg0, %arg1) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>, indices_are_sorted = true} : (tensor<10x4xf32>, tensor<3x1xi64>) -> tensor<3x4xf32>
    %1 = "stablehlo.scatter"(%arg0, %arg1, %arg2) ({
      ^bb0(%2: tensor<f32>, %3: tensor<f32>):
        %4 = "stablehlo.add"(%2, %3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%4) : (tensor<f32>) -> ()
    }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<10x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<10x4xf32>
    %5 = "stablehlo.scatter"(%arg0, %arg1, %arg2) ({
      ^bb0(%6: tensor<f32>, %7: tensor<f32>):
        "stablehlo.return"(%7) : (tensor<f32>) -> ()
    }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = true} : (tensor<10x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<10x4xf32>
    %8 = "stablehlo.gather"(%arg3, %arg4) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, slice_sizes = array<i64: 1, 1>, indices_are_sorted = false} : (tensor<2x5xf32>, tensor<2x3x1xi32>) -> tensor<2x3xf32>
    return %0, %1, %5, %8 : tensor<3x4xf32>, tensor<10x4xf32>, tensor<10x4xf32>, tensor<2x3xf32>
  }
}
