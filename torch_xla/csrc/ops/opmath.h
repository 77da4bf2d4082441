#ifndef TORCH_XLA_CSRC_OPS_OPMATH_H_
#define TORCH_XLA_CSRC_OPS_OPMATH_H_

// Eager PyTorch's "opmath" type: the element type its CPU kernels compute
// bf16/f16 in (f32, rounded once at the end). Every builder in ops/ that
// accumulates (dots, sums, softmax, the optimizer updates) uses it.

#include "torch_xla/csrc/ir/shape.h"

namespace torch_xla::ops {

// f32 for bf16/f16, else `dtype` itself.
inline DType OpMathType(DType dtype) {
  return dtype == DType::kBF16 || dtype == DType::kF16 ? DType::kF32 : dtype;
}

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_OPMATH_H_
