#include "torch_xla/csrc/python/view_info.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "pybind11/stl.h"
#include "torch_xla/csrc/ir/error_class.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/torch_tensor.h"
#include "torch_xla/csrc/tensor/view_ops.h"
#include "torch_xla/csrc/tensor/views.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

// The operand of a view op binding: an 'xla' torch tensor.
ViewedTensor ReadOperand(py::handle object, const char* op) {
  TorchTensor x;
  if (!ReadTorchTensor(object.ptr(), &x)) {
    ThrowStatus(WrongTypeError(
        std::string(op) + ": expected an 'xla' tensor, got " +
        py::str(py::type::of(object)).cast<std::string>()));
  }
  return {std::move(x.handle), std::move(x.view)};
}

py::object Wrap(absl::StatusOr<ViewedTensor> result) {
  ViewedTensor view = ValueOrThrow(std::move(result));
  return WrapTensor(std::move(view.handle), std::move(view.view));
}

py::list WrapAll(absl::StatusOr<std::vector<ViewedTensor>> result) {
  std::vector<ViewedTensor> views = ValueOrThrow(std::move(result));
  py::list out(views.size());
  for (size_t i = 0; i < views.size(); ++i) {
    out[i] = WrapTensor(std::move(views[i].handle), std::move(views[i].view));
  }
  return out;
}

// unsafe_split's pieces: eager makes them no views, so each is a new tensor
// holding its piece's value.
py::list CopiesOf(absl::StatusOr<std::vector<ViewedTensor>> result) {
  std::vector<ViewedTensor> views = ValueOrThrow(std::move(result));
  py::list out(views.size());
  for (size_t i = 0; i < views.size(); ++i) {
    out[i] = WrapTensor(ValueOrThrow(CloneTensor(*views[i].handle)));
  }
  return out;
}

