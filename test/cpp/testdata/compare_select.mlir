module @compare_select {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>, %arg2: tensor<2x3xi64>, %arg3: tensor<2x3xui32>, %arg4: tensor<f32>, %arg5: tensor<f32>) -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xbf16>, tensor<2x3xui32>) {
    %0 = "stablehlo.compare"(%arg0, %arg1) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %1 = "stablehlo.compare"(%arg2, %arg2) {comparison_direction = #stablehlo<comparison_direction GE>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi1>
    %2 = "stablehlo.compare"(%arg3, %arg3) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type UNSIGNED>} : (tensor<2x3xui32>, tensor<2x3xui32>) -> tensor<2x3xi1>
    %3 = "stablehlo.compare"(%0, %0) {comparison_direction = #stablehlo<comparison_direction EQ>, compare_type = #stablehlo<comparison_type UNSIGNED>} : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
    %4 = "stablehlo.compare"(%arg0, %arg1) {comparison_direction = #stablehlo<comparison_direction LE>, compare_type = #stablehlo<comparison_type TOTALORDER>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %5 = "stablehlo.select"(%0, %arg0, %arg1) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %6 = "stablehlo.clamp"(%arg4, %arg0, %arg5) : (tensor<f32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %7 = "stablehlo.convert"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xi32>
    %8 = "stablehlo.convert"(%0) : (tensor<2x3xi1>) -> tensor<2x3xbf16>
    %9 = "stablehlo.bitcast_convert"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xui32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xbf16>, tensor<2x3xui32>
  }
}
