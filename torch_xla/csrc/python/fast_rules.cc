// The C++ entry of 'xla' tensors' __torch_dispatch__, with C++ rules for the
// ops that dominate traced training steps (views, matrix products, binary
// arithmetic). A fast rule handles only the common, valid case and declines
// everything else (other dtypes, unusual arguments, errors) to the op's
// Python rule, which stays the reference and owns every error message. Both
// build the same IR.

#include <cstdint>
#include <numeric>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/ir_values.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/torch_tensor.h"
#include "torch_xla/csrc/python/view_info.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

// A rule returns the op's result, or a null object to decline.
using FastRule = py::object (*)(PyObject* const* args, Py_ssize_t nargs);

// Argument readers: false when the argument is not the plain kind.

bool ReadInt(PyObject* object, int64_t* value) {
  if (!PyLong_CheckExact(object)) return false;
  int overflow = 0;
  *value = PyLong_AsLongLongAndOverflow(object, &overflow);
  return overflow == 0;
}

bool ReadIntList(PyObject* object, std::vector<int64_t>* values) {
  if (!PyList_CheckExact(object) && !PyTuple_CheckExact(object)) return false;
  PyObject** items = PySequence_Fast_ITEMS(object);
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(object);
  values->resize(n);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!ReadInt(items[i], &(*values)[i])) return false;
  }
  return true;
}

// An optional int argument: absent or None leaves `value` unchanged.
bool ReadOptionalInt(PyObject* const* args, Py_ssize_t nargs, Py_ssize_t i,
                     int64_t* value) {
  if (i >= nargs || args[i] == Py_None) return true;
  return ReadInt(args[i], value);
}

bool CanonicalDim(int64_t dim, int64_t rank, int64_t* out) {
  const int64_t bound = std::max<int64_t>(rank, 1);
  if (dim < -bound || dim >= bound) return false;
  *out = dim < 0 ? dim + bound : dim;
  return true;
}

int64_t NumElements(const std::vector<int64_t>& dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1},
                         std::multiplies<int64_t>());
}

// `size` with one -1 resolved; false where eager would raise.
bool InferSize(std::vector<int64_t>* size, int64_t numel) {
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < size->size(); ++i) {
    const int64_t s = (*size)[i];
    if (s == -1) {
      if (infer >= 0) return false;
      infer = static_cast<int>(i);
    } else if (s < 0) {
      return false;
    } else {
      known *= s;
    }
  }
  if (infer < 0) return known == numel;
  if (known == 0 || numel % known != 0) return false;
  (*size)[infer] = numel / known;
  return true;
}

