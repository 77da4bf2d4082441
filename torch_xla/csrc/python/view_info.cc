#include "torch_xla/csrc/python/view_info.h"

#include <stdexcept>
#include <utility>

#include "pybind11/stl.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/ir_values.h"
#include "torch_xla/csrc/python/status_conversion.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

Value ValueOf(const XlaTensorPtr& tensor) {
  return ValueOrThrow(tensor->GetIrValue());
}

// A step's result: `input` itself when the op was the identity (a tensor
// holding data keeps holding it), else a new pending tensor.
template <typename Fn>
XlaTensorPtr Apply(const XlaTensorPtr& input, Fn fn) {
  Value value = ValueOf(input);
  Value result = fn(value);
  if (result == value) return input;
  return XlaTensor::FromIr(std::move(result), input->device());
}

class ReshapeView final : public ViewStep {
 public:
  ReshapeView(std::vector<int64_t> dims, std::vector<int64_t> base_dims)
      : dims_(std::move(dims)), base_dims_(std::move(base_dims)) {}
  XlaTensorPtr Forward(const XlaTensorPtr& base) const override {
    return Apply(base, [&](Value v) { return Reshape(std::move(v), dims_); });
  }
  XlaTensorPtr Inverse(const XlaTensorPtr& base,
                       const XlaTensorPtr& view) const override {
    return Apply(view,
                 [&](Value v) { return Reshape(std::move(v), base_dims_); });
  }

 private:
  const std::vector<int64_t> dims_, base_dims_;
};

class PermuteView final : public ViewStep {
 public:
  explicit PermuteView(std::vector<int64_t> permutation)
      : permutation_(std::move(permutation)), inverse_(permutation_.size()) {
    for (size_t i = 0; i < permutation_.size(); ++i) {
      inverse_[permutation_[i]] = static_cast<int64_t>(i);
    }
  }
  XlaTensorPtr Forward(const XlaTensorPtr& base) const override {
    return Apply(
        base, [&](Value v) { return Transpose(std::move(v), permutation_); });
  }
  XlaTensorPtr Inverse(const XlaTensorPtr& base,
                       const XlaTensorPtr& view) const override {
    return Apply(view,
                 [&](Value v) { return Transpose(std::move(v), inverse_); });
  }

 private:
  const std::vector<int64_t> permutation_;
  std::vector<int64_t> inverse_;
};

class SliceView final : public ViewStep {
 public:
  SliceView(int64_t dim, int64_t start, int64_t end)
      : dim_(dim), start_(start), end_(end) {}
  XlaTensorPtr Forward(const XlaTensorPtr& base) const override {
    return Apply(base, [&](Value v) {
      return SliceDim(std::move(v), dim_, start_, end_);
    });
  }
  XlaTensorPtr Inverse(const XlaTensorPtr& base,
                       const XlaTensorPtr& view) const override {
    return Apply(base, [&](Value v) {
      return UpdateSliceDim(std::move(v), ValueOf(view), dim_, start_);
    });
  }

 private:
  const int64_t dim_, start_, end_;
};

class ExpandView final : public ViewStep {
 public:
  ExpandView(std::vector<int64_t> dims, std::vector<int64_t> base_dims,
             bool writable)
      : dims_(std::move(dims)),
        base_dims_(std::move(base_dims)),
        writable_(writable) {}
  XlaTensorPtr Forward(const XlaTensorPtr& base) const override {
    return Apply(base,
                 [&](Value v) { return BroadcastTo(std::move(v), dims_); });
  }
  XlaTensorPtr Inverse(const XlaTensorPtr& base,
                       const XlaTensorPtr& view) const override {
    if (!writable_) {
      throw std::runtime_error(
          "unsupported operation: more than one element of the written-to "
          "tensor refers to a single memory location. Please clone() the "
          "tensor before performing the operation.");
    }
    return Apply(view,
                 [&](Value v) { return Reshape(std::move(v), base_dims_); });
  }

 private:
  const std::vector<int64_t> dims_, base_dims_;
  const bool writable_;
};

// A view op written in Python: forward(base) and inverse(base, new_view)
// take and return C++ handles. Owned by Python objects only (ViewInfo), so
// it is destroyed with the GIL held.
class PythonStep final : public ViewStep {
 public:
  PythonStep(py::object forward, py::object inverse)
      : forward_(std::move(forward)), inverse_(std::move(inverse)) {}
  XlaTensorPtr Forward(const XlaTensorPtr& base) const override {
    return ToXlaTensor(forward_(base));
  }
  XlaTensorPtr Inverse(const XlaTensorPtr& base,
                       const XlaTensorPtr& view) const override {
    return ToXlaTensor(inverse_(base, view));
  }

