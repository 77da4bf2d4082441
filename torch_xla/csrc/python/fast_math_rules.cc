// Fast rules for arithmetic and math: mm/bmm, binary add/sub/mul/div and
// their in-place forms where eager's promotion is trivial, float unary
// math, x ** 2, and float sum/mean. Each only reads and checks the
// arguments, then calls the op's core builder in torch_xla/csrc/ops, the
// one the Python rule (torch_xla/_ops: elementwise.py, linalg.py,
// reductions.py) calls too. Contract: fast_rule_util.h.

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ops/arithmetic_ops.h"
#include "torch_xla/csrc/ops/linalg_ops.h"
#include "torch_xla/csrc/ops/reduction_ops.h"
#include "torch_xla/csrc/ops/unary_ops.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/fast_rule_util.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

bool ReadMatrices(PyObject* const* args, Py_ssize_t nargs, size_t rank,
                  TorchTensor* a, TorchTensor* b) {
  if (nargs != 2 || !ReadTorchTensor(args[0], a) ||
      !ReadTorchTensor(args[1], b)) {
    return false;
  }
  const Shape& sa = a->handle->shape();
  const Shape& sb = b->handle->shape();
  return sa.dims.size() == rank && sb.dims.size() == rank &&
         sa.dtype == sb.dtype && IsFloating(sa.dtype) &&
         a->handle->device() == b->handle->device();
}

template <absl::StatusOr<Value> (*kBuilder)(Value, Value)>
FastRuleResult Product(const TorchTensor& a, const TorchTensor& b) {
  TXLA_ASSIGN_OR_RETURN(Value va, CurrentValue(a));
  TXLA_ASSIGN_OR_RETURN(Value vb, CurrentValue(b));
  TXLA_ASSIGN_OR_RETURN(Value out, kBuilder(std::move(va), std::move(vb)));
  return WrapValue(std::move(out), a);
}

// aten.mm.default(self, mat2)
FastRuleResult Mm(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor a, b;
  if (!ReadMatrices(args, nargs, 2, &a, &b) ||
      a.handle->shape().dims[1] != b.handle->shape().dims[0]) {
    return py::object();
  }
  return Product<ops::Mm>(a, b);
}

// aten.bmm.default(self, mat2)
FastRuleResult Bmm(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor a, b;
  if (!ReadMatrices(args, nargs, 3, &a, &b)) return py::object();
  const std::vector<int64_t>& da = a.handle->shape().dims;
  const std::vector<int64_t>& db = b.handle->shape().dims;
  if (da[0] != db[0] || da[2] != db[1]) return py::object();
  return Product<ops::Bmm>(a, b);
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
  if (PyFloat_CheckExact(other)) return IsFloating(*dtype);
  if (PyLong_CheckExact(other)) return true;
  TorchTensor b;
  return ReadTorchTensor(other, &b) && b.handle->shape().dtype == *dtype &&
         b.handle->device() == a->handle->device();
}

// The operands converted to `dtype` and broadcast, as the Python rules'
// _XLAC._arithmetic converts them (numbers become scalar parameters).
std::vector<Value> Operands(PyObject* const* args, DType dtype, int* device) {
  return ResolveOperands(
      py::make_tuple(py::handle(args[0]), py::handle(args[1])), dtype, device);
}

template <ops::ArithmeticOp kOp, bool kHasAlpha, bool kFloatOnly>
FastRuleResult Arithmetic(PyObject* const* args, Py_ssize_t nargs) {
  DType dtype;
  TorchTensor a;
  if (!BinaryDType(args, nargs, kHasAlpha, &dtype, &a) ||
      (kFloatOnly && !IsFloating(dtype))) {
    return py::object();
  }
  int device = 0;
  std::vector<Value> v = Operands(args, dtype, &device);
  TXLA_ASSIGN_OR_RETURN(Value out, ops::Arithmetic(kOp, std::move(v[0]),
                                                   std::move(v[1])));
  return WrapTensor(XlaTensor::FromIr(std::move(out), device));
}

// In-place x.op_(y): computed in x's dtype, committed into x. A y that
// would broadcast x up declines (the Python rule raises eager's error).
template <ops::ArithmeticOp kOp, bool kHasAlpha>
FastRuleResult ArithmeticInPlace(PyObject* const* args, Py_ssize_t nargs) {
  DType dtype;
  TorchTensor x;
  if (!BinaryDType(args, nargs, kHasAlpha, &dtype, &x)) return py::object();
  int device = 0;
  std::vector<Value> v = Operands(args, dtype, &device);
  const Shape& shape = x.handle->shape();
  if (v[0].shape().dims != shape.dims) return py::object();
  TXLA_ASSIGN_OR_RETURN(
      Value out,
      ops::ArithmeticInPlace(kOp, std::move(v[0]), std::move(v[1]), shape));
  return CommitInPlace(args[0], x, XlaTensor::FromIr(std::move(out), device));
}

