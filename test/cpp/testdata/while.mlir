module @while_loop {
  func.func public @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> (tensor<2xf32>, tensor<i64>) {
    %0 = "stablehlo.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
    %1:3 = "stablehlo.while"(%arg0, %arg1, %0) ({
      ^bb0(%2: tensor<2xf32>, %3: tensor<2xf32>, %4: tensor<i64>):
        %5 = "stablehlo.constant"() {value = dense<10> : tensor<i64>} : () -> tensor<i64>
        %6 = "stablehlo.compare"(%4, %5) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<i64>, tensor<i64>) -> tensor<i1>
        "stablehlo.return"(%6) : (tensor<i1>) -> ()
    }, {
      ^bb0(%7: tensor<2xf32>, %8: tensor<2xf32>, %9: tensor<i64>):
        %10 = "stablehlo.constant"() {value = dense<0x40000000> : tensor<2xf32>} : () -> tensor<2xf32>
        %11 = "stablehlo.multiply"(%7, %10) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
        %12 = "stablehlo.add"(%11, %8) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
        %13 = "stablehlo.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
        %14 = "stablehlo.add"(%9, %13) : (tensor<i64>, tensor<i64>) -> tensor<i64>
        "stablehlo.return"(%12, %8, %14) : (tensor<2xf32>, tensor<2xf32>, tensor<i64>) -> ()
    }) : (tensor<2xf32>, tensor<2xf32>, tensor<i64>) -> (tensor<2xf32>, tensor<2xf32>, tensor<i64>)
    %15:2 = "stablehlo.optimization_barrier"(%1#0, %1#2) : (tensor<2xf32>, tensor<i64>) -> (tensor<2xf32>, tensor<i64>)
    return %15#0, %15#1 : tensor<2xf32>, tensor<i64>
  }
}
