#include "torch_xla/csrc/ops/activation_ops.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
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

// The derivative factor of `op` at x (the output y for sigmoid/tanh).
absl::StatusOr<Value> Derivative(ActivationBackwardOp op, const Value& x) {
  Formula f(x);
  switch (op) {
    case ActivationBackwardOp::kSilu: {  // s (1 + x (1 - s))
      TXLA_ASSIGN_OR_RETURN(Value s, Apply(OpKind::kLogistic, x));
      TXLA_ASSIGN_OR_RETURN(Value one_minus, f.Minus(1, s));
      TXLA_ASSIGN_OR_RETURN(Value x_term, f.Mul(x, std::move(one_minus)));
      TXLA_ASSIGN_OR_RETURN(Value factor, f.Plus(1, std::move(x_term)));
      return f.Mul(std::move(s), std::move(factor));
    }
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
  }
  return absl::InternalError("unreachable activation backward op");
}

}  // namespace

absl::StatusOr<ActivationOp> ActivationOpFromCode(int code) {
  if (code < 0 || code > static_cast<int>(ActivationOp::kGeluTanh)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown activation code ", code, " (0-3)"));
  }
  return static_cast<ActivationOp>(code);
}

absl::StatusOr<ActivationBackwardOp> ActivationBackwardOpFromCode(int code) {
  if (code < 0 || code > static_cast<int>(ActivationBackwardOp::kGeluTanh)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown activation backward code ", code, " (0-4)"));
  }
  return static_cast<ActivationBackwardOp>(code);
}

absl::StatusOr<Value> Activation(ActivationOp op, Value x) {
  if (op == ActivationOp::kRelu) {
    TXLA_ASSIGN_OR_RETURN(Value zero, LiteralLike(0, x));
    return Apply(OpKind::kMaximum, std::move(x), std::move(zero));
  }
  const DType dtype = x.shape().dtype;
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), OpMathType(dtype)));
  Value out;
  if (op == ActivationOp::kSilu) {
    TXLA_ASSIGN_OR_RETURN(Value s, Apply(OpKind::kLogistic, v));
    TXLA_ASSIGN_OR_RETURN(out, Apply(OpKind::kMultiply, v, std::move(s)));
  } else {
    TXLA_ASSIGN_OR_RETURN(out, GeluValue(v, op == ActivationOp::kGeluTanh));
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

absl::StatusOr<Value> Threshold(Value x, Value threshold, Value value,
                                Value other) {
  TXLA_RETURN_IF_ERROR(BroadcastAll({&x, &threshold, &value, &other}));
  TXLA_ASSIGN_OR_RETURN(Value below,
                        Compare(std::move(x), std::move(threshold), "LE"));
  return Select(std::move(below), std::move(value), std::move(other));
}

}  // namespace torch_xla::ops
