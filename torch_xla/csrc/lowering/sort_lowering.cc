// Lowerings: sort. The comparator region is generated from "descending",
// "num_keys" and the keys' element types (see ir/sort_shape_rules.cc): keys
// compare lexicographically, floats in PyTorch's order (NaN largest, -0.0
// equal to 0.0), so that stable sorting matches eager's stable sort.

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/lowering/emitter.h"
#include "torch_xla/csrc/lowering/lower_rules.h"
#include "torch_xla/csrc/lowering/scalar_ops.h"

namespace torch_xla {
namespace {

absl::Status EmitComparator(const Node& node, MlirEmitter& r) {
  TXLA_ASSIGN_OR_RETURN(int64_t num_keys,
                        node.GetAttrOr<int64_t>("num_keys", 1));
  TXLA_ASSIGN_OR_RETURN(bool descending, node.GetAttrOr("descending", false));
  // Block arguments: (lhs, rhs) scalars of each operand in turn.
  std::vector<std::string> types;
  for (const Value& v : node.operands()) {
    const std::string t = ScalarOps::Type(v.shape().dtype);
    types.push_back(t);
    types.push_back(t);
  }
  std::vector<std::string> args = r.EmitBlockHeader(types);
  r.Indent(2);
  ScalarOps s(r);
  // before = before_0 | (same_0 & (before_1 | (same_1 & ...))), built from
  // the last key outwards.
  std::string before;
  for (int64_t k = num_keys - 1; k >= 0; --k) {
    const DType dtype = node.operand(k).shape().dtype;
    const std::string& a = args[2 * k];
    const std::string& b = args[2 * k + 1];
    std::string here = s.Before(a, b, descending, dtype);
    if (!before.empty()) here = s.Or(here, s.And(s.Same(a, b, dtype), before));
    before = here;
  }
  r.EmitReturn({before}, {ScalarOps::Type(DType::kBool)});
  r.Indent(-2);
  return absl::OkStatus();
}

absl::Status LowerSort(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(const int64_t* dimension,
                        node.GetAttr<int64_t>("dimension"));
  TXLA_ASSIGN_OR_RETURN(bool stable, node.GetAttrOr("stable", true));
  MlirEmitter::RegionFn comparator = [&node](MlirEmitter& r) {
    return EmitComparator(node, r);
  };
  TXLA_ASSIGN_OR_RETURN(
      std::string name,
      e.EmitOp("stablehlo.sort", e.OperandRefs(node),
               MlirEmitter::OperandTypes(node),
               absl::StrCat("{dimension = ", *dimension,
                            " : i64, is_stable = ", stable ? "true" : "false",
                            "}"),
               MlirEmitter::ResultTypes(node), {comparator}));
  e.Bind(&node, std::move(name));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterSortLowerings(LowerRuleTable* table) {
  return table->Register(OpKind::kSort, &LowerSort);
}

}  // namespace torch_xla