// Floating-point math functions (integer inputs go to the Python rule).
template <OpKind kKind>
FastRuleResult FloatUnary(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  if (nargs != 1 || !ReadTorchTensor(args[0], &x) ||
      !IsFloating(x.handle->shape().dtype)) {
    return py::object();
  }
  TXLA_ASSIGN_OR_RETURN(Value v, CurrentValue(x));
  TXLA_ASSIGN_OR_RETURN(Value out, ops::Unary(kKind, std::move(v),
                                              x.handle->shape().dtype,
                                              /*opmath=*/false));
  return WrapValue(std::move(out), x);
}

// aten.pow.Tensor_Scalar(self, 2) on floats: x * x.
FastRuleResult Square(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  int64_t exponent = 0;
  if (nargs != 2 || !ReadTorchTensor(args[0], &x) ||
      !IsFloating(x.handle->shape().dtype)) {
    return py::object();
  }
  const bool two =
      (ReadInt(args[1], &exponent) && exponent == 2) ||
      (PyFloat_CheckExact(args[1]) && PyFloat_AS_DOUBLE(args[1]) == 2.0);
  if (!two) return py::object();
  TXLA_ASSIGN_OR_RETURN(Value v, CurrentValue(x));
  TXLA_ASSIGN_OR_RETURN(Value out,
                        ops::Square(std::move(v), x.handle->shape().dtype));
  return WrapValue(std::move(out), x);
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

// sum and mean of floats in their own dtype (ops/reduction_ops.h);
// dtype= must be absent.
template <bool kMean>
FastRuleResult SumOrMean(const TorchTensor& x,
                         const std::vector<int64_t>& dims, bool keep_dims) {
  const DType dtype = x.handle->shape().dtype;
  TXLA_ASSIGN_OR_RETURN(Value v, CurrentValue(x));
  auto* builder = kMean ? &ops::Mean : &ops::Sum;
  TXLA_ASSIGN_OR_RETURN(Value out, builder(std::move(v), dims, keep_dims,
                                           dtype));
  return WrapValue(std::move(out), x);
}

// aten.sum.dim_IntList / aten.mean.dim(self, dim, keepdim=False, *, dtype=None)
template <bool kMean>
FastRuleResult ReduceDims(PyObject* const* args, Py_ssize_t nargs,
                          PyObject* kwargs) {
  TorchTensor x;
  if (nargs < 2 || nargs > 3 || !KwargsAre(kwargs, {"dtype"}, true) ||
      !ReadTorchTensor(args[0], &x) || !IsFloating(x.handle->shape().dtype)) {
    return py::object();
  }
  const int64_t rank = static_cast<int64_t>(x.handle->shape().dims.size());
  std::vector<int64_t> dims;
  if (rank == 0 || !ReadReductionDims(args[1], rank, &dims)) {
    return py::object();
  }
  bool keep_dims = false;
  if (nargs == 3) {
    if (!PyBool_Check(args[2])) return py::object();
    keep_dims = args[2] == Py_True;
  }
  return SumOrMean<kMean>(x, dims, keep_dims);
}

// aten.sum.default(self, *, dtype=None)
FastRuleResult SumAll(PyObject* const* args, Py_ssize_t nargs,
                      PyObject* kwargs) {
  TorchTensor x;
  if (nargs != 1 || !KwargsAre(kwargs, {"dtype"}, true) ||
      !ReadTorchTensor(args[0], &x) || !IsFloating(x.handle->shape().dtype)) {
    return py::object();
  }
  const int64_t rank = static_cast<int64_t>(x.handle->shape().dims.size());
  if (rank == 0) return py::object();
  std::vector<int64_t> dims(rank);
  std::iota(dims.begin(), dims.end(), 0);
  return SumOrMean<false>(x, dims, false);
}

// x.add_(y, alpha=a) / x.sub_(y, alpha=a) with floating x and y of one
// dtype and a number a other than 1 (an optimizer's update, p.add_(g,
// alpha=-lr)): x op (y * a), as the Python rule scales y with mul first.
// Other alphas take ArithmeticInPlace's path.
template <ops::ArithmeticOp kOp>
FastRuleResult ScaledInPlace(PyObject* const* args, Py_ssize_t nargs,
                             PyObject* kwargs) {
  PyObject* alpha = nullptr;
  if (nargs == 3 && kwargs == nullptr) {
    alpha = args[2];
  } else if (nargs == 2 && kwargs != nullptr && KwargsAre(kwargs, {"alpha"},
                                                          false)) {
    alpha = PyDict_GetItemString(kwargs, "alpha");
  }
  int64_t one = 0;
  if (alpha == nullptr || (ReadInt(alpha, &one) && one == 1)) {
    return kwargs == nullptr ? ArithmeticInPlace<kOp, true>(args, nargs)
                             : py::object();
  }
  TorchTensor x, y;
  if (!IsNumber(alpha) || !ReadTorchTensor(args[0], &x) ||
      !ReadTorchTensor(args[1], &y)) {
    return py::object();
  }
  const Shape& shape = x.handle->shape();
  if (!IsFloating(shape.dtype) || y.handle->shape().dtype != shape.dtype ||
      y.handle->device() != x.handle->device()) {
    return py::object();
  }
  int device = 0;
  std::vector<Value> scaled_operands = ResolveOperands(
      py::make_tuple(py::handle(args[1]), py::handle(alpha)), shape.dtype,
      &device);
  TXLA_ASSIGN_OR_RETURN(Value scaled,
                        ops::Arithmetic(ops::ArithmeticOp::kMultiply,
                                        std::move(scaled_operands[0]),
                                        std::move(scaled_operands[1])));
  TXLA_ASSIGN_OR_RETURN(Value self, CurrentValue(x));
  if (self.shape().dims != scaled.shape().dims) return py::object();
  TXLA_ASSIGN_OR_RETURN(
      Value out, ops::ArithmeticInPlace(kOp, std::move(self),
                                        std::move(scaled), shape));
  return CommitInPlace(args[0], x, XlaTensor::FromIr(std::move(out), device));
}

template <ops::ArithmeticOp kOp, bool kHasAlpha, bool kFloatOnly>
constexpr FastRule kArithmetic =
    Positional<Arithmetic<kOp, kHasAlpha, kFloatOnly>>;
template <ops::ArithmeticOp kOp, bool kHasAlpha>
constexpr FastRule kInPlace = Positional<ArithmeticInPlace<kOp, kHasAlpha>>;
template <OpKind kKind>
constexpr FastRule kUnary = Positional<FloatUnary<kKind>>;

}  // namespace

