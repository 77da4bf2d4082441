// Lowerings: elementwise table rows, compare, select, clamp, convert,
// bitcast_convert.

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/elementwise_ops.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/lowering/emitter.h"
#include "torch_xla/csrc/lowering/lower_rules.h"

namespace torch_xla {
namespace {

absl::Status LowerElementwise(const Node& node, MlirEmitter& e) {
  e.EmitNodeOp(node, FindElementwiseOp(node.kind())->mlir_op);
  return absl::OkStatus();
}

absl::string_view CompareType(DType dtype, bool total_order) {
  if (IsFloating(dtype)) return total_order ? "TOTALORDER" : "FLOAT";
  if (IsSignedInteger(dtype)) return "SIGNED";
  return "UNSIGNED";  // unsigned integers and pred
}

absl::Status LowerCompare(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(const std::string* direction,
                        node.GetAttr<std::string>("direction"));
  TXLA_ASSIGN_OR_RETURN(bool total_order,
                        node.GetAttrOr("total_order", false));
  e.EmitNodeOp(
      node, "stablehlo.compare",
      absl::StrCat("{comparison_direction = #stablehlo<comparison_direction ",
                   *direction, ">, compare_type = #stablehlo<comparison_type ",
                   CompareType(node.operand(0).shape().dtype, total_order),
                   ">}"));
  return absl::OkStatus();
}

template <const char* kOp>
absl::Status LowerPlain(const Node& node, MlirEmitter& e) {
  e.EmitNodeOp(node, kOp);
  return absl::OkStatus();
}

constexpr char kSelect[] = "stablehlo.select";
constexpr char kClamp[] = "stablehlo.clamp";
constexpr char kConvert[] = "stablehlo.convert";
constexpr char kBitcastConvert[] = "stablehlo.bitcast_convert";

}  // namespace

absl::Status RegisterElementwiseLowerings(LowerRuleTable* table) {
  for (const ElementwiseOp& row : ElementwiseOps()) {
    TXLA_RETURN_IF_ERROR(table->Register(row.kind, &LowerElementwise));
  }
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kCompare, &LowerCompare));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kSelect, &LowerPlain<kSelect>));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kClamp, &LowerPlain<kClamp>));
  TXLA_RETURN_IF_ERROR(
      table->Register(OpKind::kConvert, &LowerPlain<kConvert>));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kBitcastConvert,
                                       &LowerPlain<kBitcastConvert>));
  return absl::OkStatus();
}

}  // namespace torch_xla
