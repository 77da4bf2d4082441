#include "torch_xla/csrc/ops/float_math_ops.h"

#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/apply.h"
#include "torch_xla/csrc/ops/elementwise_util.h"
#include "torch_xla/csrc/ops/opmath.h"

namespace torch_xla::ops {
namespace {

using K = OpKind;

absl::StatusOr<Value> Trunc(Value x) {
  if (!IsFloating(x.shape().dtype)) return x;
  TXLA_ASSIGN_OR_RETURN(Value magnitude, Apply(K::kAbs, x));
  TXLA_ASSIGN_OR_RETURN(Value floor, Apply(K::kFloor, std::move(magnitude)));
  TXLA_ASSIGN_OR_RETURN(Value sign, Apply(K::kSign, std::move(x)));
  return Apply(K::kMultiply, std::move(sign), std::move(floor));
}

// atan2(2x, 2): StableHLO has no atan; XLA's CPU compiler miscomputes
// atan2(x, 1) from 64 elements on, doubling is exact, and where 2x
// overflows atan(x) is pi/2 anyway.
absl::StatusOr<Value> Atan(Value x) {
  TXLA_ASSIGN_OR_RETURN(Value two, LiteralLike(2, x));
  TXLA_ASSIGN_OR_RETURN(Value doubled, Apply(K::kMultiply, std::move(x), two));
  return Apply(K::kAtan2, std::move(doubled), std::move(two));
}

// log(x) * scale computed in opmath, rounded once.
absl::StatusOr<Value> ScaledLog(Value x, double scale) {
  const DType dtype = x.shape().dtype;
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), OpMathType(dtype)));
  TXLA_ASSIGN_OR_RETURN(v, Apply(K::kLog, std::move(v)));
  TXLA_ASSIGN_OR_RETURN(Value factor, LiteralLike(scale, v));
  TXLA_ASSIGN_OR_RETURN(v, Apply(K::kMultiply, std::move(v), factor));
  return MakeConvert(std::move(v), dtype);
}

absl::StatusOr<Value> IsInf(Value x) {
  if (!IsFloating(x.shape().dtype)) {
    return MakeLiteral(0, DType::kBool, x.shape().dims);
  }
  TXLA_ASSIGN_OR_RETURN(Value inf,
                        LiteralLike(std::numeric_limits<double>::infinity(), x));
  TXLA_ASSIGN_OR_RETURN(Value magnitude, Apply(K::kAbs, std::move(x)));
  return Compare(std::move(magnitude), std::move(inf), "EQ");
}

// Eager's kernel: nearbyint(x * 10^d) / 10^d, for d < 0 nearbyint(x /
// 10^-d) * 10^-d, in opmath.
absl::StatusOr<Value> RoundDecimals(Value x, int64_t decimals) {
  if (decimals == 0) return Apply(K::kRoundNearestEven, std::move(x));
  const DType dtype = x.shape().dtype;
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), OpMathType(dtype)));
  TXLA_ASSIGN_OR_RETURN(
      Value scale,
      LiteralLike(std::pow(10.0, static_cast<double>(std::abs(decimals))), v));
  const K inner = decimals > 0 ? K::kMultiply : K::kDivide;
  const K outer = decimals > 0 ? K::kDivide : K::kMultiply;
  TXLA_ASSIGN_OR_RETURN(v, Apply(inner, std::move(v), scale));
  TXLA_ASSIGN_OR_RETURN(v, Apply(K::kRoundNearestEven, std::move(v)));
  TXLA_ASSIGN_OR_RETURN(v, Apply(outer, std::move(v), std::move(scale)));
  return MakeConvert(std::move(v), dtype);
}

absl::StatusOr<Value> Exp2(Value x) {
  TXLA_ASSIGN_OR_RETURN(Value two, LiteralLike(2, x));
  return Apply(K::kPower, std::move(two), std::move(x));
}

// The sign bit as pred: floats through their same-width integer bits.
absl::StatusOr<Value> Signbit(Value x) {
  const DType dtype = x.shape().dtype;
  if (dtype == DType::kBool || IsUnsignedInteger(dtype)) {
    return MakeLiteral(0, DType::kBool, x.shape().dims);
  }
  if (IsFloating(dtype)) {
    const DType bits = dtype == DType::kF64   ? DType::kI64
                       : dtype == DType::kF32 ? DType::kI32
                                              : DType::kI16;
    Attrs attrs;
    attrs.Set("dtype", bits);
    TXLA_ASSIGN_OR_RETURN(
        NodePtr node,
        MakeNode(K::kBitcastConvert, {std::move(x)}, std::move(attrs)));
    x = Value(std::move(node));
  }
  TXLA_ASSIGN_OR_RETURN(Value zero, LiteralLike(0, x));
  return Compare(std::move(x), std::move(zero), "LT");
}

