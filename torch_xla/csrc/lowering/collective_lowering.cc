// Lowerings: collectives across replicas, as StableHLO collectives with
// replica groups (replica ids, cross-replica mode: no channel handle), so
// XLA runs them as part of the program (ir/collective_shape_rules.cc has
// the attributes). A reduction's body is the scalar combiner of "kind".

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/lowering/emitter.h"
#include "torch_xla/csrc/lowering/lower_rules.h"
#include "torch_xla/csrc/lowering/mlir_text.h"

namespace torch_xla {
namespace {

using Dims = std::vector<int64_t>;

// dense<[[0, 1], [2, 3]]> : tensor<2x2xi64> from ids listed row after row.
std::string DenseRows(const Dims& ids, int64_t row) {
  std::vector<std::string> rows;
  for (size_t i = 0; i < ids.size(); i += row) {
    std::vector<int64_t> one(ids.begin() + i, ids.begin() + i + row);
    rows.push_back(absl::StrCat("[", absl::StrJoin(one, ", "), "]"));
  }
  return absl::StrCat("dense<[", absl::StrJoin(rows, ", "), "]> : tensor<",
                      ids.size() / row, "x", row, "xi64>");
}

absl::StatusOr<std::string> ReplicaGroups(const Node& node) {
  TXLA_ASSIGN_OR_RETURN(const Dims* groups,
                        node.GetAttr<Dims>("replica_groups"));
  TXLA_ASSIGN_OR_RETURN(const int64_t* size,
                        node.GetAttr<int64_t>("group_size"));
  return absl::StrCat("replica_groups = ", DenseRows(*groups, *size));
}

absl::string_view CombineOp(absl::string_view kind) {
  if (kind == "sum") return "stablehlo.add";
  if (kind == "prod") return "stablehlo.multiply";
  if (kind == "max") return "stablehlo.maximum";
  if (kind == "min") return "stablehlo.minimum";
  if (kind == "and") return "stablehlo.and";
  return "stablehlo.or";
}

// all_reduce and reduce_scatter: one operand, a combiner region.
absl::Status LowerReduction(const Node& node, MlirEmitter& e,
                            absl::string_view op, const std::string& attrs) {
  TXLA_ASSIGN_OR_RETURN(const std::string* kind,
                        node.GetAttr<std::string>("kind"));
  const DType dtype = node.shape().dtype;
  const absl::string_view combine = CombineOp(*kind);
  MlirEmitter::RegionFn body = [combine, dtype](MlirEmitter& r) {
    r.EmitScalarBinaryRegion(combine, dtype);
    return absl::OkStatus();
  };
  TXLA_ASSIGN_OR_RETURN(
      std::string name,
      e.EmitOp(op, {e.Ref(node.operand(0))},
               {node.operand(0).shape().ToMlirType()}, attrs,
               MlirEmitter::ResultTypes(node), {body}));
  e.Bind(&node, std::move(name));
  return absl::OkStatus();
}

absl::Status LowerAllReduce(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(std::string groups, ReplicaGroups(node));
  return LowerReduction(node, e, "stablehlo.all_reduce",
                        absl::StrCat("{", groups, "}"));
}

absl::Status LowerReduceScatter(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(const int64_t* dim,
                        node.GetAttr<int64_t>("scatter_dim"));
  TXLA_ASSIGN_OR_RETURN(std::string groups, ReplicaGroups(node));
  return LowerReduction(node, e, "stablehlo.reduce_scatter",
                        absl::StrCat("{", groups, ", scatter_dimension = ",
                                     *dim, " : i64}"));
}

absl::Status LowerAllGather(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(const int64_t* dim, node.GetAttr<int64_t>("dim"));
  TXLA_ASSIGN_OR_RETURN(std::string groups, ReplicaGroups(node));
  e.EmitNodeOp(node, "stablehlo.all_gather",
               absl::StrCat("{all_gather_dim = ", *dim, " : i64, ", groups,
                            "}"));
  return absl::OkStatus();
}

absl::Status LowerAllToAll(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(const int64_t* split,
                        node.GetAttr<int64_t>("split_dimension"));
  TXLA_ASSIGN_OR_RETURN(const int64_t* concat,
                        node.GetAttr<int64_t>("concat_dimension"));
  TXLA_ASSIGN_OR_RETURN(const int64_t* count,
                        node.GetAttr<int64_t>("group_size"));
  TXLA_ASSIGN_OR_RETURN(std::string groups, ReplicaGroups(node));
  e.EmitNodeOp(node, "stablehlo.all_to_all",
               absl::StrCat("{concat_dimension = ", *concat, " : i64, ",
                            groups, ", split_count = ", *count,
                            " : i64, split_dimension = ", *split, " : i64}"));
  return absl::OkStatus();
}

absl::Status LowerCollectivePermute(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(const Dims* pairs,
                        node.GetAttr<Dims>("source_target_pairs"));
  std::string attrs = "{source_target_pairs = dense<> : tensor<0x2xi64>}";
  if (!pairs->empty()) {
    attrs = absl::StrCat("{source_target_pairs = ", DenseRows(*pairs, 2), "}");
  }
  e.EmitNodeOp(node, "stablehlo.collective_permute", attrs);
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterCollectiveLowerings(LowerRuleTable* table) {
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kAllReduce, &LowerAllReduce));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kAllGather, &LowerAllGather));
  TXLA_RETURN_IF_ERROR(
      table->Register(OpKind::kReduceScatter, &LowerReduceScatter));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kAllToAll, &LowerAllToAll));
  return table->Register(OpKind::kCollectivePermute, &LowerCollectivePermute);
}

}  // namespace torch_xla
