// Lowerings: dot_general. Empty dimension lists are omitted from
// #stablehlo.dot<...>, as StableHLO's own printer does.

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/lowering/emitter.h"
#include "torch_xla/csrc/lowering/lower_rules.h"
#include "torch_xla/csrc/lowering/mlir_text.h"

namespace torch_xla {
namespace {

absl::Status LowerDotGeneral(const Node& node, MlirEmitter& e) {
  std::vector<std::string> fields;
  auto add = [&](absl::string_view attr, absl::string_view field) {
    const auto* dims = node.attrs().FindAs<std::vector<int64_t>>(attr);
    if (dims != nullptr && !dims->empty()) {
      fields.push_back(absl::StrCat(field, " = ", I64List(*dims)));
    }
  };
  add("lhs_batch", "lhs_batching_dimensions");
  add("rhs_batch", "rhs_batching_dimensions");
  add("lhs_contract", "lhs_contracting_dimensions");
  add("rhs_contract", "rhs_contracting_dimensions");
  std::string attrs = absl::StrCat("{dot_dimension_numbers = #stablehlo.dot<",
                                   absl::StrJoin(fields, ", "), ">");
  if (const auto* precision = node.attrs().FindAs<std::string>("precision")) {
    absl::StrAppend(&attrs, ", precision_config = [#stablehlo<precision ",
                    *precision, ">, #stablehlo<precision ", *precision, ">]");
  }
  attrs += "}";
  e.EmitNodeOp(node, "stablehlo.dot_general", attrs);
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterDotLowerings(LowerRuleTable* table) {
  return table->Register(OpKind::kDotGeneral, &LowerDotGeneral);
}

}  // namespace torch_xla
