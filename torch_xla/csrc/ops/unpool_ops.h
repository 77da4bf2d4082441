#ifndef TORCH_XLA_CSRC_OPS_UNPOOL_OPS_H_
#define TORCH_XLA_CSRC_OPS_UNPOOL_OPS_H_

// max_unpool{2,3}d: the inverse of max pooling with indices. Each input
// plane's values are written into a zero plane of `output_size` at the flat
// positions its indices name (one scatter along the flattened plane, as
// eager's kernel writes; of two equal indices one value wins). Index values
// outside the plane are the caller's to check (XLA's scatter skips them).
// The caller (torch_xla/_ops/unpooling.py through _XLAC._max_unpool)
// checks the arguments and raises eager's errors.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla::ops {

// x and indices (s64) of one shape [..., *spatial] with
// output_size.size() spatial dims; the result is [..., *output_size] of
// x's dtype.
absl::StatusOr<Value> MaxUnpool(Value x, Value indices,
                                const std::vector<int64_t>& output_size);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_UNPOOL_OPS_H_
