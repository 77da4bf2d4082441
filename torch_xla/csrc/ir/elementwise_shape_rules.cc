// Shape rules: elementwise ops (table rows), compare, select, clamp, convert,
// bitcast_convert. Elementwise ops need equal operand shapes: there is no
// implicit broadcasting (the front end inserts broadcast_in_dim).

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/elementwise_ops.h"
#include "torch_xla/csrc/ir/shape_inference.h"
#include "torch_xla/csrc/ir/status_macros.h"

namespace torch_xla {
namespace {

using Shapes = std::vector<Shape>;

absl::Status CheckClass(const ShapeRuleArgs& args, size_t i, DTypeClass cls) {
  if (DTypeInClass(args.shape(i).dtype, cls)) return absl::OkStatus();
  return args.Error(absl::StrCat("operand ", i, " is ",
                                 args.shape(i).ToString(), "; expected ",
                                 DTypeClassName(cls), " elements"));
}

absl::StatusOr<Shapes> ElementwiseShape(const ShapeRuleArgs& args) {
  const ElementwiseOp& row = *FindElementwiseOp(args.kind());
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(row.arity));
  for (int i = 0; i < row.arity; ++i) {
    TXLA_RETURN_IF_ERROR(CheckClass(args, i, row.operands));
  }
  if (row.arity == 2 && args.shape(0) != args.shape(1)) {
    return args.Error(absl::StrCat(
        "operand shapes differ: lhs ", args.shape(0).ToString(), ", rhs ",
        args.shape(1).ToString(),
        "; elementwise ops need equal shapes and element types (insert "
        "broadcast_in_dim / convert first)"));
  }
  Shape result = args.shape(0);
  if (row.pred_result) result.dtype = DType::kBool;
  return SingleShape(std::move(result));
}

absl::StatusOr<Shapes> CompareShape(const ShapeRuleArgs& args) {
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(2));
  TXLA_ASSIGN_OR_RETURN(const std::string* direction,
                        args.Get<std::string>("direction"));
  if (*direction != "EQ" && *direction != "NE" && *direction != "LT" &&
      *direction != "LE" && *direction != "GT" && *direction != "GE") {
    return args.Error(absl::StrCat("direction '", *direction,
                                   "' is not one of EQ, NE, LT, LE, GT, GE"));
  }
  TXLA_ASSIGN_OR_RETURN(bool total_order, args.GetOr("total_order", false));
  if (args.shape(0) != args.shape(1)) {
    return args.Error(absl::StrCat("operand shapes differ: lhs ",
                                   args.shape(0).ToString(), ", rhs ",
                                   args.shape(1).ToString()));
  }
  if (total_order && !IsFloating(args.shape(0).dtype)) {
    return args.Error(absl::StrCat("total_order needs floating point operands, got ",
                                   args.shape(0).ToString()));
  }
  return SingleShape(Shape(DType::kBool, args.shape(0).dims));
}

absl::StatusOr<Shapes> SelectShape(const ShapeRuleArgs& args) {
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(3));
  const Shape& pred = args.shape(0);
  const Shape& on_true = args.shape(1);
  const Shape& on_false = args.shape(2);
  if (pred.dtype != DType::kBool) {
    return args.Error(absl::StrCat("predicate is ", pred.ToString(),
                                   "; expected pred elements"));
  }
  if (on_true != on_false) {
    return args.Error(absl::StrCat("on_true ", on_true.ToString(),
                                   " and on_false ", on_false.ToString(),
                                   " differ"));
  }
  if (pred.rank() != 0 && pred.dims != on_true.dims) {
    return args.Error(absl::StrCat("predicate ", pred.ToString(),
                                   " must be pred[] or have the dims of ",
                                   on_true.ToString()));
  }
  return SingleShape(on_true);
}

// clamp(min, operand, max).
absl::StatusOr<Shapes> ClampShape(const ShapeRuleArgs& args) {
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(3));
  const Shape& operand = args.shape(1);
  for (size_t i : {size_t{0}, size_t{2}}) {
    const Shape& bound = args.shape(i);
    if (bound.dtype != operand.dtype ||
        (bound.rank() != 0 && bound.dims != operand.dims)) {
      return args.Error(absl::StrCat(
          i == 0 ? "min " : "max ", bound.ToString(), " must be ",
          DTypeName(operand.dtype), "[] or ", operand.ToString(),
          " (the operand's shape)"));
    }
  }
  return SingleShape(operand);
}

absl::StatusOr<Shapes> ConvertShape(const ShapeRuleArgs& args) {
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(1));
  TXLA_ASSIGN_OR_RETURN(const DType* dtype, args.Get<DType>("dtype"));
  return SingleShape(Shape(*dtype, args.shape(0).dims));
}

absl::StatusOr<Shapes> BitcastConvertShape(const ShapeRuleArgs& args) {
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(1));
  TXLA_ASSIGN_OR_RETURN(const DType* dtype, args.Get<DType>("dtype"));
  const Shape& x = args.shape(0);
  if (x.dtype == DType::kBool || *dtype == DType::kBool ||
      DTypeByteSize(x.dtype) != DTypeByteSize(*dtype)) {
    return args.Error(absl::StrCat(
        "cannot reinterpret ", x.ToString(), " as ", DTypeName(*dtype),
        ": element types must have the same bit width (and not be pred)"));
  }
  return SingleShape(Shape(*dtype, x.dims));
}

}  // namespace

absl::Status RegisterElementwiseShapeRules(ShapeRuleTable* table) {
  for (const ElementwiseOp& row : ElementwiseOps()) {
    TXLA_RETURN_IF_ERROR(table->Register(row.kind, &ElementwiseShape));
  }
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kCompare, &CompareShape));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kSelect, &SelectShape));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kClamp, &ClampShape));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kConvert, &ConvertShape));
  TXLA_RETURN_IF_ERROR(
      table->Register(OpKind::kBitcastConvert, &BitcastConvertShape));
  return absl::OkStatus();
}

}  // namespace torch_xla