// The view ops, one binding each: torch_xla/_ops/views.py's rules call
// them with the op's arguments (the fast rules call view_ops directly).
void InitViewOpBindings(py::module_& m) {
  using std::optional;
  using std::vector;
  m.def(
      "_view_op_view",
      [](py::handle x, vector<int64_t> size) {
        return Wrap(view_ops::View(ReadOperand(x, "view"), std::move(size)));
      },
      py::arg("x"), py::arg("size"));
  m.def(
      "_view_op_unsafe_view",
      [](py::handle x, vector<int64_t> size) {
        return WrapTensor(ValueOrThrow(view_ops::UnsafeView(
            ReadOperand(x, "_unsafe_view"), std::move(size))));
      },
      py::arg("x"), py::arg("size"));
  m.def(
      "_view_op_unsqueeze",
      [](py::handle x, int64_t dim) {
        return Wrap(view_ops::Unsqueeze(ReadOperand(x, "unsqueeze"), dim));
      },
      py::arg("x"), py::arg("dim"));
  m.def(
      "_view_op_squeeze",
      [](py::handle x, optional<vector<int64_t>> dims) {
        return Wrap(view_ops::Squeeze(ReadOperand(x, "squeeze"), dims));
      },
      py::arg("x"), py::arg("dims").none(true) = py::none(),
      "dims None: every size-1 dim.");
  m.def(
      "_view_op_t",
      [](py::handle x) { return Wrap(view_ops::T(ReadOperand(x, "t"))); },
      py::arg("x"));
  m.def(
      "_view_op_transpose",
      [](py::handle x, int64_t dim0, int64_t dim1) {
        return Wrap(
            view_ops::Transpose(ReadOperand(x, "transpose"), dim0, dim1));
      },
      py::arg("x"), py::arg("dim0"), py::arg("dim1"));
  m.def(
      "_view_op_permute",
      [](py::handle x, const vector<int64_t>& dims) {
        return Wrap(view_ops::Permute(ReadOperand(x, "permute"), dims));
      },
      py::arg("x"), py::arg("dims"));
  m.def(
      "_view_op_expand",
      [](py::handle x, const vector<int64_t>& size) {
        return Wrap(view_ops::Expand(ReadOperand(x, "expand"), size));
      },
      py::arg("x"), py::arg("size"));
  m.def(
      "_view_op_slice",
      [](py::handle x, int64_t dim, optional<int64_t> start,
         optional<int64_t> end, int64_t step) {
        return Wrap(
            view_ops::Slice(ReadOperand(x, "slice"), dim, start, end, step));
      },
      py::arg("x"), py::arg("dim"), py::arg("start").none(true),
      py::arg("end").none(true), py::arg("step"));
  m.def(
      "_view_op_select",
      [](py::handle x, int64_t dim, int64_t index) {
        return Wrap(view_ops::Select(ReadOperand(x, "select"), dim, index));
      },
      py::arg("x"), py::arg("dim"), py::arg("index"));
  m.def(
      "_view_op_split",
      [](py::handle x, int64_t split_size, int64_t dim) {
        return WrapAll(
            view_ops::Split(ReadOperand(x, "split"), split_size, dim));
      },
      py::arg("x"), py::arg("split_size"), py::arg("dim"));
  m.def(
      "_view_op_split_with_sizes",
      [](py::handle x, const vector<int64_t>& split_sizes, int64_t dim) {
        return WrapAll(view_ops::SplitWithSizes(
            ReadOperand(x, "split_with_sizes"), split_sizes, dim));
      },
      py::arg("x"), py::arg("split_sizes"), py::arg("dim"));
  m.def(
      "_unsafe_split",
      [](py::handle x, int64_t split_size, int64_t dim) {
        return CopiesOf(
            view_ops::Split(ReadOperand(x, "unsafe_split"), split_size, dim));
      },
      py::arg("x"), py::arg("split_size"), py::arg("dim"),
      "split's pieces (its checks), each a new tensor rather than a view.");
  m.def(
      "_unsafe_split_with_sizes",
      [](py::handle x, const vector<int64_t>& split_sizes, int64_t dim) {
        return CopiesOf(view_ops::SplitWithSizes(
            ReadOperand(x, "unsafe_split_with_sizes"), split_sizes, dim));
      },
      py::arg("x"), py::arg("split_sizes"), py::arg("dim"),
      "split_with_sizes' pieces (its checks), each a new tensor rather than "
      "a view.");
  m.def(
      "_view_op_unbind",
      [](py::handle x, int64_t dim) {
        return WrapAll(view_ops::Unbind(ReadOperand(x, "unbind"), dim));
      },
      py::arg("x"), py::arg("dim"));
  m.def(
      "_view_op_diagonal",
      [](py::handle x, int64_t offset, int64_t dim1, int64_t dim2) {
        return Wrap(
            view_ops::Diagonal(ReadOperand(x, "diagonal"), offset, dim1, dim2));
      },
      py::arg("x"), py::arg("offset"), py::arg("dim1"), py::arg("dim2"));
  m.def(
      "_view_op_as_strided",
      [](py::handle x, vector<int64_t> size, vector<int64_t> stride,
         optional<int64_t> storage_offset) {
        return Wrap(view_ops::AsStrided(ReadOperand(x, "as_strided"),
                                        std::move(size), std::move(stride),
                                        storage_offset));
      },
      py::arg("x"), py::arg("size"), py::arg("stride"),
      py::arg("storage_offset").none(true) = py::none(),
      "storage_offset None: x's own.");
  m.def(
      "_view_op_view_dtype",
      [](py::handle x, py::handle dtype) {
        DType type;
        if (!ReadDType(dtype.ptr(), &type)) {
          ThrowStatus(WrongTypeError(
              "view(dtype): 'xla' tensors have no dtype " +
              py::str(dtype).cast<std::string>()));
        }
        return Wrap(view_ops::ViewDtype(ReadOperand(x, "view"), type));
      },
      py::arg("x"), py::arg("dtype"));
  // The value-level halves of the slice step and the index check, for the
  // slicing ops that are no views (slice_scatter, select_scatter, ...).
  m.def(
      "_slice_value",
      [](const XlaTensorPtr& x, int64_t dim, int64_t start, int64_t end,
         int64_t step) {
        Value value = ValueOrThrow(x->GetIrValue());
        return XlaTensor::FromIr(
            ValueOrThrow(MakeStridedSlice(value, dim, start, end, step)),
            x->device());
      },
      py::arg("x"), py::arg("dim"), py::arg("start"), py::arg("end"),
      py::arg("step"), "x[..., start:end:step, ...] along `dim`.");
  m.def(
      "_update_slice_value",
      [](const XlaTensorPtr& base, const XlaTensorPtr& update, int64_t dim,
         int64_t start, int64_t step) {
        Value value = ValueOrThrow(base->GetIrValue());
        Value result = ValueOrThrow(MakeUpdateStridedSlice(
            value, ValueOrThrow(update->GetIrValue()), dim, start, step));
        return result == value ? base
                               : XlaTensor::FromIr(std::move(result),
                                                   base->device());
      },
      py::arg("base"), py::arg("update"), py::arg("dim"), py::arg("start"),
      py::arg("step"),
      "`base` with base[..., start::step (update's length), ...] = update.");
  m.def(
      "_wrap_index",
      [](const vector<int64_t>& dims, int64_t dim, int64_t index,
         const std::string& op_name) {
        return ValueOrThrow(view_ops::WrapIndex(dims, dim, index, op_name));
      },
      py::arg("dims"), py::arg("dim"), py::arg("index"), py::arg("op_name"),
      "`index` along dim `dim` of `dims` made non-negative; IndexError "
      "naming `op_name` when out of range.");
}

}  // namespace

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
        ThrowIfError(RefreshView(*handle, view));
        return handle;
      },
      "The view's handle, re-derived first if its root changed.");
  m.def(
      "_view_commit",
      [](const XlaTensorPtr& handle, ViewInfo& view,
         const XlaTensorPtr& value) {
        ThrowIfError(CommitView(*handle, view, value));
      },
      "In-place update of a view: written back into its root.");
  InitViewOpBindings(m);
}

}  // namespace torch_xla::python
