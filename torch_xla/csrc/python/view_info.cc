#include "torch_xla/csrc/python/view_info.h"

#include <utility>

#include "pybind11/stl.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/status_conversion.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

// Owned by ViewInfos that Python objects own, so it is destroyed with the
// GIL held. Core code calls it with the GIL held too (views are updated
// only from bindings). A Python exception propagates as
// py::error_already_set through the core, which changes nothing before
// every step succeeded (tensor/views.h).
class PythonStep final : public torch_xla::ViewStep {
 public:
  PythonStep(py::object forward, py::object inverse)
      : forward_(std::move(forward)), inverse_(std::move(inverse)) {}
  absl::StatusOr<XlaTensorPtr> Forward(
      const XlaTensorPtr& base) const override {
    return AsXlaTensor(forward_(base));
  }
  absl::StatusOr<XlaTensorPtr> Inverse(
      const XlaTensorPtr& base, const XlaTensorPtr& view) const override {
    return AsXlaTensor(inverse_(base, view));
  }
  bool calls_python() const override { return true; }

 private:
  py::object forward_, inverse_;
};

}  // namespace

torch_xla::ViewStepPtr PythonViewStep(py::object forward,
                                      py::object inverse) {
  return std::make_shared<PythonStep>(std::move(forward), std::move(inverse));
}

XlaTensorPtr RaisingViewStep::Forward(const XlaTensorPtr& base) const {
  return ValueOrThrow(step_->Forward(base));
}

XlaTensorPtr RaisingViewStep::Inverse(const XlaTensorPtr& base,
                                      const XlaTensorPtr& view) const {
  return ValueOrThrow(step_->Inverse(base, view));
}

void RefreshView(const XlaTensorPtr& handle, ViewInfo& view) {
  ThrowIfError(torch_xla::RefreshView(*handle, view));
}

void CommitView(const XlaTensorPtr& handle, ViewInfo& view,
                const XlaTensorPtr& value) {
  ThrowIfError(torch_xla::CommitView(*handle, view, value));
}

void AssignValue(const XlaTensorPtr& destination, const XlaTensorPtr& source,
                 bool bump_version) {
  ThrowIfError(torch_xla::AssignValue(*destination, *source, bump_version));
}

XlaTensorPtr CloneTensor(const XlaTensorPtr& source) {
  return ValueOrThrow(torch_xla::CloneTensor(*source));
}

void InitViewBindings(py::module_& m) {
  py::class_<ViewInfo, ViewInfoPtr>(m, "ViewInfo")
      .def_readonly("root", &ViewInfo::root)
      .def_readonly("seen_version", &ViewInfo::seen_version)
      .def_readonly("strides", &ViewInfo::strides)
      .def_readonly("storage_offset", &ViewInfo::storage_offset)
      .def_property_readonly(
          "depth", [](const ViewInfo& view) { return view.chain.size(); });
  m.def(
      "_view_refresh",
      [](const XlaTensorPtr& handle, ViewInfo& view) {
        RefreshView(handle, view);
        return handle;
      },
      "The view's handle, re-derived first if its root changed.");
  m.def(
      "_view_commit",
      [](const XlaTensorPtr& handle, ViewInfo& view,
         const XlaTensorPtr& value) { CommitView(handle, view, value); },
      "In-place update of a view: written back into its root.");
}

}  // namespace torch_xla::python
