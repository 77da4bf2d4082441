// Elementwise bindings: operand resolution (tensors and Python scalars),
// dtype conversion and numpy broadcasting done in one C++ call, and the
// Python rules' one call into the elementwise builders (ops/logical_ops,
// select_ops, division_ops, activation_ops): each takes 'xla' tensors or
// numbers and the dtype the rule promoted to, and returns the result tensor
// (or, with `inplace`, updates its first operand: op_bindings.h's Finish).

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/error_class.h"
#include "torch_xla/csrc/ops/activation_ops.h"
#include "torch_xla/csrc/ops/division_ops.h"
#include "torch_xla/csrc/ops/float_math_ops.h"
#include "torch_xla/csrc/ops/logical_ops.h"
#include "torch_xla/csrc/ops/opmath.h"
#include "torch_xla/csrc/ops/select_ops.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/ir_values.h"
#include "torch_xla/csrc/python/op_bindings.h"
#include "torch_xla/csrc/python/scalar_leaves.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/torch_tensor.h"
#include "torch_xla/csrc/tensor/device_data.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

bool IsNumber(py::handle h) {
  return py::isinstance<py::float_>(h) || py::isinstance<py::int_>(h);
}

// An operand as the rules pass it: a C++ handle, a torch 'xla' tensor (its
// up-to-date handle: views re-derive first), a
// Python number, or a cpu 0-dim tensor (a number, as in eager). Any other
// cpu tensor is a device mismatch, reported like eager does.
struct Operand {
  XlaTensorPtr tensor;  // set for tensors
  py::object number;    // set for numbers
};

Operand ToOperand(py::handle object) {
  if (py::isinstance<XlaTensor>(object)) {
    return {py::cast<XlaTensorPtr>(object), {}};
  }
  if (IsNumber(object)) {
    return {nullptr, py::reinterpret_borrow<py::object>(object)};
  }
  TorchTensor tensor;
  if (ReadTorchTensor(object.ptr(), &tensor)) {
    return {CurrentHandle(tensor), {}};
  }
  if (py::hasattr(object, "dim") && object.attr("dim")().cast<int64_t>() == 0) {
    return {nullptr, object.attr("item")()};
  }
  // A cpu tensor: eager's device-mismatch error (torch_tensor.h).
  ThrowIfError(CheckSameDevice("", object));
  ThrowStatus(WrongTypeError(absl::StrCat(
      "expected an 'xla' tensor or a number, got ",
      py::str(py::type::handle_of(object)).cast<std::string>())));
}

}  // namespace

std::vector<Value> ResolveOperands(const py::sequence& objects, DType dtype,
                                   int* device) {
  std::vector<Operand> operands;
  operands.reserve(objects.size());
  *device = -1;
  for (py::handle object : objects) {
    operands.push_back(ToOperand(object));
    if (*device < 0 && operands.back().tensor) {
      *device = operands.back().tensor->device();
    }
  }
  if (*device < 0) *device = 0;
  std::vector<Value> values;
  values.reserve(operands.size());
  for (const Operand& operand : operands) {
    if (operand.tensor) {
      values.push_back(
          Convert(ValueOrThrow(operand.tensor->GetIrValue()), dtype));
    } else {
      values.push_back(ScalarLeafAtSite(operand.number, dtype));
    }
  }
  std::vector<const Shape*> shapes;
  bool same = true;
  for (const Value& v : values) {
    shapes.push_back(&v.shape());
    same = same && v.shape().dims == values[0].shape().dims;
  }
  if (!same) {
    std::vector<int64_t> dims = BroadcastShape(shapes);
    for (size_t i = 0; i < values.size(); ++i) {
      values[i] = operands[i].tensor ? BroadcastTo(std::move(values[i]), dims)
                                     : BroadcastScalarLeaf(values[i], dims);
    }
  }
  return values;
}

