#include "torch_xla/csrc/ir/elementwise_ops.h"

#include <array>

namespace torch_xla {
namespace {

using C = DTypeClass;

constexpr ElementwiseOp kRows[] = {
    // Unary.
    {OpKind::kAbs, 1, C::kSignedOrFloat, false, "stablehlo.abs"},
    {OpKind::kNegate, 1, C::kNumeric, false, "stablehlo.negate"},
    {OpKind::kExponential, 1, C::kFloat, false, "stablehlo.exponential"},
    {OpKind::kExponentialMinusOne, 1, C::kFloat, false,
     "stablehlo.exponential_minus_one"},
    {OpKind::kLog, 1, C::kFloat, false, "stablehlo.log"},
    {OpKind::kLogPlusOne, 1, C::kFloat, false, "stablehlo.log_plus_one"},
    {OpKind::kSqrt, 1, C::kFloat, false, "stablehlo.sqrt"},
    {OpKind::kRsqrt, 1, C::kFloat, false, "stablehlo.rsqrt"},
    {OpKind::kCbrt, 1, C::kFloat, false, "stablehlo.cbrt"},
    {OpKind::kSine, 1, C::kFloat, false, "stablehlo.sine"},
    {OpKind::kCosine, 1, C::kFloat, false, "stablehlo.cosine"},
    {OpKind::kTan, 1, C::kFloat, false, "stablehlo.tan"},
    {OpKind::kTanh, 1, C::kFloat, false, "stablehlo.tanh"},
    {OpKind::kLogistic, 1, C::kFloat, false, "stablehlo.logistic"},
    {OpKind::kFloor, 1, C::kFloat, false, "stablehlo.floor"},
    {OpKind::kCeil, 1, C::kFloat, false, "stablehlo.ceil"},
    {OpKind::kRoundNearestEven, 1, C::kFloat, false,
     "stablehlo.round_nearest_even"},
    {OpKind::kSign, 1, C::kSignedOrFloat, false, "stablehlo.sign"},
    {OpKind::kNot, 1, C::kIntegerOrBool, false, "stablehlo.not"},
    {OpKind::kIsFinite, 1, C::kFloat, true, "stablehlo.is_finite"},
    // CHLO: XLA's MLIR import legalizes it (chlo-legalize-to-high-level-mhlo)
    // to its own accurate per-type Erf expansion.
    {OpKind::kErf, 1, C::kFloat, false, "chlo.erf"},
    // Inverse trigonometric and hyperbolic functions: StableHLO has none
    // (atan is atan2(x, 1)); CHLO's, which XLA legalizes to accurate
    // expansions (the ops JAX emits for jnp.arcsin etc.).
    {OpKind::kAcos, 1, C::kFloat, false, "chlo.acos"},
    {OpKind::kAcosh, 1, C::kFloat, false, "chlo.acosh"},
    {OpKind::kAsin, 1, C::kFloat, false, "chlo.asin"},
    {OpKind::kAsinh, 1, C::kFloat, false, "chlo.asinh"},
    {OpKind::kAtanh, 1, C::kFloat, false, "chlo.atanh"},
    {OpKind::kCosh, 1, C::kFloat, false, "chlo.cosh"},
    {OpKind::kSinh, 1, C::kFloat, false, "chlo.sinh"},
    // Binary.
    {OpKind::kAdd, 2, C::kAny, false, "stablehlo.add"},
    {OpKind::kSubtract, 2, C::kNumeric, false, "stablehlo.subtract"},
    {OpKind::kMultiply, 2, C::kAny, false, "stablehlo.multiply"},
    {OpKind::kDivide, 2, C::kNumeric, false, "stablehlo.divide"},
    {OpKind::kRemainder, 2, C::kNumeric, false, "stablehlo.remainder"},
    {OpKind::kPower, 2, C::kNumeric, false, "stablehlo.power"},
    {OpKind::kMaximum, 2, C::kAny, false, "stablehlo.maximum"},
    {OpKind::kMinimum, 2, C::kAny, false, "stablehlo.minimum"},
    {OpKind::kAtan2, 2, C::kFloat, false, "stablehlo.atan2"},
    {OpKind::kAnd, 2, C::kIntegerOrBool, false, "stablehlo.and"},
    {OpKind::kOr, 2, C::kIntegerOrBool, false, "stablehlo.or"},
    {OpKind::kXor, 2, C::kIntegerOrBool, false, "stablehlo.xor"},
    {OpKind::kShiftLeft, 2, C::kInteger, false, "stablehlo.shift_left"},
    {OpKind::kShiftRightArithmetic, 2, C::kInteger, false,
     "stablehlo.shift_right_arithmetic"},
    {OpKind::kShiftRightLogical, 2, C::kInteger, false,
     "stablehlo.shift_right_logical"},
};

// kind -> row index + 1 (0: not elementwise).
constexpr std::array<uint8_t, kNumOpKinds> BuildIndex() {
  std::array<uint8_t, kNumOpKinds> index{};
  for (size_t i = 0; i < sizeof(kRows) / sizeof(kRows[0]); ++i) {
    index[static_cast<int>(kRows[i].kind)] = static_cast<uint8_t>(i + 1);
  }
  return index;
}
constexpr std::array<uint8_t, kNumOpKinds> kIndex = BuildIndex();

}  // namespace

bool DTypeInClass(DType dtype, DTypeClass cls) {
  switch (cls) {
    case DTypeClass::kAny:
      return true;
    case DTypeClass::kNumeric:
      return dtype != DType::kBool;
    case DTypeClass::kSignedOrFloat:
      return IsSignedInteger(dtype) || IsFloating(dtype);
    case DTypeClass::kFloat:
      return IsFloating(dtype);
    case DTypeClass::kInteger:
      return IsInteger(dtype);
    case DTypeClass::kIntegerOrBool:
      return IsInteger(dtype) || dtype == DType::kBool;
  }
  return false;
}

absl::string_view DTypeClassName(DTypeClass cls) {
  switch (cls) {
    case DTypeClass::kAny:
      return "any element type";
    case DTypeClass::kNumeric:
      return "integer or floating point";
    case DTypeClass::kSignedOrFloat:
      return "signed integer or floating point";
    case DTypeClass::kFloat:
      return "floating point";
    case DTypeClass::kInteger:
      return "integer";
    case DTypeClass::kIntegerOrBool:
      return "integer or pred";
  }
  return "?";
}

absl::Span<const ElementwiseOp> ElementwiseOps() { return kRows; }

const ElementwiseOp* FindElementwiseOp(OpKind kind) {
  uint8_t i = kIndex[OpKindIndex(kind)];
  return i == 0 ? nullptr : &kRows[i - 1];
}

}  // namespace torch_xla
