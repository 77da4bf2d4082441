// Lowerings: gather, scatter (update computation: replace or add).
// Empty dimension lists are omitted from the dimension numbers, as
// StableHLO's printer does.

#include <initializer_list>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/lowering/emitter.h"
#include "torch_xla/csrc/lowering/lower_rules.h"
#include "torch_xla/csrc/lowering/mlir_text.h"

namespace torch_xla {
namespace {

using Dims = std::vector<int64_t>;

// Appends "field = [..]" for a non-empty dims attribute (empty lists are
// the default and StableHLO's printer omits them).
// The dimension numbers: "field = [..]" for each non-empty dims attribute
// in `lists` ({attribute, field} pairs; empty lists are the default and
// StableHLO's printer omits them), then index_vector_dim.
absl::StatusOr<std::string> DimensionNumbers(
    const Node& node,
    std::initializer_list<std::pair<absl::string_view, absl::string_view>>
        lists) {
  std::vector<std::string> fields;
  for (const auto& [attr, field] : lists) {
    TXLA_ASSIGN_OR_RETURN(const Dims* dims, node.GetOptionalAttr<Dims>(attr));
    if (dims == nullptr || dims->empty()) continue;
    fields.push_back(absl::StrCat(field, " = ", I64List(*dims)));
  }
  TXLA_ASSIGN_OR_RETURN(const int64_t* index_vec_dim,
                        node.GetAttr<int64_t>("index_vec_dim"));
  fields.push_back(absl::StrCat("index_vector_dim = ", *index_vec_dim));
  return absl::StrJoin(fields, ", ");
}

// "true" / "false" for an optional bool attribute (default false).
absl::StatusOr<absl::string_view> BoolAttr(const Node& node,
                                           absl::string_view name) {
  TXLA_ASSIGN_OR_RETURN(bool b, node.GetAttrOr(name, false));
  return b ? "true" : "false";
}

absl::Status LowerGather(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(
      std::string numbers,
      DimensionNumbers(node,
                       {{"offset_dims", "offset_dims"},
                        {"collapsed_dims", "collapsed_slice_dims"},
                        {"operand_batch", "operand_batching_dims"},
                        {"indices_batch", "start_indices_batching_dims"},
                        {"start_index_map", "start_index_map"}}));
  TXLA_ASSIGN_OR_RETURN(const Dims* slice_sizes,
                        node.GetAttr<Dims>("slice_sizes"));
  TXLA_ASSIGN_OR_RETURN(absl::string_view sorted, BoolAttr(node, "sorted"));
  e.EmitNodeOp(node, "stablehlo.gather",
               absl::StrCat("{dimension_numbers = #stablehlo.gather<", numbers,
                            ">, slice_sizes = ", I64Array(*slice_sizes),
                            ", indices_are_sorted = ", sorted, "}"));
  return absl::OkStatus();
}

absl::Status LowerScatter(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(
      std::string numbers,
      DimensionNumbers(
          node, {{"window_dims", "update_window_dims"},
                 {"inserted_dims", "inserted_window_dims"},
                 {"operand_batch", "input_batching_dims"},
                 {"indices_batch", "scatter_indices_batching_dims"},
                 {"scatter_dim_map", "scatter_dims_to_operand_dims"}}));
  TXLA_ASSIGN_OR_RETURN(absl::string_view sorted, BoolAttr(node, "sorted"));
  TXLA_ASSIGN_OR_RETURN(absl::string_view unique, BoolAttr(node, "unique"));
  TXLA_ASSIGN_OR_RETURN(const std::string* kind,
                        node.GetAttr<std::string>("kind"));
  const bool add = *kind == "add";
  const DType dtype = node.shape().dtype;
  MlirEmitter::RegionFn body = [add, dtype](MlirEmitter& r) {
    r.EmitScalarBinaryRegion(add ? "stablehlo.add" : "", dtype);
    return absl::OkStatus();
  };
  TXLA_ASSIGN_OR_RETURN(
      std::string name,
      e.EmitOp("stablehlo.scatter", e.OperandRefs(node),
               MlirEmitter::OperandTypes(node),
               absl::StrCat("{scatter_dimension_numbers = #stablehlo.scatter<",
                            numbers, ">, indices_are_sorted = ", sorted,
                            ", unique_indices = ", unique, "}"),
               MlirEmitter::ResultTypes(node), {body}));
  e.Bind(&node, std::move(name));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterGatherScatterLowerings(LowerRuleTable* table) {
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kGather, &LowerGather));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kScatter, &LowerScatter));
  return absl::OkStatus();
}

}  // namespace torch_xla
