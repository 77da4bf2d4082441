// Shape rule: call (a staged function applied to operands; attr "fn", a
// closed sub-graph whose parameters match the operands). The results are
// the sub-graph's results.

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/shape_inference.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/subgraph.h"

namespace torch_xla {
namespace {

absl::StatusOr<std::vector<Shape>> CallShape(const ShapeRuleArgs& args) {
  TXLA_ASSIGN_OR_RETURN(const SubGraphPtr* fn, args.Get<SubGraphPtr>("fn"));
  if (*fn == nullptr) return args.Error("fn sub-graph must not be null");
  const SubGraph& g = **fn;
  bool ok = g.parameters().size() == args.num_operands();
  for (size_t i = 0; ok && i < args.num_operands(); ++i) {
    ok = g.parameter_shape(i) == args.shape(i);
  }
  if (!ok) {
    return args.Error(absl::StrCat("fn takes ", g.SignatureString(),
                                   "; the operands must match its "
                                   "parameters"));
  }
  std::vector<Shape> shapes;
  shapes.reserve(g.results().size());
  for (const Value& r : g.results()) shapes.push_back(r.shape());
  if (shapes.empty()) return args.Error("fn must have at least one result");
  return shapes;
}

}  // namespace

absl::Status RegisterCallShapeRules(ShapeRuleTable* table) {
  return table->Register(OpKind::kCall, &CallShape);
}

}  // namespace torch_xla
