#include "torch_xla/csrc/ops/activation_ops.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/apply.h"
#include "torch_xla/csrc/ops/elementwise_util.h"
#include "torch_xla/csrc/ops/opmath.h"

namespace torch_xla::ops {
namespace {

constexpr double kSqrtHalf = 0.70710678118654752440;     // 1 / sqrt(2)
constexpr double kSqrtTwoOverPi = 0.79788456080286535588;  // sqrt(2 / pi)
constexpr double kInvSqrtTwoPi = 0.39894228040143267794;   // 1 / sqrt(2 pi)
constexpr double kKappa = 0.044715;

// Formulas on Values of one dtype and shape: literals take x's.
class Formula {
 public:
  explicit Formula(const Value& like) : like_(like) {}

  absl::StatusOr<Value> Lit(double value) const {
    return LiteralLike(value, like_);
  }
  absl::StatusOr<Value> Mul(Value a, Value b) const {
    return Apply(OpKind::kMultiply, std::move(a), std::move(b));
  }
  absl::StatusOr<Value> Add(Value a, Value b) const {
    return Apply(OpKind::kAdd, std::move(a), std::move(b));
  }
  absl::StatusOr<Value> Sub(Value a, Value b) const {
    return Apply(OpKind::kSubtract, std::move(a), std::move(b));
  }
  // c * a for a constant c.
  absl::StatusOr<Value> Scale(double c, Value a) const {
    TXLA_ASSIGN_OR_RETURN(Value lit, Lit(c));
    return Mul(std::move(lit), std::move(a));
  }
  // c + a for a constant c.
  absl::StatusOr<Value> Plus(double c, Value a) const {
    TXLA_ASSIGN_OR_RETURN(Value lit, Lit(c));
    return Add(std::move(lit), std::move(a));
  }
  // c - a for a constant c.
  absl::StatusOr<Value> Minus(double c, Value a) const {
    TXLA_ASSIGN_OR_RETURN(Value lit, Lit(c));
    return Sub(std::move(lit), std::move(a));
  }
  // a `direction` c for a constant c, as pred.
  absl::StatusOr<Value> Cmp(Value a, absl::string_view direction,
                            double c) const {
    TXLA_ASSIGN_OR_RETURN(Value lit, Lit(c));
    return Compare(std::move(a), std::move(lit), direction);
  }
  // clamp(x + 3, 0, 6), the hard activations' ramp.
  absl::StatusOr<Value> Ramp(const Value& x) const {
    TXLA_ASSIGN_OR_RETURN(Value shifted, Plus(3, x));
    TXLA_ASSIGN_OR_RETURN(Value zero, Lit(0));
    TXLA_ASSIGN_OR_RETURN(Value six, Lit(6));
    TXLA_ASSIGN_OR_RETURN(Value low,
                          Apply(OpKind::kMaximum, std::move(shifted), zero));
    return Apply(OpKind::kMinimum, std::move(low), std::move(six));
  }

