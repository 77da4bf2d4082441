// Shape rules: sort. Operands are sorted together along "dimension"; the
// first "num_keys" (default 1) are the keys, compared lexicographically, the
// rest are carried along (an iota operand gives the indices). The comparator
// is generated at lowering time from "descending" (default false) and the key
// element types; floats use PyTorch's order (NaN after everything, -0.0 equal
// to 0.0). "stable" (default true) keeps equal keys in input order.
// Results: one per operand, of its shape. O(n) memory, O(n log n) work.

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/shape_inference.h"
#include "torch_xla/csrc/ir/status_macros.h"

namespace torch_xla {
namespace {

using Shapes = std::vector<Shape>;

absl::StatusOr<Shapes> SortShape(const ShapeRuleArgs& args) {
  TXLA_ASSIGN_OR_RETURN(const int64_t* dimension,
                        args.Get<int64_t>("dimension"));
  TXLA_ASSIGN_OR_RETURN(int64_t num_keys, args.GetOr<int64_t>("num_keys", 1));
  TXLA_ASSIGN_OR_RETURN(bool descending, args.GetOr("descending", false));
  TXLA_ASSIGN_OR_RETURN(bool stable, args.GetOr("stable", true));
  (void)descending;
  (void)stable;
  const size_t n = args.num_operands();
  if (n == 0) return args.Error("expected at least one operand, got none");
  const Shape& first = args.shape(0);
  if (first.rank() == 0) {
    return args.Error(absl::StrCat("operands must have rank >= 1, got ",
                                   args.OperandShapes(),
                                   " (reshape a scalar to [1])"));
  }
  for (size_t i = 1; i < n; ++i) {
    if (args.shape(i).dims != first.dims) {
      return args.Error(absl::StrCat(
          "all operands must have the dimensions of the first, got ",
          args.OperandShapes()));
    }
  }
  if (*dimension < 0 || *dimension >= first.rank()) {
    return args.Error(absl::StrCat("dimension ", *dimension,
                                   " is out of range for operands ",
                                   args.OperandShapes(), " of rank ",
                                   first.rank()));
  }
  if (num_keys < 1 || num_keys > static_cast<int64_t>(n)) {
    return args.Error(absl::StrCat("num_keys ", num_keys, " must be in [1, ",
                                   n, "] for operands ",
                                   args.OperandShapes()));
  }
  Shapes result;
  result.reserve(n);
  for (size_t i = 0; i < n; ++i) result.push_back(args.shape(i));
  return result;
}

}  // namespace

absl::Status RegisterSortShapeRules(ShapeRuleTable* table) {
  return table->Register(OpKind::kSort, &SortShape);
}

}  // namespace torch_xla
