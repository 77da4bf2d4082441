// Lowerings: dot_general. Empty dimension lists are omitted from
// #stablehlo.dot<...>, as StableHLO's own printer does.
//
// An operand that is a transpose is read through: the dot takes the
// transpose's input with its dimension numbers mapped back, as a dot
// written with those dimensions would be. PyTorch spells every linear layer
// x @ W.t() (and its gradients g.t() @ x); as a separate op, the transpose
// of a loop-invariant weight can end up computed outside a loop body,
// materialized on every step, where XLA no longer folds it into the dot.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/lowering/emitter.h"
#include "torch_xla/csrc/lowering/lower_rules.h"
#include "torch_xla/csrc/lowering/mlir_text.h"

namespace torch_xla {
namespace {

using Dims = std::vector<int64_t>;

// A dims attribute, empty when absent.
absl::StatusOr<Dims> DimsOr(const Node& node, absl::string_view attr) {
  return node.GetAttrOr<Dims>(attr, Dims());
}

// One side of the dot: the value it reads and its batch / contracting dims.
struct DotOperand {
  Value value;
  Dims batch;
  Dims contract;
};

// Reads through a transpose when that keeps the dot's result layout: the
// result lists the free (neither batch nor contracting) dims in increasing
// order, so the permutation must keep them in order.
absl::StatusOr<DotOperand> ReadThroughTranspose(DotOperand operand) {
  const Node& producer = *operand.value.node;
  if (producer.kind() != OpKind::kTranspose) return operand;
  TXLA_ASSIGN_OR_RETURN(const Dims* permutation_attr,
                        producer.GetAttr<Dims>("permutation"));
  const Dims& permutation = *permutation_attr;
  const int64_t rank = static_cast<int64_t>(permutation.size());
  std::vector<bool> bound(rank, false);
  for (int64_t d : operand.batch) bound[d] = true;
  for (int64_t d : operand.contract) bound[d] = true;
  int64_t last_free = -1;
  for (int64_t d = 0; d < rank; ++d) {
    if (bound[d]) continue;
    if (permutation[d] < last_free) return operand;
    last_free = permutation[d];
  }
  DotOperand folded{producer.operand(0), {}, {}};
  for (int64_t d : operand.batch) folded.batch.push_back(permutation[d]);
  for (int64_t d : operand.contract) folded.contract.push_back(permutation[d]);
  return folded;
}

// One side of `node` ("lhs" or "rhs", operand `i`), read through a
// transpose.
absl::StatusOr<DotOperand> Side(const Node& node, int i,
                                absl::string_view side) {
  DotOperand operand{node.operand(i), {}, {}};
  TXLA_ASSIGN_OR_RETURN(operand.batch,
                        DimsOr(node, absl::StrCat(side, "_batch")));
  TXLA_ASSIGN_OR_RETURN(operand.contract,
                        DimsOr(node, absl::StrCat(side, "_contract")));
  return ReadThroughTranspose(std::move(operand));
}

absl::Status LowerDotGeneral(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(const DotOperand lhs, Side(node, 0, "lhs"));
  TXLA_ASSIGN_OR_RETURN(const DotOperand rhs, Side(node, 1, "rhs"));
  std::vector<std::string> fields;
  auto add = [&](absl::string_view field, const Dims& dims) {
    if (!dims.empty()) {
      fields.push_back(absl::StrCat(field, " = ", I64List(dims)));
    }
  };
  add("lhs_batching_dimensions", lhs.batch);
  add("rhs_batching_dimensions", rhs.batch);
  add("lhs_contracting_dimensions", lhs.contract);
  add("rhs_contracting_dimensions", rhs.contract);
  std::string attrs = absl::StrCat("{dot_dimension_numbers = #stablehlo.dot<",
                                   absl::StrJoin(fields, ", "), ">");
  TXLA_ASSIGN_OR_RETURN(const std::string* precision,
                        node.GetOptionalAttr<std::string>("precision"));
  if (precision != nullptr) {
    absl::StrAppend(&attrs, ", precision_config = [#stablehlo<precision ",
                    *precision, ">, #stablehlo<precision ", *precision, ">]");
  }
  attrs += "}";
  TXLA_ASSIGN_OR_RETURN(
      std::string name,
      e.EmitOp("stablehlo.dot_general", {e.Ref(lhs.value), e.Ref(rhs.value)},
               {lhs.value.shape().ToMlirType(), rhs.value.shape().ToMlirType()},
               attrs, MlirEmitter::ResultTypes(node)));
  e.Bind(&node, std::move(name));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterDotLowerings(LowerRuleTable* table) {
  return table->Register(OpKind::kDotGeneral, &LowerDotGeneral);
}

}  // namespace torch_xla
