#ifndef TORCH_XLA_CSRC_IR_FLOAT_BITS_H_
#define TORCH_XLA_CSRC_IR_FLOAT_BITS_H_

// Exact encodings of numbers in the floating element types, rounded once
// (to nearest, ties to even). Shared by constants in the lowering and by
// host scalars, so a number means the same bits wherever it enters a graph.

#include <cstdint>

#include "torch_xla/csrc/ir/shape.h"

namespace torch_xla {

// IEEE bit pattern of `value` rounded to a floating element type: f64, f32,
// f16 or bf16. Overflow gives infinity, NaN a quiet NaN.
uint64_t FloatBits(double value, DType dtype);

// Same for an integer, rounded once even beyond 2^53 (where going through a
// double would round twice).
uint64_t FloatBitsOfInt(int64_t value, DType dtype);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_IR_FLOAT_BITS_H_
