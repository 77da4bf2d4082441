// Fast rules for the network and optimizer ops of a training step: softmax
// and its backward, masked_fill, slice_backward, and the optimizers'
// in-place lerp_/addcmul_/addcdiv_. They build the IR of the Python rules
// in torch_xla/_ops (normalization.py, indexing, shape_ops.py,
// optim_ops.py). Contract: fast_rule_util.h.

#include <cmath>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/shape_util.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/python/fast_rule_util.h"
#include "torch_xla/csrc/python/host_numbers.h"
#include "torch_xla/csrc/python/ir_values.h"
#include "torch_xla/csrc/python/scalar_leaves.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

// Softmax over one dim of a float tensor (not half_to_float), as
// torch_xla/_ops/normalization.py builds it: x - max (NaN-aware), exp,
// divide by the sum, in the accumulation type.
bool ReadSoftmaxDim(PyObject* object, const TorchTensor& x, int64_t* dim) {
  const int64_t rank = static_cast<int64_t>(x.handle->shape().dims.size());
  int64_t raw;
  return rank > 0 && ReadInt(object, &raw) && CanonicalDim(raw, rank, dim);
}

FastRuleResult Softmax(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x;
  int64_t dim;
  if (nargs != 3 || !ReadTorchTensor(args[0], &x) ||
      !IsFloating(x.handle->shape().dtype) || args[2] != Py_False ||
      !ReadSoftmaxDim(args[1], x, &dim)) {
    return py::object();
  }
  const DType dtype = x.handle->shape().dtype;
  const std::vector<int64_t> dims{dim};
  TXLA_ASSIGN_OR_RETURN(Value input, CurrentValue(x));
  Value v = Convert(std::move(input), AccumulationType(dtype));
  const std::vector<int64_t> shape = v.shape().dims;
  // max keeping NaN: XLA's max drops it, so a NaN test picks it back.
  Value max = Reduce(v, dims, "max", true);
  TXLA_ASSIGN_OR_RETURN(NodePtr is_nan, MakeCompare(v, v, "NE"));
  Value has_nan = Reduce(Value(std::move(is_nan)), dims, "or", true);
  std::vector<int64_t> max_dims = max.shape().dims;
  TXLA_ASSIGN_OR_RETURN(
      NodePtr nan_max,
      MakeNode(OpKind::kSelect,
               {has_nan, Literal(std::nan(""), max.shape().dtype, max_dims),
                max}));
  max = Value(std::move(nan_max));
  Value e = Unary(OpKind::kExponential,
                  Binary(OpKind::kSubtract, v, BroadcastTo(max, shape)));
  Value total = Reduce(e, dims, "sum", true);
  return WrapValue(
      Convert(Binary(OpKind::kDivide, e, BroadcastTo(total, shape)), dtype), x);
}

// aten._softmax_backward_data(grad_output, output, dim, input_dtype):
// y * (g - sum(g * y)).
FastRuleResult SoftmaxBackward(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor g, y;
  int64_t dim;
  DType dtype;
  if (nargs != 4 || !ReadTorchTensor(args[0], &g) ||
      !ReadTorchTensor(args[1], &y) || !ReadDType(args[3], &dtype) ||
      !IsFloating(dtype) || g.handle->shape().dims != y.handle->shape().dims ||
      !ReadSoftmaxDim(args[2], y, &dim)) {
    return py::object();
  }
  const DType acc = AccumulationType(dtype);
  TXLA_ASSIGN_OR_RETURN(Value g_value, CurrentValue(g));
  TXLA_ASSIGN_OR_RETURN(Value y_value, CurrentValue(y));
  Value gv = Convert(std::move(g_value), acc);
  Value yv = Convert(std::move(y_value), acc);
  const std::vector<int64_t> shape = yv.shape().dims;
  Value dot = Reduce(Binary(OpKind::kMultiply, gv, yv), {dim}, "sum", true);
  Value grad = Binary(OpKind::kMultiply, yv,
                      Binary(OpKind::kSubtract, gv, BroadcastTo(dot, shape)));
  return WrapValue(Convert(std::move(grad), dtype), y);
}

