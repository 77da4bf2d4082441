// Fast rules for arithmetic and math: mm/bmm (one dot_general), binary
// add/sub/mul/div and their in-place forms where eager's promotion is
// trivial, float unary math, x ** 2, and float sum/mean. They build the IR
// of the Python rules in torch_xla/_ops (elementwise.py, linalg.py,
// reductions.py). Contract: fast_rule_util.h.

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/fast_rule_util.h"
#include "torch_xla/csrc/python/ir_values.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

// One dot_general as torch_xla/_ops/linalg.py's `dot` builds it:
// half-precision operands accumulate in f32 and round once; f32/f64 ask
// for HIGHEST precision.
FastRuleResult Dot(const TorchTensor& a, const TorchTensor& b,
                   std::vector<int64_t> contract_a,
                   std::vector<int64_t> contract_b,
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
  TXLA_ASSIGN_OR_RETURN(Value va, CurrentValue(a));
  TXLA_ASSIGN_OR_RETURN(Value vb, CurrentValue(b));
  TXLA_ASSIGN_OR_RETURN(
      NodePtr product,
      MakeNode(OpKind::kDotGeneral, {std::move(va), std::move(vb)},
               std::move(attrs)));
  return WrapValue(Convert(Value(std::move(product)), dtype), a);
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
         sa.dtype == sb.dtype && IsFloating(sa.dtype) &&
         a->handle->device() == b->handle->device();
}

// aten.mm.default(self, mat2)
FastRuleResult Mm(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor a, b;
  if (!ReadMatrices(args, nargs, 2, &a, &b) ||
      a.handle->shape().dims[1] != b.handle->shape().dims[0]) {
    return py::object();
  }
  return Dot(a, b, {1}, {0}, {});
}

// aten.bmm.default(self, mat2)
FastRuleResult Bmm(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor a, b;
  if (!ReadMatrices(args, nargs, 3, &a, &b)) return py::object();
  const std::vector<int64_t>& da = a.handle->shape().dims;
  const std::vector<int64_t>& db = b.handle->shape().dims;
  if (da[0] != db[0] || da[2] != db[1]) return py::object();
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
  if (PyFloat_CheckExact(other)) return IsFloating(*dtype);
  if (PyLong_CheckExact(other)) return true;
  TorchTensor b;
  return ReadTorchTensor(other, &b) && b.handle->shape().dtype == *dtype &&
         b.handle->device() == a->handle->device();
}

absl::StatusOr<XlaTensorPtr> BinaryValue(OpKind kind, PyObject* const* args,
                                         DType dtype) {
  int device = 0;
  py::tuple operands = py::make_tuple(py::handle(args[0]), py::handle(args[1]));
  std::vector<Value> values = ResolveOperands(operands, dtype, &device);
  TXLA_ASSIGN_OR_RETURN(NodePtr node, MakeNode(kind, std::move(values)));
  return XlaTensor::FromIr(Value(std::move(node)), device);
}

template <OpKind kKind, bool kHasAlpha, bool kFloatOnly>
FastRuleResult Arithmetic(PyObject* const* args, Py_ssize_t nargs) {
  DType dtype;
  TorchTensor a;
  if (!BinaryDType(args, nargs, kHasAlpha, &dtype, &a) ||
      (kFloatOnly && !IsFloating(dtype))) {
    return py::object();
  }
  TXLA_ASSIGN_OR_RETURN(XlaTensorPtr value, BinaryValue(kKind, args, dtype));
  return WrapTensor(std::move(value));
}

// In-place x.op_(y): computed in x's dtype, committed into x.
template <OpKind kKind, bool kHasAlpha>
FastRuleResult ArithmeticInPlace(PyObject* const* args, Py_ssize_t nargs) {
  DType dtype;
  TorchTensor x;
  if (!BinaryDType(args, nargs, kHasAlpha, &dtype, &x)) return py::object();
  TXLA_ASSIGN_OR_RETURN(XlaTensorPtr value, BinaryValue(kKind, args, dtype));
  if (value->shape().dims != x.handle->shape().dims) return py::object();
  return CommitInPlace(args[0], x, value);
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
  return WrapValue(Unary(kKind, std::move(v)), x);
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
  return WrapValue(Binary(OpKind::kMultiply, v, v), x);
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
FastRuleResult SumOrMean(const TorchTensor& x,
                         const std::vector<int64_t>& dims, bool keep_dims) {
  const DType dtype = x.handle->shape().dtype;
  const DType acc = AccumulationType(dtype);
  TXLA_ASSIGN_OR_RETURN(Value v, CurrentValue(x));
  Value total = Reduce(Convert(std::move(v), acc), dims, "sum", keep_dims);
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

template <OpKind kKind, bool kHasAlpha, bool kFloatOnly>
constexpr FastRule kArithmetic =
    Positional<Arithmetic<kKind, kHasAlpha, kFloatOnly>>;
template <OpKind kKind, bool kHasAlpha>
constexpr FastRule kInPlace = Positional<ArithmeticInPlace<kKind, kHasAlpha>>;
template <OpKind kKind>
constexpr FastRule kUnary = Positional<FloatUnary<kKind>>;

}  // namespace

void AddMathFastRules(FastRuleTable* table) {
  using K = OpKind;
  table->insert(
      table->end(),
      {
          {"aten::mm", Positional<Mm>},
          {"aten::bmm", Positional<Bmm>},
          {"aten::add.Tensor", kArithmetic<K::kAdd, true, false>},
          {"aten::add.Scalar", kArithmetic<K::kAdd, true, false>},
          {"aten::sub.Tensor", kArithmetic<K::kSubtract, true, false>},
          {"aten::sub.Scalar", kArithmetic<K::kSubtract, true, false>},
          {"aten::mul.Tensor", kArithmetic<K::kMultiply, false, false>},
          {"aten::mul.Scalar", kArithmetic<K::kMultiply, false, false>},
          {"aten::div.Tensor", kArithmetic<K::kDivide, false, true>},
          {"aten::div.Scalar", kArithmetic<K::kDivide, false, true>},
          {"aten::add_.Tensor", kInPlace<K::kAdd, true>},
          {"aten::add_.Scalar", kInPlace<K::kAdd, true>},
          {"aten::sub_.Tensor", kInPlace<K::kSubtract, true>},
          {"aten::mul_.Tensor", kInPlace<K::kMultiply, false>},
          {"aten::mul_.Scalar", kInPlace<K::kMultiply, false>},
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
