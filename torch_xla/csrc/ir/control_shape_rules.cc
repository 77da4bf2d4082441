// Shape rules: while (carried values; cond and body sub-graphs) and
// optimization_barrier (multi-result pass-through), and sharding (an SPMD
// annotation).

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/shape_inference.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/subgraph.h"

namespace torch_xla {
namespace {

using Shapes = std::vector<Shape>;

std::string ShapeList(const Shapes& shapes) {
  std::string out = "(";
  for (size_t i = 0; i < shapes.size(); ++i) {
    absl::StrAppend(&out, i == 0 ? "" : ", ", shapes[i].ToString());
  }
  return out + ")";
}

absl::Status CheckParameters(const ShapeRuleArgs& args, absl::string_view what,
                             const SubGraph& g, const Shapes& carried) {
  bool ok = g.parameters().size() == carried.size();
  for (size_t i = 0; ok && i < carried.size(); ++i) {
    ok = g.parameter_shape(i) == carried[i];
  }
  if (ok) return absl::OkStatus();
  return args.Error(absl::StrCat(what, " takes ", g.SignatureString(),
                                 "; its parameters must match the carried "
                                 "values ",
                                 ShapeList(carried)));
}

absl::StatusOr<Shapes> WhileShape(const ShapeRuleArgs& args) {
  TXLA_ASSIGN_OR_RETURN(const SubGraphPtr* cond, args.Get<SubGraphPtr>("cond"));
  TXLA_ASSIGN_OR_RETURN(const SubGraphPtr* body, args.Get<SubGraphPtr>("body"));
  if (*cond == nullptr || *body == nullptr) {
    return args.Error("cond and body sub-graphs must not be null");
  }
  Shapes carried;
  carried.reserve(args.num_operands());
  for (size_t i = 0; i < args.num_operands(); ++i) {
    carried.push_back(args.shape(i));
  }
  TXLA_RETURN_IF_ERROR(CheckParameters(args, "cond", **cond, carried));
  TXLA_RETURN_IF_ERROR(CheckParameters(args, "body", **body, carried));
  const auto& cond_results = (*cond)->results();
  if (cond_results.size() != 1 ||
      cond_results[0].shape() != Shape(DType::kBool, {})) {
    return args.Error(absl::StrCat("cond is ", (*cond)->SignatureString(),
                                   "; it must return a single pred[]"));
  }
  const auto& body_results = (*body)->results();
  bool ok = body_results.size() == carried.size();
  for (size_t i = 0; ok && i < carried.size(); ++i) {
    ok = body_results[i].shape() == carried[i];
  }
  if (!ok) {
    return args.Error(absl::StrCat("body is ", (*body)->SignatureString(),
                                   "; its results must match the carried "
                                   "values ",
                                   ShapeList(carried)));
  }
  return carried;
}

absl::StatusOr<Shapes> OptimizationBarrierShape(const ShapeRuleArgs& args) {
  if (args.num_operands() == 0) {
    return args.Error("expected at least 1 operand, got 0");
  }
  Shapes shapes;
  shapes.reserve(args.num_operands());
  for (size_t i = 0; i < args.num_operands(); ++i) {
    shapes.push_back(args.shape(i));
  }
  return shapes;
}

// An annotation: the value unchanged, with the HLO sharding text that the
// SPMD partitioner must give it.
absl::StatusOr<Shapes> ShardingShape(const ShapeRuleArgs& args) {
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(1));
  TXLA_ASSIGN_OR_RETURN(const std::string* sharding,
                        args.Get<std::string>("sharding"));
  if (sharding->empty() || sharding->front() != '{') {
    return args.Error("needs a string attribute \"sharding\" in HLO sharding "
                      "text, e.g. \"{devices=[2,1]0,1}\"");
  }
  return Shapes{args.shape(0)};
}

}  // namespace

absl::Status RegisterControlShapeRules(ShapeRuleTable* table) {
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kWhile, &WhileShape));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kOptimizationBarrier,
                                       &OptimizationBarrierShape));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kSharding, &ShardingShape));
  return absl::OkStatus();
}

}  // namespace torch_xla
