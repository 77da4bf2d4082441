// _XLAC bindings of the nn core builders (torch_xla/csrc/ops: loss_ops,
// and reduction_ops' max.dim, argmax, prod, var/std, any/all, logsumexp):
// the Python rules' single call per op (losses.py, reductions.py; the
// norms' are in norm_op_bindings.cc, the indexing ops' in
// index_bindings.cc). Each binding only converts arguments
// (tensors through ToXlaTensor, None for an absent optional tensor, Python
// numbers as scalar parameters) and returns the op's result as 'xla'
// tensors, a tuple for multi-output ops; the IR and the dtype rules are
// the builder's. See op_bindings.h.

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "pybind11/stl.h"
#include "torch_xla/csrc/ops/loss_ops.h"
#include "torch_xla/csrc/ops/opmath.h"
#include "torch_xla/csrc/ops/reduction_ops.h"
#include "torch_xla/csrc/ir/error_class.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/device_checks.h"
#include "torch_xla/csrc/python/fast_rule_util.h"
#include "torch_xla/csrc/python/nn_op_bindings.h"
#include "torch_xla/csrc/python/op_bindings.h"
#include "torch_xla/csrc/python/scalar_leaves.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/torch_tensor.h"

namespace py = pybind11;

namespace torch_xla::python {

Operand Read(py::handle object) {
  XlaTensorPtr t = ToXlaTensor(object);
  Value v = ValueOrThrow(t->GetIrValue());
  return {std::move(t), std::move(v)};
}

Value OptionalValue(py::handle object) {
  if (object.is_none()) return Value();
  return Read(object).value;
}

py::object WrapOrNone(Value value, int device) {
  if (!value) return py::none();
  return WrapTensor(XlaTensor::FromIr(std::move(value), device));
}

Value OpMathScalar(py::handle number, const Operand& x) {
  if (number.is_none()) return Value();
  return ScalarLeafAtSite(number, ops::OpMathType(x.value.shape().dtype));
}

namespace {

// binary_cross_entropy's device-side check: eager's RuntimeError when an
// element of `t` (its input or target) is outside [0, 1] or NaN. None for
// an empty tensor.
void CheckUnitInterval(const Operand& t, const char* what) {
  if (t.value.shape().num_elements() == 0) return;
  ThrowIfError(AddDeviceCheck(
      ValueOrThrow(ops::OutsideUnitInterval(t.value)), t.tensor->device(),
      absl::StrCat("binary_cross_entropy: all elements of ", what,
                   " should be between 0 and 1"),
      CheckError::kRuntimeError));
}

// A builder's result for the operand `in`: a clone of it where the builder
// returned its value unchanged (a reduction over no dims), never an alias.
py::object Result(Value value, const Operand& in) {
  return WrapTensor(ResultTensor(std::move(value), in.tensor, in.value));
}

// `kind` checked against the two a builder takes.
const std::string& Kind(const std::string& kind, const char* a,
                        const char* b) {
  if (kind != a && kind != b) {
    ThrowStatus(absl::InvalidArgumentError(absl::StrCat(
        "kind must be '", a, "' or '", b, "', got '", kind, "'")));
  }
  return kind;
}

ops::Reduction ToReduction(int64_t code) {
  return ValueOrThrow(ops::ReductionFromCode(code));
}

void InitLossBindings(py::module_& m) {
  m.def(
      "_nll_loss",
      [](py::handle x, py::handle target, py::handle weight, int64_t reduction,
         py::handle ignore_index, py::handle check) {
        Operand in = Read(x);
        Operand targets = Read(target);
        ops::NllLossResult r = ValueOrThrow(ops::NllLoss(
            in.value, targets.value, OptionalValue(weight),
            ToReduction(reduction),
            ScalarLeafAtSite(ignore_index, DType::kI64)));
        const int device = in.tensor->device();
        CheckIndex(targets.value, device, check);
        return py::make_tuple(WrapOrNone(std::move(r.loss), device),
                              WrapOrNone(std::move(r.total_weight), device));
      },
      py::arg("x"), py::arg("target"), py::arg("weight"), py::arg("reduction"),
      py::arg("ignore_index"), py::arg("check") = py::none(),
      "aten.nll_loss_forward (ops/loss_ops.h) -> (loss, total_weight); "
      "`weight` a tensor or None; `check` None or the targets' device-side "
      "index check (python/device_checks.h), registered in this call.");
  m.def(
      "_nll_loss_backward",
      [](py::handle grad, py::handle x, py::handle target, py::handle weight,
         int64_t reduction, py::handle ignore_index,
         py::handle total_weight) {
        Operand in = Read(x);
        return WrapOrNone(
            ValueOrThrow(ops::NllLossBackward(
                Read(grad).value, in.value, Read(target).value,
                OptionalValue(weight), ToReduction(reduction),
                ScalarLeafAtSite(ignore_index, DType::kI64),
                Read(total_weight).value)),
            in.tensor->device());
      },
      py::arg("grad"), py::arg("x"), py::arg("target"), py::arg("weight"),
      py::arg("reduction"), py::arg("ignore_index"), py::arg("total_weight"),
      "aten.nll_loss_backward (ops/loss_ops.h): the gradient for x.");
  m.def(
      "_mse_loss",
      [](py::handle x, py::handle target, int64_t reduction) {
        Operand in = Read(x);
        return WrapOrNone(ValueOrThrow(ops::MseLoss(in.value,
                                                    Read(target).value,
                                                    ToReduction(reduction))),
                          in.tensor->device());
      },
      py::arg("x"), py::arg("target"), py::arg("reduction"),
      "aten.mse_loss in x's dtype (ops/loss_ops.h).");
  m.def(
      "_mse_loss_backward",
      [](py::handle grad, py::handle x, py::handle target, int64_t reduction) {
        Operand in = Read(x);
        return WrapOrNone(
            ValueOrThrow(ops::MseLossBackward(Read(grad).value, in.value,
                                              Read(target).value,
                                              ToReduction(reduction))),
            in.tensor->device());
      },
      py::arg("grad"), py::arg("x"), py::arg("target"), py::arg("reduction"),
      "aten.mse_loss_backward in x's dtype (ops/loss_ops.h).");
}

// A pointwise loss builder (x, target, reduction, param) as a binding.
template <absl::StatusOr<Value> (*kBuilder)(Value, Value, ops::Reduction,
                                            Value)>
py::object ParamLoss(py::handle x, py::handle target, int64_t reduction,
                     py::handle param) {
  Operand in = Read(x);
  Value p = OpMathScalar(param, in);
  return WrapOrNone(ValueOrThrow(kBuilder(in.value, Read(target).value,
                                          ToReduction(reduction),
                                          std::move(p))),
                    in.tensor->device());
}

// Its gradient's binding (grad, x, target, reduction, param).
template <absl::StatusOr<Value> (*kBuilder)(Value, Value, Value,
                                            ops::Reduction, Value)>
py::object ParamLossBackward(py::handle grad, py::handle x, py::handle target,
                             int64_t reduction, py::handle param) {
  Operand in = Read(x);
  Value p = OpMathScalar(param, in);
  return WrapOrNone(ValueOrThrow(kBuilder(Read(grad).value, in.value,
                                          Read(target).value,
                                          ToReduction(reduction),
                                          std::move(p))),
                    in.tensor->device());
}

void InitPointwiseLossBindings(py::module_& m) {
  m.def("_smooth_l1_loss", &ParamLoss<ops::SmoothL1Loss>, py::arg("x"),
        py::arg("target"), py::arg("reduction"), py::arg("beta"),
        "aten.smooth_l1_loss (ops/loss_ops.h); beta None for 0.");
  m.def("_smooth_l1_loss_backward",
        &ParamLossBackward<ops::SmoothL1LossBackward>, py::arg("grad"),
        py::arg("x"), py::arg("target"), py::arg("reduction"),
        py::arg("beta"),
        "aten.smooth_l1_loss_backward (ops/loss_ops.h); beta None for 0.");
  m.def("_huber_loss", &ParamLoss<ops::HuberLoss>, py::arg("x"),
        py::arg("target"), py::arg("reduction"), py::arg("delta"),
        "aten.huber_loss (ops/loss_ops.h).");
  m.def("_huber_loss_backward", &ParamLossBackward<ops::HuberLossBackward>,
        py::arg("grad"), py::arg("x"), py::arg("target"),
        py::arg("reduction"), py::arg("delta"),
        "aten.huber_loss_backward (ops/loss_ops.h).");
  m.def(
      "_binary_cross_entropy",
      [](py::handle x, py::handle target, py::handle weight,
         int64_t reduction, bool check_values) {
        Operand in = Read(x);
        Operand t = Read(target);
        Value loss = ValueOrThrow(ops::BinaryCrossEntropy(
            in.value, t.value, OptionalValue(weight), ToReduction(reduction)));
        if (check_values) {
          CheckUnitInterval(in, "input");
          CheckUnitInterval(t, "target");
        }
        return WrapOrNone(std::move(loss), in.tensor->device());
      },
      py::arg("x"), py::arg("target"), py::arg("weight"), py::arg("reduction"),
      py::arg("check_values") = false,
      "aten.binary_cross_entropy (ops/loss_ops.h); weight a tensor or None. "
      "With `check_values`, registers eager's checks that x and target lie "
      "in [0, 1] as device-side checks (python/device_checks.h).");
  m.def(
      "_binary_cross_entropy_backward",
      [](py::handle grad, py::handle x, py::handle target, py::handle weight,
         int64_t reduction) {
        Operand in = Read(x);
        return WrapOrNone(ValueOrThrow(ops::BinaryCrossEntropyBackward(
                              Read(grad).value, in.value, Read(target).value,
                              OptionalValue(weight), ToReduction(reduction))),
                          in.tensor->device());
      },
      py::arg("grad"), py::arg("x"), py::arg("target"), py::arg("weight"),
      py::arg("reduction"),
      "aten.binary_cross_entropy_backward (ops/loss_ops.h).");
  m.def(
      "_binary_cross_entropy_with_logits",
      [](py::handle x, py::handle target, py::handle weight,
         py::handle pos_weight, int64_t reduction) {
        Operand in = Read(x);
        return WrapOrNone(ValueOrThrow(ops::BinaryCrossEntropyWithLogits(
                              in.value, Read(target).value,
                              OptionalValue(weight), OptionalValue(pos_weight),
                              ToReduction(reduction))),
                          in.tensor->device());
      },
      py::arg("x"), py::arg("target"), py::arg("weight"),
      py::arg("pos_weight"), py::arg("reduction"),
      "aten.binary_cross_entropy_with_logits (ops/loss_ops.h); weight and "
      "pos_weight tensors or None.");
}

void InitReductionOpBindings(py::module_& m) {
  m.def(
      "_extreme_and_index",
      [](py::handle x, int64_t dim, const std::string& kind, bool keepdim) {
        Operand in = Read(x);
        auto r = ValueOrThrow(ops::ExtremeAndIndex(
            in.value, dim, Kind(kind, "max", "min").c_str(), keepdim));
        return py::make_tuple(Result(std::move(r.first), in),
                              WrapOrNone(std::move(r.second),
                                         in.tensor->device()));
      },
      py::arg("x"), py::arg("dim"), py::arg("kind"), py::arg("keepdim"),
      "max.dim / min.dim along a canonical dim (ops/reduction_ops.h) -> "
      "(values, first indices).");
  m.def(
      "_extreme",
      [](py::handle x, const std::vector<int64_t>& dims,
         const std::string& kind, bool keepdim) {
        Operand in = Read(x);
        return Result(ValueOrThrow(ops::ReduceExtreme(
                          in.value, dims, Kind(kind, "max", "min").c_str(),
                          keepdim)),
                      in);
      },
      py::arg("x"), py::arg("dims"), py::arg("kind"), py::arg("keepdim"),
      "amax / amin / max / min over `dims`, NaN propagating "
      "(ops/reduction_ops.h); returns an 'xla' tensor.");
  m.def(
      "_vector_norm",
      [](py::handle x, double ord, const std::vector<int64_t>& dims,
         bool keepdim, int code) {
        Operand in = Read(x);
        const DType out = ToDType(code);
        const DType acc = ops::OpMathType(out);
        Value p, inv_p;
        if (!std::isinf(ord) && ord != 0 && ord != 1 && ord != 2) {
          p = ScalarLeafAtSite(py::float_(ord), acc);
          inv_p = ScalarLeafAtSite(py::float_(1.0 / ord), acc);
        }
        return Result(ValueOrThrow(ops::VectorNorm(in.value, ord, dims,
                                                   keepdim, out, std::move(p),
                                                   std::move(inv_p))),
                      in);
      },
      py::arg("x"), py::arg("ord"), py::arg("dims"), py::arg("keepdim"),
      py::arg("dtype"),
      "linalg_vector_norm over `dims`, result in `dtype` "
      "(ops/reduction_ops.h).");
  m.def(
      "_arg_extreme",
      [](py::handle x, std::optional<int64_t> dim, const std::string& kind,
         bool keepdim) {
        Operand in = Read(x);
        return WrapOrNone(ValueOrThrow(ops::ArgExtreme(
                              in.value, dim, Kind(kind, "max", "min").c_str(),
                              keepdim)),
                          in.tensor->device());
      },
      py::arg("x"), py::arg("dim"), py::arg("kind"), py::arg("keepdim"),
      "argmax / argmin along a canonical dim, or of the flattened x for "
      "None (ops/reduction_ops.h).");
  m.def(
      "_prod",
      [](py::handle x, const std::vector<int64_t>& dims, bool keepdim,
         int code) {
        Operand in = Read(x);
        return Result(
            ValueOrThrow(ops::Prod(in.value, dims, keepdim, ToDType(code))),
            in);
      },
      py::arg("x"), py::arg("dims"), py::arg("keepdim"), py::arg("dtype"),
      "Product over sorted canonical `dims`, result in `dtype` "
      "(ops/reduction_ops.h).");
  m.def(
      "_var_mean",
      [](py::handle x, const std::vector<int64_t>& dims, py::handle divisor,
         bool keepdim, bool sqrt) {
        Operand in = Read(x);
        const DType acc = ops::OpMathType(in.value.shape().dtype);
        auto r = ValueOrThrow(ops::VarMean(in.value, dims,
                                           ScalarLeafAtSite(divisor, acc),
                                           keepdim, sqrt));
        const int device = in.tensor->device();
        return py::make_tuple(WrapOrNone(std::move(r.first), device),
                              WrapOrNone(std::move(r.second), device));
      },
      py::arg("x"), py::arg("dims"), py::arg("divisor"), py::arg("keepdim"),
      py::arg("sqrt"),
      "(var, or std with `sqrt`, and mean) over `dims`; `divisor` the "
      "element count less the correction (ops/reduction_ops.h).");
  m.def(
      "_any_all",
      [](py::handle x, const std::vector<int64_t>& dims,
         const std::string& kind, bool keepdim) {
        Operand in = Read(x);
        return Result(ValueOrThrow(ops::AnyAll(in.value, dims,
                                               Kind(kind, "or", "and").c_str(),
                                               keepdim)),
                      in);
      },
      py::arg("x"), py::arg("dims"), py::arg("kind"), py::arg("keepdim"),
      "any (kind 'or') / all ('and') over `dims` (ops/reduction_ops.h).");
  m.def(
      "_logsumexp",
      [](py::handle x, const std::vector<int64_t>& dims, bool keepdim,
         int code) {
        Operand in = Read(x);
        return Result(ValueOrThrow(ops::LogSumExp(in.value, dims, keepdim,
                                                  ToDType(code))),
                      in);
      },
      py::arg("x"), py::arg("dims"), py::arg("keepdim"), py::arg("dtype"),
      "logsumexp over `dims`, result in `dtype` (ops/reduction_ops.h).");
}

}  // namespace

void InitNnOpBindings(py::module_& m) {
  InitReductionOpBindings(m);
  InitLossBindings(m);
  InitPointwiseLossBindings(m);
  InitNormOpBindings(m);
}

}  // namespace torch_xla::python
