// Lowerings: reduce. The init value and the scalar body follow from "kind".

#include <limits>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/lowering/emitter.h"
#include "torch_xla/csrc/lowering/lower_rules.h"
#include "torch_xla/csrc/lowering/mlir_text.h"

namespace torch_xla {
namespace {

int64_t MaxInt(DType dtype) {
  switch (dtype) {
    case DType::kI8: return std::numeric_limits<int8_t>::max();
    case DType::kI16: return std::numeric_limits<int16_t>::max();
    case DType::kI32: return std::numeric_limits<int32_t>::max();
    case DType::kU8: return std::numeric_limits<uint8_t>::max();
    case DType::kU32: return std::numeric_limits<uint32_t>::max();
    case DType::kU64: return -1;  // all ones: the u64 maximum
    default: return std::numeric_limits<int64_t>::max();
  }
}

int64_t MinInt(DType dtype) {
  switch (dtype) {
    case DType::kI8: return std::numeric_limits<int8_t>::min();
    case DType::kI16: return std::numeric_limits<int16_t>::min();
    case DType::kI32: return std::numeric_limits<int32_t>::min();
    case DType::kI64: return std::numeric_limits<int64_t>::min();
    default: return 0;  // unsigned
  }
}

// The identity of the reduction, as a constant "value" attribute.
AttrValue InitValue(absl::string_view kind, DType dtype) {
  const double inf = std::numeric_limits<double>::infinity();
  if (dtype == DType::kBool) {
    return AttrValue(kind == "and" || kind == "min");
  }
  if (IsFloating(dtype)) {
    if (kind == "max") return AttrValue(-inf);
    if (kind == "min") return AttrValue(inf);
    return AttrValue(kind == "prod" ? 1.0 : 0.0);
  }
  if (kind == "max") return AttrValue(MinInt(dtype));
  if (kind == "min") return AttrValue(MaxInt(dtype));
  if (kind == "and") {  // all ones
    return AttrValue(IsSignedInteger(dtype) ? int64_t{-1} : MaxInt(dtype));
  }
  return AttrValue(int64_t{kind == "prod" ? 1 : 0});
}

absl::string_view CombineOp(absl::string_view kind) {
  if (kind == "sum") return "stablehlo.add";
  if (kind == "prod") return "stablehlo.multiply";
  if (kind == "max") return "stablehlo.maximum";
  if (kind == "min") return "stablehlo.minimum";
  if (kind == "and") return "stablehlo.and";
  return "stablehlo.or";
}

absl::Status LowerReduce(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(const std::string* kind,
                        node.GetAttr<std::string>("kind"));
  TXLA_ASSIGN_OR_RETURN(const std::vector<int64_t>* dims,
                        node.GetAttr<std::vector<int64_t>>("dims"));
  const DType dtype = node.shape().dtype;
  const Shape scalar(dtype, {});
  TXLA_ASSIGN_OR_RETURN(std::string init,
                        e.EmitSplatConstant(InitValue(*kind, dtype), scalar));
  const absl::string_view op = CombineOp(*kind);
  MlirEmitter::RegionFn body = [op, dtype](MlirEmitter& r) {
    r.EmitScalarBinaryRegion(op, dtype);
    return absl::OkStatus();
  };
  TXLA_ASSIGN_OR_RETURN(
      std::string name,
      e.EmitOp("stablehlo.reduce", {e.Ref(node.operand(0)), init},
               {node.operand(0).shape().ToMlirType(), scalar.ToMlirType()},
               absl::StrCat("{dimensions = ", I64Array(*dims), "}"),
               MlirEmitter::ResultTypes(node), {body}));
  e.Bind(&node, std::move(name));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterReduceLowerings(LowerRuleTable* table) {
  return table->Register(OpKind::kReduce, &LowerReduce);
}

}  // namespace torch_xla