// Eager's strides for viewing (dims, strides) as new_dims, or contiguous
// strides where eager could not view it (see torch_xla/_ops/views.py).
std::vector<int64_t> ViewStrides(const std::vector<int64_t>& dims,
                                 const std::vector<int64_t>& strides,
                                 const std::vector<int64_t>& new_dims) {
  if (dims.empty() || NumElements(dims) == 0) return ContiguousStrides(new_dims);
  std::vector<int64_t> out(new_dims.size(), 0);
  int64_t view_d = static_cast<int64_t>(new_dims.size()) - 1;
  int64_t chunk_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    tensor_numel *= dims[d];
    // A chunk of dims that are contiguous with each other ends here.
    if (d == 0 || (dims[d - 1] != 1 &&
                   strides[d - 1] != tensor_numel * chunk_stride)) {
      while (view_d >= 0 &&
             (view_numel < tensor_numel || new_dims[view_d] == 1)) {
        out[view_d] = view_numel * chunk_stride;
        view_numel *= new_dims[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return ContiguousStrides(new_dims);
      if (d > 0) {
        chunk_stride = strides[d - 1];
        tensor_numel = view_numel = 1;
      }
    }
  }
  if (view_d != -1) return ContiguousStrides(new_dims);
  return out;
}

// A handle of its own for a view or reshape result, even when the op was
// the identity (a tensor holding data keeps holding the same data).
XlaTensorPtr Distinct(const XlaTensorPtr& input, const Value& input_value,
                      Value value) {
  if (value == input_value && input->state() != TensorState::kIrValue) {
    return XlaTensor::FromData(input->data(), input->device());
  }
  return XlaTensor::FromIr(std::move(value), input->device());
}

py::object MakeView(const TorchTensor& base, ViewStepPtr step,
                    Value (*forward_value)(Value, const void*), const void* arg,
                    std::vector<int64_t> strides, int64_t storage_offset) {
  const XlaTensorPtr& current = CurrentHandle(base);
  Value input = ValueOrThrow(current->GetIrValue());
  XlaTensorPtr handle = Distinct(current, input, forward_value(input, arg));
  return WrapTensor(std::move(handle),
                    ExtendView(base.handle, base.view, std::move(step),
                               std::move(strides), storage_offset));
}

Value ReshapeTo(Value x, const void* dims) {
  return Reshape(std::move(x), *static_cast<const std::vector<int64_t>*>(dims));
}

Value PermuteBy(Value x, const void* permutation) {
  return Transpose(std::move(x),
                   *static_cast<const std::vector<int64_t>*>(permutation));
}

Value ExpandTo(Value x, const void* dims) {
  return BroadcastTo(std::move(x),
                     *static_cast<const std::vector<int64_t>*>(dims));
}

py::object ReshapeView(const TorchTensor& x, std::vector<int64_t> dims,
                       std::vector<int64_t> strides) {
  const std::vector<int64_t>& old = x.handle->shape().dims;
  ViewStepPtr step = ReshapeStep(dims, old);
  return MakeView(x, std::move(step), ReshapeTo, &dims, std::move(strides),
                  StorageOffsetOf(x));
}

// aten.view.default(self, size)
py::object View(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  std::vector<int64_t> size;
  if (nargs != 2 || !ReadTorchTensor(args[0], &x) ||
      !ReadIntList(args[1], &size)) {
    return {};
  }
  const std::vector<int64_t>& dims = x.handle->shape().dims;
  if (!InferSize(&size, NumElements(dims))) return {};
  std::vector<int64_t> strides =
      x.view == nullptr ? ContiguousStrides(size)
                        : ViewStrides(dims, x.view->strides, size);
  return ReshapeView(x, std::move(size), std::move(strides));
}

// aten._unsafe_view.default(self, size): a reshape, not a view.
py::object UnsafeView(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  std::vector<int64_t> size;
  if (nargs != 2 || !ReadTorchTensor(args[0], &x) ||
      !ReadIntList(args[1], &size) ||
      !InferSize(&size, NumElements(x.handle->shape().dims))) {
    return {};
  }
  const XlaTensorPtr& current = CurrentHandle(x);
  Value input = ValueOrThrow(current->GetIrValue());
  return WrapTensor(Distinct(current, input, Reshape(input, size)));
}

// aten.unsqueeze.default(self, dim)
py::object Unsqueeze(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  int64_t dim;
  if (nargs != 2 || !ReadTorchTensor(args[0], &x) || !ReadInt(args[1], &dim)) {
    return {};
  }
  std::vector<int64_t> dims = x.handle->shape().dims;
  std::vector<int64_t> strides = StridesOf(x);
  int64_t d;
  if (!CanonicalDim(dim, static_cast<int64_t>(dims.size()) + 1, &d)) return {};
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
  ViewStepPtr step = PermuteStep(permutation);
  return MakeView(x, std::move(step), PermuteBy, &permutation,
                  std::move(permuted), StorageOffsetOf(x));
}

// aten.t.default(self)
py::object T(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  if (nargs != 1 || !ReadTorchTensor(args[0], &x)) return {};
  const int64_t rank = static_cast<int64_t>(x.handle->shape().dims.size());
  if (rank > 2) return {};
  std::vector<int64_t> permutation(rank);
  for (int64_t i = 0; i < rank; ++i) permutation[i] = rank - 1 - i;
  return PermuteView(x, std::move(permutation));
}

// aten.transpose.int(self, dim0, dim1)
py::object TransposeRule(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  int64_t dim0, dim1, d0, d1;
  if (nargs != 3 || !ReadTorchTensor(args[0], &x) || !ReadInt(args[1], &dim0) ||
      !ReadInt(args[2], &dim1)) {
    return {};
  }
  const int64_t rank = static_cast<int64_t>(x.handle->shape().dims.size());
  if (rank == 0 || !CanonicalDim(dim0, rank, &d0) ||
      !CanonicalDim(dim1, rank, &d1)) {
    return {};
  }
  std::vector<int64_t> permutation(rank);
  std::iota(permutation.begin(), permutation.end(), 0);
  std::swap(permutation[d0], permutation[d1]);
  return PermuteView(x, std::move(permutation));
}

// aten.permute.default(self, dims)
py::object Permute(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  std::vector<int64_t> dims;
  if (nargs != 2 || !ReadTorchTensor(args[0], &x) || !ReadIntList(args[1], &dims)) {
    return {};
  }
  const int64_t rank = static_cast<int64_t>(x.handle->shape().dims.size());
  if (static_cast<int64_t>(dims.size()) != rank) return {};
  std::vector<bool> seen(rank, false);
  for (int64_t& d : dims) {
    if (!CanonicalDim(d, rank, &d) || (rank > 0 && seen[d])) return {};
    if (rank > 0) seen[d] = true;
  }
  return PermuteView(x, std::move(dims));
}

// aten.expand.default(self, size, implicit=False)
py::object Expand(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  std::vector<int64_t> size;
  if (nargs < 2 || nargs > 3 || !ReadTorchTensor(args[0], &x) ||
      !ReadIntList(args[1], &size)) {
    return {};
  }
  const std::vector<int64_t>& dims = x.handle->shape().dims;
  const std::vector<int64_t> strides = StridesOf(x);
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t ndim = static_cast<int64_t>(size.size());
  if (ndim < rank) return {};
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
      if (d < 0) return {};
      want = current;
    }
    if (want != current) {
      if (current != 1) return {};
      stride = 0;
    }
    target[i] = want;
    new_strides[i] = stride;
  }
  const bool writable = NumElements(target) == NumElements(dims);
  ViewStepPtr step = ExpandStep(target, dims, writable);
  return MakeView(x, std::move(step), ExpandTo, &target, std::move(new_strides),
                  StorageOffsetOf(x));
}

