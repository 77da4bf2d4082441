#ifndef TORCH_XLA_CSRC_IR_SHAPE_UTIL_H_
#define TORCH_XLA_CSRC_IR_SHAPE_UTIL_H_

// Eager PyTorch's shape arithmetic, written once: size inference for view,
// contiguous and view strides, slice bound clamping and broadcasting. Pure
// functions on dimension vectors (no IR, no torch). The C++ fast rules use
// them and Python (torch_xla/_ops) calls them through _XLAC, so both paths
// agree by construction. Errors carry eager's message text, the code
// InvalidArgument and eager's class, RuntimeError (ir/error_class.h), which
// the bindings raise: user code catches what eager raises.

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace torch_xla {

// `size` with its one -1 resolved so that it holds `numel` elements.
absl::StatusOr<std::vector<int64_t>> InferSize(std::vector<int64_t> size, int64_t numel);

// Eager's strides for a contiguous tensor (a size-0 dim counts as 1).
std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& dims);

// Eager's strides for viewing (dims, strides) as `new_dims`, or contiguous
// strides where eager could not view it without a copy.
std::vector<int64_t> ViewStrides(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides, const std::vector<int64_t>& new_dims);

// Eager's clamping of slice bounds on a dim of `size`: absent start is 0,
// absent end is `size`, negatives count from the end, then both are clamped
// into [0, size] with end >= start. Returns (start, end).
std::pair<int64_t, int64_t> ClampSlice(int64_t size,
                                       std::optional<int64_t> start,
                                       std::optional<int64_t> end);

// Numpy broadcasting of several shapes (trailing dims align).
absl::StatusOr<std::vector<int64_t>> BroadcastDims(const std::vector<const std::vector<int64_t>*>& shapes);

// OK when `from` broadcasts to `to` (trailing dims align; a dim matches or
// is 1).
absl::Status CheckBroadcastsTo(const std::vector<int64_t>& from, const std::vector<int64_t>& to);

int64_t NumElements(const std::vector<int64_t>& dims);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_IR_SHAPE_UTIL_H_
