// _XLAC bindings of the core op builders (torch_xla/csrc/ops): the Python
// rules' single call per op. Each binding only converts arguments (tensor
// arguments through ToXlaTensor: an 'xla' torch tensor's up-to-date handle,
// or a C++ handle); the op's IR and dtype rules are the builder's. See
// op_bindings.h.

#include "torch_xla/csrc/python/op_bindings.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "pybind11/stl.h"
#include "torch_xla/csrc/ir/error_class.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/arithmetic_ops.h"
#include "torch_xla/csrc/ops/linalg_ops.h"
#include "torch_xla/csrc/ops/nn_ops.h"
#include "torch_xla/csrc/ops/opmath.h"
#include "torch_xla/csrc/ops/optim_ops.h"
#include "torch_xla/csrc/ops/reduction_ops.h"
#include "torch_xla/csrc/ops/softmax_ops.h"
#include "torch_xla/csrc/ops/unary_ops.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/fast_rule_util.h"
#include "torch_xla/csrc/python/host_numbers.h"
#include "torch_xla/csrc/python/scalar_leaves.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/torch_tensor.h"
#include "torch_xla/csrc/tensor/device_data.h"
#include "torch_xla/csrc/tensor/views.h"

namespace py = pybind11;

namespace torch_xla::python {

XlaTensorPtr ResultTensor(Value value, const XlaTensorPtr& input,
                          const Value& input_value) {
  if (value == input_value) return ValueOrThrow(CloneTensor(*input));
  return XlaTensor::FromIr(std::move(value), input->device());
}

Value ValueOf(const XlaTensorPtr& tensor) {
  return ValueOrThrow(tensor->GetIrValue());
}

TorchTensor InPlaceTarget(py::handle object) {
  TorchTensor tensor;
  if (!ReadTorchTensor(object.ptr(), &tensor)) {
    ThrowStatus(WrongTypeError(absl::StrCat(
        "an in-place op needs an 'xla' tensor to update, got ",
        std::string(py::str(py::type::handle_of(object))))));
  }
  return tensor;
}

py::object Wrapped(Value value, int device) {
  return WrapTensor(XlaTensor::FromIr(std::move(value), device));
}

py::object Finish(Value out, py::handle x, bool inplace,
                  absl::string_view name) {
  if (!inplace) return Wrapped(std::move(out), ToXlaTensor(x)->device());
  TorchTensor target = InPlaceTarget(x);
  absl::StatusOr<Value> rounded =
      ops::InPlaceResult(std::move(out), target.handle->shape());
  if (!rounded.ok() && !name.empty()) {
    ThrowStatus(WithContext(rounded.status(), absl::StrCat(name, ": ")));
  }
  return CommitInPlace(
      x.ptr(), target,
      XlaTensor::FromIr(ValueOrThrow(std::move(rounded)),
                        target.handle->device()));
}

Value OperandValue(py::handle object, DType dtype, bool checked) {
  py::object number;
  TorchTensor tensor;
  if (PyFloat_Check(object.ptr()) || PyLong_Check(object.ptr())) {
    number = py::reinterpret_borrow<py::object>(object);
  } else if (!ReadTorchTensor(object.ptr(), &tensor) &&
             !py::isinstance<XlaTensor>(object) && py::hasattr(object, "dim") &&
             object.attr("dim")().cast<int64_t>() == 0) {
    number = object.attr("item")();  // a cpu scalar mixes in, as in eager
  } else {
    return ValueOf(ToXlaTensor(object));
  }
  if (checked) {
    HostNumber value = ValueOrThrow(ReadHostNumber(number, "value"));
    ThrowIfError(MakeCheckedHostScalar(value, dtype).status());
  }
  return ScalarLeafAtSite(number, dtype);
}

py::object ArithmeticCall(int op, py::handle a, py::handle b, int code,
                          py::handle alpha, bool inplace,
                          absl::string_view name) {
  const ops::ArithmeticOp kind = ValueOrThrow(ops::ArithmeticOpFromCode(op));
  int device = 0;
  py::tuple operands = alpha.is_none()
                           ? py::tuple(py::make_tuple(a, b))
                           : py::tuple(py::make_tuple(a, b, alpha));
  std::vector<Value> v = ResolveOperands(operands, ToDType(code), &device);
  if (!alpha.is_none()) {  // b * alpha (a bool product: a logical and)
    v[1] = ValueOrThrow(ops::Arithmetic(ops::ArithmeticOp::kMultiply,
                                        std::move(v[1]), v[2]));
  }
  Value out =
      ValueOrThrow(ops::Arithmetic(kind, std::move(v[0]), std::move(v[1])));
  if (!inplace) return Wrapped(std::move(out), device);
  return Finish(std::move(out), a, /*inplace=*/true, name);
}

py::object ReciprocalCall(py::handle x, int code, bool inplace,
                          absl::string_view name) {
  int device = 0;
  std::vector<Value> v = ResolveOperands(py::make_tuple(py::float_(1.0), x),
                                         ToDType(code), &device);
  Value out = ValueOrThrow(ops::Arithmetic(
      ops::ArithmeticOp::kDivide, std::move(v[0]), std::move(v[1])));
  if (!inplace) return Wrapped(std::move(out), device);
  return Finish(std::move(out), x, /*inplace=*/true, name);
}

py::object LerpCall(py::handle x, py::handle end, py::handle weight,
                    bool inplace, absl::string_view name) {
  XlaTensorPtr t = ToXlaTensor(x);
  const DType dtype = t->shape().dtype;
  std::optional<double> scalar_weight;
  if (PyFloat_Check(weight.ptr()) || PyLong_Check(weight.ptr())) {
    scalar_weight = weight.cast<double>();
  }
  Value w = OperandValue(weight, ops::OpMathType(dtype));
  return Finish(ValueOrThrow(ops::Lerp(ValueOf(t), ValueOf(ToXlaTensor(end)),
                                       std::move(w), scalar_weight, dtype)),
                x, inplace, name);
}

py::object AddcCall(int kind, py::handle x, py::handle t1, py::handle t2,
                    py::handle value, int code, bool inplace,
                    absl::string_view name) {
  const DType dtype = ToDType(code);
  const DType acc = ops::OpMathType(dtype);
  Value scale = value.is_none() ? Value() : OperandValue(value, acc);
  return Finish(ValueOrThrow(ops::Addc(
                    ToOpKind(kind), OperandValue(x, acc), OperandValue(t1, acc),
                    OperandValue(t2, acc), std::move(scale), dtype)),
                x, inplace, name);
}

namespace {

// A binary builder's result as a new 'xla' torch tensor.
template <absl::StatusOr<Value> (*kBuilder)(Value, Value)>
py::object BinaryOp(py::handle a, py::handle b) {
  XlaTensorPtr ta = ToXlaTensor(a);
  Value out = ValueOrThrow(kBuilder(ValueOf(ta), ValueOf(ToXlaTensor(b))));
  return WrapTensor(XlaTensor::FromIr(std::move(out), ta->device()));
}

void InitLinalgBindings(py::module_& m) {
  m.def("_mm", &BinaryOp<ops::Mm>, py::arg("a"), py::arg("b"),
        "aten.mm's product (ops/linalg_ops.h); returns an 'xla' tensor.");
  m.def("_bmm", &BinaryOp<ops::Bmm>, py::arg("a"), py::arg("b"),
        "aten.bmm's product (ops/linalg_ops.h); returns an 'xla' tensor.");
  m.def(
      "_dot",
      [](py::handle a, py::handle b, std::vector<int64_t> lhs_contract,
         std::vector<int64_t> rhs_contract, std::vector<int64_t> lhs_batch,
         std::vector<int64_t> rhs_batch, bool accumulate) {
        XlaTensorPtr ta = ToXlaTensor(a);
        ops::DotDims dims{std::move(lhs_contract), std::move(rhs_contract),
                          std::move(lhs_batch), std::move(rhs_batch)};
        Value out = ValueOrThrow(
            ops::Dot(ValueOf(ta), ValueOf(ToXlaTensor(b)), dims, accumulate));
        return Wrapped(std::move(out), ta->device());
      },
      py::arg("a"), py::arg("b"), py::arg("lhs_contract"),
      py::arg("rhs_contract"), py::arg("lhs_batch") = std::vector<int64_t>(),
      py::arg("rhs_batch") = std::vector<int64_t>(),
      py::arg("accumulate") = false,
      "One dot_general with eager's accumulation (ops/linalg_ops.h; dot, "
      "mv); returns an 'xla' tensor, in the accumulation dtype with "
      "`accumulate`.");
  m.def(
      "_add_product",
      [](py::handle self, py::handle a, py::handle b,
         std::vector<int64_t> lhs_contract, std::vector<int64_t> rhs_contract,
         std::vector<int64_t> lhs_batch, std::vector<int64_t> rhs_batch,
         py::handle beta, py::handle alpha, bool with_self, bool inplace,
         const std::string& name) {
        XlaTensorPtr ta = ToXlaTensor(a);
        Value va = ValueOf(ta);
        const DType acc = ops::OpMathType(va.shape().dtype);
        ops::DotDims dims{std::move(lhs_contract), std::move(rhs_contract),
                          std::move(lhs_batch), std::move(rhs_batch)};
        Value vb = ValueOf(ToXlaTensor(b));
        XlaTensorPtr ts = ToXlaTensor(self);
        Value vs = with_self ? ValueOf(ts) : Value();
        Value scale_self = beta.is_none() ? Value() : OperandValue(beta, acc);
        Value scale = alpha.is_none() ? Value() : OperandValue(alpha, acc);
        return Finish(ValueOrThrow(ops::AddProduct(
                          std::move(vs), std::move(va), std::move(vb), dims,
                          std::move(scale_self), std::move(scale),
                          ts->shape().dtype)),
                      inplace ? self : a, inplace, name);
      },
      py::arg("self"), py::arg("a"), py::arg("b"), py::arg("lhs_contract"),
      py::arg("rhs_contract"), py::arg("lhs_batch"), py::arg("rhs_batch"),
      py::arg("beta"), py::arg("alpha"), py::arg("with_self"),
      py::arg("inplace"), py::arg("name"),
      "The addmm family (ops/linalg_ops.h AddProduct): beta * self + alpha * "
      "(a . b) in self's dtype; beta/alpha numbers, None for 1; without "
      "`with_self` (beta == 0) self gives only the dtype. A new 'xla' "
      "tensor, or self updated with `inplace`.");
}

void InitElementwiseOpBindings(py::module_& m) {
  m.def(
      "_arithmetic",
      [](int op, py::handle a, py::handle b, int code, py::handle alpha) {
        return ArithmeticCall(op, a, b, code, alpha, /*inplace=*/false, "");
      },
      py::arg("op"), py::arg("a"), py::arg("b"), py::arg("dtype"),
      py::arg("alpha") = py::none(),
      "a op b (ops/arithmetic_ops.h; op: 0 add, 1 sub, 2 mul, 3 div) after "
      "converting both (tensors or numbers) to `dtype` and broadcasting; b "
      "times `alpha` (add/sub's, a number; None for 1) in `dtype` first. "
      "Returns an 'xla' tensor.");
  m.def(
      "_reciprocal",
      [](py::handle x, int code, bool inplace) {
        return ReciprocalCall(x, code, inplace, "");
      },
      py::arg("x"), py::arg("dtype"), py::arg("inplace") = false,
      "1 / x in `dtype` (ops/arithmetic_ops.h's division). A new tensor, or "
      "with `inplace` x updated (a float result into an integer x is "
      "eager's error).");
  m.def(
      "_arithmetic_",
      [](int op, py::handle x, py::handle y, int code, py::handle alpha) {
        return ArithmeticCall(op, x, y, code, alpha, /*inplace=*/true, "");
      },
      py::arg("op"), py::arg("x"), py::arg("y"), py::arg("dtype"),
      py::arg("alpha") = py::none(),
      "x.op_(y) computed in `dtype` (y times `alpha` first, None for 1), "
      "rounded to x's dtype and committed into x (ops/arithmetic_ops.h); "
      "returns x.");
  m.def(
      "_unary",
      [](int kind, py::handle x, int code, bool opmath, bool inplace) {
        XlaTensorPtr t = ToXlaTensor(x);
        return Finish(ValueOrThrow(ops::Unary(ToOpKind(kind), ValueOf(t),
                                              ToDType(code), opmath)),
                      x, inplace);
      },
      py::arg("kind"), py::arg("x"), py::arg("dtype"),
      py::arg("opmath") = false, py::arg("inplace") = false,
      "kind(x) computed in `dtype` (ops/unary_ops.h); returns an 'xla' "
      "tensor, or with `inplace` x updated to it (ops::InPlaceResult: "
      "eager's error for a result x's dtype cannot hold).");
  m.def(
      "_commit_inplace",
      [](py::handle x, py::handle value, const std::string& name) {
        return Finish(ValueOf(ToXlaTensor(value)), x, /*inplace=*/true, name);
      },
      py::arg("x"), py::arg("value"), py::arg("name") = "",
      "x updated to `value` (an op's result on x) through ops::InPlaceResult, "
      "as every in-place binding commits: rounded to x's dtype; eager's "
      "RuntimeError for another shape or a dtype x cannot hold (prefixed "
      "with `name`: when given). Returns x.");
  m.def(
      "_square",
      [](py::handle x, int code) {
        XlaTensorPtr t = ToXlaTensor(x);
        return Wrapped(ValueOrThrow(ops::Square(ValueOf(t), ToDType(code))),
                       t->device());
      },
      py::arg("x"), py::arg("dtype"), "x * x in `dtype` (ops/unary_ops.h).");
}

// A reduction builder's result for the tensor `x`.
template <absl::StatusOr<Value> (*kBuilder)(Value, const std::vector<int64_t>&,
                                            bool, DType)>
py::object Reduction(py::handle x, const std::vector<int64_t>& dims,
                     bool keep_dims, int code) {
  XlaTensorPtr t = ToXlaTensor(x);
  Value in = ValueOf(t);
  Value out = ValueOrThrow(kBuilder(in, dims, keep_dims, ToDType(code)));
  return WrapTensor(ResultTensor(std::move(out), t, in));
}

void InitReductionBindings(py::module_& m) {
  m.def("_sum", &Reduction<ops::Sum>, py::arg("x"), py::arg("dims"),
        py::arg("keepdim"), py::arg("dtype"),
        "Sum over sorted canonical `dims` with the result in `dtype` "
        "(ops/reduction_ops.h); returns an 'xla' tensor.");
  m.def("_mean", &Reduction<ops::Mean>, py::arg("x"), py::arg("dims"),
        py::arg("keepdim"), py::arg("dtype"),
        "Mean over sorted canonical `dims` with the result in `dtype` "
        "(ops/reduction_ops.h); returns an 'xla' tensor.");
  m.def(
      "_reduce_extreme",
      [](py::handle x, const std::vector<int64_t>& dims,
         const std::string& kind, bool keep_dims) {
        if (kind != "max" && kind != "min") {
          ThrowStatus(absl::InvalidArgumentError(absl::StrCat(
              "_reduce_extreme: kind must be 'max' or 'min', got '", kind,
              "'")));
        }
        XlaTensorPtr t = ToXlaTensor(x);
        Value in = ValueOf(t);
        return ResultTensor(ValueOrThrow(ops::ReduceExtreme(
                                in, dims, kind.c_str(), keep_dims)),
                            t, in);
      },
      py::arg("x"), py::arg("dims"), py::arg("kind"), py::arg("keepdim"),
      "max/min over `dims`, NaN propagating (ops/reduction_ops.h); returns "
      "a handle.");
}

void InitNnBindings(py::module_& m) {
  m.def(
      "_softmax",
      [](py::handle x, const std::vector<int64_t>& dims, int code, bool log) {
        XlaTensorPtr t = ToXlaTensor(x);
        auto* builder = log ? &ops::LogSoftmax : &ops::Softmax;
        return Wrapped(ValueOrThrow(builder(ValueOf(t), dims, ToDType(code))),
                       t->device());
      },
      py::arg("x"), py::arg("dims"), py::arg("dtype"), py::arg("log") = false,
      "softmax (log_softmax with `log`) over `dims` ({} or one canonical "
      "dim), result in `dtype` (ops/softmax_ops.h).");
  m.def(
      "_softmax_backward",
      [](py::handle grad, py::handle output, const std::vector<int64_t>& dims,
         int code, bool log) {
        XlaTensorPtr g = ToXlaTensor(grad);
        auto* builder = log ? &ops::LogSoftmaxBackward : &ops::SoftmaxBackward;
        return Wrapped(ValueOrThrow(builder(ValueOf(g),
                                            ValueOf(ToXlaTensor(output)), dims,
                                            ToDType(code))),
                       g->device());
      },
      py::arg("grad"), py::arg("output"), py::arg("dims"), py::arg("dtype"),
      py::arg("log") = false,
      "The gradient of softmax (log_softmax with `log`) in `dtype` "
      "(ops/softmax_ops.h).");
  m.def(
      "_masked_fill",
      [](py::handle x, py::handle mask, py::handle value, bool inplace) {
        XlaTensorPtr t = ToXlaTensor(x);
        Value fill = OperandValue(value, t->shape().dtype, /*checked=*/true);
        return Finish(ValueOrThrow(ops::MaskedFill(ValueOf(t),
                                                   ValueOf(ToXlaTensor(mask)),
                                                   std::move(fill))),
                      x, inplace, "masked_fill_");
      },
      py::arg("x"), py::arg("mask"), py::arg("value"), py::arg("inplace"),
      "`value` (a number x's dtype can hold, or a 0-d tensor) where `mask`, "
      "else x (ops/nn_ops.h); a new tensor, or x updated with `inplace`.");
  m.def(
      "_slice_backward",
      [](py::handle grad, const std::vector<int64_t>& sizes, int64_t dim,
         std::optional<int64_t> start, std::optional<int64_t> end,
         int64_t step) {
        XlaTensorPtr g = ToXlaTensor(grad);
        return Wrapped(ValueOrThrow(ops::SliceBackward(ValueOf(g), sizes, dim,
                                                       start, end, step)),
                       g->device());
      },
      py::arg("grad"), py::arg("sizes"), py::arg("dim"), py::arg("start"),
      py::arg("end"), py::arg("step"),
      "aten.slice_backward for a canonical `dim` (ops/nn_ops.h).");
  m.def(
      "_lerp",
      [](py::handle x, py::handle end, py::handle weight, bool inplace,
         const std::string& name) {
        return LerpCall(x, end, weight, inplace, name);
      },
      py::arg("x"), py::arg("end"), py::arg("weight"), py::arg("inplace"),
      py::arg("name") = "lerp_",
      "lerp in opmath, result in x's dtype (ops/optim_ops.h); `weight` a "
      "tensor or a number. A new tensor, or x updated with `inplace`.");
  m.def(
      "_addc",
      [](int kind, py::handle x, py::handle t1, py::handle t2,
         py::handle value, int code, bool inplace, const std::string& name) {
        return AddcCall(kind, x, t1, t2, value, code, inplace, name);
      },
      py::arg("kind"), py::arg("x"), py::arg("t1"), py::arg("t2"),
      py::arg("value"), py::arg("dtype"), py::arg("inplace"),
      py::arg("name"),
      "addcmul (kind multiply) / addcdiv (kind divide) in opmath, result in "
      "`dtype` (ops/optim_ops.h); `value` None for 1. A new tensor, or x "
      "updated with `inplace`.");
}

}  // namespace

void InitOpBindings(py::module_& m) {
  m.def(
      "_opmath_type",
      [](int code) { return static_cast<int>(ops::OpMathType(ToDType(code))); },
      py::arg("dtype"),
      "The DType code eager computes `dtype` in (f32 for bf16/f16; "
      "ops/opmath.h). Python reads it once per dtype at import.");
  InitLinalgBindings(m);
  InitElementwiseOpBindings(m);
  InitReductionBindings(m);
  InitNnBindings(m);
}

}  // namespace torch_xla::python
