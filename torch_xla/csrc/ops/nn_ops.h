#ifndef TORCH_XLA_CSRC_OPS_NN_OPS_H_
#define TORCH_XLA_CSRC_OPS_NN_OPS_H_

// masked_fill and slice_backward: the network ops of a training step that
// are one select / one pad. Used by the Python rules (torch_xla/_ops/
// masked_ops.py, shape_ops.py through _XLAC._masked_fill and
// _slice_backward) and the C++ fast rules (python/fast_nn_rules.cc).

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla::ops {

// `fill` (0-d, converted to x's dtype) where `mask` (pred) is true, else x;
// x and mask broadcast to their common shape (eager's error when they do
// not).
absl::StatusOr<Value> MaskedFill(Value x, Value mask, Value fill);

// aten.slice_backward: `grad` (the gradient of x[start:end:step] along the
// canonical dim `dim`) placed in zeros of shape `sizes`: one pad, interior
// padding for step > 1. start/end are clamped as eager clamps a slice's
// (absent: 0 / the size). InvalidArgument when grad's shape is not that
// slice's.
absl::StatusOr<Value> SliceBackward(Value grad,
                                    const std::vector<int64_t>& sizes,
                                    int64_t dim, std::optional<int64_t> start,
                                    std::optional<int64_t> end, int64_t step);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_NN_OPS_H_
