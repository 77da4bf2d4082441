// Lowerings: while (cond and body sub-graphs become the op's two regions,
// their parameters the block arguments), optimization_barrier and the SPMD
// sharding annotation.

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/subgraph.h"
#include "torch_xla/csrc/lowering/emitter.h"
#include "torch_xla/csrc/lowering/lower_rules.h"

namespace torch_xla {
namespace {

absl::Status LowerWhile(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(const SubGraphPtr* cond_attr,
                        node.GetAttr<SubGraphPtr>("cond"));
  TXLA_ASSIGN_OR_RETURN(const SubGraphPtr* body_attr,
                        node.GetAttr<SubGraphPtr>("body"));
  const SubGraph* cond = cond_attr->get();  // non-null: the shape rule
  const SubGraph* body = body_attr->get();  // checks both
  MlirEmitter::RegionFn regions[] = {
      [cond](MlirEmitter& r) { return r.EmitSubGraphRegion(*cond); },
      [body](MlirEmitter& r) { return r.EmitSubGraphRegion(*body); },
  };
  TXLA_ASSIGN_OR_RETURN(
      std::string name,
      e.EmitOp("stablehlo.while", e.OperandRefs(node),
               MlirEmitter::OperandTypes(node), "",
               MlirEmitter::ResultTypes(node), regions));
  e.Bind(&node, std::move(name));
  return absl::OkStatus();
}

absl::Status LowerOptimizationBarrier(const Node& node, MlirEmitter& e) {
  e.EmitNodeOp(node, "stablehlo.optimization_barrier");
  return absl::OkStatus();
}

// XLA's sharding annotation: a custom call the partitioner consumes.
absl::Status LowerSharding(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(const std::string* sharding,
                        node.GetAttr<std::string>("sharding"));
  e.EmitNodeOp(node, "stablehlo.custom_call",
               absl::StrCat("{call_target_name = \"Sharding\", "
                            "mhlo.sharding = \"", *sharding, "\"}"));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterControlLowerings(LowerRuleTable* table) {
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kWhile, &LowerWhile));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kOptimizationBarrier,
                                       &LowerOptimizationBarrier));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kSharding, &LowerSharding));
  return absl::OkStatus();
}

}  // namespace torch_xla