// aten.masked_fill.Scalar(self, mask, value): an 'xla' bool mask that
// broadcasts to self's shape, a Python number.
FastRuleResult MaskedFill(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor x, mask;
  if (nargs != 3 || !ReadTorchTensor(args[0], &x) ||
      !ReadTorchTensor(args[1], &mask) ||
      mask.handle->shape().dtype != DType::kBool ||
      x.handle->device() != mask.handle->device() || !IsNumber(args[2])) {
    return py::object();
  }
  const Shape& shape = x.handle->shape();
  if (PyFloat_CheckExact(args[2]) && !IsFloating(shape.dtype)) {
    return py::object();
  }
  absl::StatusOr<std::vector<int64_t>> broadcast =
      BroadcastDims({&shape.dims, &mask.handle->shape().dims});
  if (!broadcast.ok() || *broadcast != shape.dims) return py::object();
  // A value the dtype cannot hold: the Python rule raises eager's error.
  absl::StatusOr<HostNumber> number = ReadHostNumber(args[2], "value");
  if (!number.ok() || !MakeCheckedHostScalar(*number, shape.dtype).ok()) {
    return py::object();
  }
  Value fill = ScalarLeafAtSite(args[2], shape.dtype);
  TXLA_ASSIGN_OR_RETURN(Value mask_value, CurrentValue(mask));
  TXLA_ASSIGN_OR_RETURN(Value x_value, CurrentValue(x));
  TXLA_ASSIGN_OR_RETURN(
      NodePtr out,
      MakeNode(OpKind::kSelect,
               {BroadcastTo(std::move(mask_value), shape.dims),
                BroadcastTo(std::move(fill), shape.dims), std::move(x_value)}));
  return WrapValue(Value(std::move(out)), x);
}

// aten.slice_backward(grad, input_sizes, dim, start, end, step): the
// gradient padded into zeros (interior padding for step > 1).
FastRuleResult SliceBackward(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor grad;
  std::vector<int64_t> shape;
  int64_t dim, start, end, step;
  if (nargs != 6 || !ReadTorchTensor(args[0], &grad) ||
      !ReadIntList(args[1], &shape) || !ReadInt(args[2], &dim) ||
      !ReadInt(args[3], &start) || !ReadInt(args[4], &end) ||
      !ReadInt(args[5], &step) || step < 1) {
    return py::object();
  }
  const int64_t rank = static_cast<int64_t>(shape.size());
  int64_t d;
  if (rank == 0 || !CanonicalDim(dim, rank, &d)) return py::object();
  const std::vector<int64_t>& grad_dims = grad.handle->shape().dims;
  const int64_t size = shape[d];
  std::tie(start, end) = ClampSlice(size, start, end);
  const int64_t n = grad_dims.size() == shape.size() ? grad_dims[d] : -1;
  if (n <= 0 || (end - start + step - 1) / step != n) return py::object();
  std::vector<int64_t> low(rank, 0), high(rank, 0), interior(rank, 0);
  low[d] = start;
  high[d] = size - start - (n - 1) * step - 1;
  interior[d] = step - 1;
  TXLA_ASSIGN_OR_RETURN(Value g, CurrentValue(grad));
  Value zero = Literal(0, g.shape().dtype, {});
  TXLA_ASSIGN_OR_RETURN(
      NodePtr out,
      MakeNode(OpKind::kPad, {std::move(g), std::move(zero)},
               Attrs().Set("low", low).Set("high", high).Set("interior",
                                                             interior)));
  return WrapValue(Value(std::move(out)), grad);
}

// A Python number as the scalar parameter of `dtype` on `like`'s device
// (what the Python rules' `_common.scalar` gives), broadcast to its shape.
Value NumberAs(PyObject* number, DType dtype, const TorchTensor& like) {
  return BroadcastTo(ScalarLeafAtSite(number, dtype),
                     like.handle->shape().dims);
}

// Reads `count` 'xla' tensors of one float dtype and one shape (the
// optimizer's per-parameter updates: no promotion, no broadcasting).
bool ReadSameFloatTensors(PyObject* const* args, int count, TorchTensor* out) {
  for (int i = 0; i < count; ++i) {
    if (!ReadTorchTensor(args[i], &out[i])) return false;
    const Shape& shape = out[i].handle->shape();
    if (!IsFloating(shape.dtype) || shape != out[0].handle->shape() ||
        out[i].handle->device() != out[0].handle->device()) {
      return false;
    }
  }
  return true;
}

