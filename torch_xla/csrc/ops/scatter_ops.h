#ifndef TORCH_XLA_CSRC_OPS_SCATTER_OPS_H_
#define TORCH_XLA_CSRC_OPS_SCATTER_OPS_H_

// Gathers and scatters along one dim, one XLA gather or scatter each:
// gather / scatter / scatter_add / scatter_reduce (one index per element),
// index_select / index_copy / index_add / index_fill (one index per
// slice), take / put (flat indices), x[mask] = v and masked_scatter for a mask whose count the values do not depend
// on (a select). The callers (torch_xla/_ops/gather_scatter.py,
// index_along_dim.py, advanced_indexing.py through one _XLAC call each,
// python/index_bindings.cc) check dtypes, shapes and host-known index
// values and raise eager's errors; `dim` is canonical (0 for a 0-d x).
// Index values out of range are the callers' to check (XLA's gather
// clamps them, its scatter skips them).

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla::ops {

// aten.gather: x's element at index's value along `dim` and at the same
// position along the other dims, for each element of the integer `index`
// (of x's rank, or rank <= 1 for a 0-d or 1-d x). An empty index gives
// zeros of its shape.
absl::StatusOr<Value> GatherAlongDim(Value x, int64_t dim, Value index);

// aten.scatter / scatter_add: x with the elements of `src` written
// (`add` false; of duplicate indices one wins) or added (`add`; bool adds
// as a logical or) at index's values along `dim`. `src` is a tensor of
// x's dtype and rank, at least index's size in each dim (its leading
// block is used), or with `broadcast_src` a 0-d value of x's dtype used
// for every element. An empty index gives x itself.
absl::StatusOr<Value> ScatterAlongDim(Value x, int64_t dim, Value index,
                                      Value src, bool broadcast_src,
                                      bool add);

// aten.scatter_reduce with reduce 'sum' (`mean` false) or 'mean' (floating
// x): positions no index reaches keep x's value; without `include_self`
// x's own value does not take part where an index reaches.
absl::StatusOr<Value> ScatterReduce(Value x, int64_t dim, Value index,
                                    Value src, bool mean, bool include_self);

// aten.index_select: the slices of x along `dim` at the 1-element-or-
// vector integer `index`; a 0-d x is returned as it is (index [0]).
absl::StatusOr<Value> IndexSelect(Value x, int64_t dim, Value index);

// aten.index_copy: x with the slices of `source` (x's shape with `dim`'s
// size the index's length) written at index's values along `dim`.
absl::StatusOr<Value> IndexCopy(Value x, int64_t dim, Value index,
                                Value source);

// aten.index_add: as IndexCopy, added (times `alpha`, a scalar of x's dtype,
// or a null Value for 1); bool adds as a logical or.
absl::StatusOr<Value> IndexAdd(Value x, int64_t dim, Value index,
                               Value source, Value alpha);

// aten.index_fill: x with the 0-d `value` (converted to x's dtype) at
// index's values along `dim`; negative indices wrap.
absl::StatusOr<Value> IndexFill(Value x, int64_t dim, Value index,
                                Value value);

// aten.take: x's elements at the flat integer `index` (into x.reshape(-1);
// negative ones wrap), in index's shape; an empty index gives zeros.
absl::StatusOr<Value> Take(Value x, Value index);

// aten.put: x with the elements of `source` (index's element count, x's
// dtype) written (`accumulate`: added; bool: or) at the flat integer
// `index` (negative ones wrap); an empty index gives x itself.
absl::StatusOr<Value> Put(Value x, Value index, Value source,
                          bool accumulate);

// x[..., mask, ...] = values (accumulate: +=) where the boolean (or uint8)
// `mask` covers x's dims [mask_at, mask_at + mask rank) and `values`
// broadcasts to x's shape with the selected count as one dim of size 1
// (eager's RuntimeError when it does not): a select.
absl::StatusOr<Value> MaskedIndexPut(Value x, int64_t mask_at, Value mask,
                                     Value values, bool accumulate);

// aten.masked_scatter: x broadcast to `shape`, with the elements of the
// 1-d-able `source` (x's dtype), in order, at the true positions of the
// bool `mask` (broadcast to `shape`). `too_many` is the pred 0-d check that
// mask holds more trues than source has elements (eager's RuntimeError; a
// null Value when mask is empty). Past source's last element the gather
// clamps; the check reports it.
struct MaskedScatterResult {
  Value out;
  Value too_many;
};
absl::StatusOr<MaskedScatterResult> MaskedScatter(
    Value x, Value mask, Value source, const std::vector<int64_t>& shape);

// aten.masked_scatter_backward: source's gradient, of `sizes`: grad at
// mask's true positions, in order, then zeros.
absl::StatusOr<Value> MaskedScatterBackward(Value grad, Value mask,
                                            const std::vector<int64_t>& sizes);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_SCATTER_OPS_H_
