#ifndef TORCH_XLA_CSRC_OPS_ORDER_OPS_H_
#define TORCH_XLA_CSRC_OPS_ORDER_OPS_H_

// Order statistics from one IR sort: sort/argsort, topk, kthvalue,
// median and nanmedian. The sort is of (x, iota) along the dim, stable (equal elements
// keep index order), in PyTorch's float order (NaN largest, -0.0 equal to
// 0.0); O(n) memory and O(n log n) work per row, top-k is the sort and a
// slice (StableHLO has no top-k). Indices are s64 positions along the dim.
//
// Callers (torch_xla/_ops/reductions.py and order_stats.py through
// _XLAC._sort and _order_statistic, one call per op; random ops reuse
// SortAlong) normalize `dim` and raise eager's errors for bad k, bool
// inputs and empty dims; the builders return InvalidArgument for what they
// cannot take.

#include <cstdint>
#include <utility>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla::ops {

// (values, s64 indices) of `x` (rank >= 1) sorted along the canonical `dim`.
absl::StatusOr<std::pair<Value, Value>> SortAlong(Value x, int64_t dim,
                                                  bool descending);

// The first `k` of x sorted along `dim` (sort: k = the dim's size; topk:
// descending for the largest). A 0-d x gives {x, 0}, for any k (eager).
absl::StatusOr<std::pair<Value, Value>> SortFirst(Value x, int64_t dim,
                                                  int64_t k, bool descending);

// kthvalue: the k-th smallest (1-based) along `dim` and its index; the dim
// kept as size 1 with `keepdim`. A 0-d x is taken as [1].
absl::StatusOr<std::pair<Value, Value>> KthValue(Value x, int64_t k,
                                                 int64_t dim, bool keepdim);

// median.dim: the lower middle ((n - 1) // 2) of each sorted row, or, in a
// float row holding NaN, its first NaN (eager propagates NaN), and its index.
// A 0-d x gives {x, 0}.
absl::StatusOr<std::pair<Value, Value>> Median(Value x, int64_t dim,
                                               bool keepdim);

// nanmedian.dim: the median of each row's non-NaN elements (the lower
// middle of the k of them, sorted first); a row of NaN only gives NaN at
// position (n - 1) // 2 of the sorted row, as eager. A 0-d x gives {x, 0};
// non-float x is Median.
absl::StatusOr<std::pair<Value, Value>> NanMedian(Value x, int64_t dim,
                                                  bool keepdim);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_ORDER_OPS_H_
