// Lowering: call. The staged function's sub-graph is emitted inline, its
// parameters bound to the call's operands (in a scope of its own, so its
// nodes are lowered once per call). XLA then optimizes across the call as
// if the ops had been traced in place.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/subgraph.h"
#include "torch_xla/csrc/lowering/emitter.h"
#include "torch_xla/csrc/lowering/lower_rules.h"

namespace torch_xla {
namespace {

absl::Status LowerCall(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(const SubGraphPtr* fn, node.GetAttr<SubGraphPtr>("fn"));
  const SubGraph& g = **fn;  // non-null: the shape rule checks it
  std::vector<std::string> args = e.OperandRefs(node);
  e.PushScope();
  for (size_t i = 0; i < args.size(); ++i) {
    e.Bind(g.parameters()[i].get(), args[i]);
  }
  absl::Status status = e.LowerNodes(g.post_order().nodes);
  std::vector<std::string> results;
  if (status.ok()) {
    for (const Value& r : g.results()) results.push_back(e.Ref(r));
  }
  e.PopScope();
  TXLA_RETURN_IF_ERROR(status);
  if (results.size() == 1) {
    e.Bind(&node, std::move(results[0]));
  } else {
    e.BindOutputs(&node, std::move(results));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterCallLowerings(LowerRuleTable* table) {
  return table->Register(OpKind::kCall, &LowerCall);
}

}  // namespace torch_xla