 private:
  const Value& like_;
};

// tanh(sqrt(2/pi) (x + 0.044715 x^3)), gelu's tanh approximation's inner.
absl::StatusOr<Value> GeluTanhInner(const Formula& f, const Value& x) {
  TXLA_ASSIGN_OR_RETURN(Value sq, f.Mul(x, x));
  TXLA_ASSIGN_OR_RETURN(Value cube, f.Mul(sq, x));
  TXLA_ASSIGN_OR_RETURN(Value kcube, f.Scale(kKappa, cube));
  TXLA_ASSIGN_OR_RETURN(Value sum, f.Add(x, kcube));
  TXLA_ASSIGN_OR_RETURN(Value inner, f.Scale(kSqrtTwoOverPi, sum));
  return Apply(OpKind::kTanh, std::move(inner));
}

absl::StatusOr<Value> GeluValue(const Value& x, bool tanh) {
  Formula f(x);
  Value t;
  if (tanh) {
    TXLA_ASSIGN_OR_RETURN(t, GeluTanhInner(f, x));
  } else {
    TXLA_ASSIGN_OR_RETURN(Value scaled, f.Scale(kSqrtHalf, x));
    TXLA_ASSIGN_OR_RETURN(t, Apply(OpKind::kErf, std::move(scaled)));
  }
  TXLA_ASSIGN_OR_RETURN(Value half_x, f.Scale(0.5, x));
  TXLA_ASSIGN_OR_RETURN(Value one_plus, f.Plus(1, std::move(t)));
  return f.Mul(std::move(half_x), std::move(one_plus));
}

// d gelu / dx (no grad factor).
absl::StatusOr<Value> GeluDerivative(const Value& x, bool tanh) {
  Formula f(x);
  if (!tanh) {  // Phi(x) + x phi(x)
    TXLA_ASSIGN_OR_RETURN(Value scaled, f.Scale(kSqrtHalf, x));
    TXLA_ASSIGN_OR_RETURN(Value erf, Apply(OpKind::kErf, std::move(scaled)));
    TXLA_ASSIGN_OR_RETURN(Value one_plus, f.Plus(1, std::move(erf)));
    TXLA_ASSIGN_OR_RETURN(Value cdf, f.Scale(0.5, std::move(one_plus)));
    TXLA_ASSIGN_OR_RETURN(Value sq, f.Mul(x, x));
    TXLA_ASSIGN_OR_RETURN(Value neg_half_sq, f.Scale(-0.5, std::move(sq)));
    TXLA_ASSIGN_OR_RETURN(Value e,
                          Apply(OpKind::kExponential, std::move(neg_half_sq)));
    TXLA_ASSIGN_OR_RETURN(Value pdf, f.Scale(kInvSqrtTwoPi, std::move(e)));
    TXLA_ASSIGN_OR_RETURN(Value x_pdf, f.Mul(x, std::move(pdf)));
    return f.Add(std::move(cdf), std::move(x_pdf));
  }
  // 0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 kappa x^2)
  TXLA_ASSIGN_OR_RETURN(Value t, GeluTanhInner(f, x));
  TXLA_ASSIGN_OR_RETURN(Value one_plus, f.Plus(1, t));
  TXLA_ASSIGN_OR_RETURN(Value left_derivative, f.Scale(0.5, one_plus));
  TXLA_ASSIGN_OR_RETURN(Value t_sq, f.Mul(t, t));
  TXLA_ASSIGN_OR_RETURN(Value tanh_derivative, f.Minus(1, std::move(t_sq)));
  TXLA_ASSIGN_OR_RETURN(Value sq, f.Mul(x, x));
  TXLA_ASSIGN_OR_RETURN(Value k_sq, f.Scale(3 * kKappa, std::move(sq)));
  TXLA_ASSIGN_OR_RETURN(Value one_plus_k_sq, f.Plus(1, std::move(k_sq)));
  TXLA_ASSIGN_OR_RETURN(Value inner_derivative,
                        f.Scale(kSqrtTwoOverPi, std::move(one_plus_k_sq)));
  TXLA_ASSIGN_OR_RETURN(Value half_x, f.Scale(0.5, x));
  TXLA_ASSIGN_OR_RETURN(Value right,
                        f.Mul(std::move(half_x), std::move(tanh_derivative)));
  TXLA_ASSIGN_OR_RETURN(right,
                        f.Mul(std::move(right), std::move(inner_derivative)));
  return f.Add(std::move(left_derivative), std::move(right));
}

// log(x / (1 - x)).
absl::StatusOr<Value> LogitValue(const Formula& f, const Value& x) {
  TXLA_ASSIGN_OR_RETURN(Value rest, f.Minus(1, x));
  TXLA_ASSIGN_OR_RETURN(Value odds, Apply(OpKind::kDivide, x, rest));
  return Apply(OpKind::kLog, std::move(odds));
}

// 1 / (x (1 - x)).
absl::StatusOr<Value> LogitDerivative(const Formula& f, const Value& x) {
  TXLA_ASSIGN_OR_RETURN(Value rest, f.Minus(1, x));
  TXLA_ASSIGN_OR_RETURN(Value product, f.Mul(x, std::move(rest)));
  TXLA_ASSIGN_OR_RETURN(Value one, f.Lit(1));
  return Apply(OpKind::kDivide, std::move(one), std::move(product));
}

// The derivative factor of `op` at x (the output y for sigmoid/tanh).
absl::StatusOr<Value> Derivative(ActivationBackwardOp op, const Value& x) {
  Formula f(x);
  switch (op) {
    case ActivationBackwardOp::kSigmoid: {  // (1 - y) y
      TXLA_ASSIGN_OR_RETURN(Value one_minus, f.Minus(1, x));
      return f.Mul(std::move(one_minus), x);
    }
    case ActivationBackwardOp::kTanh: {  // 1 - y^2
      TXLA_ASSIGN_OR_RETURN(Value sq, f.Mul(x, x));
      return f.Minus(1, std::move(sq));
    }
    case ActivationBackwardOp::kGelu:
      return GeluDerivative(x, /*tanh=*/false);
    case ActivationBackwardOp::kGeluTanh:
      return GeluDerivative(x, /*tanh=*/true);
    case ActivationBackwardOp::kHardswish: {
      // x <= -3: 0; x < 3: x / 3 + 0.5; else 1 (eager's kernel).
      TXLA_ASSIGN_OR_RETURN(Value third, f.Scale(1.0 / 3, x));
      TXLA_ASSIGN_OR_RETURN(Value mid, f.Plus(0.5, std::move(third)));
      TXLA_ASSIGN_OR_RETURN(Value upper, f.Cmp(x, "LT", 3));
      TXLA_ASSIGN_OR_RETURN(Value one, f.Lit(1));
      TXLA_ASSIGN_OR_RETURN(Value d, Select(upper, mid, one));
      TXLA_ASSIGN_OR_RETURN(Value lower, f.Cmp(x, "LE", -3));
      TXLA_ASSIGN_OR_RETURN(Value zero, f.Lit(0));
      return Select(lower, zero, d);
    }
    case ActivationBackwardOp::kHardsigmoid: {  // 1/6 on (-3, 3), else 0
      TXLA_ASSIGN_OR_RETURN(Value above, f.Cmp(x, "GT", -3));
      TXLA_ASSIGN_OR_RETURN(Value below, f.Cmp(x, "LT", 3));
      TXLA_ASSIGN_OR_RETURN(Value inside,
                            Apply(OpKind::kAnd, std::move(above), below));
      TXLA_ASSIGN_OR_RETURN(Value sixth, f.Lit(1.0 / 6));
      TXLA_ASSIGN_OR_RETURN(Value zero, f.Lit(0));
      return Select(inside, sixth, zero);
    }
    case ActivationBackwardOp::kLogit: {  // 1 / (x (1 - x)), NaN off [0, 1]
      TXLA_ASSIGN_OR_RETURN(Value d, LogitDerivative(f, x));
      TXLA_ASSIGN_OR_RETURN(Value below, f.Cmp(x, "LT", 0));
      TXLA_ASSIGN_OR_RETURN(Value above, f.Cmp(x, "GT", 1));
      TXLA_ASSIGN_OR_RETURN(Value outside,
                            Apply(OpKind::kOr, std::move(below), above));
      TXLA_ASSIGN_OR_RETURN(Value nan, f.Lit(std::nan("")));
      return Select(outside, nan, d);
    }
  }
  return absl::InternalError("unreachable activation backward op");
}

// log1p(exp(x * beta)) / beta, or x where x * beta > threshold.
absl::StatusOr<Value> SoftplusValue(const Formula& f, const Value& x,
                                    const Value& beta,
                                    const Value& threshold) {
  TXLA_ASSIGN_OR_RETURN(Value scaled, f.Mul(x, beta));
  TXLA_ASSIGN_OR_RETURN(Value over, Compare(scaled, threshold, "GT"));
  TXLA_ASSIGN_OR_RETURN(Value e, Apply(OpKind::kExponential, scaled));
  TXLA_ASSIGN_OR_RETURN(Value log1p, Apply(OpKind::kLogPlusOne, e));
  TXLA_ASSIGN_OR_RETURN(Value soft,
                        Apply(OpKind::kDivide, std::move(log1p), beta));
  return Select(std::move(over), x, std::move(soft));
}

// Converts x and the params to the opmath type of `dtype` and broadcasts
// them to one shape.
absl::Status Prepare(DType dtype, Value* x, std::vector<Value>* params,
                     Value* grad = nullptr) {
  const DType compute = OpMathType(dtype);
  std::vector<Value*> all = {x};
  if (grad != nullptr) all.push_back(grad);
  for (Value& p : *params) all.push_back(&p);
  for (Value* v : all) {
    TXLA_ASSIGN_OR_RETURN(*v, MakeConvert(std::move(*v), compute));
  }
  return BroadcastAll(all);
}

absl::Status CheckParams(ParamActivationOp op, size_t count) {
  static constexpr size_t kCounts[] = {1, 3, 2, 2, 1};
  if (count != kCounts[static_cast<int>(op)]) {
    return absl::InvalidArgumentError(
        absl::StrCat("activation ", static_cast<int>(op), " takes ",
                     kCounts[static_cast<int>(op)], " parameters, got ",
                     count));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ActivationOp> ActivationOpFromCode(int code) {
  if (code < 0 || code > static_cast<int>(ActivationOp::kLogit)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown activation code ", code, " (0-7)"));
  }
  return static_cast<ActivationOp>(code);
}

absl::StatusOr<ActivationBackwardOp> ActivationBackwardOpFromCode(int code) {
  if (code < 0 || code > static_cast<int>(ActivationBackwardOp::kLogit)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown activation backward code ", code, " (0-6)"));
  }
  return static_cast<ActivationBackwardOp>(code);
}

absl::StatusOr<ParamActivationOp> ParamActivationOpFromCode(int code) {
  if (code < 0 || code > static_cast<int>(ParamActivationOp::kLogit)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown parameterized activation code ", code,
                     " (0-4)"));
  }
  return static_cast<ParamActivationOp>(code);
}

absl::StatusOr<Value> Activation(ActivationOp op, Value x) {
  if (op == ActivationOp::kRelu) {
    TXLA_ASSIGN_OR_RETURN(Value zero, LiteralLike(0, x));
    return Apply(OpKind::kMaximum, std::move(x), std::move(zero));
  }
  const DType dtype = x.shape().dtype;
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), OpMathType(dtype)));
  Formula f(v);
  Value out;
  switch (op) {
    case ActivationOp::kSilu: {
      TXLA_ASSIGN_OR_RETURN(Value s, Apply(OpKind::kLogistic, v));
      TXLA_ASSIGN_OR_RETURN(out, f.Mul(v, std::move(s)));
      break;
    }
    case ActivationOp::kHardswish:
    case ActivationOp::kHardsigmoid: {
      TXLA_ASSIGN_OR_RETURN(Value ramp, f.Ramp(v));
      if (op == ActivationOp::kHardswish) {
        TXLA_ASSIGN_OR_RETURN(ramp, f.Mul(v, std::move(ramp)));
      }
      TXLA_ASSIGN_OR_RETURN(Value six, f.Lit(6));
      TXLA_ASSIGN_OR_RETURN(
          out, Apply(OpKind::kDivide, std::move(ramp), std::move(six)));
      break;
    }
    case ActivationOp::kMish: {  // softplus with beta 1, threshold 20
      TXLA_ASSIGN_OR_RETURN(Value one, f.Lit(1));
      TXLA_ASSIGN_OR_RETURN(Value twenty, f.Lit(20));
      TXLA_ASSIGN_OR_RETURN(Value soft, SoftplusValue(f, v, one, twenty));
      TXLA_ASSIGN_OR_RETURN(Value t, Apply(OpKind::kTanh, std::move(soft)));
      TXLA_ASSIGN_OR_RETURN(out, f.Mul(v, std::move(t)));
      break;
    }
    case ActivationOp::kLogit: {
      TXLA_ASSIGN_OR_RETURN(out, LogitValue(f, v));
      break;
    }
    default: {
      TXLA_ASSIGN_OR_RETURN(out, GeluValue(v, op == ActivationOp::kGeluTanh));
    }
  }
  return MakeConvert(std::move(out), dtype);
}

