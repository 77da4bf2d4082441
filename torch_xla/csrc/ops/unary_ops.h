#ifndef TORCH_XLA_CSRC_OPS_UNARY_OPS_H_
#define TORCH_XLA_CSRC_OPS_UNARY_OPS_H_

// Unary math (exp, log, sqrt, rsqrt, sin, cos, tanh, sigmoid, neg, the
// opmath functions acos, cosh, ...) and x ** 2. The caller picks the
// compute dtype (eager's: the default float type for integer inputs of a
// math function, the input's own for neg); the builder converts, applies
// the primitive and, for the opmath functions, rounds once from f32.
// Used by the Python rules (torch_xla/_ops/unary_math.py through
// _XLAC._unary, elementwise.py's pow through _XLAC._square) and the C++
// fast rules (python/fast_math_rules.cc).

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/op_kind.h"
#include "torch_xla/csrc/ir/shape.h"

namespace torch_xla::ops {

// kind(x) in `dtype` (x converted first). With `opmath`, bf16/f16 compute
// in f32 and round once to `dtype`, as eager's kernels do (the CHLO
// expansions would otherwise round at every step).
absl::StatusOr<Value> Unary(OpKind kind, Value x, DType dtype, bool opmath);

// aten.pow.Tensor_Scalar(x, 2): x * x in `dtype`.
absl::StatusOr<Value> Square(Value x, DType dtype);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_UNARY_OPS_H_