struct SliceArgs {
  int64_t dim, start, end;
};

Value SliceOf(Value x, const void* arg) {
  const auto* s = static_cast<const SliceArgs*>(arg);
  return SliceDim(std::move(x), s->dim, s->start, s->end);
}

// aten.slice.Tensor(self, dim=0, start=None, end=None, step=1), unit step.
py::object SliceRule(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  int64_t dim = 0, step = 1;
  if (nargs < 1 || nargs > 5 || !ReadTorchTensor(args[0], &x) ||
      !ReadOptionalInt(args, nargs, 1, &dim) ||
      !ReadOptionalInt(args, nargs, 4, &step) || step != 1) {
    return {};
  }
  const std::vector<int64_t>& dims = x.handle->shape().dims;
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t d;
  if (rank == 0 || !CanonicalDim(dim, rank, &d)) return {};
  const int64_t size = dims[d];
  int64_t start = 0, end = size;
  if (!ReadOptionalInt(args, nargs, 2, &start) ||
      !ReadOptionalInt(args, nargs, 3, &end)) {
    return {};
  }
  // Eager's clamping of the bounds.
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::min(std::max<int64_t>(start, 0), size);
  end = std::min(std::max(end, start), size);
  std::vector<int64_t> strides = StridesOf(x);
  const int64_t offset = StorageOffsetOf(x) + start * strides[d];
  SliceArgs slice{d, start, end};
  return MakeView(x, SliceStep(d, start, end), SliceOf, &slice,
                  std::move(strides), offset);
}

bool IsFloat(DType dtype) {
  return dtype == DType::kF32 || dtype == DType::kF64 ||
         dtype == DType::kBF16 || dtype == DType::kF16;
}

// One dot_general as torch_xla/_ops/linalg.py's `dot` builds it:
// half-precision operands accumulate in f32 and round once; f32/f64 ask
// for HIGHEST precision.
py::object Dot(const TorchTensor& a, const TorchTensor& b,
               std::vector<int64_t> contract_a, std::vector<int64_t> contract_b,
               std::vector<int64_t> batch) {
  const DType dtype = a.handle->shape().dtype;
  Attrs attrs = Attrs()
                    .Set("lhs_contract", std::move(contract_a))
                    .Set("rhs_contract", std::move(contract_b))
                    .Set("lhs_batch", batch)
                    .Set("rhs_batch", batch);
  const bool low_precision = dtype == DType::kBF16 || dtype == DType::kF16;
  if (low_precision) {
    attrs.Set("dtype", DType::kF32);
  } else {
    attrs.Set("precision", "HIGHEST");
  }
  Value product(ValueOrThrow(MakeNode(
      OpKind::kDotGeneral,
      {ValueOrThrow(CurrentHandle(a)->GetIrValue()),
       ValueOrThrow(CurrentHandle(b)->GetIrValue())},
      std::move(attrs))));
  return WrapTensor(XlaTensor::FromIr(Convert(std::move(product), dtype),
                                      a.handle->device()));
}

