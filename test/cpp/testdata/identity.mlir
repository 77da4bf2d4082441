module @identity {
  func.func public @main(%arg0: tensor<3xbf16>) -> (tensor<3xbf16>, tensor<3xbf16>) {
    return %arg0, %arg0 : tensor<3xbf16>, tensor<3xbf16>
  }
}
