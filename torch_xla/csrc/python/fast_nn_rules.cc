// Fast rules for the network and optimizer ops of a training step: softmax
// and its backward, masked_fill, slice_backward, and the optimizers'
// in-place lerp_/addcmul_/addcdiv_. Each only reads and checks the
// arguments, then calls the op's core builder in torch_xla/csrc/ops, the
// one the Python rule (torch_xla/_ops: normalization.py, masked_ops.py,
// shape_ops.py, optim_ops.py) calls too. Contract: fast_rule_util.h.

#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "torch_xla/csrc/ir/shape_util.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/nn_ops.h"
#include "torch_xla/csrc/ops/opmath.h"
#include "torch_xla/csrc/ops/optim_ops.h"
#include "torch_xla/csrc/ops/softmax_ops.h"
#include "torch_xla/csrc/python/fast_rule_util.h"
#include "torch_xla/csrc/python/host_numbers.h"
#include "torch_xla/csrc/python/scalar_leaves.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

// aten._softmax(self, dim, half_to_float=False) of a float tensor.
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
  TXLA_ASSIGN_OR_RETURN(Value v, CurrentValue(x));
  TXLA_ASSIGN_OR_RETURN(
      Value out, ops::Softmax(std::move(v), {dim}, x.handle->shape().dtype));
  return WrapValue(std::move(out), x);
}

// aten._softmax_backward_data(grad_output, output, dim, input_dtype).
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
  TXLA_ASSIGN_OR_RETURN(Value g_value, CurrentValue(g));
  TXLA_ASSIGN_OR_RETURN(Value y_value, CurrentValue(y));
  TXLA_ASSIGN_OR_RETURN(Value out,
                        ops::SoftmaxBackward(std::move(g_value),
                                             std::move(y_value), {dim}, dtype));
  return WrapValue(std::move(out), y);
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
  TXLA_ASSIGN_OR_RETURN(Value out,
                        ops::MaskedFill(std::move(x_value),
                                        std::move(mask_value), std::move(fill)));
  return WrapValue(std::move(out), x);
}

// aten.slice_backward(grad, input_sizes, dim, start, end, step): a grad
// of the slice's shape, more than 0 elements along dim.
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
  std::tie(start, end) = ClampSlice(shape[d], start, end);
  const int64_t n = grad_dims.size() == shape.size() ? grad_dims[d] : -1;
  if (n <= 0 || (end - start + step - 1) / step != n) return py::object();
  TXLA_ASSIGN_OR_RETURN(Value g, CurrentValue(grad));
  TXLA_ASSIGN_OR_RETURN(
      Value out, ops::SliceBackward(std::move(g), shape, d, start, end, step));
  return WrapValue(std::move(out), grad);
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

// In-place update of x to `value` (x's dtype and shape).
py::object Commit(PyObject* object, const TorchTensor& x, Value value) {
  return CommitInPlace(object, x,
                       XlaTensor::FromIr(std::move(value), x.handle->device()));
}

// A Python number as the scalar parameter of x's opmath type (what the
// Python rules' `_common.scalar` gives).
Value OpMathNumber(PyObject* number, const TorchTensor& x) {
  return ScalarLeafAtSite(number, ops::OpMathType(x.handle->shape().dtype));
}

// aten.lerp_.Scalar(self, end, weight) (ops/optim_ops.h).
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
  TXLA_ASSIGN_OR_RETURN(Value self, CurrentValue(t[0]));
  TXLA_ASSIGN_OR_RETURN(Value end, CurrentValue(t[1]));
  TXLA_ASSIGN_OR_RETURN(
      Value out, ops::Lerp(std::move(self), std::move(end),
                           OpMathNumber(args[2], t[0]), weight,
                           t[0].handle->shape().dtype));
  return Commit(args[0], t[0], std::move(out));
}

// aten.addcmul_ / addcdiv_(self, tensor1, tensor2, *, value=1)
// (ops/optim_ops.h).
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
  TXLA_ASSIGN_OR_RETURN(Value v0, CurrentValue(t[0]));
  TXLA_ASSIGN_OR_RETURN(Value v1, CurrentValue(t[1]));
  TXLA_ASSIGN_OR_RETURN(Value v2, CurrentValue(t[2]));
  Value scale_value = scale != 1.0 ? OpMathNumber(value, t[0]) : Value();
  TXLA_ASSIGN_OR_RETURN(
      Value out, ops::Addc(kKind, std::move(v0), std::move(v1), std::move(v2),
                           std::move(scale_value), t[0].handle->shape().dtype));
  return Commit(args[0], t[0], std::move(out));
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
