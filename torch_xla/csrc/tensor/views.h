#ifndef TORCH_XLA_CSRC_TENSOR_VIEWS_H_
#define TORCH_XLA_CSRC_TENSOR_VIEWS_H_

// Views, in-place write-back and aliasing of lazy tensors. A view has its own
// handle (XlaTensor) and a ViewInfo: the root's handle, the root version the
// view last saw, and the chain of steps from the root to the view. A step's
// Forward derives the view's value from its base's; Inverse writes a new
// view value back into the base's value. Reading a view re-derives it when
// its root moved (RefreshView); an in-place update of a view goes back
// through the inverses into the root (CommitView). The root is shared
// (shared_ptr); a ViewInfo owns its steps. The steps built here (reshape,
// permute, slice, select, expand) and in tensor/storage_views.h (diagonal,
// as_strided, view(dtype)) serve the view ops (tensor/view_ops.h).
//
// Functions that run steps change no tensor before every step succeeded, so
// an error leaves the view, its root and the chain as they were.

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "torch_xla/csrc/ir/shape_util.h"  // ContiguousStrides
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla {

// A dense array in host memory (row-major).
struct HostArray {
  std::vector<int64_t> dims;
  int64_t element_size = 0;
  std::vector<uint8_t> bytes;
};

class ViewStep {
 public:
  virtual ~ViewStep() = default;
  // Rearranges `array` (the base's value) into the view's, for steps that
  // only pick and reorder elements (reshape, permute, slice, select,
  // expand); false for the others.
  virtual bool RearrangeOnHost(HostArray* array) const { return false; }
  // The view's value from its base's.
  virtual absl::StatusOr<XlaTensorPtr> Forward(
      const XlaTensorPtr& base) const = 0;
  // The base's new value after the view took the value `view`.
  virtual absl::StatusOr<XlaTensorPtr> Inverse(
      const XlaTensorPtr& base, const XlaTensorPtr& view) const = 0;
};
using ViewStepPtr = std::shared_ptr<const ViewStep>;

// A step's result: `input` itself when `fn` (Value -> StatusOr<Value>)
// returned its value unchanged (a tensor holding data keeps holding it),
// else a new pending tensor.
template <typename Fn>
absl::StatusOr<XlaTensorPtr> ApplyToValue(const XlaTensorPtr& input, Fn fn) {
  absl::StatusOr<Value> value = input->GetIrValue();
  if (!value.ok()) return value.status();
  absl::StatusOr<Value> result = fn(*value);
  if (!result.ok()) return result.status();
  if (*result == *value) return input;
  return XlaTensor::FromIr(*std::move(result), input->device());
}

// Replaces `array` by the elements at `offset + sum(index[d] * steps[d])`
// (in elements) for each index of `dims`: any strided view of a dense
// array (a step's RearrangeOnHost). A shape-only probe (no bytes) gets the
// new dims alone.
void GatherOnHost(HostArray* array, std::vector<int64_t> dims,
                  absl::Span<const int64_t> steps, int64_t offset);

// `base_dims` is the base's shape (the inverse reshapes back to it).
ViewStepPtr ReshapeStep(std::vector<int64_t> dims,
                        std::vector<int64_t> base_dims);
ViewStepPtr PermuteStep(std::vector<int64_t> permutation);
// base[..., start:end:step, ...] along `dim` (bounds already clamped).
ViewStepPtr SliceStep(int64_t dim, int64_t start, int64_t end,
                      int64_t step = 1);
// base[..., index, ...] along `dim` (the dim dropped; index non-negative).
ViewStepPtr SelectStep(int64_t dim, int64_t index);
// `writable`: false when the expansion repeats elements; writing through it
// then fails as in eager (RuntimeError), asking for a clone() first.
ViewStepPtr ExpandStep(std::vector<int64_t> dims,
                       std::vector<int64_t> base_dims, bool writable);

// x[..., start:end:step, ...] along `dim`, and `base` with that slice
// replaced by `update` (the value-level halves of SliceStep; the slicing
// ops that are no views, such as slice_scatter, use them too).
absl::StatusOr<Value> MakeStridedSlice(Value x, int64_t dim, int64_t start,
                                       int64_t end, int64_t step);
absl::StatusOr<Value> MakeUpdateStridedSlice(Value base, Value update,
                                             int64_t dim, int64_t start,
                                             int64_t step);

struct ViewInfo {
  XlaTensorPtr root;
  int64_t seen_version = 0;
  std::vector<ViewStepPtr> chain;
  // The strides and storage offset eager would give the view (metadata
  // PyTorch's composites read); not used to compute values.
  std::vector<int64_t> strides;
  int64_t storage_offset = 0;
};
using ViewInfoPtr = std::shared_ptr<ViewInfo>;

// The view info of a new view of `base` (its handle `base_handle`, and its
// view info `base_view`, or null when `base` is a root) one `step` further.
ViewInfoPtr ExtendView(const XlaTensorPtr& base_handle,
                       const ViewInfoPtr& base_view, ViewStepPtr step,
                       std::vector<int64_t> strides, int64_t storage_offset);

// Reads the value of view `handle` without running a program, when its root
// holds data (it is pending only because the sync re-derives views, or it
// is a fresh view such as a row) and each step of its chain rearranges on the
// host: `read_root` reads the root's bytes and they are picked here. A root
// much larger than the view (over 16 MiB and 4x) is left to a program.
// Returns false (nothing written) otherwise.
absl::StatusOr<bool> ReadViewOnHost(
    const XlaTensor& handle, void* dst, int64_t dst_size,
    const std::function<absl::Status(const XlaTensorPtr&, void*, int64_t)>&
        read_root);

// Re-derives `handle` (the view's own handle) from the root if the root
// changed since the view last saw it.
absl::Status RefreshView(XlaTensor& handle, ViewInfo& view);

// In-place update of a view to `value`: written back into the root through
// the chain's inverses (the root's version moves); the view's handle takes
// `value`.
absl::Status CommitView(XlaTensor& handle, ViewInfo& view,
                        const XlaTensorPtr& value);

// `destination` takes `source`'s value (pending IR or data), keeping its own
// tensor ID and alias ID; with `bump_version` it counts as an in-place update
// (views of it re-derive). Fails when `source` is deleted or the shapes
// differ.
absl::Status AssignValue(XlaTensor& destination, const XlaTensor& source,
                         bool bump_version);

// The sync's rule for views (graph_executor.cc). A pending view that is up
// to date with its root, and whose root the sync keeps (pending, so computed
// now, or data), need not be an output of its own: a weight gradient that
// is a view of a matmul result, or a layer's slice of a stacked gradient,
// would otherwise fill a second buffer with the same values. Takes those
// views out of `tensors` (handles linked by set_view) and returns them.
// RederiveViews, after the sync ran, gives each its value again as a view
// of the root's new data (pending IR: a slice, reshape or transpose of a
// leaf, which later graphs fuse).
std::vector<XlaTensorPtr> TakeRederivableViews(
    std::vector<XlaTensorPtr>& tensors);
absl::Status RederiveViews(absl::Span<const XlaTensorPtr> views);

// A new tensor (new IDs) with `source`'s value: the same pending IR or the
// same data. Fails for a deleted tensor.
absl::StatusOr<XlaTensorPtr> CloneTensor(const XlaTensor& source);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_TENSOR_VIEWS_H_
