#ifndef TORCH_XLA_CSRC_OPS_INDEX_REDUCE_OPS_H_
#define TORCH_XLA_CSRC_OPS_INDEX_REDUCE_OPS_H_

// aten.index_reduce: prod, mean, amax or amin of the source slices into
// x's slices along one dim, built once for the Python rule
// (torch_xla/_ops/index_along_dim.py, one _XLAC._index_reduce call;
// python/index_bindings.cc), which checks eager's arguments.
//
// XLA scatter here only adds or replaces, so each slice of x reduces the
// source slices whose index hits it through a dense [size, n] match:
// O(size * n) work per element of the other dims (XLA fuses the broadcasts
// into the reduce), so long index vectors are slow.

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla::ops {

// x with each slice along the canonical `dim` reduced (`reduce`: "prod",
// "mean", "amax", "amin") with the slices of `source` (x's dtype; `dim`'s
// size the index's length) whose integer `index` value names it, x's own
// slice taking part with `include_self`. Slices no index reaches keep x's;
// max/min propagate NaN; an integer mean floors, as eager's; bool works
// through 0/1 bytes (prod and amin are and, amax is or).
absl::StatusOr<Value> IndexReduce(Value x, int64_t dim, Value index,
                                  Value source, absl::string_view reduce,
                                  bool include_self);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_INDEX_REDUCE_OPS_H_