void AddMathFastRules(FastRuleTable* table) {
  using K = OpKind;
  using A = ops::ArithmeticOp;
  table->insert(
      table->end(),
      {
          {"aten::mm", Positional<Mm>},
          {"aten::bmm", Positional<Bmm>},
          {"aten::add.Tensor", kArithmetic<A::kAdd, true, false>},
          {"aten::add.Scalar", kArithmetic<A::kAdd, true, false>},
          {"aten::sub.Tensor", kArithmetic<A::kSubtract, true, false>},
          {"aten::sub.Scalar", kArithmetic<A::kSubtract, true, false>},
          {"aten::mul.Tensor", kArithmetic<A::kMultiply, false, false>},
          {"aten::mul.Scalar", kArithmetic<A::kMultiply, false, false>},
          {"aten::div.Tensor", kArithmetic<A::kDivide, false, true>},
          {"aten::div.Scalar", kArithmetic<A::kDivide, false, true>},
          {"aten::add_.Tensor", ScaledInPlace<A::kAdd>},
          {"aten::add_.Scalar", kInPlace<A::kAdd, true>},
          {"aten::sub_.Tensor", ScaledInPlace<A::kSubtract>},
          {"aten::mul_.Tensor", kInPlace<A::kMultiply, false>},
          {"aten::mul_.Scalar", kInPlace<A::kMultiply, false>},
          {"aten::exp", kUnary<K::kExponential>},
          {"aten::log", kUnary<K::kLog>},
          {"aten::sqrt", kUnary<K::kSqrt>},
          {"aten::rsqrt", kUnary<K::kRsqrt>},
          {"aten::sin", kUnary<K::kSine>},
          {"aten::cos", kUnary<K::kCosine>},
          {"aten::tanh", kUnary<K::kTanh>},
          {"aten::sigmoid", kUnary<K::kLogistic>},
          {"aten::neg", kUnary<K::kNegate>},
          {"aten::pow.Tensor_Scalar", Positional<Square>},
          {"aten::sum", SumAll},
          {"aten::sum.dim_IntList", ReduceDims<false>},
          {"aten::mean.dim", ReduceDims<true>},
      });
}

}  // namespace torch_xla::python