 private:
  py::object forward_, inverse_;
};

}  // namespace

ViewStepPtr ReshapeStep(std::vector<int64_t> dims,
                        std::vector<int64_t> base_dims) {
  return std::make_shared<ReshapeView>(std::move(dims), std::move(base_dims));
}

ViewStepPtr PermuteStep(std::vector<int64_t> permutation) {
  return std::make_shared<PermuteView>(std::move(permutation));
}

ViewStepPtr SliceStep(int64_t dim, int64_t start, int64_t end) {
  return std::make_shared<SliceView>(dim, start, end);
}

ViewStepPtr ExpandStep(std::vector<int64_t> dims,
                       std::vector<int64_t> base_dims, bool writable) {
  return std::make_shared<ExpandView>(std::move(dims), std::move(base_dims),
                                      writable);
}

ViewInfoPtr ExtendView(const XlaTensorPtr& base_handle,
                       const ViewInfoPtr& base_view, ViewStepPtr step,
                       std::vector<int64_t> strides, int64_t storage_offset) {
  auto view = std::make_shared<ViewInfo>();
  if (base_view == nullptr) {
    view->root = base_handle;
    view->seen_version = base_handle->version();
  } else {
    view->root = base_view->root;
    view->seen_version = base_view->seen_version;
    view->chain = base_view->chain;
  }
  view->chain.push_back(std::move(step));
  view->strides = std::move(strides);
  view->storage_offset = storage_offset;
  return view;
}

void AssignValue(const XlaTensorPtr& destination, const XlaTensorPtr& source,
                 bool bump_version) {
  if (source->state() == TensorState::kIrValue) {
    ThrowIfError(destination->SetIrValue(source->ir_value()));
  } else {
    // Placeholders pass through (tracing on them is the point).
    ThrowIfError(source->GetIrValue().status());
    ThrowIfError(destination->SetData(source->data()));
    // The destination now owns the data for donation (the source is
    // usually a temporary; if it lives on, the sync's holder check keeps
    // the shared buffer safe).
    source->data()->set_owner_alias_id(destination->alias_id());
  }
  if (bump_version) destination->BumpVersion();
}

XlaTensorPtr CloneTensor(const XlaTensorPtr& source) {
  if (source->state() == TensorState::kIrValue) {
    return XlaTensor::FromIr(source->ir_value(), source->device());
  }
  ThrowIfError(source->GetIrValue().status());  // deleted: an error
  return XlaTensor::FromData(source->data(), source->device());
}

void RefreshView(const XlaTensorPtr& handle, ViewInfo& view) {
  if (view.root->version() == view.seen_version) return;
  XlaTensorPtr value = view.root;
  for (const ViewStepPtr& step : view.chain) value = step->Forward(value);
  AssignValue(handle, value, /*bump_version=*/false);
  view.seen_version = view.root->version();
}

void CommitView(const XlaTensorPtr& handle, ViewInfo& view,
                const XlaTensorPtr& value) {
  RefreshView(handle, view);
  // The values along the chain, root first; then the new value backwards.
  std::vector<XlaTensorPtr> values{view.root};
  for (size_t i = 0; i + 1 < view.chain.size(); ++i) {
    values.push_back(view.chain[i]->Forward(values.back()));
  }
  XlaTensorPtr updated = value;
  for (size_t i = view.chain.size(); i-- > 0;) {
    updated = view.chain[i]->Inverse(values[i], updated);
  }
  AssignValue(view.root, updated, /*bump_version=*/true);
  AssignValue(handle, value, /*bump_version=*/false);
  view.seen_version = view.root->version();
}

std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  int64_t step = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = step;
    step *= std::max<int64_t>(dims[i], 1);
  }
  return strides;
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
      "_view_info",
      [](const XlaTensorPtr& base, const ViewInfoPtr& base_view,
         py::object forward, py::object inverse, std::vector<int64_t> strides,
         int64_t storage_offset) {
        return ExtendView(base, base_view,
                          std::make_shared<PythonStep>(std::move(forward),
                                                       std::move(inverse)),
                          std::move(strides), storage_offset);
      },
      py::arg("base"), py::arg("base_view").none(true), py::arg("forward"),
      py::arg("inverse"), py::arg("strides"), py::arg("storage_offset"),
      "The view info of a view of `base` (handle, and its own view info or "
      "None) one Python step further: forward(base) -> view and "
      "inverse(base, new_view) -> new base, both on handles.");
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