absl::StatusOr<Value> Copysign(Value a, Value b) {
  TXLA_ASSIGN_OR_RETURN(Value negative, Signbit(std::move(b)));
  TXLA_ASSIGN_OR_RETURN(Value magnitude, Apply(K::kAbs, std::move(a)));
  TXLA_ASSIGN_OR_RETURN(Value negated, Apply(K::kNegate, magnitude));
  return Select(std::move(negative), std::move(negated), std::move(magnitude));
}

// max * sqrt(1 + (min/max)^2), 0 where both are 0, inf where either is
// inf (even with a NaN), as std::hypot; in opmath.
absl::StatusOr<Value> Hypot(Value a, Value b) {
  const DType dtype = a.shape().dtype;
  const DType acc = OpMathType(dtype);
  TXLA_ASSIGN_OR_RETURN(a, MakeConvert(std::move(a), acc));
  TXLA_ASSIGN_OR_RETURN(b, MakeConvert(std::move(b), acc));
  TXLA_ASSIGN_OR_RETURN(a, Apply(K::kAbs, std::move(a)));
  TXLA_ASSIGN_OR_RETURN(b, Apply(K::kAbs, std::move(b)));
  TXLA_ASSIGN_OR_RETURN(Value big, Apply(K::kMaximum, a, b));
  TXLA_ASSIGN_OR_RETURN(Value small, Apply(K::kMinimum, a, b));
  TXLA_ASSIGN_OR_RETURN(Value ratio, Apply(K::kDivide, std::move(small), big));
  TXLA_ASSIGN_OR_RETURN(Value square, Apply(K::kMultiply, ratio, ratio));
  TXLA_ASSIGN_OR_RETURN(Value one, LiteralLike(1, big));
  TXLA_ASSIGN_OR_RETURN(Value sum, Apply(K::kAdd, std::move(one), square));
  TXLA_ASSIGN_OR_RETURN(Value root, Apply(K::kSqrt, std::move(sum)));
  TXLA_ASSIGN_OR_RETURN(Value scaled, Apply(K::kMultiply, big, root));
  TXLA_ASSIGN_OR_RETURN(Value zero, LiteralLike(0, big));
  TXLA_ASSIGN_OR_RETURN(Value both_zero, Compare(big, zero, "EQ"));
  TXLA_ASSIGN_OR_RETURN(scaled, Select(std::move(both_zero), std::move(zero),
                                       std::move(scaled)));
  TXLA_ASSIGN_OR_RETURN(
      Value inf, LiteralLike(std::numeric_limits<double>::infinity(), big));
  TXLA_ASSIGN_OR_RETURN(Value a_inf, Compare(std::move(a), inf, "EQ"));
  TXLA_ASSIGN_OR_RETURN(Value b_inf, Compare(std::move(b), inf, "EQ"));
  TXLA_ASSIGN_OR_RETURN(Value either,
                        Apply(K::kOr, std::move(a_inf), std::move(b_inf)));
  TXLA_ASSIGN_OR_RETURN(
      Value out, Select(std::move(either), std::move(inf), std::move(scaled)));
  return MakeConvert(std::move(out), dtype);
}

}  // namespace

absl::StatusOr<FloatMathOp> FloatMathOpFromCode(int code) {
  if (code < 0 || code > static_cast<int>(FloatMathOp::kHypot)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown float math op code ", code, " (0-9)"));
  }
  return static_cast<FloatMathOp>(code);
}

absl::StatusOr<Value> FloatMath(FloatMathOp op, std::vector<Value> operands,
                                int64_t decimals) {
  const size_t arity =
      op == FloatMathOp::kCopysign || op == FloatMathOp::kHypot ? 2 : 1;
  if (operands.size() != arity) {
    return absl::InvalidArgumentError(
        absl::StrCat("float math op ", static_cast<int>(op), " takes ", arity,
                     " operand(s), got ", operands.size()));
  }
  Value x = std::move(operands[0]);
  switch (op) {
    case FloatMathOp::kTrunc:
      return Trunc(std::move(x));
    case FloatMathOp::kAtan:
      return Atan(std::move(x));
    case FloatMathOp::kLog2:
      return ScaledLog(std::move(x), 1 / std::log(2.0));
    case FloatMathOp::kLog10:
      return ScaledLog(std::move(x), 1 / std::log(10.0));
    case FloatMathOp::kIsInf:
      return IsInf(std::move(x));
    case FloatMathOp::kRoundDecimals:
      return RoundDecimals(std::move(x), decimals);
    case FloatMathOp::kExp2:
      return Exp2(std::move(x));
    case FloatMathOp::kSignbit:
      return Signbit(std::move(x));
    case FloatMathOp::kCopysign:
      return Copysign(std::move(x), std::move(operands[1]));
    case FloatMathOp::kHypot:
      return Hypot(std::move(x), std::move(operands[1]));
  }
  return absl::InvalidArgumentError("unreachable float math op");
}

}  // namespace torch_xla::ops
