#include "torch_xla/csrc/lowering/scalar_ops.h"

#include "absl/strings/str_cat.h"

namespace torch_xla {

std::string ScalarOps::Emit(absl::string_view op, const std::string& a,
                            const std::string& b, DType operand,
                            DType result) {
  // No regions: EmitOp cannot fail.
  return *e_.EmitOp(op, {a, b}, {Type(operand), Type(operand)}, "",
                    {Type(result)});
}

std::string ScalarOps::Compare(const std::string& a, const std::string& b,
                               absl::string_view direction, DType dtype) {
  const absl::string_view type = IsFloating(dtype)          ? "FLOAT"
                                 : IsSignedInteger(dtype) ? "SIGNED"
                                                          : "UNSIGNED";
  return *e_.EmitOp(
      "stablehlo.compare", {a, b}, {Type(dtype), Type(dtype)},
      absl::StrCat("{comparison_direction = #stablehlo<comparison_direction ",
                   direction, ">, compare_type = #stablehlo<comparison_type ",
                   type, ">}"),
      {Type(DType::kBool)});
}

std::string ScalarOps::IsNan(const std::string& a, DType dtype) {
  return Compare(a, a, "NE", dtype);
}

std::string ScalarOps::And(const std::string& a, const std::string& b) {
  return Emit("stablehlo.and", a, b, DType::kBool, DType::kBool);
}

std::string ScalarOps::Or(const std::string& a, const std::string& b) {
  return Emit("stablehlo.or", a, b, DType::kBool, DType::kBool);
}

std::string ScalarOps::Not(const std::string& a) {
  const std::string t = Type(DType::kBool);
  return *e_.EmitOp("stablehlo.not", {a}, {t}, "", {t});
}

std::string ScalarOps::Select(const std::string& pred,
                              const std::string& on_true,
                              const std::string& on_false, DType dtype) {
  const std::string t = Type(dtype);
  return *e_.EmitOp("stablehlo.select", {pred, on_true, on_false},
                    {Type(DType::kBool), t, t}, "", {t});
}

std::string ScalarOps::Before(const std::string& a, const std::string& b,
                              bool descending, DType dtype) {
  if (!IsFloating(dtype)) return Compare(a, b, descending ? "GT" : "LT", dtype);
  const std::string ordered = Compare(a, b, descending ? "GT" : "LT", dtype);
  // NaN sorts as the largest value: last ascending, first descending.
  const std::string nan_a = IsNan(a, dtype);
  const std::string nan_b = IsNan(b, dtype);
  const std::string nan_first =
      descending ? And(nan_a, Not(nan_b)) : And(nan_b, Not(nan_a));
  return Or(ordered, nan_first);
}

std::string ScalarOps::Same(const std::string& a, const std::string& b,
                            DType dtype) {
  const std::string equal = Compare(a, b, "EQ", dtype);
  if (!IsFloating(dtype)) return equal;
  return Or(equal, And(IsNan(a, dtype), IsNan(b, dtype)));
}

}  // namespace torch_xla