// In-place update of x to `value` computed in opmath, converted back.
py::object CommitConverted(PyObject* object, const TorchTensor& x,
                           Value value) {
  return CommitInPlace(
      object, x,
      XlaTensor::FromIr(Convert(std::move(value), x.handle->shape().dtype),
                        x.handle->device()));
}

// aten.lerp_.Scalar(self, end, weight), as torch_xla/_ops/optim_ops.py:
// eager's two-sided formula in opmath (f32 for bf16/f16).
FastRuleResult LerpInPlace(PyObject* const* args, Py_ssize_t nargs) {
  TorchTensor t[2];
  if (nargs != 3 || !ReadSameFloatTensors(args, 2, t) || !IsNumber(args[2])) {
    return py::object();
  }
  const double weight = PyFloat_AsDouble(args[2]);
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return py::object();
  }
  const Shape& shape = t[0].handle->shape();
  const DType acc = AccumulationType(shape.dtype);
  TXLA_ASSIGN_OR_RETURN(Value self, CurrentValue(t[0]));
  TXLA_ASSIGN_OR_RETURN(Value end, CurrentValue(t[1]));
  Value s = Convert(std::move(self), acc);
  Value e = Convert(std::move(end), acc);
  Value diff = Binary(OpKind::kSubtract, e, s);
  Value w = NumberAs(args[2], acc, t[0]);
  Value out = std::abs(weight) < 0.5
                  ? Binary(OpKind::kAdd, s, Binary(OpKind::kMultiply, w, diff))
                  : Binary(OpKind::kSubtract, e,
                           Binary(OpKind::kMultiply, diff,
                                  Binary(OpKind::kSubtract,
                                         Literal(1, acc, shape.dims), w)));
  return CommitConverted(args[0], t[0], std::move(out));
}

// aten.addcmul_ / addcdiv_(self, tensor1, tensor2, *, value=1):
// self + value * t1 (* or /) t2, left to right, in opmath.
template <OpKind kKind>
FastRuleResult AddcInPlace(PyObject* const* args, Py_ssize_t nargs,
                           PyObject* kwargs) {
  TorchTensor t[3];
  if (nargs != 3 || !KwargsAre(kwargs, {"value"}, false) ||
      !ReadSameFloatTensors(args, 3, t)) {
    return py::object();
  }
  PyObject* value =
      kwargs == nullptr ? nullptr : PyDict_GetItemString(kwargs, "value");
  if (value != nullptr && !IsNumber(value)) return py::object();
  double scale = 1.0;
  if (value != nullptr) {
    scale = PyFloat_AsDouble(value);
    if (PyErr_Occurred()) {
      PyErr_Clear();
      return py::object();
    }
  }
  const DType acc = AccumulationType(t[0].handle->shape().dtype);
  TXLA_ASSIGN_OR_RETURN(Value v0, CurrentValue(t[0]));
  TXLA_ASSIGN_OR_RETURN(Value v1, CurrentValue(t[1]));
  TXLA_ASSIGN_OR_RETURN(Value v2, CurrentValue(t[2]));
  Value term = Convert(std::move(v1), acc);
  if (scale != 1.0) {
    term = Binary(OpKind::kMultiply, NumberAs(value, acc, t[0]), term);
  }
  term = Binary(kKind, term, Convert(std::move(v2), acc));
  Value out = Binary(OpKind::kAdd, Convert(std::move(v0), acc), term);
  return CommitConverted(args[0], t[0], std::move(out));
}

}  // namespace

void AddNnFastRules(FastRuleTable* table) {
  table->insert(table->end(),
                {
                    {"aten::_softmax", Positional<Softmax>},
                    {"aten::_softmax_backward_data",
                     Positional<SoftmaxBackward>},
                    {"aten::masked_fill.Scalar", Positional<MaskedFill>},
                    {"aten::slice_backward", Positional<SliceBackward>},
                    {"aten::lerp_.Scalar", Positional<LerpInPlace>},
                    {"aten::addcmul_", AddcInPlace<OpKind::kMultiply>},
                    {"aten::addcdiv_", AddcInPlace<OpKind::kDivide>},
                });
}

}  // namespace torch_xla::python
