module @accumulation_while {
  func.func public @main(%arg0: tensor<3xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<2x3xf32>) -> (tensor<3xf32>) {
    %0 = "stablehlo.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
    %1:3 = "stablehlo.while"(%0, %arg0, %arg1) ({
      ^bb0(%2: tensor<i64>, %3: tensor<3xf32>, %4: tensor<2x3xf32>):
        %5 = "stablehlo.constant"() {value = dense<2> : tensor<i64>} : () -> tensor<i64>
        %6 = "stablehlo.compare"(%2, %5) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<i64>, tensor<i64>) -> tensor<i1>
        "stablehlo.return"(%6) : (tensor<i1>) -> ()
    }, {
      ^bb0(%7: tensor<i64>, %8: tensor<3xf32>, %9: tensor<2x3xf32>):
        %10 = "stablehlo.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
        %11 = "stablehlo.add"(%7, %10) : (tensor<i64>, tensor<i64>) -> tensor<i64>
        %12 = "stablehlo.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
        %13 = "stablehlo.dynamic_slice"(%9, %7, %12) {slice_sizes = array<i64: 1, 3>} : (tensor<2x3xf32>, tensor<i64>, tensor<i64>) -> tensor<1x3xf32>
        %14 = "stablehlo.reshape"(%13) : (tensor<1x3xf32>) -> tensor<3xf32>
        %15 = "stablehlo.add"(%8, %14) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
        "stablehlo.return"(%11, %15, %9) : (tensor<i64>, tensor<3xf32>, tensor<2x3xf32>) -> ()
    }) : (tensor<i64>, tensor<3xf32>, tensor<2x3xf32>) -> (tensor<i64>, tensor<3xf32>, tensor<2x3xf32>)
    return %1#1 : tensor<3xf32>
  }
}
