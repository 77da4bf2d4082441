// Facts the C++ core owns, exported so Python builds its tables from them
// instead of restating them: the element types in DType code order, the op
// kind names in OpKind order, and eager's shape arithmetic (ir/shape_util.h)
// that the Python rules in torch_xla/_ops call.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "torch_xla/csrc/ir/op_kind.h"
#include "torch_xla/csrc/ir/shape.h"
#include "torch_xla/csrc/ir/shape_util.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/ir_values.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/torch_tensor.h"

namespace py = pybind11;

namespace torch_xla::python {

void InitShapeBindings(py::module_& m) {
  m.def(
      "_dtype_names",
      [] {
        std::vector<std::string> names;
        for (int i = 0; i < kNumDTypes; ++i) {
          names.emplace_back(DTypeName(static_cast<DType>(i)));
        }
        return names;
      },
      "Element type names (f32, bf16, s64, pred, ...) by DType code.");
  m.def(
      "_op_kind_names",
      [] {
        std::vector<std::string> names;
        for (int i = 0; i < kNumOpKinds; ++i) {
          names.emplace_back(OpKindName(static_cast<OpKind>(i)));
        }
        return names;
      },
      "IR op kind names (add, dot_general, ...) by OpKind code.");
  m.def(
      "_infer_size",
      [](std::vector<int64_t> size, int64_t numel) {
        return ValueOrThrow(InferSize(std::move(size), numel));
      },
      py::arg("size"), py::arg("numel"),
      "`size` with its one -1 resolved for `numel` elements (eager's view "
      "rules and errors).");
  m.def(
      "_contiguous_strides",
      [](const std::vector<int64_t>& dims) {
        return torch_xla::ContiguousStrides(dims);
      },
      py::arg("dims"), "Eager's strides for a contiguous tensor.");
  m.def("_view_strides", &ViewStrides, py::arg("dims"), py::arg("strides"),
        py::arg("new_dims"),
        "Eager's strides for viewing (dims, strides) as new_dims, or "
        "contiguous strides where eager would have to copy.");
  m.def("_clamp_slice", &ClampSlice, py::arg("size"), py::arg("start"),
        py::arg("end"),
        "Eager's clamping of slice bounds (None, negative, past the end) on "
        "a dim of `size`: -> (start, end).");
  m.def(
      "_broadcast_shapes",
      [](const std::vector<std::vector<int64_t>>& shapes) {
        std::vector<const std::vector<int64_t>*> pointers;
        for (const auto& dims : shapes) pointers.push_back(&dims);
        return ValueOrThrow(BroadcastDims(pointers));
      },
      py::arg("shapes"), "Numpy broadcasting of shapes, eager's error text.");
  m.def(
      "_broadcast_to",
      [](py::handle tensor, const std::vector<int64_t>& dims) {
        XlaTensorPtr x = ToXlaTensor(tensor);
        ThrowIfError(CheckBroadcastsTo(x->shape().dims, dims));
        Value value = ValueOrThrow(x->GetIrValue());
        Value out = BroadcastTo(value, dims);
        return out == value ? x : XlaTensor::FromIr(std::move(out), x->device());
      },
      py::arg("tensor"), py::arg("dims"),
      "Numpy-style broadcast of a handle to `dims` (trailing dims align): "
      "the handle itself when nothing changes.");
}

}  // namespace torch_xla::python
