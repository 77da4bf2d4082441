// Shape rules: dot_general. Result dims: batch dims, then lhs free dims, then
// rhs free dims; element type: the optional preferred "dtype", else lhs's.

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/shape_inference.h"
#include "torch_xla/csrc/ir/status_macros.h"

namespace torch_xla {
namespace {

using Shapes = std::vector<Shape>;
using Dims = std::vector<int64_t>;

absl::Status CheckPairedSizes(const ShapeRuleArgs& args, absl::string_view what,
                              const Dims& lhs_dims, const Dims& rhs_dims) {
  const Shape& lhs = args.shape(0);
  const Shape& rhs = args.shape(1);
  if (lhs_dims.size() != rhs_dims.size()) {
    return args.Error(absl::StrCat(
        what, " dimension counts differ: lhs ", DimsToString(lhs_dims),
        ", rhs ", DimsToString(rhs_dims)));
  }
  for (size_t i = 0; i < lhs_dims.size(); ++i) {
    int64_t l = lhs.dims[lhs_dims[i]], r = rhs.dims[rhs_dims[i]];
    if (l != r) {
      return args.Error(absl::StrCat(
          what, " dimension sizes differ: lhs ", lhs.ToString(), " dim ",
          lhs_dims[i], " has ", l, ", rhs ", rhs.ToString(), " dim ",
          rhs_dims[i], " has ", r));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Shapes> DotGeneralShape(const ShapeRuleArgs& args) {
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(2));
  static const Dims kEmpty;
  TXLA_ASSIGN_OR_RETURN(const Dims* lb, args.GetOptional<Dims>("lhs_batch"));
  TXLA_ASSIGN_OR_RETURN(const Dims* rb, args.GetOptional<Dims>("rhs_batch"));
  TXLA_ASSIGN_OR_RETURN(const Dims* lc,
                        args.GetOptional<Dims>("lhs_contract"));
  TXLA_ASSIGN_OR_RETURN(const Dims* rc,
                        args.GetOptional<Dims>("rhs_contract"));
  TXLA_ASSIGN_OR_RETURN(const DType* preferred,
                        args.GetOptional<DType>("dtype"));
  TXLA_ASSIGN_OR_RETURN(const std::string* precision,
                        args.GetOptional<std::string>("precision"));
  const Dims& lhs_batch = lb ? *lb : kEmpty;
  const Dims& rhs_batch = rb ? *rb : kEmpty;
  const Dims& lhs_contract = lc ? *lc : kEmpty;
  const Dims& rhs_contract = rc ? *rc : kEmpty;
  const Shape& lhs = args.shape(0);
  const Shape& rhs = args.shape(1);

  if (lhs.dtype != rhs.dtype || lhs.dtype == DType::kBool) {
    return args.Error(absl::StrCat(
        "operands must have one numeric element type: lhs ", lhs.ToString(),
        ", rhs ", rhs.ToString(), " (convert first)"));
  }
  if (precision != nullptr && *precision != "DEFAULT" &&
      *precision != "HIGH" && *precision != "HIGHEST") {
    return args.Error(absl::StrCat("precision '", *precision,
                                   "' is not one of DEFAULT, HIGH, HIGHEST"));
  }
  // No heap allocation for the usual handful of dims.
  absl::InlinedVector<int64_t, 8> lhs_all(lhs_batch.begin(), lhs_batch.end());
  absl::InlinedVector<int64_t, 8> rhs_all(rhs_batch.begin(), rhs_batch.end());
  lhs_all.insert(lhs_all.end(), lhs_contract.begin(), lhs_contract.end());
  rhs_all.insert(rhs_all.end(), rhs_contract.begin(), rhs_contract.end());
  TXLA_RETURN_IF_ERROR(CheckDimIndices(args, "lhs batch+contracting dims",
                                       lhs_all, lhs.rank(),
                                       "lhs", &lhs));
  TXLA_RETURN_IF_ERROR(CheckDimIndices(args, "rhs batch+contracting dims",
                                       rhs_all, rhs.rank(),
                                       "rhs", &rhs));
  TXLA_RETURN_IF_ERROR(CheckPairedSizes(args, "batch", lhs_batch, rhs_batch));
  TXLA_RETURN_IF_ERROR(
      CheckPairedSizes(args, "contracting", lhs_contract, rhs_contract));

  TXLA_ASSIGN_OR_RETURN(DType dtype,
                        ContractionDType(args, lhs.dtype, preferred));
  Shape result(dtype, {});
  result.dims.reserve(lhs.dims.size() + rhs.dims.size() - lhs_all.size() -
                      rhs_batch.size() - rhs_contract.size() +
                      lhs_batch.size());
  for (int64_t d : lhs_batch) result.dims.push_back(lhs.dims[d]);
  auto append_free = [&](const Shape& s, absl::Span<const int64_t> used) {
    for (int64_t d = 0; d < s.rank(); ++d) {
      bool is_used = false;
      for (int64_t u : used) is_used |= u == d;
      if (!is_used) result.dims.push_back(s.dims[d]);
    }
  };
  append_free(lhs, lhs_all);
  append_free(rhs, rhs_all);
  return SingleShape(std::move(result));
}

}  // namespace

absl::Status RegisterDotShapeRules(ShapeRuleTable* table) {
  return table->Register(OpKind::kDotGeneral, &DotGeneralShape);
}

}  // namespace torch_xla
