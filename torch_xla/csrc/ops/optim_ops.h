#ifndef TORCH_XLA_CSRC_OPS_OPTIM_OPS_H_
#define TORCH_XLA_CSRC_OPS_OPTIM_OPS_H_

// The optimizers' elementwise updates, lerp and addcmul/addcdiv, with
// eager's formulas evaluated in opmath (f32 for bf16/f16) and rounded once
// to the result dtype. Operands are values of any dtype (converted here)
// that broadcast to one shape (eager's error when they do not); Python
// numbers arrive as 0-d scalar parameters of the opmath type. Used by the
// Python rules (torch_xla/_ops/optim_ops.py through _XLAC._lerp and
// _XLAC._addc) and the C++ fast rules of lerp_/addcmul_/addcdiv_.

#include <optional>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/op_kind.h"
#include "torch_xla/csrc/ir/shape.h"

namespace torch_xla::ops {

// lerp(self, end, weight) in `dtype`: self + w (end - self) where |w| <
// 0.5, else end - (end - self)(1 - w), as eager. With `scalar_weight` (a
// Python number: `weight` is its parameter) the branch is taken here;
// otherwise (a weight tensor) it is a select per element.
absl::StatusOr<Value> Lerp(Value self, Value end, Value weight,
                           std::optional<double> scalar_weight, DType dtype);

// addcmul (kind kMultiply) / addcdiv (kDivide) in `dtype`:
// self + value * t1 (* or /) t2, left to right. `value` is null for the
// default 1 (no multiplication).
absl::StatusOr<Value> Addc(OpKind kind, Value self, Value t1, Value t2,
                           Value value, DType dtype);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_OPTIM_OPS_H_