namespace {

// One elementwise node over `operands` resolved to `code`'s dtype.
Value ElementwiseValue(int kind, const py::sequence& operands, int code,
                       const py::object& direction, int* device) {
  std::vector<Value> values = ResolveOperands(operands, ToDType(code), device);
  Attrs attrs;
  if (!direction.is_none()) {
    attrs.Set("direction", absl::string_view(direction.cast<std::string>()));
  }
  return Value(ValueOrThrow(
      MakeNode(ToOpKind(kind), std::move(values), std::move(attrs))));
}

// A new tensor on `device`, or with `inplace` `x` updated (Finish).
py::object Result(Value out, int device, py::handle x, bool inplace) {
  if (inplace) return Finish(std::move(out), x, /*inplace=*/true);
  return Wrapped(std::move(out), device);
}

// The device of the first 'xla' tensor among `objects` (0 for none).
int DeviceOf(std::initializer_list<py::handle> objects) {
  for (py::handle object : objects) {
    TorchTensor tensor;
    if (ReadTorchTensor(object.ptr(), &tensor)) return tensor.handle->device();
  }
  return 0;
}

// An optional bound or operand: null for None.
Value OptionalOperand(py::handle object, DType dtype, bool checked) {
  if (object.is_none()) return Value();
  return OperandValue(object, dtype, checked);
}

// An activation's parameters (Python numbers) as scalar parameters of the
// opmath type of `dtype`.
std::vector<Value> ParamValues(const py::sequence& params, DType dtype) {
  std::vector<Value> values;
  for (py::handle p : params) {
    values.push_back(OperandValue(p, ops::OpMathType(dtype)));
  }
  return values;
}

void InitElementwiseOpBuilders(py::module_& m) {
  m.def(
      "_logical",
      [](int kind, py::handle a, py::handle b, bool inplace) {
        Value va = OperandValue(a, DType::kBool);
        Value out = b.is_none()
                        ? ValueOrThrow(ops::LogicalNot(std::move(va)))
                        : ValueOrThrow(ops::Logical(
                              ToOpKind(kind), std::move(va),
                              OperandValue(b, DType::kBool)));
        return Result(std::move(out), DeviceOf({a, b}), a, inplace);
      },
      py::arg("kind"), py::arg("a"), py::arg("b"), py::arg("inplace") = false,
      "logical and/or/xor (kind) of a's and b's truth values, or with b "
      "None logical_not(a) (ops/logical_ops.h); a bool 'xla' tensor, or a "
      "updated with `inplace`.");
  m.def(
      "_where",
      [](py::handle cond, py::handle a, py::handle b, int code) {
        const DType dtype = ToDType(code);
        Value out = ValueOrThrow(ops::Where(OperandValue(cond, DType::kBool),
                                            OperandValue(a, dtype),
                                            OperandValue(b, dtype), dtype));
        return Wrapped(std::move(out), DeviceOf({cond, a, b}));
      },
      py::arg("condition"), py::arg("a"), py::arg("b"), py::arg("dtype"),
      "where(condition, a, b) in `dtype`; a and b tensors or numbers "
      "(ops/select_ops.h).");
  m.def(
      "_clamp",
      [](py::handle x, py::handle low, py::handle high, int code,
         bool inplace) {
        const DType dtype = ToDType(code);
        XlaTensorPtr t = ToXlaTensor(x);
        Value out = ValueOrThrow(ops::Clamp(
            ValueOf(t), OptionalOperand(low, dtype, /*checked=*/true),
            OptionalOperand(high, dtype, /*checked=*/true), dtype));
        return Result(std::move(out), t->device(), x, inplace);
      },
      py::arg("x"), py::arg("min"), py::arg("max"), py::arg("dtype"),
      py::arg("inplace") = false,
      "clamp(x, min, max) in `dtype` (ops/select_ops.h); a number bound "
      "`dtype` cannot hold raises eager's RuntimeError. A new tensor, or x "
      "updated with `inplace`.");
  m.def(
      "_division",
      [](int op, py::handle a, py::handle b, int code, bool inplace) {
        const ops::DivisionOp kind = ValueOrThrow(ops::DivisionOpFromCode(op));
        int device = 0;
        std::vector<Value> v =
            ResolveOperands(py::make_tuple(a, b), ToDType(code), &device);
        Value out = ValueOrThrow(
            ops::Division(kind, std::move(v[0]), std::move(v[1])));
        return Result(std::move(out), device, a, inplace);
      },
      py::arg("op"), py::arg("a"), py::arg("b"), py::arg("dtype"),
      py::arg("inplace") = false,
      "Rounding division, remainder or fmod (ops/division_ops.h; op: 0 "
      "trunc, 1 floor, 2 remainder, 3 fmod) of a and b converted to `dtype` "
      "and broadcast. A new tensor, or a updated with `inplace`.");
  m.def(
      "_activation",
      [](int op, py::handle x, bool inplace) {
        const ops::ActivationOp kind =
            ValueOrThrow(ops::ActivationOpFromCode(op));
        XlaTensorPtr t = ToXlaTensor(x);
        Value out = ValueOrThrow(ops::Activation(kind, ValueOf(t)));
        return Result(std::move(out), t->device(), x, inplace);
      },
      py::arg("op"), py::arg("x"), py::arg("inplace") = false,
      "An activation of x (ops/activation_ops.h; op: 0 relu, 1 silu, 2 "
      "gelu, 3 gelu tanh, 4 hardswish, 5 hardsigmoid, 6 mish, 7 logit). A new "
      "tensor, or x updated with `inplace`.");
  m.def(
      "_param_activation",
      [](int op, py::handle x, const py::sequence& params, bool inplace) {
        const ops::ParamActivationOp kind =
            ValueOrThrow(ops::ParamActivationOpFromCode(op));
        XlaTensorPtr t = ToXlaTensor(x);
        Value out = ValueOrThrow(ops::ParamActivation(
            kind, ValueOf(t), ParamValues(params, t->shape().dtype)));
        return Result(std::move(out), t->device(), x, inplace);
      },
      py::arg("op"), py::arg("x"), py::arg("params"),
      py::arg("inplace") = false,
      "An activation with parameters (ops/activation_ops.h; op: 0 "
      "leaky_relu (slope), 1 elu (alpha, scale, input_scale), 2 softplus "
      "(beta, threshold), 4 logit (eps)). A new tensor, or x updated with "
      "`inplace`.");
  m.def(
      "_param_activation_backward",
      [](int op, py::handle grad, py::handle x, const py::sequence& params,
         bool x_is_result) {
        const ops::ParamActivationOp kind =
            ValueOrThrow(ops::ParamActivationOpFromCode(op));
        XlaTensorPtr g = ToXlaTensor(grad);
        Value out = ValueOrThrow(ops::ParamActivationBackward(
            kind, ValueOf(g), ValueOf(ToXlaTensor(x)),
            ParamValues(params, g->shape().dtype), x_is_result));
        return Wrapped(std::move(out), g->device());
      },
      py::arg("op"), py::arg("grad"), py::arg("x"), py::arg("params"),
      py::arg("x_is_result") = false,
      "The gradient of an activation with parameters in grad's dtype "
      "(ops/activation_ops.h; op as _param_activation, 3 hardtanh (min, "
      "max)); x is the forward's input, or its output with x_is_result.");
  m.def(
      "_activation_backward",
      [](int op, py::handle grad, py::handle x) {
        const ops::ActivationBackwardOp kind =
            ValueOrThrow(ops::ActivationBackwardOpFromCode(op));
        XlaTensorPtr g = ToXlaTensor(grad);
        Value out = ValueOrThrow(
            ops::ActivationBackward(kind, ValueOf(g), ValueOf(ToXlaTensor(x))));
        return Wrapped(std::move(out), g->device());
      },
      py::arg("op"), py::arg("grad"), py::arg("x"),
      "An activation's gradient in grad's dtype (ops/activation_ops.h; op: "
      "0 sigmoid, 1 tanh (x: the output), 2 gelu, 3 gelu tanh, 4 "
      "hardswish, 5 hardsigmoid, 6 logit).");
  m.def(
      "_threshold",
      [](py::handle x, py::handle threshold, py::handle value,
         py::handle other, int code) {
        const DType dtype = ToDType(code);
        XlaTensorPtr t = ToXlaTensor(x);
        Value out = ValueOrThrow(ops::Threshold(
            Convert(ValueOf(t), dtype), OperandValue(threshold, dtype),
            OperandValue(value, dtype),
            Convert(ValueOf(ToXlaTensor(other)), dtype)));
        return Wrapped(std::move(out), t->device());
      },
      py::arg("x"), py::arg("threshold"), py::arg("value"), py::arg("other"),
      py::arg("dtype"),
      "`value` where x <= threshold, else `other`, all in `dtype` "
      "(ops/activation_ops.h): aten.threshold (other x) and "
      "threshold_backward (other the gradient).");
  m.def(
      "_float_math",
      [](int op, const py::sequence& operands, int code, int64_t decimals,
         bool inplace) {
        const ops::FloatMathOp kind = ValueOrThrow(ops::FloatMathOpFromCode(op));
        int device = 0;
        std::vector<Value> values =
            ResolveOperands(operands, ToDType(code), &device);
        XlaTensorPtr first = ToXlaTensor(operands[0]);
        Value input = ValueOf(first);
        Value out = ValueOrThrow(ops::FloatMath(kind, values, decimals));
        if (!inplace && out == input) {  // trunc of an integer: a copy
          return WrapTensor(ResultTensor(std::move(out), first, input));
        }
        return Result(std::move(out), device, operands[0], inplace);
      },
      py::arg("op"), py::arg("operands"), py::arg("dtype"),
      py::arg("decimals") = 0, py::arg("inplace") = false,
      "A math function without a single primitive (ops/float_math_ops.h; "
      "op: 0 trunc, 1 atan, 2 log2, 3 log10, 4 isinf, 5 round(decimals), 6 "
      "exp2, 7 signbit, 8 copysign, 9 hypot) of the operands converted to "
      "`dtype` and broadcast. A new tensor, or operands[0] updated with "
      "`inplace`.");
}

}  // namespace

