module @sort {
  func.func public @main(%arg0: tensor<4x5xf32>, %arg1: tensor<6xi32>, %arg2: tensor<6xbf16>, %arg3: tensor<6xi1>) -> (tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xi32>, tensor<6xi1>, tensor<6xi1>) {
    %0 = "stablehlo.sort"(%arg0) ({
      ^bb0(%1: tensor<f32>, %2: tensor<f32>):
        %3 = "stablehlo.compare"(%1, %2) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
        %4 = "stablehlo.compare"(%1, %1) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
        %5 = "stablehlo.compare"(%2, %2) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
        %6 = "stablehlo.not"(%4) : (tensor<i1>) -> tensor<i1>
        %7 = "stablehlo.and"(%5, %6) : (tensor<i1>, tensor<i1>) -> tensor<i1>
        %8 = "stablehlo.or"(%3, %7) : (tensor<i1>, tensor<i1>) -> tensor<i1>
        "stablehlo.return"(%8) : (tensor<i1>) -> ()
    }) {dimension = 1 : i64, is_stable = true} : (tensor<4x5xf32>) -> tensor<4x5xf32>
    %9 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<4x5xi32>
    %10:2 = "stablehlo.sort"(%arg0, %9) ({
      ^bb0(%11: tensor<f32>, %12: tensor<f32>, %13: tensor<i32>, %14: tensor<i32>):
        %15 = "stablehlo.compare"(%11, %12) {comparison_direction = #stablehlo<comparison_direction GT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
        %16 = "stablehlo.compare"(%11, %11) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
        %17 = "stablehlo.compare"(%12, %12) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
        %18 = "stablehlo.not"(%17) : (tensor<i1>) -> tensor<i1>
        %19 = "stablehlo.and"(%16, %18) : (tensor<i1>, tensor<i1>) -> tensor<i1>
        %20 = "stablehlo.or"(%15, %19) : (tensor<i1>, tensor<i1>) -> tensor<i1>
        "stablehlo.return"(%20) : (tensor<i1>) -> ()
    }) {dimension = 0 : i64, is_stable = true} : (tensor<4x5xf32>, tensor<4x5xi32>) -> (tensor<4x5xf32>, tensor<4x5xi32>)
    %21:3 = "stablehlo.sort"(%arg1, %arg2, %arg3) ({
      ^bb0(%22: tensor<i32>, %23: tensor<i32>, %24: tensor<bf16>, %25: tensor<bf16>, %26: tensor<i1>, %27: tensor<i1>):
        %28 = "stablehlo.compare"(%24, %25) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
        %29 = "stablehlo.compare"(%24, %24) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
        %30 = "stablehlo.compare"(%25, %25) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
        %31 = "stablehlo.not"(%29) : (tensor<i1>) -> tensor<i1>
        %32 = "stablehlo.and"(%30, %31) : (tensor<i1>, tensor<i1>) -> tensor<i1>
        %33 = "stablehlo.or"(%28, %32) : (tensor<i1>, tensor<i1>) -> tensor<i1>
        %34 = "stablehlo.compare"(%22, %23) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %35 = "stablehlo.compare"(%22, %23) {comparison_direction = #stablehlo<comparison_direction EQ>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %36 = "stablehlo.and"(%35, %33) : (tensor<i1>, tensor<i1>) -> tensor<i1>
        %37 = "stablehlo.or"(%34, %36) : (tensor<i1>, tensor<i1>) -> tensor<i1>
        "stablehlo.return"(%37) : (tensor<i1>) -> ()
    }) {dimension = 0 : i64, is_stable = false} : (tensor<6xi32>, tensor<6xbf16>, tensor<6xi1>) -> (tensor<6xi32>, tensor<6xbf16>, tensor<6xi1>)
    %38 = "stablehlo.sort"(%arg3) ({
      ^bb0(%39: tensor<i1>, %40: tensor<i1>):
        %41 = "stablehlo.compare"(%39, %40) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type UNSIGNED>} : (tensor<i1>, tensor<i1>) -> tensor<i1>
        "stablehlo.return"(%41) : (tensor<i1>) -> ()
    }) {dimension = 0 : i64, is_stable = true} : (tensor<6xi1>) -> tensor<6xi1>
    return %0, %10#0, %10#1, %21#2, %38 : tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xi32>, tensor<6xi1>, tensor<6xi1>
  }
}
