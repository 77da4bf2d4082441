#ifndef TORCH_XLA_CSRC_OPS_DISTANCE_OPS_H_
#define TORCH_XLA_CSRC_OPS_DISTANCE_OPS_H_

// pdist: the p-norm distance of every pair of rows i < j of x [n, m], in
// row-major pair order, and its gradient. The pairs' rows are gathered by
// two index tables `rows`, `cols` (s64 [P], P = n (n - 1) / 2, the caller's
// host constants), so the work and memory are O(P m), not the O(n^2 m) of a
// full cdist. Norms accumulate in OpMathType (f32 for bf16/f16) and round
// once. Eager's cases: p = 0 counts the non-zero differences, p = inf is
// the largest |difference|, 1 and 2 are sums of |d| and d^2 (the latter's
// square root), any other p is (sum |d|^p)^(1/p). The caller
// (torch_xla/_ops/distances.py through _XLAC._pdist / _pdist_backward)
// checks ranks, dtypes and p with eager's errors.

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla::ops {

// [P] distances in x's dtype.
absl::StatusOr<Value> Pdist(Value x, double p, Value rows, Value cols);

// d/dx of sum(grad * pdist): each pair's norm gradient (eager's: 0 where a
// distance is 0, sign(d) for p = 1, d / dist for 2, sign(d) where |d| is the
// max for inf, sign(d) |d|^(p-1) / dist^(p-1) otherwise; 0 for p = 0) added
// to row i and subtracted from row j. `pdist` is the forward's result.
absl::StatusOr<Value> PdistBackward(Value grad, Value x, double p,
                                    Value pdist, Value rows, Value cols);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_DISTANCE_OPS_H_