void InitElementwiseBindings(py::module_& m) {
  m.def(
      "_scalar",
      [](py::object number, int code, int device) {
        Value leaf = ScalarLeafAtSite(number, ToDType(code));
        return XlaTensor::FromData(leaf.node->data(), device);
      },
      py::arg("value"), py::arg("dtype"), py::arg("device") = 0,
      "The scalar parameter for a Python number, shared with equal numbers "
      "from the same user code site (python/scalar_leaves.h).");
  m.def(
      "_elementwise",
      [](int kind, const py::sequence& operands, int code,
         const py::object& direction) {
        int device = 0;
        Value out = ElementwiseValue(kind, operands, code, direction, &device);
        return XlaTensor::FromIr(std::move(out), device);
      },
      py::arg("kind"), py::arg("operands"), py::arg("dtype"),
      py::arg("direction") = py::none(),
      "Operands (tensors or numbers) converted to `dtype` and broadcast, "
      "then one elementwise op (compare takes `direction`); returns a "
      "handle.");
  m.def(
      "_elementwise_op",
      [](int kind, const py::sequence& operands, int code,
         const py::object& direction, bool inplace) {
        int device = 0;
        Value out = ElementwiseValue(kind, operands, code, direction, &device);
        return Result(std::move(out), device, operands[0], inplace);
      },
      py::arg("kind"), py::arg("operands"), py::arg("dtype"),
      py::arg("direction") = py::none(), py::arg("inplace") = false,
      "_elementwise's op as an 'xla' tensor (a rule's one call); with "
      "`inplace`, operands[0] updated to it and returned.");
  m.def(
      "_broadcast_operands",
      [](const py::sequence& operands, int code) {
        int device = 0;
        std::vector<Value> values =
            ResolveOperands(operands, ToDType(code), &device);
        std::vector<XlaTensorPtr> out;
        for (Value& v : values)
          out.push_back(XlaTensor::FromIr(std::move(v), device));
        return out;
      },
      py::arg("operands"), py::arg("dtype"));
  InitElementwiseOpBuilders(m);
}

}  // namespace torch_xla::python
