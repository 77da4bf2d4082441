// Fast rules for view ops (view, _unsafe_view, unsqueeze, t, transpose,
// permute, expand, unit-step slice) and for clone/detach/alias. Each view
// gets C++ view steps (view_info.h) and eager's strides and storage offset,
// as torch_xla/_ops/views.py gives them. Contract: fast_rule_util.h.

#include <cstdint>
#include <numeric>
#include <tuple>
#include <utility>
#include <vector>

#include "torch_xla/csrc/ir/shape_util.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/python/fast_rule_util.h"
#include "torch_xla/csrc/python/ir_values.h"
#include "torch_xla/csrc/python/view_info.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

// A view of `base` one `step` further. The view gets a handle of its own
// even when the step is the identity (the same IR, or the same data).
py::object MakeView(const TorchTensor& base, ViewStepPtr step,
                    std::vector<int64_t> strides, int64_t storage_offset) {
  const XlaTensorPtr& current = CurrentHandle(base);
  XlaTensorPtr handle = step->Forward(current);
  if (handle == current) handle = CloneTensor(current);
  return WrapTensor(std::move(handle),
                    ExtendView(base.handle, base.view, std::move(step),
                               std::move(strides), storage_offset));
}

py::object ReshapeView(const TorchTensor& x, std::vector<int64_t> dims,
                       std::vector<int64_t> strides) {
  const std::vector<int64_t>& old = x.handle->shape().dims;
  return MakeView(x, ReshapeStep(std::move(dims), old), std::move(strides),
                  StorageOffsetOf(x));
}

// `size` with its -1 resolved for `numel` elements; false where eager
// raises (the Python rule then raises eager's error).
bool ResolveSize(std::vector<int64_t>* size, int64_t numel) {
  absl::StatusOr<std::vector<int64_t>> resolved =
      InferSize(std::move(*size), numel);
  if (!resolved.ok()) return false;
  *size = *std::move(resolved);
  return true;
}

// aten.view.default(self, size)
FastRuleResult View(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  std::vector<int64_t> size;
  if (nargs != 2 || !ReadTorchTensor(args[0], &x) ||
      !ReadIntList(args[1], &size)) {
    return py::object();
  }
  const std::vector<int64_t>& dims = x.handle->shape().dims;
  if (!ResolveSize(&size, NumElements(dims))) return py::object();
  std::vector<int64_t> strides = x.view == nullptr
                                     ? torch_xla::ContiguousStrides(size)
                                     : ViewStrides(dims, x.view->strides, size);
  return ReshapeView(x, std::move(size), std::move(strides));
}

// aten._unsafe_view.default(self, size): a reshape, not a view.
FastRuleResult UnsafeView(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  std::vector<int64_t> size;
  if (nargs != 2 || !ReadTorchTensor(args[0], &x) ||
      !ReadIntList(args[1], &size) ||
      !ResolveSize(&size, NumElements(x.handle->shape().dims))) {
    return py::object();
  }
  const XlaTensorPtr& current = CurrentHandle(x);
  TXLA_ASSIGN_OR_RETURN(Value input, current->GetIrValue());
  Value output = Reshape(input, size);
  return WrapTensor(output == input ? CloneTensor(current)
                                    : XlaTensor::FromIr(std::move(output),
                                                        current->device()));
}

