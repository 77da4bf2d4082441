// Lowerings: gather, scatter (update computation: replace or add).
// Empty dimension lists are omitted from the dimension numbers, as
// StableHLO's printer does.

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
void AddList(const Node& node, absl::string_view attr, absl::string_view field,
             std::vector<std::string>* fields) {
  const Dims* dims = node.attrs().FindAs<Dims>(attr);
  if (dims == nullptr || dims->empty()) return;
  fields->push_back(absl::StrCat(field, " = ", I64List(*dims)));
}

bool BoolAttr(const Node& node, absl::string_view name) {
  const bool* b = node.attrs().FindAs<bool>(name);
  return b != nullptr && *b;
}

absl::Status LowerGather(const Node& node, MlirEmitter& e) {
  std::vector<std::string> f;
  AddList(node, "offset_dims", "offset_dims", &f);
  AddList(node, "collapsed_dims", "collapsed_slice_dims", &f);
  AddList(node, "operand_batch", "operand_batching_dims", &f);
  AddList(node, "indices_batch", "start_indices_batching_dims", &f);
  AddList(node, "start_index_map", "start_index_map", &f);
  f.push_back(absl::StrCat("index_vector_dim = ",
                           *node.attrs().FindAs<int64_t>("index_vec_dim")));
  e.EmitNodeOp(
      node, "stablehlo.gather",
      absl::StrCat("{dimension_numbers = #stablehlo.gather<",
                   absl::StrJoin(f, ", "), ">, slice_sizes = ",
                   I64Array(*node.attrs().FindAs<Dims>("slice_sizes")),
                   ", indices_are_sorted = ",
                   BoolAttr(node, "sorted") ? "true" : "false", "}"));
  return absl::OkStatus();
}

absl::Status LowerScatter(const Node& node, MlirEmitter& e) {
  std::vector<std::string> f;
  AddList(node, "window_dims", "update_window_dims", &f);
  AddList(node, "inserted_dims", "inserted_window_dims", &f);
  AddList(node, "operand_batch", "input_batching_dims", &f);
  AddList(node, "indices_batch", "scatter_indices_batching_dims", &f);
  AddList(node, "scatter_dim_map", "scatter_dims_to_operand_dims", &f);
  f.push_back(absl::StrCat("index_vector_dim = ",
                           *node.attrs().FindAs<int64_t>("index_vec_dim")));
  const bool add = *node.attrs().FindAs<std::string>("kind") == "add";
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
                            absl::StrJoin(f, ", "), ">, indices_are_sorted = ",
                            BoolAttr(node, "sorted") ? "true" : "false",
                            ", unique_indices = ",
                            BoolAttr(node, "unique") ? "true" : "false", "}"),
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
