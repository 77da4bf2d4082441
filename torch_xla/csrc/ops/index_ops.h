#ifndef TORCH_XLA_CSRC_OPS_INDEX_OPS_H_
#define TORCH_XLA_CSRC_OPS_INDEX_OPS_H_

// Embedding lookups and their gradient, as one gather / one scatter-add of
// rows, advanced indexing (x[idx], x[idx] = v) as one gather / scatter,
// and the predicate of a device-side index check. The callers
// (torch_xla/_ops/embedding.py, advanced_indexing.py, index_util.py
// through _XLAC._embedding, _embedding_backward, _index, _index_put and
// _index_out_of_range) check dtypes and host-known
// index values and raise eager's errors.

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla::ops {

// weight[indices]: weight [rows, dim], integer indices of any shape ->
// indices' shape + [dim]. XLA's gather clamps an index out of range (the
// callers check them).
absl::StatusOr<Value> Embedding(Value weight, Value indices);

// aten.embedding_dense_backward: the rows of grad ([*indices' shape, dim])
// summed into zeros [num_weights, dim] at their indices; rows whose index
// equals `padding_idx` (an s64 0-d value, or null for none) add nothing;
// with `scale_grad_by_freq` each row is divided by its index's count.
absl::StatusOr<Value> EmbeddingBackward(Value grad, Value indices,
                                        int64_t num_weights, Value padding_idx,
                                        bool scale_grad_by_freq);

// x[indices] for integer index tensors (aten.index.Tensor): `indices` has
// one entry per leading dim of x, a null Value for ':'. The indices
// broadcast to one batch shape B; negative ones wrap as in Python. The
// result is x's dims with the indexed ones replaced by B, at the first
// indexed dim when they are adjacent, else in front (numpy's rule). One
// gather; out-of-range indices are the callers' to check.
absl::StatusOr<Value> AdvancedIndex(Value x, const std::vector<Value>& indices);

// x[indices] = values (accumulate: +=; or for bool) for the same integer
// indices, as one scatter (a later duplicate index wins for replace);
// with no index tensor, values broadcast to x's shape. `values` (x's
// dtype) broadcast to the indexing result (eager's RuntimeError when they
// do not). Returns x's new value.
absl::StatusOr<Value> AdvancedIndexPut(Value x,
                                       const std::vector<Value>& indices,
                                       Value values, bool accumulate);

// A pred 0-d value: true when some element of the integer `index` is
// outside [low, size), not counting elements equal to `exempt`.
absl::StatusOr<Value> IndexOutOfRange(Value index, int64_t low, int64_t size,
                                      std::optional<int64_t> exempt);

// The step's check code after one more check (torch_xla/_device_checks.py):
// `code` (s32 0-d: 0, or the number of the first failed check; a null
// Value for 0) becomes `number` where `bad` (pred 0-d) holds and no
// earlier check failed.
absl::StatusOr<Value> FoldCheck(Value code, Value bad, int64_t number);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_INDEX_OPS_H_
