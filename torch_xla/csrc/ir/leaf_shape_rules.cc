// Shape rules: leaves (constant, iota, parameter; device_data is built by
// MakeDataNode and has no rule-driven construction).

#include <limits>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/shape_inference.h"
#include "torch_xla/csrc/ir/status_macros.h"

namespace torch_xla {
namespace {

using Shapes = std::vector<Shape>;

// The "dtype" and "dims" attributes of a leaf.
absl::StatusOr<Shape> LeafShape(const ShapeRuleArgs& args) {
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(0));
  TXLA_ASSIGN_OR_RETURN(const DType* dtype, args.Get<DType>("dtype"));
  TXLA_ASSIGN_OR_RETURN(const std::vector<int64_t>* dims,
                        args.Get<std::vector<int64_t>>("dims"));
  TXLA_RETURN_IF_ERROR(CheckDimSizes(args, "dims", *dims));
  return Shape(*dtype, *dims);
}

bool IntFits(int64_t v, DType dtype) {
  switch (dtype) {
    case DType::kI8:
      return v >= -128 && v <= 127;
    case DType::kI16:
      return v >= -32768 && v <= 32767;
    case DType::kI32:
      return v >= std::numeric_limits<int32_t>::min() &&
             v <= std::numeric_limits<int32_t>::max();
    case DType::kU8:
      return v >= 0 && v <= 255;
    case DType::kU32:
      return v >= 0 && v <= std::numeric_limits<uint32_t>::max();
    case DType::kBool:
      return v == 0 || v == 1;
    default:  // s64; u64 values are the int64's bit pattern
      return true;
  }
}

absl::StatusOr<Shapes> ConstantShape(const ShapeRuleArgs& args) {
  TXLA_ASSIGN_OR_RETURN(Shape shape, LeafShape(args));
  const AttrValue* value = args.GetAny("value");
  if (value == nullptr) return args.Error("missing attribute 'value'");
  const DType dtype = shape.dtype;
  if (const auto* i = std::get_if<int64_t>(value)) {
    if (!IsFloating(dtype) && !IntFits(*i, dtype)) {
      return args.Error(absl::StrCat("value ", *i, " does not fit in ",
                                     DTypeName(dtype)));
    }
  } else if (std::holds_alternative<double>(*value)) {
    if (!IsFloating(dtype)) {
      return args.Error(absl::StrCat(
          "floating point value ", AttrValueToString(*value), " for a ",
          DTypeName(dtype), " constant; pass an int64 (or bool) value"));
    }
  } else if (std::holds_alternative<bool>(*value)) {
    if (dtype != DType::kBool) {
      return args.Error(absl::StrCat("bool value for a ", DTypeName(dtype),
                                     " constant"));
    }
  } else {
    return args.Error(absl::StrCat("attribute 'value' must be int64, double "
                                   "or bool, got ",
                                   AttrTypeName(*value)));
  }
  return SingleShape(std::move(shape));
}

absl::StatusOr<Shapes> IotaShape(const ShapeRuleArgs& args) {
  TXLA_ASSIGN_OR_RETURN(Shape shape, LeafShape(args));
  TXLA_ASSIGN_OR_RETURN(const int64_t* dimension,
                        args.Get<int64_t>("dimension"));
  if (shape.dtype == DType::kBool) {
    return args.Error("iota needs a numeric element type, got pred");
  }
  if (*dimension < 0 || *dimension >= shape.rank()) {
    return args.Error(absl::StrCat("dimension ", *dimension,
                                   " is out of range for ", shape.ToString()));
  }
  return SingleShape(std::move(shape));
}

absl::StatusOr<Shapes> ParameterShape(const ShapeRuleArgs& args) {
  TXLA_ASSIGN_OR_RETURN(Shape shape, LeafShape(args));
  TXLA_ASSIGN_OR_RETURN(const int64_t* index, args.Get<int64_t>("index"));
  if (*index < 0) {
    return args.Error(absl::StrCat("index ", *index, " must be >= 0"));
  }
  return SingleShape(std::move(shape));
}

absl::StatusOr<Shapes> DeviceDataShape(const ShapeRuleArgs& args) {
  return args.Error("build data leaves with MakeDataNode(data)");
}

}  // namespace

absl::Status RegisterLeafShapeRules(ShapeRuleTable* table) {
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kConstant, &ConstantShape));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kIota, &IotaShape));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kParameter, &ParameterShape));
  TXLA_RETURN_IF_ERROR(
      table->Register(OpKind::kDeviceData, &DeviceDataShape));
  return absl::OkStatus();
}

}  // namespace torch_xla