// aten.unsqueeze.default(self, dim)
FastRuleResult Unsqueeze(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  int64_t dim;
  if (nargs != 2 || !ReadTorchTensor(args[0], &x) || !ReadInt(args[1], &dim)) {
    return py::object();
  }
  std::vector<int64_t> dims = x.handle->shape().dims;
  std::vector<int64_t> strides = StridesOf(x);
  int64_t d;
  if (!CanonicalDim(dim, static_cast<int64_t>(dims.size()) + 1, &d)) {
    return py::object();
  }
  const int64_t stride =
      d >= static_cast<int64_t>(dims.size()) ? 1 : dims[d] * strides[d];
  dims.insert(dims.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  return ReshapeView(x, std::move(dims), std::move(strides));
}

py::object PermuteView(const TorchTensor& x, std::vector<int64_t> permutation) {
  std::vector<int64_t> strides = StridesOf(x);
  std::vector<int64_t> permuted(permutation.size());
  for (size_t i = 0; i < permutation.size(); ++i) {
    permuted[i] = strides[permutation[i]];
  }
  return MakeView(x, PermuteStep(std::move(permutation)), std::move(permuted),
                  StorageOffsetOf(x));
}

// aten.t.default(self)
FastRuleResult T(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  if (nargs != 1 || !ReadTorchTensor(args[0], &x)) return py::object();
  const int64_t rank = static_cast<int64_t>(x.handle->shape().dims.size());
  if (rank > 2) return py::object();
  std::vector<int64_t> permutation(rank);
  for (int64_t i = 0; i < rank; ++i) permutation[i] = rank - 1 - i;
  return PermuteView(x, std::move(permutation));
}

// aten.transpose.int(self, dim0, dim1)
FastRuleResult TransposeRule(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  int64_t dim0, dim1, d0, d1;
  if (nargs != 3 || !ReadTorchTensor(args[0], &x) || !ReadInt(args[1], &dim0) ||
      !ReadInt(args[2], &dim1)) {
    return py::object();
  }
  const int64_t rank = static_cast<int64_t>(x.handle->shape().dims.size());
  if (rank == 0 || !CanonicalDim(dim0, rank, &d0) ||
      !CanonicalDim(dim1, rank, &d1)) {
    return py::object();
  }
  std::vector<int64_t> permutation(rank);
  std::iota(permutation.begin(), permutation.end(), 0);
  std::swap(permutation[d0], permutation[d1]);
  return PermuteView(x, std::move(permutation));
}

// aten.permute.default(self, dims)
FastRuleResult Permute(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  std::vector<int64_t> dims;
  if (nargs != 2 || !ReadTorchTensor(args[0], &x) ||
      !ReadIntList(args[1], &dims)) {
    return py::object();
  }
  const int64_t rank = static_cast<int64_t>(x.handle->shape().dims.size());
  if (static_cast<int64_t>(dims.size()) != rank) return py::object();
  std::vector<bool> seen(rank, false);
  for (int64_t& d : dims) {
    if (!CanonicalDim(d, rank, &d) || (rank > 0 && seen[d])) {
      return py::object();
    }
    if (rank > 0) seen[d] = true;
  }
  return PermuteView(x, std::move(dims));
}

// aten.expand.default(self, size, implicit=False)
FastRuleResult Expand(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  std::vector<int64_t> size;
  if (nargs < 2 || nargs > 3 || !ReadTorchTensor(args[0], &x) ||
      !ReadIntList(args[1], &size)) {
    return py::object();
  }
  const std::vector<int64_t>& dims = x.handle->shape().dims;
  const std::vector<int64_t> strides = StridesOf(x);
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t ndim = static_cast<int64_t>(size.size());
  if (ndim < rank) return py::object();
  std::vector<int64_t> target(ndim), new_strides(ndim);
  for (int64_t i = ndim - 1; i >= 0; --i) {
    const int64_t d = i - (ndim - rank);
    int64_t current = 1, stride;
    if (d >= 0) {
      current = dims[d];
      stride = strides[d];
    } else {
      stride = i + 1 < ndim ? target[i + 1] * new_strides[i + 1] : 1;
    }
    int64_t want = size[i];
    if (want == -1) {
      if (d < 0) return py::object();
      want = current;
    }
    if (want != current) {
      if (current != 1) return py::object();
      stride = 0;
    }
    target[i] = want;
    new_strides[i] = stride;
  }
  const bool writable = NumElements(target) == NumElements(dims);
  return MakeView(x, ExpandStep(std::move(target), dims, writable),
                  std::move(new_strides), StorageOffsetOf(x));
}

// aten.slice.Tensor(self, dim=0, start=None, end=None, step=1), unit step.
FastRuleResult SliceRule(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  int64_t dim = 0, step = 1;
  if (nargs < 1 || nargs > 5 || !ReadTorchTensor(args[0], &x) ||
      !ReadOptionalInt(args, nargs, 1, &dim) ||
      !ReadOptionalInt(args, nargs, 4, &step) || step != 1) {
    return py::object();
  }
  const std::vector<int64_t>& dims = x.handle->shape().dims;
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t d;
  if (rank == 0 || !CanonicalDim(dim, rank, &d)) return py::object();
  int64_t start = 0, end = dims[d];
  if (!ReadOptionalInt(args, nargs, 2, &start) ||
      !ReadOptionalInt(args, nargs, 3, &end)) {
    return py::object();
  }
  std::tie(start, end) = ClampSlice(dims[d], start, end);
  std::vector<int64_t> strides = StridesOf(x);
  const int64_t offset = StorageOffsetOf(x) + start * strides[d];
  return MakeView(x, SliceStep(d, start, end), std::move(strides), offset);
}

// aten.clone.default(self, *, memory_format=None): results are contiguous.
FastRuleResult Clone(PyObject* const* args, Py_ssize_t nargs,
                     PyObject* kwargs) {
  TorchTensor x;
  if (nargs != 1 || !KwargsAre(kwargs, {"memory_format"}, false) ||
      !ReadTorchTensor(args[0], &x)) {
    return py::object();
  }
  return WrapTensor(CloneTensor(CurrentHandle(x)));
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
                                  {"aten::transpose.int", Positional<TransposeRule>},
                                  {"aten::permute", Positional<Permute>},
                                  {"aten::expand", Positional<Expand>},
                                  {"aten::slice.Tensor", Positional<SliceRule>},
                                  {"aten::clone", Clone},
                                  {"aten::detach", Positional<Alias>},
                                  {"aten::alias", Positional<Alias>},
                              });
}

}  // namespace torch_xla::python