bool ReadMatrices(PyObject* const* args, Py_ssize_t nargs, size_t rank,
                  TorchTensor* a, TorchTensor* b) {
  if (nargs != 2 || !ReadTorchTensor(args[0], a) ||
      !ReadTorchTensor(args[1], b)) {
    return false;
  }
  const Shape& sa = a->handle->shape();
  const Shape& sb = b->handle->shape();
  return sa.dims.size() == rank && sb.dims.size() == rank &&
         sa.dtype == sb.dtype && IsFloat(sa.dtype) &&
         a->handle->device() == b->handle->device();
}

// aten.mm.default(self, mat2)
py::object Mm(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor a, b;
  if (!ReadMatrices(args, nargs, 2, &a, &b) ||
      a.handle->shape().dims[1] != b.handle->shape().dims[0]) {
    return {};
  }
  return Dot(a, b, {1}, {0}, {});
}

// aten.bmm.default(self, mat2)
py::object Bmm(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor a, b;
  if (!ReadMatrices(args, nargs, 3, &a, &b)) return {};
  const std::vector<int64_t>& da = a.handle->shape().dims;
  const std::vector<int64_t>& db = b.handle->shape().dims;
  if (da[0] != db[0] || da[2] != db[1]) return {};
  return Dot(a, b, {2}, {1}, {0});
}

// Binary arithmetic where eager's promotion is trivial: an 'xla' tensor and
// another of the same dtype, or a Python number of the tensor's category.
// alpha (add/sub) must be absent or 1.
bool BinaryDType(PyObject* const* args, Py_ssize_t nargs, bool has_alpha,
                 DType* dtype, TorchTensor* a) {
  if (nargs < 2 || nargs > (has_alpha ? 3 : 2)) return false;
  if (nargs == 3) {
    int64_t alpha;
    if (!ReadInt(args[2], &alpha) || alpha != 1) return false;
  }
  if (!ReadTorchTensor(args[0], a)) return false;
  *dtype = a->handle->shape().dtype;
  if (*dtype == DType::kBool) return false;
  PyObject* other = args[1];
  if (PyFloat_CheckExact(other)) return IsFloat(*dtype);
  if (PyLong_CheckExact(other)) return true;
  TorchTensor b;
  return ReadTorchTensor(other, &b) && b.handle->shape().dtype == *dtype &&
         b.handle->device() == a->handle->device();
}

XlaTensorPtr BinaryValue(OpKind kind, PyObject* const* args, DType dtype) {
  int device = 0;
  py::tuple operands = py::make_tuple(py::handle(args[0]), py::handle(args[1]));
  std::vector<Value> values = ResolveOperands(operands, dtype, &device);
  return XlaTensor::FromIr(
      Value(ValueOrThrow(MakeNode(kind, std::move(values)))), device);
}

template <OpKind kKind, bool kHasAlpha, bool kFloatOnly>
py::object Binary(PyObject* const* args, Py_ssize_t nargs) {
  DType dtype;
  TorchTensor a;
  if (!BinaryDType(args, nargs, kHasAlpha, &dtype, &a) ||
      (kFloatOnly && !IsFloat(dtype))) {
    return {};
  }
  return WrapTensor(BinaryValue(kKind, args, dtype));
}

// In-place x.op_(y): computed in x's dtype, committed into x.
template <OpKind kKind, bool kHasAlpha>
py::object BinaryInPlace(PyObject* const* args, Py_ssize_t nargs) {
  DType dtype;
  TorchTensor x;
  if (!BinaryDType(args, nargs, kHasAlpha, &dtype, &x)) return {};
  XlaTensorPtr value = BinaryValue(kKind, args, dtype);
  if (value->shape().dims != x.handle->shape().dims) return {};
  if (x.view != nullptr) {
    CommitView(x.handle, *x.view, value);
  } else {
    AssignValue(x.handle, value, /*bump_version=*/true);
  }
  return py::reinterpret_borrow<py::object>(args[0]);
}

