#ifndef TORCH_XLA_CSRC_OPS_SELECT_OPS_H_
#define TORCH_XLA_CSRC_OPS_SELECT_OPS_H_

// where and clamp: one select, or one max/min pair, over operands broadcast
// to their common shape (eager's RuntimeError when they do not broadcast).
// The caller picks the result dtype with eager's promotion and checks
// number operands against it (python/elementwise_bindings.cc's _where and
// _clamp, called by torch_xla/_ops/elementwise.py and clamp.py).

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/shape.h"

namespace torch_xla::ops {

// where(cond, a, b): `cond` (bool or uint8, converted to pred) picks a,
// else b, both converted to `dtype`.
absl::StatusOr<Value> Where(Value cond, Value a, Value b, DType dtype);

// min(max(x, low), high) in `dtype` (all converted); `low` or `high` may be
// null (no bound). NaN in x stays NaN.
absl::StatusOr<Value> Clamp(Value x, Value low, Value high, DType dtype);

// heaviside(x, values): 0 where x < 0 (and NaN), `values` where x == 0, 1
// where x > 0; x and values (one dtype: the caller refuses two, as eager)
// broadcast to one shape.
absl::StatusOr<Value> Heaviside(Value x, Value values);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_SELECT_OPS_H_
