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

const Dims& DimsAttr(const Node& node, absl::string_view name) {
  return *node.attrs().FindAs<Dims>(name);
}

absl::Status LowerBroadcastInDim(const Node& node, MlirEmitter& e) {
  e.EmitNodeOp(node, "stablehlo.broadcast_in_dim",
               absl::StrCat("{broadcast_dimensions = ",
                            I64Array(DimsAttr(node, "broadcast_dims")), "}"));
  return absl::OkStatus();
}

absl::Status LowerReshape(const Node& node, MlirEmitter& e) {
  e.EmitNodeOp(node, "stablehlo.reshape");
  return absl::OkStatus();
}

absl::Status LowerTranspose(const Node& node, MlirEmitter& e) {
  e.EmitNodeOp(node, "stablehlo.transpose",
               absl::StrCat("{permutation = ",
                            I64Array(DimsAttr(node, "permutation")), "}"));
  return absl::OkStatus();
}

absl::Status LowerReverse(const Node& node, MlirEmitter& e) {
  e.EmitNodeOp(node, "stablehlo.reverse",
               absl::StrCat("{dimensions = ", I64Array(DimsAttr(node, "dims")),
                            "}"));
  return absl::OkStatus();
}

absl::Status LowerSlice(const Node& node, MlirEmitter& e) {
  const Dims* strides = node.attrs().FindAs<Dims>("strides");
  Dims unit(node.operand(0).shape().dims.size(), 1);
  e.EmitNodeOp(node, "stablehlo.slice",
               absl::StrCat("{start_indices = ",
                            I64Array(DimsAttr(node, "start")),
                            ", limit_indices = ",
                            I64Array(DimsAttr(node, "limit")), ", strides = ",
                            I64Array(strides ? *strides : unit), "}"));
  return absl::OkStatus();
}

absl::Status LowerDynamicSlice(const Node& node, MlirEmitter& e) {
  e.EmitNodeOp(node, "stablehlo.dynamic_slice",
               absl::StrCat("{slice_sizes = ", I64Array(DimsAttr(node, "sizes")),
                            "}"));
  return absl::OkStatus();
}

absl::Status LowerDynamicUpdateSlice(const Node& node, MlirEmitter& e) {
  e.EmitNodeOp(node, "stablehlo.dynamic_update_slice");
  return absl::OkStatus();
}

absl::Status LowerConcatenate(const Node& node, MlirEmitter& e) {
  e.EmitNodeOp(node, "stablehlo.concatenate",
               absl::StrCat("{dimension = ",
                            *node.attrs().FindAs<int64_t>("dimension"),
                            " : i64}"));
  return absl::OkStatus();
}

absl::Status LowerPad(const Node& node, MlirEmitter& e) {
  const Dims* interior = node.attrs().FindAs<Dims>("interior");
  Dims zeros(node.operand(0).shape().dims.size(), 0);
  e.EmitNodeOp(node, "stablehlo.pad",
               absl::StrCat("{edge_padding_low = ",
                            I64Array(DimsAttr(node, "low")),
                            ", edge_padding_high = ",
                            I64Array(DimsAttr(node, "high")),
                            ", interior_padding = ",
                            I64Array(interior ? *interior : zeros), "}"));
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
