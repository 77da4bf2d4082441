#ifndef TORCH_XLA_CSRC_OPS_CUMULATIVE_OPS_H_
#define TORCH_XLA_CSRC_OPS_CUMULATIVE_OPS_H_

// cumsum and cumprod: an inclusive prefix sum or product along one dim,
// built once for the Python rules (torch_xla/_ops/reductions.py, one
// _XLAC._cumulative call; python/shape_op_bindings.cc).
//
// A log-depth (Hillis-Steele) scan: ceil(log2(n)) steps, each combining the
// value with a copy shifted by 2^k (a pad with negative high padding that
// brings in the identity). O(n log n) work, exact for integers; floats add
// in a balanced tree, which is at least as accurate as a sequential sum.

#include <cstdint>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/op_kind.h"
#include "torch_xla/csrc/ir/shape.h"

namespace torch_xla::ops {

// The prefix sum (kind kAdd) or product (kMultiply) of x along canonical
// `dim`, accumulated in `dtype`'s opmath type and returned in `dtype`. A
// 0-d x is its own prefix (converted).
absl::StatusOr<Value> Cumulative(Value x, int64_t dim, OpKind kind,
                                 DType dtype);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_CUMULATIVE_OPS_H_
