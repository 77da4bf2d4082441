#ifndef TORCH_XLA_CSRC_OPS_EMBEDDING_OPS_H_
#define TORCH_XLA_CSRC_OPS_EMBEDDING_OPS_H_

// aten.embedding_renorm_'s new weight, built in one piece so the Python
// rule (torch_xla/_ops/embedding.py) crosses into C++ once: the rows of
// the table that an index names and whose norm exceeds max_norm are scaled
// down to it (eager's factor max_norm / (norm + 1e-7)); other rows keep
// their values. bf16/f16 tables are computed in f32 (eager's opmath) and
// rounded once. The lookup and its gradient are in index_ops.h.

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla::ops {

// weight [rows, dim] (floating), indices integer of any shape (in range:
// the caller checks), `norm_type` the p of each row's vector norm
// (reduction_ops.h VectorNorm; `p` and `inv_p` its scalar values, null for
// the orders that need none), `max_norm` a 0-d scalar value in
// OpMathType(weight's dtype). Returns the renormalized table in weight's
// dtype.
absl::StatusOr<Value> EmbeddingRenorm(Value weight, Value indices,
                                      double norm_type, Value max_norm,
                                      Value p, Value inv_p);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_EMBEDDING_OPS_H_
