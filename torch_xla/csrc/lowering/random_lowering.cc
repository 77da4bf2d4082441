// Lowerings: rng_bit_generator.

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/lowering/emitter.h"
#include "torch_xla/csrc/lowering/lower_rules.h"

namespace torch_xla {
namespace {

absl::Status LowerRngBitGenerator(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(
      std::string algorithm,
      node.GetAttrOr<std::string>("algorithm", "DEFAULT"));
  e.EmitNodeOp(node, "stablehlo.rng_bit_generator",
               absl::StrCat("{rng_algorithm = #stablehlo<rng_algorithm ",
                            algorithm, ">}"));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterRandomLowerings(LowerRuleTable* table) {
  return table->Register(OpKind::kRngBitGenerator, &LowerRngBitGenerator);
}

}  // namespace torch_xla