absl::StatusOr<Value> ActivationBackward(ActivationBackwardOp op, Value grad,
                                         Value x) {
  const DType dtype = grad.shape().dtype;
  const DType compute = OpMathType(dtype);
  TXLA_ASSIGN_OR_RETURN(Value g, MakeConvert(std::move(grad), compute));
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), compute));
  TXLA_RETURN_IF_ERROR(BroadcastAll({&g, &v}));
  TXLA_ASSIGN_OR_RETURN(Value derivative, Derivative(op, v));
  TXLA_ASSIGN_OR_RETURN(
      Value out, Apply(OpKind::kMultiply, std::move(g), std::move(derivative)));
  return MakeConvert(std::move(out), dtype);
}

absl::StatusOr<Value> ParamActivation(ParamActivationOp op, Value x,
                                      std::vector<Value> params) {
  TXLA_RETURN_IF_ERROR(CheckParams(op, params.size()));
  if (op == ParamActivationOp::kHardtanh) {
    return absl::InvalidArgumentError(
        "hardtanh's forward is clamp (ops/select_ops.h)");
  }
  const DType dtype = x.shape().dtype;
  TXLA_RETURN_IF_ERROR(Prepare(dtype, &x, &params));
  Formula f(x);
  Value out;
  if (op == ParamActivationOp::kLeakyRelu) {
    TXLA_ASSIGN_OR_RETURN(Value positive, f.Cmp(x, "GT", 0));
    TXLA_ASSIGN_OR_RETURN(Value scaled, f.Mul(x, params[0]));
    TXLA_ASSIGN_OR_RETURN(out, Select(std::move(positive), x,
                                      std::move(scaled)));
  } else if (op == ParamActivationOp::kElu) {
    const Value& alpha = params[0];
    const Value& scale = params[1];
    const Value& input_scale = params[2];
    TXLA_ASSIGN_OR_RETURN(Value positive, f.Cmp(x, "GT", 0));
    TXLA_ASSIGN_OR_RETURN(Value pos, f.Mul(x, scale));
    TXLA_ASSIGN_OR_RETURN(Value inner, f.Mul(x, input_scale));
    TXLA_ASSIGN_OR_RETURN(Value em1, Apply(OpKind::kExponentialMinusOne,
                                           std::move(inner)));
    TXLA_ASSIGN_OR_RETURN(Value coef, f.Mul(alpha, scale));
    TXLA_ASSIGN_OR_RETURN(Value neg, f.Mul(std::move(em1), std::move(coef)));
    TXLA_ASSIGN_OR_RETURN(out, Select(std::move(positive), std::move(pos),
                                      std::move(neg)));
  } else if (op == ParamActivationOp::kSoftplus) {
    TXLA_ASSIGN_OR_RETURN(out, SoftplusValue(f, x, params[0], params[1]));
  } else {  // kLogit: x clamped to [eps, 1 - eps] first
    TXLA_ASSIGN_OR_RETURN(Value hi, f.Minus(1, params[0]));
    TXLA_ASSIGN_OR_RETURN(Value low, Apply(OpKind::kMaximum, x, params[0]));
    TXLA_ASSIGN_OR_RETURN(Value z, Apply(OpKind::kMinimum, std::move(low),
                                         std::move(hi)));
    TXLA_ASSIGN_OR_RETURN(out, LogitValue(f, z));
  }
  return MakeConvert(std::move(out), dtype);
}

