// The C++ entry of 'xla' tensors' __torch_dispatch__, with C++ rules for the
// ops that dominate traced training steps (views, matrix products, binary
// arithmetic, float math, sum/mean, softmax, masked_fill). A fast rule handles
// only the common, valid case and declines everything else (other dtypes,
// unusual arguments, errors) to the op's Python rule, which stays the reference
// and owns every error message. Both build the same IR.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <map>
#include <numeric>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/ir_values.h"
#include "torch_xla/csrc/python/scalar_leaves.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/torch_tensor.h"
#include "torch_xla/csrc/python/view_info.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

// A rule returns the op's result, or a null object to decline. `kwargs` is
// null when the call has no keyword arguments.
using FastRule = py::object (*)(PyObject* const* args, Py_ssize_t nargs,
                                PyObject* kwargs);
using PositionalRule = py::object (*)(PyObject* const* args, Py_ssize_t nargs);

// Most rules take positional arguments only.
template <PositionalRule kRule>
py::object Positional(PyObject* const* args, Py_ssize_t nargs,
                      PyObject* kwargs) {
  if (kwargs != nullptr) return {};
  return kRule(args, nargs);
}

// True when every keyword argument is one of `allowed` and, where
// `must_be_none`, is None.
bool KwargsAre(PyObject* kwargs, std::initializer_list<const char*> allowed,
               bool must_be_none) {
  if (kwargs == nullptr) return true;
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(kwargs, &pos, &key, &value)) {
    const char* name = PyUnicode_AsUTF8(key);
    if (name == nullptr) {
      PyErr_Clear();
      return false;
    }
    bool known = false;
    for (const char* a : allowed) known = known || std::strcmp(a, name) == 0;
    if (!known || (must_be_none && value != Py_None)) return false;
  }
  return true;
}

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
  if (dims.empty() || NumElements(dims) == 0)
    return ContiguousStrides(new_dims);
  std::vector<int64_t> out(new_dims.size(), 0);
  int64_t view_d = static_cast<int64_t>(new_dims.size()) - 1;
  int64_t chunk_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    tensor_numel *= dims[d];
    // A chunk of dims that are contiguous with each other ends here.
    if (d == 0 ||
        (dims[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_stride)) {
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
  std::vector<int64_t> strides = x.view == nullptr
                                     ? ContiguousStrides(size)
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
  Value output = Reshape(input, size);
  return WrapTensor(output == input ? CloneTensor(current)
                                    : XlaTensor::FromIr(std::move(output),
                                                        current->device()));
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
  return MakeView(x, PermuteStep(std::move(permutation)), std::move(permuted),
                  StorageOffsetOf(x));
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
  if (nargs != 2 || !ReadTorchTensor(args[0], &x) ||
      !ReadIntList(args[1], &dims)) {
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
  return MakeView(x, ExpandStep(std::move(target), dims, writable),
                  std::move(new_strides), StorageOffsetOf(x));
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
  return MakeView(x, SliceStep(d, start, end), std::move(strides), offset);
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
  Value product(
      ValueOrThrow(MakeNode(OpKind::kDotGeneral,
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
py::object Arithmetic(PyObject* const* args, Py_ssize_t nargs) {
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
py::object ArithmeticInPlace(PyObject* const* args, Py_ssize_t nargs) {
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

py::object WrapValue(Value value, const TorchTensor& like) {
  return WrapTensor(XlaTensor::FromIr(std::move(value), like.handle->device()));
}

Value CurrentValue(const TorchTensor& tensor) {
  return ValueOrThrow(CurrentHandle(tensor)->GetIrValue());
}

// aten.clone.default(self, *, memory_format=None): results are contiguous.
py::object Clone(PyObject* const* args, Py_ssize_t nargs, PyObject* kwargs) {
  TorchTensor x;
  if (nargs != 1 || !KwargsAre(kwargs, {"memory_format"}, false) ||
      !ReadTorchTensor(args[0], &x)) {
    return {};
  }
  return WrapTensor(CloneTensor(CurrentHandle(x)));
}

// aten.detach / aten.alias(self): a new tensor sharing self's handle (so
// in-place updates are shared) and view info, as copy_ops.alias_of.
py::object Alias(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  if (nargs != 1 || !ReadTorchTensor(args[0], &x)) return {};
  return WrapTensor(x.handle, x.view);
}

// Floating-point math functions (integer inputs go to the Python rule).
template <OpKind kKind>
py::object FloatUnary(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  if (nargs != 1 || !ReadTorchTensor(args[0], &x) ||
      !IsFloat(x.handle->shape().dtype)) {
    return {};
  }
  return WrapValue(Unary(kKind, CurrentValue(x)), x);
}

// aten.pow.Tensor_Scalar(self, 2) on floats: x * x.
py::object Square(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  if (nargs != 2 || !ReadTorchTensor(args[0], &x) ||
      !IsFloat(x.handle->shape().dtype)) {
    return {};
  }
  const bool two =
      (PyLong_CheckExact(args[1]) && PyLong_AsLong(args[1]) == 2) ||
      (PyFloat_CheckExact(args[1]) && PyFloat_AS_DOUBLE(args[1]) == 2.0);
  if (!two) return {};
  Value v = CurrentValue(x);
  return WrapValue(Binary(OpKind::kMultiply, v, v), x);
}

DType AccumulationType(DType dtype) {
  return dtype == DType::kBF16 || dtype == DType::kF16 ? DType::kF32 : dtype;
}

// Sorted canonical reduction dims of an ATen `dim` argument (None or a
// list, empty meaning all); false where eager would raise.
bool ReadReductionDims(PyObject* object, int64_t rank,
                       std::vector<int64_t>* dims) {
  std::vector<int64_t> raw;
  if (object != Py_None && !ReadIntList(object, &raw)) return false;
  if (raw.empty()) {
    dims->resize(rank);
    std::iota(dims->begin(), dims->end(), 0);
    return true;
  }
  dims->clear();
  for (int64_t d : raw) {
    int64_t c;
    if (!CanonicalDim(d, rank, &c) ||
        std::find(dims->begin(), dims->end(), c) != dims->end()) {
      return false;
    }
    dims->push_back(c);
  }
  std::sort(dims->begin(), dims->end());
  return true;
}

// sum and mean of floats, accumulated in f32 for bf16/f16 (see
// torch_xla/_ops/reductions.py); dtype= must be absent.
template <bool kMean>
py::object SumOrMean(const TorchTensor& x, const std::vector<int64_t>& dims,
                     bool keep_dims) {
  const DType dtype = x.handle->shape().dtype;
  const DType acc = AccumulationType(dtype);
  Value total = Reduce(Convert(CurrentValue(x), acc), dims, "sum", keep_dims);
  if (kMean) {
    int64_t count = 1;
    for (int64_t d : dims) count *= x.handle->shape().dims[d];
    std::vector<int64_t> total_dims = total.shape().dims;
    total = Binary(OpKind::kDivide, total,
                   Literal(static_cast<double>(count), acc, total_dims));
  }
  return WrapValue(Convert(std::move(total), dtype), x);
}

// aten.sum.dim_IntList / aten.mean.dim(self, dim, keepdim=False, *, dtype=None)
template <bool kMean>
py::object ReduceDims(PyObject* const* args, Py_ssize_t nargs,
                      PyObject* kwargs) {
  TorchTensor x;
  if (nargs < 2 || nargs > 3 || !KwargsAre(kwargs, {"dtype"}, true) ||
      !ReadTorchTensor(args[0], &x) || !IsFloat(x.handle->shape().dtype)) {
    return {};
  }
  const int64_t rank = static_cast<int64_t>(x.handle->shape().dims.size());
  std::vector<int64_t> dims;
  if (rank == 0 || !ReadReductionDims(args[1], rank, &dims)) return {};
  bool keep_dims = false;
  if (nargs == 3) {
    if (!PyBool_Check(args[2])) return {};
    keep_dims = args[2] == Py_True;
  }
  return SumOrMean<kMean>(x, dims, keep_dims);
}

// aten.sum.default(self, *, dtype=None)
py::object SumAll(PyObject* const* args, Py_ssize_t nargs, PyObject* kwargs) {
  TorchTensor x;
  if (nargs != 1 || !KwargsAre(kwargs, {"dtype"}, true) ||
      !ReadTorchTensor(args[0], &x) || !IsFloat(x.handle->shape().dtype)) {
    return {};
  }
  const int64_t rank = static_cast<int64_t>(x.handle->shape().dims.size());
  if (rank == 0) return {};
  std::vector<int64_t> dims(rank);
  std::iota(dims.begin(), dims.end(), 0);
  return SumOrMean<false>(x, dims, false);
}

// Softmax over one dim of a float tensor (not half_to_float), as
// torch_xla/_ops/normalization.py builds it: x - max (NaN-aware), exp,
// divide by the sum, in the accumulation type.
bool ReadSoftmaxDim(PyObject* object, const TorchTensor& x, int64_t* dim) {
  const int64_t rank = static_cast<int64_t>(x.handle->shape().dims.size());
  int64_t raw;
  return rank > 0 && ReadInt(object, &raw) && CanonicalDim(raw, rank, dim);
}

py::object Softmax(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  int64_t dim;
  if (nargs != 3 || !ReadTorchTensor(args[0], &x) ||
      !IsFloat(x.handle->shape().dtype) || args[2] != Py_False ||
      !ReadSoftmaxDim(args[1], x, &dim)) {
    return {};
  }
  const DType dtype = x.handle->shape().dtype;
  const std::vector<int64_t> dims{dim};
  Value v = Convert(CurrentValue(x), AccumulationType(dtype));
  const std::vector<int64_t> shape = v.shape().dims;
  // max keeping NaN: XLA's max drops it, so a NaN test picks it back.
  Value max = Reduce(v, dims, "max", true);
  Value has_nan =
      Reduce(Value(ValueOrThrow(MakeCompare(v, v, "NE"))), dims, "or", true);
  std::vector<int64_t> max_dims = max.shape().dims;
  max = Value(ValueOrThrow(MakeNode(
      OpKind::kSelect,
      {has_nan, Literal(std::nan(""), max.shape().dtype, max_dims), max})));
  Value e = Unary(OpKind::kExponential,
                  Binary(OpKind::kSubtract, v, BroadcastTo(max, shape)));
  Value total = Reduce(e, dims, "sum", true);
  return WrapValue(
      Convert(Binary(OpKind::kDivide, e, BroadcastTo(total, shape)), dtype), x);
}

// aten._softmax_backward_data(grad_output, output, dim, input_dtype):
// y * (g - sum(g * y)).
py::object SoftmaxBackward(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor g, y;
  int64_t dim;
  DType dtype;
  if (nargs != 4 || !ReadTorchTensor(args[0], &g) ||
      !ReadTorchTensor(args[1], &y) || !ReadDType(args[3], &dtype) ||
      !IsFloat(dtype) || g.handle->shape().dims != y.handle->shape().dims ||
      !ReadSoftmaxDim(args[2], y, &dim)) {
    return {};
  }
  const DType acc = AccumulationType(dtype);
  Value gv = Convert(CurrentValue(g), acc);
  Value yv = Convert(CurrentValue(y), acc);
  const std::vector<int64_t> shape = yv.shape().dims;
  Value dot = Reduce(Binary(OpKind::kMultiply, gv, yv), {dim}, "sum", true);
  Value grad = Binary(OpKind::kMultiply, yv,
                      Binary(OpKind::kSubtract, gv, BroadcastTo(dot, shape)));
  return WrapValue(Convert(std::move(grad), dtype), y);
}

// aten.masked_fill.Scalar(self, mask, value): an 'xla' bool mask that
// broadcasts to self's shape, a Python number.
py::object MaskedFill(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x, mask;
  if (nargs != 3 || !ReadTorchTensor(args[0], &x) ||
      !ReadTorchTensor(args[1], &mask) ||
      mask.handle->shape().dtype != DType::kBool ||
      x.handle->device() != mask.handle->device() ||
      !(PyFloat_CheckExact(args[2]) || PyLong_CheckExact(args[2]))) {
    return {};
  }
  const Shape& shape = x.handle->shape();
  if (PyFloat_CheckExact(args[2]) && !IsFloat(shape.dtype)) return {};
  if (BroadcastShape({&shape, &mask.handle->shape()}) != shape.dims) return {};
  Value fill = ScalarLeafAtSite(args[2], shape.dtype);
  Value m = BroadcastTo(CurrentValue(mask), shape.dims);
  return WrapValue(
      Value(ValueOrThrow(MakeNode(
          OpKind::kSelect,
          {m, BroadcastTo(std::move(fill), shape.dims), CurrentValue(x)}))),
      x);
}

// aten.slice_backward(grad, input_sizes, dim, start, end, step): the
// gradient padded into zeros (interior padding for step > 1).
py::object SliceBackward(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor grad;
  std::vector<int64_t> shape;
  int64_t dim, start, end, step;
  if (nargs != 6 || !ReadTorchTensor(args[0], &grad) ||
      !ReadIntList(args[1], &shape) || !ReadInt(args[2], &dim) ||
      !ReadInt(args[3], &start) || !ReadInt(args[4], &end) ||
      !ReadInt(args[5], &step) || step < 1) {
    return {};
  }
  const int64_t rank = static_cast<int64_t>(shape.size());
  int64_t d;
  if (rank == 0 || !CanonicalDim(dim, rank, &d)) return {};
  const std::vector<int64_t>& grad_dims = grad.handle->shape().dims;
  const int64_t size = shape[d];
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::min(std::max<int64_t>(start, 0), size);
  end = std::min(std::max(end, start), size);
  const int64_t n = grad_dims.size() == shape.size() ? grad_dims[d] : -1;
  if (n <= 0 || (end - start + step - 1) / step != n) return {};
  std::vector<int64_t> low(rank, 0), high(rank, 0), interior(rank, 0);
  low[d] = start;
  high[d] = size - start - (n - 1) * step - 1;
  interior[d] = step - 1;
  Value g = CurrentValue(grad);
  Value zero = Literal(0, g.shape().dtype, {});
  return WrapValue(
      Value(ValueOrThrow(MakeNode(OpKind::kPad, {std::move(g), std::move(zero)},
                                  Attrs()
                                      .Set("low", low)
                                      .Set("high", high)
                                      .Set("interior", interior)))),
      grad);
}

// A Python number as the scalar parameter of `dtype` on `like`'s device
// (what the Python rules' `_common.scalar` gives), broadcast to its shape.
Value NumberAs(PyObject* number, DType dtype, const TorchTensor& like) {
  return BroadcastTo(ScalarLeafAtSite(number, dtype),
                     like.handle->shape().dims);
}

bool IsNumber(PyObject* object) {
  return PyFloat_CheckExact(object) || PyLong_CheckExact(object);
}

// In-place update of `x` to `value` (x's dtype and shape); returns x.
py::object CommitInPlace(PyObject* object, const TorchTensor& x, Value value) {
  XlaTensorPtr result = XlaTensor::FromIr(std::move(value), x.handle->device());
  if (x.view != nullptr) {
    CommitView(x.handle, *x.view, result);
  } else {
    AssignValue(x.handle, result, /*bump_version=*/true);
  }
  return py::reinterpret_borrow<py::object>(object);
}

// Reads `count` 'xla' tensors of one float dtype and one shape (the
// optimizer's per-parameter updates: no promotion, no broadcasting).
bool ReadSameFloatTensors(PyObject* const* args, int count, TorchTensor* out) {
  for (int i = 0; i < count; ++i) {
    if (!ReadTorchTensor(args[i], &out[i])) return false;
    const Shape& shape = out[i].handle->shape();
    if (!IsFloat(shape.dtype) || shape != out[0].handle->shape() ||
        out[i].handle->device() != out[0].handle->device()) {
      return false;
    }
  }
  return true;
}

// aten.lerp_.Scalar(self, end, weight), as torch_xla/_ops/optim_ops.py:
// eager's two-sided formula in opmath (f32 for bf16/f16).
py::object LerpInPlace(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor t[2];
  if (nargs != 3 || !ReadSameFloatTensors(args, 2, t) || !IsNumber(args[2])) {
    return {};
  }
  const double weight = PyFloat_AsDouble(args[2]);
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return {};
  }
  const Shape& shape = t[0].handle->shape();
  const DType acc = AccumulationType(shape.dtype);
  Value s = Convert(CurrentValue(t[0]), acc);
  Value e = Convert(CurrentValue(t[1]), acc);
  Value diff = Binary(OpKind::kSubtract, e, s);
  Value w = NumberAs(args[2], acc, t[0]);
  Value out = std::abs(weight) < 0.5
                  ? Binary(OpKind::kAdd, s, Binary(OpKind::kMultiply, w, diff))
                  : Binary(OpKind::kSubtract, e,
                           Binary(OpKind::kMultiply, diff,
                                  Binary(OpKind::kSubtract,
                                         Literal(1, acc, shape.dims), w)));
  return CommitInPlace(args[0], t[0], Convert(std::move(out), shape.dtype));
}

// aten.addcmul_ / addcdiv_(self, tensor1, tensor2, *, value=1):
// self + value * t1 (* or /) t2, left to right, in opmath.
template <OpKind kKind>
py::object AddcInPlace(PyObject* const* args, Py_ssize_t nargs,
                       PyObject* kwargs) {
  TorchTensor t[3];
  if (nargs != 3 || !KwargsAre(kwargs, {"value"}, false) ||
      !ReadSameFloatTensors(args, 3, t)) {
    return {};
  }
  PyObject* value =
      kwargs == nullptr ? nullptr : PyDict_GetItemString(kwargs, "value");
  if (value != nullptr && !IsNumber(value)) return {};
  const Shape& shape = t[0].handle->shape();
  const DType acc = AccumulationType(shape.dtype);
  Value term = Convert(CurrentValue(t[1]), acc);
  if (value != nullptr && PyFloat_AsDouble(value) != 1.0) {
    term = Binary(OpKind::kMultiply, NumberAs(value, acc, t[0]), term);
  }
  term = Binary(kKind, term, Convert(CurrentValue(t[2]), acc));
  Value out = Binary(OpKind::kAdd, Convert(CurrentValue(t[0]), acc), term);
  return CommitInPlace(args[0], t[0], Convert(std::move(out), shape.dtype));
}

const std::unordered_map<std::string, FastRule>& RulesByName() {
  static const auto* rules = new std::unordered_map<std::string, FastRule>{
      {"aten::view", Positional<View>},
      {"aten::_unsafe_view", Positional<UnsafeView>},
      {"aten::unsqueeze", Positional<Unsqueeze>},
      {"aten::t", Positional<T>},
      {"aten::transpose.int", Positional<TransposeRule>},
      {"aten::permute", Positional<Permute>},
      {"aten::expand", Positional<Expand>},
      {"aten::slice.Tensor", Positional<SliceRule>},
      {"aten::mm", Positional<Mm>},
      {"aten::bmm", Positional<Bmm>},
      {"aten::add.Tensor", Positional<Arithmetic<OpKind::kAdd, true, false>>},
      {"aten::add.Scalar", Positional<Arithmetic<OpKind::kAdd, true, false>>},
      {"aten::sub.Tensor",
       Positional<Arithmetic<OpKind::kSubtract, true, false>>},
      {"aten::sub.Scalar",
       Positional<Arithmetic<OpKind::kSubtract, true, false>>},
      {"aten::mul.Tensor",
       Positional<Arithmetic<OpKind::kMultiply, false, false>>},
      {"aten::mul.Scalar",
       Positional<Arithmetic<OpKind::kMultiply, false, false>>},
      {"aten::div.Tensor",
       Positional<Arithmetic<OpKind::kDivide, false, true>>},
      {"aten::div.Scalar",
       Positional<Arithmetic<OpKind::kDivide, false, true>>},
      {"aten::add_.Tensor", Positional<ArithmeticInPlace<OpKind::kAdd, true>>},
      {"aten::add_.Scalar", Positional<ArithmeticInPlace<OpKind::kAdd, true>>},
      {"aten::sub_.Tensor",
       Positional<ArithmeticInPlace<OpKind::kSubtract, true>>},
      {"aten::mul_.Tensor",
       Positional<ArithmeticInPlace<OpKind::kMultiply, false>>},
      {"aten::mul_.Scalar",
       Positional<ArithmeticInPlace<OpKind::kMultiply, false>>},
      {"aten::clone", Clone},
      {"aten::detach", Positional<Alias>},
      {"aten::alias", Positional<Alias>},
      {"aten::exp", Positional<FloatUnary<OpKind::kExponential>>},
      {"aten::log", Positional<FloatUnary<OpKind::kLog>>},
      {"aten::sqrt", Positional<FloatUnary<OpKind::kSqrt>>},
      {"aten::rsqrt", Positional<FloatUnary<OpKind::kRsqrt>>},
      {"aten::sin", Positional<FloatUnary<OpKind::kSine>>},
      {"aten::cos", Positional<FloatUnary<OpKind::kCosine>>},
      {"aten::tanh", Positional<FloatUnary<OpKind::kTanh>>},
      {"aten::sigmoid", Positional<FloatUnary<OpKind::kLogistic>>},
      {"aten::neg", Positional<FloatUnary<OpKind::kNegate>>},
      {"aten::pow.Tensor_Scalar", Positional<Square>},
      {"aten::sum", SumAll},
      {"aten::sum.dim_IntList", ReduceDims<false>},
      {"aten::mean.dim", ReduceDims<true>},
      {"aten::_softmax", Positional<Softmax>},
      {"aten::_softmax_backward_data", Positional<SoftmaxBackward>},
      {"aten::masked_fill.Scalar", Positional<MaskedFill>},
      {"aten::slice_backward", Positional<SliceBackward>},
      {"aten::lerp_.Scalar", Positional<LerpInPlace>},
      {"aten::addcmul_", AddcInPlace<OpKind::kMultiply>},
      {"aten::addcdiv_", AddcInPlace<OpKind::kDivide>},
  };
  return *rules;
}

// An installed rule, and how many calls it handled (it declined the rest).
struct InstalledRule {
  FastRule rule;
  std::string name;
  int64_t hits = 0;
};

// OpOverload object -> rule; the objects are kept alive by the table.
std::unordered_map<PyObject*, InstalledRule>& RulesByOverload() {
  static auto* rules = new std::unordered_map<PyObject*, InstalledRule>();
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
      "_fast_rule_hits",
      [] {
        std::map<std::string, int64_t> hits;
        for (const auto& [overload, installed] : RulesByOverload()) {
          hits[installed.name] += installed.hits;
        }
        return hits;
      },
      "{qualified name: calls its installed fast rule handled} (calls it "
      "declined went to the Python rule and are not counted).");
  m.def(
      "_install_fast_rules",
      [](const py::dict& overloads, py::object python_dispatch) {
        for (auto [name, overload] : overloads) {
          auto it = RulesByName().find(py::cast<std::string>(name));
          if (it == RulesByName().end()) {
            throw py::key_error("no fast rule for " +
                                py::cast<std::string>(name));
          }
          RulesByOverload()[overload.inc_ref().ptr()] =
              InstalledRule{it->second, it->first};
        }
        static py::object* fallback = new py::object();
        *fallback = std::move(python_dispatch);
        // __torch_dispatch__(cls, func, types, args, kwargs)
        return py::cpp_function(
            [](py::handle cls, py::handle func, py::handle types,
               py::handle args, py::handle kwargs) -> py::object {
              PyObject* keywords = nullptr;
              if (PyDict_Check(kwargs.ptr()) &&
                  PyDict_GET_SIZE(kwargs.ptr()) > 0) {
                keywords = kwargs.ptr();
              }
              if ((keywords != nullptr || kwargs.is_none() ||
                   PyDict_Check(kwargs.ptr())) &&
                  PyTuple_Check(args.ptr())) {
                auto it = RulesByOverload().find(func.ptr());
                if (it != RulesByOverload().end()) {
                  py::object result =
                      it->second.rule(&PyTuple_GET_ITEM(args.ptr(), 0),
                                      PyTuple_GET_SIZE(args.ptr()), keywords);
                  if (result) {
                    ++it->second.hits;
                    return result;
                  }
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
