// Fast rules for view ops (view, _unsafe_view, unsqueeze, t, transpose,
// permute, expand, slice) and for clone/detach/alias. A view rule only
// reads the op's arguments and calls the op's one definition in
// tensor/view_ops.h, the function the Python rule (torch_xla/_ops/views.py)
// calls through _XLAC: shape, strides, view step and errors are the same
// on both paths by construction. Bad arguments therefore raise here,
// with the text the Python rule would raise. Contract: fast_rule_util.h.

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/python/fast_rule_util.h"
#include "torch_xla/csrc/tensor/view_ops.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

ViewedTensor Operand(const TorchTensor& x) { return {x.handle, x.view}; }

FastRuleResult Wrap(absl::StatusOr<ViewedTensor> result) {
  TXLA_ASSIGN_OR_RETURN(ViewedTensor view, std::move(result));
  return WrapTensor(std::move(view.handle), std::move(view.view));
}

// aten.view.default(self, size)
FastRuleResult View(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  std::vector<int64_t> size;
  if (nargs != 2 || !ReadTorchTensor(args[0], &x) ||
      !ReadIntList(args[1], &size)) {
    return py::object();
  }
  return Wrap(view_ops::View(Operand(x), std::move(size)));
}

// aten._unsafe_view.default(self, size): a reshape, not a view.
FastRuleResult UnsafeView(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  std::vector<int64_t> size;
  if (nargs != 2 || !ReadTorchTensor(args[0], &x) ||
      !ReadIntList(args[1], &size)) {
    return py::object();
  }
  TXLA_ASSIGN_OR_RETURN(XlaTensorPtr out,
                        view_ops::UnsafeView(Operand(x), std::move(size)));
  return WrapTensor(std::move(out));
}

// aten.unsqueeze.default(self, dim)
FastRuleResult Unsqueeze(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  int64_t dim;
  if (nargs != 2 || !ReadTorchTensor(args[0], &x) || !ReadInt(args[1], &dim)) {
    return py::object();
  }
  return Wrap(view_ops::Unsqueeze(Operand(x), dim));
}

// aten.t.default(self)
FastRuleResult T(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  if (nargs != 1 || !ReadTorchTensor(args[0], &x)) return py::object();
  return Wrap(view_ops::T(Operand(x)));
}

// aten.transpose.int(self, dim0, dim1)
FastRuleResult Transpose(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  int64_t dim0, dim1;
  if (nargs != 3 || !ReadTorchTensor(args[0], &x) || !ReadInt(args[1], &dim0) ||
      !ReadInt(args[2], &dim1)) {
    return py::object();
  }
  return Wrap(view_ops::Transpose(Operand(x), dim0, dim1));
}

// aten.permute.default(self, dims)
FastRuleResult Permute(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  std::vector<int64_t> dims;
  if (nargs != 2 || !ReadTorchTensor(args[0], &x) ||
      !ReadIntList(args[1], &dims)) {
    return py::object();
  }
  return Wrap(view_ops::Permute(Operand(x), dims));
}

// aten.expand.default(self, size, implicit=False)
FastRuleResult Expand(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  std::vector<int64_t> size;
  if (nargs < 2 || nargs > 3 || !ReadTorchTensor(args[0], &x) ||
      !ReadIntList(args[1], &size)) {
    return py::object();
  }
  return Wrap(view_ops::Expand(Operand(x), size));
}

// An optional int argument: absent or None is nullopt.
bool ReadOptionalBound(PyObject* const* args, Py_ssize_t nargs, Py_ssize_t i,
                       std::optional<int64_t>* bound) {
  if (i >= nargs || args[i] == Py_None) return true;
  int64_t value;
  if (!ReadInt(args[i], &value)) return false;
  *bound = value;
  return true;
}

// aten.slice.Tensor(self, dim=0, start=None, end=None, step=1)
FastRuleResult Slice(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  int64_t dim = 0, step = 1;
  std::optional<int64_t> start, end;
  if (nargs < 1 || nargs > 5 || !ReadTorchTensor(args[0], &x) ||
      !ReadOptionalInt(args, nargs, 1, &dim) ||
      !ReadOptionalBound(args, nargs, 2, &start) ||
      !ReadOptionalBound(args, nargs, 3, &end) ||
      !ReadOptionalInt(args, nargs, 4, &step)) {
    return py::object();
  }
  return Wrap(view_ops::Slice(Operand(x), dim, start, end, step));
}

// True for no memory format, torch.preserve_format or
// torch.contiguous_format; the channels-last formats go to the Python rule,
// which raises eager's error for a tensor of the wrong rank.
bool PlainMemoryFormat(PyObject* kwargs) {
  PyObject* format =
      kwargs == nullptr ? nullptr : PyDict_GetItemString(kwargs, "memory_format");
  if (format == nullptr || format == Py_None) return true;
  static PyObject* const contiguous =
      py::object(py::module_::import("torch").attr("contiguous_format"))
          .release()
          .ptr();
  static PyObject* const preserve =
      py::object(py::module_::import("torch").attr("preserve_format"))
          .release()
          .ptr();
  return format == contiguous || format == preserve;
}

// aten.clone.default(self, *, memory_format=None): results are contiguous.
FastRuleResult Clone(PyObject* const* args, Py_ssize_t nargs,
                     PyObject* kwargs) {
  TorchTensor x;
  if (nargs != 1 || !KwargsAre(kwargs, {"memory_format"}, false) ||
      !PlainMemoryFormat(kwargs) || !ReadTorchTensor(args[0], &x)) {
    return py::object();
  }
  TXLA_ASSIGN_OR_RETURN(XlaTensorPtr current, view_ops::Current(Operand(x)));
  TXLA_ASSIGN_OR_RETURN(XlaTensorPtr clone, CloneTensor(*current));
  return WrapTensor(std::move(clone));
}

// aten.detach / aten.alias(self): a new tensor sharing self's handle (so
// in-place updates are shared) and view info, as copy_ops.alias_of.
FastRuleResult Alias(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  if (nargs != 1 || !ReadTorchTensor(args[0], &x)) return py::object();
  return WrapTensor(x.handle, x.view);
}

}  // namespace

void AddViewFastRules(FastRuleTable* table) {
  table->insert(table->end(), {
                                  {"aten::view", Positional<View>},
                                  {"aten::_unsafe_view", Positional<UnsafeView>},
                                  {"aten::unsqueeze", Positional<Unsqueeze>},
                                  {"aten::t", Positional<T>},
                                  {"aten::transpose.int", Positional<Transpose>},
                                  {"aten::permute", Positional<Permute>},
                                  {"aten::expand", Positional<Expand>},
                                  {"aten::slice.Tensor", Positional<Slice>},
                                  {"aten::clone", Clone},
                                  {"aten::detach", Positional<Alias>},
                                  {"aten::alias", Positional<Alias>},
                              });
}

}  // namespace torch_xla::python
