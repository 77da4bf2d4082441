#ifndef TORCH_XLA_CSRC_OPS_DIVISION_OPS_H_
#define TORCH_XLA_CSRC_OPS_DIVISION_OPS_H_

// Division with rounding (div's rounding_mode trunc/floor, floor_divide),
// remainder and fmod, as docs/integer_division.md states them: integer
// x // 0, x % 0 and fmod(x, 0) give 0 as eager CUDA does (XLA alone would
// give -1 and x); floats follow eager's CPU kernels (floor division from the
// exact fmod remainder, computed in f32 for bf16/f16 and rounded once;
// trunc division truncates the rounded quotient). Operands have one dtype
// and shape (the caller promotes and broadcasts: python/
// elementwise_bindings.cc's _division, called by torch_xla/_ops/
// elementwise.py).

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla::ops {

// Codes shared with Python (torch_xla/_ops/elementwise.py's _TRUNC, ...).
enum class DivisionOp : int {
  kTruncDivide = 0,  // div(rounding_mode='trunc')
  kFloorDivide = 1,  // div(rounding_mode='floor'), floor_divide
  kRemainder = 2,    // remainder: the divisor's sign (Python's %)
  kFmod = 3,         // fmod: the dividend's sign (C's fmod)
};

// InvalidArgument for a code outside DivisionOp.
absl::StatusOr<DivisionOp> DivisionOpFromCode(int code);

absl::StatusOr<Value> Division(DivisionOp op, Value a, Value b);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_DIVISION_OPS_H_
