// Lowerings: constant, iota. device_data and parameter nodes are bound to
// function / block arguments before their users are lowered; reaching their
// rules means the graph is malformed for this context.

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/lowering/emitter.h"
#include "torch_xla/csrc/lowering/lower_rules.h"

namespace torch_xla {
namespace {

absl::Status LowerConstant(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(const AttrValue* value, node.GetAnyAttr("value"));
  TXLA_ASSIGN_OR_RETURN(std::string name,
                        e.EmitSplatConstant(*value, node.shape()));
  e.Bind(&node, std::move(name));
  return absl::OkStatus();
}

absl::Status LowerIota(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(const int64_t* dimension,
                        node.GetAttr<int64_t>("dimension"));
  e.EmitNodeOp(node, "stablehlo.iota",
               absl::StrCat("{iota_dimension = ", *dimension, " : i64}"));
  return absl::OkStatus();
}

absl::Status LowerDeviceData(const Node& node, MlirEmitter& e) {
  return absl::InvalidArgumentError(
      "a data leaf is not an argument of the computation being lowered "
      "(data leaves inside sub-graphs must be turned into parameters)");
}

absl::Status LowerParameter(const Node& node, MlirEmitter& e) {
  return absl::InvalidArgumentError(
      "parameter nodes belong to while cond/body sub-graphs; this one is "
      "used outside its sub-graph");
}

}  // namespace

absl::Status RegisterLeafLowerings(LowerRuleTable* table) {
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kConstant, &LowerConstant));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kIota, &LowerIota));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kDeviceData, &LowerDeviceData));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kParameter, &LowerParameter));
  return absl::OkStatus();
}

}  // namespace torch_xla
