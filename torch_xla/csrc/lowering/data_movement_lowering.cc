// Lowerings: broadcast_in_dim, reshape, transpose, reverse, slice,
// dynamic_slice, dynamic_update_slice, concatenate, pad.

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/lowering/emitter.h"
#include "torch_xla/csrc/lowering/lower_rules.h"
#include "torch_xla/csrc/lowering/mlir_text.h"

namespace torch_xla {
namespace {

using Dims = std::vector<int64_t>;

// `{<field> = array<i64: ...>}` from the dims attribute `name`.
absl::StatusOr<std::string> ArrayField(const Node& node,
                                       absl::string_view field,
                                       absl::string_view name) {
  TXLA_ASSIGN_OR_RETURN(const Dims* dims, node.GetAttr<Dims>(name));
  return absl::StrCat("{", field, " = ", I64Array(*dims), "}");
}

absl::Status LowerBroadcastInDim(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(
      std::string attrs,
      ArrayField(node, "broadcast_dimensions", "broadcast_dims"));
  e.EmitNodeOp(node, "stablehlo.broadcast_in_dim", attrs);
  return absl::OkStatus();
}

absl::Status LowerReshape(const Node& node, MlirEmitter& e) {
  e.EmitNodeOp(node, "stablehlo.reshape");
  return absl::OkStatus();
}

absl::Status LowerTranspose(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(std::string attrs,
                        ArrayField(node, "permutation", "permutation"));
  e.EmitNodeOp(node, "stablehlo.transpose", attrs);
  return absl::OkStatus();
}

absl::Status LowerReverse(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(std::string attrs,
                        ArrayField(node, "dimensions", "dims"));
  e.EmitNodeOp(node, "stablehlo.reverse", attrs);
  return absl::OkStatus();
}

absl::Status LowerSlice(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(const Dims* start, node.GetAttr<Dims>("start"));
  TXLA_ASSIGN_OR_RETURN(const Dims* limit, node.GetAttr<Dims>("limit"));
  TXLA_ASSIGN_OR_RETURN(
      const Dims strides,
      node.GetAttrOr<Dims>("strides",
                           Dims(node.operand(0).shape().dims.size(), 1)));
  e.EmitNodeOp(node, "stablehlo.slice",
               absl::StrCat("{start_indices = ", I64Array(*start),
                            ", limit_indices = ", I64Array(*limit),
                            ", strides = ", I64Array(strides), "}"));
  return absl::OkStatus();
}

absl::Status LowerDynamicSlice(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(std::string attrs,
                        ArrayField(node, "slice_sizes", "sizes"));
  e.EmitNodeOp(node, "stablehlo.dynamic_slice", attrs);
  return absl::OkStatus();
}

absl::Status LowerDynamicUpdateSlice(const Node& node, MlirEmitter& e) {
  e.EmitNodeOp(node, "stablehlo.dynamic_update_slice");
  return absl::OkStatus();
}

absl::Status LowerConcatenate(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(const int64_t* dimension,
                        node.GetAttr<int64_t>("dimension"));
  e.EmitNodeOp(node, "stablehlo.concatenate",
               absl::StrCat("{dimension = ", *dimension, " : i64}"));
  return absl::OkStatus();
}

absl::Status LowerPad(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(const Dims* low, node.GetAttr<Dims>("low"));
  TXLA_ASSIGN_OR_RETURN(const Dims* high, node.GetAttr<Dims>("high"));
  TXLA_ASSIGN_OR_RETURN(
      const Dims interior,
      node.GetAttrOr<Dims>("interior",
                           Dims(node.operand(0).shape().dims.size(), 0)));
  e.EmitNodeOp(node, "stablehlo.pad",
               absl::StrCat("{edge_padding_low = ", I64Array(*low),
                            ", edge_padding_high = ", I64Array(*high),
                            ", interior_padding = ", I64Array(interior), "}"));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterDataMovementLowerings(LowerRuleTable* table) {
  TXLA_RETURN_IF_ERROR(
      table->Register(OpKind::kBroadcastInDim, &LowerBroadcastInDim));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kReshape, &LowerReshape));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kTranspose, &LowerTranspose));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kReverse, &LowerReverse));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kSlice, &LowerSlice));
  TXLA_RETURN_IF_ERROR(
      table->Register(OpKind::kDynamicSlice, &LowerDynamicSlice));
  TXLA_RETURN_IF_ERROR(
      table->Register(OpKind::kDynamicUpdateSlice, &LowerDynamicUpdateSlice));
  TXLA_RETURN_IF_ERROR(
      table->Register(OpKind::kConcatenate, &LowerConcatenate));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kPad, &LowerPad));
  return absl::OkStatus();
}

}  // namespace torch_xla
