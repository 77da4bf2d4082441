#ifndef TORCH_XLA_CSRC_IR_VALUE_BUILDERS_H_
#define TORCH_XLA_CSRC_IR_VALUE_BUILDERS_H_

// Value-level builders shared by the tensor layer (views) and the C++ fast
// rules: the same nodes the Python rules build through torch_xla/_ir.py, so
// a graph hashes the same whichever path traced it. Each returns its input
// itself (no node) when the op would be the identity, as _ir.py does.
// Failures are statuses from MakeNode (ir/builder.h).

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/op_kind.h"
#include "torch_xla/csrc/ir/shape.h"

namespace torch_xla {

absl::StatusOr<Value> MakeReshape(Value x, const std::vector<int64_t>& dims);
absl::StatusOr<Value> MakeTranspose(Value x,
                                    const std::vector<int64_t>& permutation);
absl::StatusOr<Value> MakeConvert(Value x, DType dtype);
// numpy broadcasting of `x` to `dims` (x's rank <= dims' rank).
absl::StatusOr<Value> MakeBroadcastTo(Value x,
                                      const std::vector<int64_t>& dims);

// A literal of `dtype` splatted to `dims`, as _ir.py's constant builds it:
// integer types take `value` truncated toward zero (NaN -> 0, saturating at
// the int64 range), bool takes value != 0.
absl::StatusOr<Value> MakeLiteral(double value, DType dtype,
                                  const std::vector<int64_t>& dims);

// Reduction over `dims` (kind: sum, max, or, ...); with `keep_dims` the
// reduced dims stay as size 1.
absl::StatusOr<Value> MakeReduce(Value x, const std::vector<int64_t>& dims,
                                 const char* kind, bool keep_dims);

// x[..., start:end, ...] along `dim` (unit stride).
absl::StatusOr<Value> MakeSliceDim(Value x, int64_t dim, int64_t start,
                                   int64_t end);
// `base` with that slice replaced by `update`.
absl::StatusOr<Value> MakeUpdateSliceDim(Value base, Value update, int64_t dim,
                                         int64_t start);

// Eager's broadcasting of shapes. Shapes that do not broadcast fail with
// eager's message, raised as RuntimeError like eager (ir/error_class.h).
absl::StatusOr<std::vector<int64_t>> InferBroadcastDims(
    const std::vector<const Shape*>& shapes);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_IR_VALUE_BUILDERS_H_
