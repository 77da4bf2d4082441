// Shape rules: reduce (sum, prod, max, min, and, or over chosen dims). The
// init value follows from the kind, so the op has a single operand.

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/shape_inference.h"
#include "torch_xla/csrc/ir/status_macros.h"

namespace torch_xla {
namespace {

using Shapes = std::vector<Shape>;
using Dims = std::vector<int64_t>;

absl::StatusOr<Shapes> ReduceShape(const ShapeRuleArgs& args) {
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(1));
  TXLA_ASSIGN_OR_RETURN(const Dims* dims, args.Get<Dims>("dims"));
  TXLA_ASSIGN_OR_RETURN(const std::string* kind, args.Get<std::string>("kind"));
  const Shape& x = args.shape(0);
  TXLA_RETURN_IF_ERROR(
      CheckDimIndices(args, "dims", *dims, x.rank(), "operand", &x));
  const bool is_pred = x.dtype == DType::kBool;
  bool ok;
  if (*kind == "sum" || *kind == "prod") {
    ok = !is_pred;
  } else if (*kind == "max" || *kind == "min") {
    ok = true;
  } else if (*kind == "and" || *kind == "or") {
    ok = is_pred || IsInteger(x.dtype);
  } else {
    return args.Error(absl::StrCat(
        "kind '", *kind, "' is not one of sum, prod, max, min, and, or"));
  }
  if (!ok) {
    return args.Error(absl::StrCat("kind '", *kind, "' does not apply to ",
                                   x.ToString()));
  }
  Shape result(x.dtype, {});
  for (int64_t d = 0; d < x.rank(); ++d) {
    bool reduced = false;
    for (int64_t r : *dims) reduced |= r == d;
    if (!reduced) result.dims.push_back(x.dims[d]);
  }
  return SingleShape(std::move(result));
}

}  // namespace

absl::Status RegisterReduceShapeRules(ShapeRuleTable* table) {
  return table->Register(OpKind::kReduce, &ReduceShape);
}

}  // namespace torch_xla
