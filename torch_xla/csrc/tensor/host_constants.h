#ifndef TORCH_XLA_CSRC_TENSOR_HOST_CONSTANTS_H_
#define TORCH_XLA_CSRC_TENSOR_HOST_CONSTANTS_H_

// Host scalars and fills as constants. In the main graph they are
// parameters, so a new value never recompiles; a staged-out loop body is
// compiled for the values it was traced with, and there they become
// literals, so that running the loop uploads nothing per execution.

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla {

// The roots with every scalar or fill host-data leaf replaced by a constant
// of the same shape and value. Host data with distinct elements (and u64
// values beyond int64, which constants cannot hold) stay leaves.
absl::StatusOr<std::vector<Value>> InlineHostData(
    absl::Span<const Value> roots);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_TENSOR_HOST_CONSTANTS_H_