absl::StatusOr<Value> ParamActivationBackward(ParamActivationOp op,
                                              Value grad, Value x,
                                              std::vector<Value> params,
                                              bool x_is_result) {
  TXLA_RETURN_IF_ERROR(CheckParams(op, params.size()));
  const DType dtype = grad.shape().dtype;
  TXLA_RETURN_IF_ERROR(Prepare(dtype, &x, &params, &grad));
  Formula f(x);
  TXLA_ASSIGN_OR_RETURN(Value zero, f.Lit(0));
  Value out;
  switch (op) {
    case ParamActivationOp::kLeakyRelu: {
      TXLA_ASSIGN_OR_RETURN(Value positive, f.Cmp(x, "GT", 0));
      TXLA_ASSIGN_OR_RETURN(Value scaled, f.Mul(grad, params[0]));
      TXLA_ASSIGN_OR_RETURN(out, Select(std::move(positive), grad,
                                        std::move(scaled)));
      break;
    }
    case ParamActivationOp::kElu: {
      const Value& alpha = params[0];
      const Value& scale = params[1];
      const Value& input_scale = params[2];
      TXLA_ASSIGN_OR_RETURN(Value coef, f.Mul(alpha, scale));
      TXLA_ASSIGN_OR_RETURN(Value neg_factor, f.Mul(grad, input_scale));
      Value neg;
      if (x_is_result) {  // grad * input_scale * (y + alpha * scale)
        TXLA_ASSIGN_OR_RETURN(Value shifted, f.Add(x, std::move(coef)));
        TXLA_ASSIGN_OR_RETURN(neg, f.Mul(std::move(neg_factor),
                                         std::move(shifted)));
      } else {  // grad * input_scale * alpha * scale * exp(x * input_scale)
        TXLA_ASSIGN_OR_RETURN(Value inner, f.Mul(x, input_scale));
        TXLA_ASSIGN_OR_RETURN(Value e, Apply(OpKind::kExponential,
                                             std::move(inner)));
        TXLA_ASSIGN_OR_RETURN(neg_factor, f.Mul(std::move(neg_factor),
                                                std::move(coef)));
        TXLA_ASSIGN_OR_RETURN(neg, f.Mul(std::move(neg_factor),
                                         std::move(e)));
      }
      TXLA_ASSIGN_OR_RETURN(Value pos, f.Mul(grad, scale));
      TXLA_ASSIGN_OR_RETURN(Value non_positive, f.Cmp(x, "LE", 0));
      TXLA_ASSIGN_OR_RETURN(out, Select(std::move(non_positive),
                                        std::move(neg), std::move(pos)));
      break;
    }
    case ParamActivationOp::kSoftplus: {  // grad * z / (z + 1), z = e^(xb)
      TXLA_ASSIGN_OR_RETURN(Value scaled, f.Mul(x, params[0]));
      TXLA_ASSIGN_OR_RETURN(Value over, Compare(scaled, params[1], "GT"));
      TXLA_ASSIGN_OR_RETURN(Value z, Apply(OpKind::kExponential,
                                           std::move(scaled)));
      TXLA_ASSIGN_OR_RETURN(Value z1, f.Plus(1, z));
      TXLA_ASSIGN_OR_RETURN(Value gz, f.Mul(grad, std::move(z)));
      TXLA_ASSIGN_OR_RETURN(Value soft, Apply(OpKind::kDivide, std::move(gz),
                                              std::move(z1)));
      TXLA_ASSIGN_OR_RETURN(out, Select(std::move(over), grad,
                                        std::move(soft)));
      break;
    }
    case ParamActivationOp::kHardtanh: {  // 0 where x <= min or x >= max
      TXLA_ASSIGN_OR_RETURN(Value low, Compare(x, params[0], "LE"));
      TXLA_ASSIGN_OR_RETURN(Value high, Compare(x, params[1], "GE"));
      TXLA_ASSIGN_OR_RETURN(Value outside,
                            Apply(OpKind::kOr, std::move(low),
                                  std::move(high)));
      TXLA_ASSIGN_OR_RETURN(out, Select(std::move(outside), zero, grad));
      break;
    }
    case ParamActivationOp::kLogit: {  // 0 off [eps, 1 - eps]
      TXLA_ASSIGN_OR_RETURN(Value hi, f.Minus(1, params[0]));
      TXLA_ASSIGN_OR_RETURN(Value low, Compare(x, params[0], "LT"));
      TXLA_ASSIGN_OR_RETURN(Value high, Compare(x, hi, "GT"));
      TXLA_ASSIGN_OR_RETURN(Value outside,
                            Apply(OpKind::kOr, std::move(low),
                                  std::move(high)));
      TXLA_ASSIGN_OR_RETURN(Value d, LogitDerivative(f, x));
      TXLA_ASSIGN_OR_RETURN(Value scaled, f.Mul(grad, std::move(d)));
      TXLA_ASSIGN_OR_RETURN(out, Select(std::move(outside), zero,
                                        std::move(scaled)));
      break;
    }
  }
  return MakeConvert(std::move(out), dtype);
}

absl::StatusOr<Value> Threshold(Value x, Value threshold, Value value,
                                Value other) {
  TXLA_RETURN_IF_ERROR(BroadcastAll({&x, &threshold, &value, &other}));
  TXLA_ASSIGN_OR_RETURN(Value below,
                        Compare(std::move(x), std::move(threshold), "LE"));
  return Select(std::move(below), std::move(value), std::move(other));
}

}  // namespace torch_xla::ops
