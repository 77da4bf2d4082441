#ifndef TORCH_XLA_CSRC_TENSOR_VIEW_OPS_H_
#define TORCH_XLA_CSRC_TENSOR_VIEW_OPS_H_

// The ATen view ops, each written once: its argument checks (eager's error
// text and class), its output shape, eager's strides and storage offset,
// and its view step (tensor/views.h). The C++ fast rules
// (python/fast_view_rules.cc) and the Python rules (torch_xla/_ops/views.py,
// through one _XLAC binding per op, python/view_info.cc) both call these,
// so the two paths cannot disagree.
//
// An op takes its operand as a ViewedTensor (re-derived first when its root
// moved) and returns new tensors; it changes no tensor. A result that is a
// view has a handle of its own (even where the step is the identity) and a
// ViewInfo one step longer than the operand's. Bad arguments fail with the
// status eager's exception becomes (IndexError: OutOfRange; RuntimeError:
// ir/error_class.h's EagerRuntimeError).

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "torch_xla/csrc/tensor/views.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla {

// A tensor as view ops see it: its handle and, for a view, its view info
// (null for a root, which is contiguous with storage offset 0).
struct ViewedTensor {
  XlaTensorPtr handle;
  ViewInfoPtr view;
};

namespace view_ops {

// `dim` in [-rank, rank) (a rank-0 tensor takes 0 and -1) made
// non-negative; else eager's IndexError "Dimension out of range ...".
absl::StatusOr<int64_t> WrapDim(int64_t dim, int64_t rank);

// `index` in [-size, size) along dim `dim` of `dims` made non-negative; else
// eager's IndexError "<op_name>: index ... out of range ...".
absl::StatusOr<int64_t> WrapIndex(const std::vector<int64_t>& dims,
                                  int64_t dim, int64_t index,
                                  absl::string_view op_name);

// The operand's up-to-date handle (a view re-derives if its root moved).
absl::StatusOr<XlaTensorPtr> Current(const ViewedTensor& x);

// Eager's strides and storage offset of the operand.
std::vector<int64_t> StridesOf(const ViewedTensor& x);
int64_t StorageOffsetOf(const ViewedTensor& x);

// aten.view(self, size) and aten._reshape_alias: `size` may hold one -1.
absl::StatusOr<ViewedTensor> View(const ViewedTensor& x,
                                  std::vector<int64_t> size);
// aten._unsafe_view(self, size): a reshape that is no view (eager's input
// is a fresh copy).
absl::StatusOr<XlaTensorPtr> UnsafeView(const ViewedTensor& x,
                                        std::vector<int64_t> size);
absl::StatusOr<ViewedTensor> Unsqueeze(const ViewedTensor& x, int64_t dim);
// aten.squeeze: `dims` absent squeezes every size-1 dim (squeeze.default);
// else those of `dims` that have size 1 (squeeze.dim, squeeze.dims).
absl::StatusOr<ViewedTensor> Squeeze(
    const ViewedTensor& x, const std::optional<std::vector<int64_t>>& dims);
absl::StatusOr<ViewedTensor> T(const ViewedTensor& x);
absl::StatusOr<ViewedTensor> Transpose(const ViewedTensor& x, int64_t dim0,
                                       int64_t dim1);
absl::StatusOr<ViewedTensor> Permute(const ViewedTensor& x,
                                     const std::vector<int64_t>& dims);
// aten.expand(self, size): -1 keeps a dim; new leading dims are allowed.
absl::StatusOr<ViewedTensor> Expand(const ViewedTensor& x,
                                    const std::vector<int64_t>& size);
// aten.slice.Tensor: bounds clamped as eager (absent: the whole dim).
absl::StatusOr<ViewedTensor> Slice(const ViewedTensor& x, int64_t dim,
                                   std::optional<int64_t> start,
                                   std::optional<int64_t> end, int64_t step);
absl::StatusOr<ViewedTensor> Select(const ViewedTensor& x, int64_t dim,
                                    int64_t index);
// aten.split.Tensor: pieces of `split_size` along `dim` (the last shorter).
absl::StatusOr<std::vector<ViewedTensor>> Split(const ViewedTensor& x,
                                                int64_t split_size,
                                                int64_t dim);
absl::StatusOr<std::vector<ViewedTensor>> SplitWithSizes(
    const ViewedTensor& x, const std::vector<int64_t>& split_sizes,
    int64_t dim);
absl::StatusOr<std::vector<ViewedTensor>> Unbind(const ViewedTensor& x,
                                                 int64_t dim);

// The views that address the root's storage (their steps:
// tensor/storage_views.h).
// The dims of a diagonal of a rank-`rank` tensor (aten.diagonal and
// diagonal_scatter) made non-negative, with eager's errors: out of range,
// or the same dim twice.
absl::StatusOr<std::pair<int64_t, int64_t>> DiagonalDims(int64_t rank,
                                                         int64_t dim1,
                                                         int64_t dim2);
// aten.diagonal.
absl::StatusOr<ViewedTensor> Diagonal(const ViewedTensor& x, int64_t offset,
                                      int64_t dim1, int64_t dim2);
// aten.as_strided: the root's storage at `storage_offset` (absent: x's)
// with `size` and `stride`; eager's checks against the root's storage.
absl::StatusOr<ViewedTensor> AsStrided(const ViewedTensor& x,
                                       std::vector<int64_t> size,
                                       std::vector<int64_t> stride,
                                       std::optional<int64_t> storage_offset);
// aten.view.dtype: x's bytes as `dtype` (x's own dtype: an alias); a dtype
// of another size scales the last dim, with eager's checks of x's strides.
absl::StatusOr<ViewedTensor> ViewDtype(const ViewedTensor& x, DType dtype);

}  // namespace view_ops
}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_TENSOR_VIEW_OPS_H_
