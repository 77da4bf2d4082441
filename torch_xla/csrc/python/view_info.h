#ifndef TORCH_XLA_CSRC_PYTHON_VIEW_INFO_H_
#define TORCH_XLA_CSRC_PYTHON_VIEW_INFO_H_

// How an 'xla' view derives from its root (see torch_xla/_tensor.py): the
// root's handle, the root version the view last saw, and a chain of steps.
// A step's Forward derives the view's value from its base's; Inverse writes
// a new view value back into the base value. Steps written in C++ (reshape,
// permute, unit-stride slice, expand) serve the fast rules; the other view
// ops are Python (forward, inverse) pairs. Also the strides and storage
// offset eager would give the view (metadata PyTorch's composites read).

#include <cstdint>
#include <memory>
#include <vector>

#include "pybind11/pybind11.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla::python {

class ViewStep {
 public:
  virtual ~ViewStep() = default;
  virtual XlaTensorPtr Forward(const XlaTensorPtr& base) const = 0;
  virtual XlaTensorPtr Inverse(const XlaTensorPtr& base,
                               const XlaTensorPtr& view) const = 0;
};
using ViewStepPtr = std::shared_ptr<const ViewStep>;

ViewStepPtr ReshapeStep(std::vector<int64_t> dims,
                        std::vector<int64_t> base_dims);
ViewStepPtr PermuteStep(std::vector<int64_t> permutation);
ViewStepPtr SliceStep(int64_t dim, int64_t start, int64_t end);
// `writable`: false when the expansion repeats elements (writing through it
// is an error, as in eager).
ViewStepPtr ExpandStep(std::vector<int64_t> dims,
                       std::vector<int64_t> base_dims, bool writable);

struct ViewInfo {
  XlaTensorPtr root;
  int64_t seen_version = 0;
  std::vector<ViewStepPtr> chain;
  std::vector<int64_t> strides;
  int64_t storage_offset = 0;
};
using ViewInfoPtr = std::shared_ptr<ViewInfo>;

// The view info of a new view of `base` (handle `base_handle`, view info
// `base_view` or null for a root) one `step` further.
ViewInfoPtr ExtendView(const XlaTensorPtr& base_handle,
                       const ViewInfoPtr& base_view, ViewStepPtr step,
                       std::vector<int64_t> strides, int64_t storage_offset);

// Re-derives `handle` (a view's own handle) if its root moved since.
void RefreshView(const XlaTensorPtr& handle, ViewInfo& view);

// In-place update of a view to `value`: written back into the root through
// the chain's inverses; the view's handle takes `value`.
void CommitView(const XlaTensorPtr& handle, ViewInfo& view,
                const XlaTensorPtr& value);

// `destination` takes `source`'s value (IR or data), keeping its own IDs.
void AssignValue(const XlaTensorPtr& destination, const XlaTensorPtr& source,
                 bool bump_version);

// A new tensor (new IDs) with `source`'s value: the same pending IR or the
// same data. Fails for a deleted tensor.
XlaTensorPtr CloneTensor(const XlaTensorPtr& source);

std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& dims);

void InitViewBindings(pybind11::module_& m);

}  // namespace torch_xla::python

#endif  // TORCH_XLA_CSRC_PYTHON_VIEW_INFO_H_