const std::unordered_map<std::string, FastRule>& RulesByName() {
  static const auto* rules = new std::unordered_map<std::string, FastRule>{
      {"aten::view", View},
      {"aten::_unsafe_view", UnsafeView},
      {"aten::unsqueeze", Unsqueeze},
      {"aten::t", T},
      {"aten::transpose.int", TransposeRule},
      {"aten::permute", Permute},
      {"aten::expand", Expand},
      {"aten::slice.Tensor", SliceRule},
      {"aten::mm", Mm},
      {"aten::bmm", Bmm},
      {"aten::add.Tensor", Binary<OpKind::kAdd, true, false>},
      {"aten::add.Scalar", Binary<OpKind::kAdd, true, false>},
      {"aten::sub.Tensor", Binary<OpKind::kSubtract, true, false>},
      {"aten::sub.Scalar", Binary<OpKind::kSubtract, true, false>},
      {"aten::mul.Tensor", Binary<OpKind::kMultiply, false, false>},
      {"aten::mul.Scalar", Binary<OpKind::kMultiply, false, false>},
      {"aten::div.Tensor", Binary<OpKind::kDivide, false, true>},
      {"aten::div.Scalar", Binary<OpKind::kDivide, false, true>},
      {"aten::add_.Tensor", BinaryInPlace<OpKind::kAdd, true>},
      {"aten::add_.Scalar", BinaryInPlace<OpKind::kAdd, true>},
      {"aten::sub_.Tensor", BinaryInPlace<OpKind::kSubtract, true>},
      {"aten::mul_.Tensor", BinaryInPlace<OpKind::kMultiply, false>},
      {"aten::mul_.Scalar", BinaryInPlace<OpKind::kMultiply, false>},
  };
  return *rules;
}

// OpOverload object -> rule; the objects are kept alive by the table.
std::unordered_map<PyObject*, FastRule>& RulesByOverload() {
  static auto* rules = new std::unordered_map<PyObject*, FastRule>();
  return *rules;
}

}  // namespace

void InitFastRuleBindings(py::module_& m) {
  m.def(
      "_fast_rule_names",
      [] {
        std::vector<std::string> names;
        for (const auto& [name, rule] : RulesByName()) names.push_back(name);
        return names;
      },
      "Qualified overload names (aten::add.Tensor) with a C++ fast rule.");
  m.def(
      "_install_fast_rules",
      [](const py::dict& overloads, py::object python_dispatch) {
        for (auto [name, overload] : overloads) {
          auto it = RulesByName().find(py::cast<std::string>(name));
          if (it == RulesByName().end()) {
            throw py::key_error("no fast rule for " + py::cast<std::string>(name));
          }
          RulesByOverload()[overload.inc_ref().ptr()] = it->second;
        }
        static py::object* fallback = new py::object();
        *fallback = std::move(python_dispatch);
        // __torch_dispatch__(cls, func, types, args, kwargs)
        return py::cpp_function(
            [](py::handle cls, py::handle func, py::handle types,
               py::handle args, py::handle kwargs) -> py::object {
              const bool plain = kwargs.is_none() ||
                                 (PyDict_Check(kwargs.ptr()) &&
                                  PyDict_GET_SIZE(kwargs.ptr()) == 0);
              if (plain && PyTuple_Check(args.ptr())) {
                auto it = RulesByOverload().find(func.ptr());
                if (it != RulesByOverload().end()) {
                  py::object result = it->second(
                      &PyTuple_GET_ITEM(args.ptr(), 0), PyTuple_GET_SIZE(args.ptr()));
                  if (result) return result;
                }
              }
              return (*fallback)(func, args, kwargs);
            },
            py::arg("cls"), py::arg("func"), py::arg("types"),
            py::arg("args") = py::tuple(), py::arg("kwargs") = py::none());
      },
      py::arg("overloads"), py::arg("python_dispatch"),
      "Registers the fast rules for {qualified name: OpOverload} and returns "
      "the __torch_dispatch__ implementation: a fast rule when one applies, "
      "else python_dispatch(func, args, kwargs).");
}

}  // namespace torch_xla::python
