#ifndef TORCH_XLA_CSRC_OPS_LOGICAL_OPS_H_
#define TORCH_XLA_CSRC_OPS_LOGICAL_OPS_H_

// logical_and/or/xor/not: each operand's truth value (x != 0 in its own
// dtype; a bool operand as it is), combined into a bool result whatever the
// operands' dtypes, as eager. Used by the Python rules (torch_xla/_ops/
// elementwise.py, unary_math.py) through _XLAC._logical.

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/op_kind.h"

namespace torch_xla::ops {

// x != 0 as pred (x itself when it is pred).
absl::StatusOr<Value> Truth(Value x);

// kind (kAnd, kOr, kXor) of the truth values of `a` and `b`, broadcast to
// their common shape (eager's RuntimeError when they do not broadcast).
absl::StatusOr<Value> Logical(OpKind kind, Value a, Value b);

// not(Truth(x)).
absl::StatusOr<Value> LogicalNot(Value x);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_LOGICAL_OPS_H_
