#ifndef TORCH_XLA_CSRC_OPS_ONE_HOT_OPS_H_
#define TORCH_XLA_CSRC_OPS_ONE_HOT_OPS_H_

// aten.one_hot's encoding, built in one piece so the Python rule
// (torch_xla/_ops/one_hot.py, which infers num_classes and checks the
// values as eager does) crosses into C++ once: x's values compared with an
// iota of the classes along a new last dim.

#include <cstdint>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla::ops {

// x (integer, values in [0, num_classes): the caller checks) -> s64
// [*x's shape, num_classes], 1 where the class is x's value, else 0.
absl::StatusOr<Value> OneHot(Value x, int64_t num_classes);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_ONE_HOT_OPS_H_
