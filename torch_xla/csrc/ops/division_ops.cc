#include "torch_xla/csrc/ops/division_ops.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/apply.h"
#include "torch_xla/csrc/ops/elementwise_util.h"
#include "torch_xla/csrc/ops/opmath.h"

namespace torch_xla::ops {
namespace {

// (a < 0) != (b < 0) as pred.
absl::StatusOr<Value> SignsDiffer(const Value& a, const Value& b,
                                  const Value& zero) {
  TXLA_ASSIGN_OR_RETURN(Value a_neg, Compare(a, zero, "LT"));
  TXLA_ASSIGN_OR_RETURN(Value b_neg, Compare(b, zero, "LT"));
  return Compare(std::move(a_neg), std::move(b_neg), "NE");
}

// `result`, or 0 where the integer `divisor` is 0 (docs/integer_division.md).
absl::StatusOr<Value> ZeroWhereDivisorZero(Value result,
                                           const Value& divisor) {
  TXLA_ASSIGN_OR_RETURN(Value zero, LiteralLike(0, divisor));
  TXLA_ASSIGN_OR_RETURN(Value is_zero, Compare(divisor, zero, "EQ"));
  return Select(std::move(is_zero), std::move(zero), std::move(result));
}

// trunc(x) = sign(x) * floor(|x|), for floats.
absl::StatusOr<Value> Trunc(Value x) {
  TXLA_ASSIGN_OR_RETURN(Value sign, Apply(OpKind::kSign, x));
  TXLA_ASSIGN_OR_RETURN(Value abs, Apply(OpKind::kAbs, std::move(x)));
  TXLA_ASSIGN_OR_RETURN(Value floor, Apply(OpKind::kFloor, std::move(abs)));
  return Apply(OpKind::kMultiply, std::move(sign), std::move(floor));
}

// Eager's floor division of floats: from the exact remainder, not
// floor(a / b), which can round up to the next integer.
absl::StatusOr<Value> FloatFloorDivide(const Value& a, const Value& b) {
  TXLA_ASSIGN_OR_RETURN(Value zero, LiteralLike(0, a));
  TXLA_ASSIGN_OR_RETURN(Value one, LiteralLike(1, a));
  TXLA_ASSIGN_OR_RETURN(Value half, LiteralLike(0.5, a));
  TXLA_ASSIGN_OR_RETURN(Value mod, Apply(OpKind::kRemainder, a, b));
  TXLA_ASSIGN_OR_RETURN(Value diff, Apply(OpKind::kSubtract, a, mod));
  TXLA_ASSIGN_OR_RETURN(Value div, Apply(OpKind::kDivide, diff, b));
  // One less where the remainder is nonzero and its sign is not b's.
  TXLA_ASSIGN_OR_RETURN(Value nonzero, Compare(mod, zero, "NE"));
  TXLA_ASSIGN_OR_RETURN(Value differ, SignsDiffer(b, mod, zero));
  TXLA_ASSIGN_OR_RETURN(Value fix, Apply(OpKind::kAnd, nonzero, differ));
  TXLA_ASSIGN_OR_RETURN(Value less, Apply(OpKind::kSubtract, div, one));
  TXLA_ASSIGN_OR_RETURN(div, Select(fix, less, div));
  // floor(div), rounded up where div sits more than 0.5 above it.
  TXLA_ASSIGN_OR_RETURN(Value floor, Apply(OpKind::kFloor, div));
  TXLA_ASSIGN_OR_RETURN(Value frac, Apply(OpKind::kSubtract, div, floor));
  TXLA_ASSIGN_OR_RETURN(Value up, Compare(frac, half, "GT"));
  TXLA_ASSIGN_OR_RETURN(Value next, Apply(OpKind::kAdd, floor, one));
  TXLA_ASSIGN_OR_RETURN(floor, Select(up, next, floor));
  // A zero result takes the sign of a / b (0 * sign(q) keeps -0.0);
  // b == 0 gives a / b itself (inf or nan), as IEEE division.
  TXLA_ASSIGN_OR_RETURN(Value quotient, Apply(OpKind::kDivide, a, b));
  TXLA_ASSIGN_OR_RETURN(Value sign, Apply(OpKind::kSign, quotient));
  TXLA_ASSIGN_OR_RETURN(Value signed_zero,
                        Apply(OpKind::kMultiply, zero, sign));
  TXLA_ASSIGN_OR_RETURN(Value div_zero, Compare(div, zero, "EQ"));
  TXLA_ASSIGN_OR_RETURN(floor, Select(div_zero, signed_zero, floor));
  TXLA_ASSIGN_OR_RETURN(Value b_zero, Compare(b, zero, "EQ"));
  return Select(b_zero, quotient, floor);
}

// Integer a // b rounded toward -inf: the truncated quotient, one less
// where the signs differ and there is a remainder.
absl::StatusOr<Value> IntFloorDivide(const Value& a, const Value& b) {
  TXLA_ASSIGN_OR_RETURN(Value zero, LiteralLike(0, a));
  TXLA_ASSIGN_OR_RETURN(Value one, LiteralLike(1, a));
  TXLA_ASSIGN_OR_RETURN(Value q, Apply(OpKind::kDivide, a, b));
  TXLA_ASSIGN_OR_RETURN(Value r, Apply(OpKind::kRemainder, a, b));
  TXLA_ASSIGN_OR_RETURN(Value nonzero, Compare(r, zero, "NE"));
  TXLA_ASSIGN_OR_RETURN(Value differ, SignsDiffer(a, b, zero));
  TXLA_ASSIGN_OR_RETURN(Value fix, Apply(OpKind::kAnd, nonzero, differ));
  TXLA_ASSIGN_OR_RETURN(Value less, Apply(OpKind::kSubtract, q, one));
  return Select(fix, less, q);
}

// Python's %: the fmod remainder moved to the divisor's sign.
absl::StatusOr<Value> Remainder(const Value& a, const Value& b) {
  TXLA_ASSIGN_OR_RETURN(Value zero, LiteralLike(0, a));
  TXLA_ASSIGN_OR_RETURN(Value r, Apply(OpKind::kRemainder, a, b));
  TXLA_ASSIGN_OR_RETURN(Value nonzero, Compare(r, zero, "NE"));
  TXLA_ASSIGN_OR_RETURN(Value differ, SignsDiffer(r, b, zero));
  TXLA_ASSIGN_OR_RETURN(Value fix, Apply(OpKind::kAnd, nonzero, differ));
  TXLA_ASSIGN_OR_RETURN(Value moved, Apply(OpKind::kAdd, r, b));
  return Select(fix, moved, r);
}

}  // namespace

absl::StatusOr<DivisionOp> DivisionOpFromCode(int code) {
  if (code < 0 || code > static_cast<int>(DivisionOp::kFmod)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown division op code ", code, " (0-3)"));
  }
  return static_cast<DivisionOp>(code);
}

absl::StatusOr<Value> Division(DivisionOp op, Value a, Value b) {
  const DType dtype = a.shape().dtype;
  if (IsFloating(dtype)) {
    switch (op) {
      case DivisionOp::kTruncDivide: {  // eager truncates the rounded q
        TXLA_ASSIGN_OR_RETURN(Value q, Apply(OpKind::kDivide, a, b));
        return Trunc(std::move(q));
      }
      case DivisionOp::kFloorDivide: {  // bf16/f16 in f32, rounded once
        const DType acc = OpMathType(dtype);
        TXLA_ASSIGN_OR_RETURN(Value fa, MakeConvert(std::move(a), acc));
        TXLA_ASSIGN_OR_RETURN(Value fb, MakeConvert(std::move(b), acc));
        TXLA_ASSIGN_OR_RETURN(Value q, FloatFloorDivide(fa, fb));
        return MakeConvert(std::move(q), dtype);
      }
      case DivisionOp::kRemainder:
        return Remainder(a, b);
      case DivisionOp::kFmod:
        return Apply(OpKind::kRemainder, std::move(a), std::move(b));
    }
  }
  absl::StatusOr<Value> out;
  switch (op) {
    case DivisionOp::kTruncDivide:  // integer division truncates
      out = Apply(OpKind::kDivide, a, b);
      break;
    case DivisionOp::kFloorDivide:
      out = IntFloorDivide(a, b);
      break;
    case DivisionOp::kRemainder:
      out = Remainder(a, b);
      break;
    case DivisionOp::kFmod:
      out = Apply(OpKind::kRemainder, a, b);
      break;
  }
  if (!out.ok()) return out.status();
  return ZeroWhereDivisorZero(*std::move(out), b);
}

}  // namespace torch_xla::ops
