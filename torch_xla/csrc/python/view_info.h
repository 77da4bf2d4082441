#ifndef TORCH_XLA_CSRC_PYTHON_VIEW_INFO_H_
#define TORCH_XLA_CSRC_PYTHON_VIEW_INFO_H_

// The binding side of views (the semantics live in tensor/views.h): the
// view step whose forward and inverse are Python functions, the _XLAC view
// functions, and raising forms of the core's view updates for binding code
// that holds Python objects (the fast rules). Those take the handles as
// shared pointers, the core functions take references, so a call picks one
// unambiguously; a failure becomes a Python exception (status_conversion.h).

#include <cstdint>
#include <utility>
#include <vector>

#include "pybind11/pybind11.h"
#include "torch_xla/csrc/tensor/views.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla::python {

// A view step written in Python: forward(base) -> view and
// inverse(base, new_view) -> new base, both on C++ handles. A Python
// exception raised by either propagates to the caller unchanged.
torch_xla::ViewStepPtr PythonViewStep(pybind11::object forward,
                                      pybind11::object inverse);

// Transitional, for the C++ view fast rules (fast_view_rules.cc) until they
// use the StatusOr API: a core step whose Forward/Inverse raise instead of
// returning a status. It converts to the core's ViewStepPtr (ExtendView).
class RaisingViewStep {
 public:
  RaisingViewStep(torch_xla::ViewStepPtr step)  // NOLINT: implicit
      : step_(std::move(step)) {}
  const RaisingViewStep* operator->() const { return this; }
  XlaTensorPtr Forward(const XlaTensorPtr& base) const;
  XlaTensorPtr Inverse(const XlaTensorPtr& base,
                       const XlaTensorPtr& view) const;
  operator torch_xla::ViewStepPtr() const { return step_; }  // NOLINT

 private:
  torch_xla::ViewStepPtr step_;
};
using ViewStepPtr = RaisingViewStep;
inline ViewStepPtr ReshapeStep(std::vector<int64_t> dims,
                               std::vector<int64_t> base_dims) {
  return torch_xla::ReshapeStep(std::move(dims), std::move(base_dims));
}
inline ViewStepPtr PermuteStep(std::vector<int64_t> permutation) {
  return torch_xla::PermuteStep(std::move(permutation));
}
inline ViewStepPtr SliceStep(int64_t dim, int64_t start, int64_t end) {
  return torch_xla::SliceStep(dim, start, end);
}
inline ViewStepPtr ExpandStep(std::vector<int64_t> dims,
                              std::vector<int64_t> base_dims, bool writable) {
  return torch_xla::ExpandStep(std::move(dims), std::move(base_dims),
                               writable);
}

void RefreshView(const XlaTensorPtr& handle, ViewInfo& view);
void CommitView(const XlaTensorPtr& handle, ViewInfo& view,
                const XlaTensorPtr& value);
void AssignValue(const XlaTensorPtr& destination, const XlaTensorPtr& source,
                 bool bump_version);
XlaTensorPtr CloneTensor(const XlaTensorPtr& source);

void InitViewBindings(pybind11::module_& m);

}  // namespace torch_xla::python

#endif  // TORCH_XLA_CSRC_PYTHON_VIEW_INFO_H_
