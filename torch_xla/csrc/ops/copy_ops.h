#ifndef TORCH_XLA_CSRC_OPS_COPY_OPS_H_
#define TORCH_XLA_CSRC_OPS_COPY_OPS_H_

// Copies into an existing tensor's shape and dtype: copy_ (a value cast and
// broadcast to the destination) and fill_ with a 0-dim tensor. The Python
// rules (torch_xla/_ops/copy_ops.py) make one _XLAC call (python/
// shape_op_bindings.cc: _copy_, _fill_) that builds the value here and
// commits it into the destination (views written back). Fills with a
// number need no IR: they are host data (tensor/device_data.h).

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/shape.h"

namespace torch_xla::ops {

// aten.copy_'s value: `src` converted to dst's dtype (any cast, as eager's
// copy_) and broadcast to dst's dims (eager's RuntimeError when it does
// not broadcast).
absl::StatusOr<Value> CopyValue(Value src, const Shape& dst);

// aten.fill_.Tensor's value: the one element of `value` (rank 0) in
// `shape`'s dtype, splatted to its dims.
absl::StatusOr<Value> FillValue(Value value, const Shape& shape);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_COPY_OPS_H_
