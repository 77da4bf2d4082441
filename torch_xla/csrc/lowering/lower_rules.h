#ifndef TORCH_XLA_CSRC_LOWERING_LOWER_RULES_H_
#define TORCH_XLA_CSRC_LOWERING_LOWER_RULES_H_

// The lowering half of the op rule table: {kind -> lower_fn}. A lower
// function writes the StableHLO text of one node through the MlirEmitter and
// binds the node's results to SSA names. Node shapes and attributes were
// checked when the node was built (ir/shape_inference.h), so lower functions
// only spell; they read attributes through Node::GetAttr & co. (ir/node.h),
// which turn a read the shape rule does not back into an InternalError.
// Tables are filled by explicit RegisterXxxLowerings calls.

#include "absl/status/status.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/op_kind.h"
#include "torch_xla/csrc/ir/rule_table.h"

namespace torch_xla {

class MlirEmitter;

using LowerFn = absl::Status (*)(const Node& node, MlirEmitter& emitter);

// {kind -> lower_fn}.
class LowerRuleTable : public RuleTable<LowerFn> {
 public:
  LowerRuleTable() : RuleTable("lower rule") {}
};

// Every Register*Lowerings below, built once.
const LowerRuleTable& DefaultLowerRules();

absl::Status RegisterLeafLowerings(LowerRuleTable* table);
absl::Status RegisterElementwiseLowerings(LowerRuleTable* table);
absl::Status RegisterDataMovementLowerings(LowerRuleTable* table);
absl::Status RegisterReduceLowerings(LowerRuleTable* table);
absl::Status RegisterDotLowerings(LowerRuleTable* table);
absl::Status RegisterGatherScatterLowerings(LowerRuleTable* table);
absl::Status RegisterControlLowerings(LowerRuleTable* table);
absl::Status RegisterRandomLowerings(LowerRuleTable* table);
absl::Status RegisterSortLowerings(LowerRuleTable* table);
absl::Status RegisterConvolutionLowerings(LowerRuleTable* table);
absl::Status RegisterWindowLowerings(LowerRuleTable* table);
absl::Status RegisterCallLowerings(LowerRuleTable* table);
absl::Status RegisterCollectiveLowerings(LowerRuleTable* table);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_LOWERING_LOWER_RULES_H_
