module @constants {
  func.func public @main() -> (tensor<2x3xf32>, tensor<f32>, tensor<f64>, tensor<2xbf16>, tensor<f16>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<3xi32>, tensor<ui8>, tensor<ui64>, tensor<i64>, tensor<2xi1>, tensor<4x5xi32>) {
    %0 = "stablehlo.constant"() {value = dense<0x3F800000> : tensor<2x3xf32>} : () -> tensor<2x3xf32>
    %1 = "stablehlo.constant"() {value = dense<0x3DCCCCCD> : tensor<f32>} : () -> tensor<f32>
    %2 = "stablehlo.constant"() {value = dense<0x3FB999999999999A> : tensor<f64>} : () -> tensor<f64>
    %3 = "stablehlo.constant"() {value = dense<0x3DCD> : tensor<2xbf16>} : () -> tensor<2xbf16>
    %4 = "stablehlo.constant"() {value = dense<0xFC00> : tensor<f16>} : () -> tensor<f16>
    %5 = "stablehlo.constant"() {value = dense<0x7FC00000> : tensor<f32>} : () -> tensor<f32>
    %6 = "stablehlo.constant"() {value = dense<0x80000000> : tensor<f32>} : () -> tensor<f32>
    %7 = "stablehlo.constant"() {value = dense<0x40400000> : tensor<f32>} : () -> tensor<f32>
    %8 = "stablehlo.constant"() {value = dense<-7> : tensor<3xi32>} : () -> tensor<3xi32>
    %9 = "stablehlo.constant"() {value = dense<255> : tensor<ui8>} : () -> tensor<ui8>
    %10 = "stablehlo.constant"() {value = dense<18446744073709551615> : tensor<ui64>} : () -> tensor<ui64>
    %11 = "stablehlo.constant"() {value = dense<-9223372036854775808> : tensor<i64>} : () -> tensor<i64>
    %12 = "stablehlo.constant"() {value = dense<true> : tensor<2xi1>} : () -> tensor<2xi1>
    %13 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<4x5xi32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13 : tensor<2x3xf32>, tensor<f32>, tensor<f64>, tensor<2xbf16>, tensor<f16>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<3xi32>, tensor<ui8>, tensor<ui64>, tensor<i64>, tensor<2xi1>, tensor<4x5xi32>
  }
}
