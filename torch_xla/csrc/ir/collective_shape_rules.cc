// Shape rules: collectives across replicas (all_reduce, all_gather,
// reduce_scatter, all_to_all, collective_permute). Replica groups travel as
// "replica_groups" (every group's replica ids, group after group) and
// "group_size"; a reduction's combiner follows from "kind" (sum, prod, max,
// min, and, or), as for reduce.

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/shape_inference.h"
#include "torch_xla/csrc/ir/status_macros.h"

namespace torch_xla {
namespace {

using Shapes = std::vector<Shape>;
using Dims = std::vector<int64_t>;

// The group size, after checking the groups partition their replica ids.
absl::StatusOr<int64_t> GroupSize(const ShapeRuleArgs& args) {
  TXLA_ASSIGN_OR_RETURN(const Dims* groups, args.Get<Dims>("replica_groups"));
  TXLA_ASSIGN_OR_RETURN(const int64_t* size, args.Get<int64_t>("group_size"));
  if (*size < 1 || groups->empty() || groups->size() % *size != 0) {
    return args.Error(absl::StrCat(
        "replica_groups of ", groups->size(), " ids do not split into groups "
        "of group_size ", *size));
  }
  for (size_t i = 0; i < groups->size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if ((*groups)[i] == (*groups)[j] || (*groups)[i] < 0) {
        return args.Error(absl::StrCat("replica id ", (*groups)[i],
                                       " is negative or in two groups"));
      }
    }
  }
  return *size;
}

absl::Status CheckKind(const ShapeRuleArgs& args, const Shape& x) {
  TXLA_ASSIGN_OR_RETURN(const std::string* kind, args.Get<std::string>("kind"));
  const bool is_pred = x.dtype == DType::kBool;
  if (*kind == "sum" || *kind == "prod") {
    if (!is_pred) return absl::OkStatus();
  } else if (*kind == "max" || *kind == "min") {
    return absl::OkStatus();
  } else if (*kind == "and" || *kind == "or") {
    if (is_pred || IsInteger(x.dtype)) return absl::OkStatus();
  } else {
    return args.Error(absl::StrCat(
        "kind '", *kind, "' is not one of sum, prod, max, min, and, or"));
  }
  return args.Error(
      absl::StrCat("kind '", *kind, "' does not apply to ", x.ToString()));
}

absl::StatusOr<int64_t> Dim(const ShapeRuleArgs& args, absl::string_view name,
                            const Shape& x) {
  TXLA_ASSIGN_OR_RETURN(const int64_t* dim, args.Get<int64_t>(name));
  if (*dim < 0 || *dim >= x.rank()) {
    return args.Error(absl::StrCat(name, " ", *dim, " is out of range for ",
                                   x.ToString()));
  }
  return *dim;
}

absl::StatusOr<Shapes> AllReduceShape(const ShapeRuleArgs& args) {
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(1));
  TXLA_RETURN_IF_ERROR(GroupSize(args).status());
  TXLA_RETURN_IF_ERROR(CheckKind(args, args.shape(0)));
  return SingleShape(args.shape(0));
}

absl::StatusOr<Shapes> AllGatherShape(const ShapeRuleArgs& args) {
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(1));
  TXLA_ASSIGN_OR_RETURN(int64_t size, GroupSize(args));
  Shape result = args.shape(0);
  TXLA_ASSIGN_OR_RETURN(int64_t dim, Dim(args, "dim", result));
  result.dims[dim] *= size;
  return SingleShape(std::move(result));
}

absl::StatusOr<Shapes> ReduceScatterShape(const ShapeRuleArgs& args) {
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(1));
  TXLA_ASSIGN_OR_RETURN(int64_t size, GroupSize(args));
  TXLA_RETURN_IF_ERROR(CheckKind(args, args.shape(0)));
  Shape result = args.shape(0);
  TXLA_ASSIGN_OR_RETURN(int64_t dim, Dim(args, "scatter_dim", result));
  if (result.dims[dim] % size != 0) {
    return args.Error(absl::StrCat("dimension ", dim, " of ",
                                   result.ToString(), " does not split into ",
                                   size, " pieces"));
  }
  result.dims[dim] /= size;
  return SingleShape(std::move(result));
}

absl::StatusOr<Shapes> AllToAllShape(const ShapeRuleArgs& args) {
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(1));
  TXLA_ASSIGN_OR_RETURN(int64_t size, GroupSize(args));
  Shape result = args.shape(0);
  TXLA_ASSIGN_OR_RETURN(int64_t split, Dim(args, "split_dimension", result));
  TXLA_ASSIGN_OR_RETURN(int64_t concat,
                        Dim(args, "concat_dimension", result));
  if (result.dims[split] % size != 0) {
    return args.Error(absl::StrCat("split_dimension ", split, " of ",
                                   result.ToString(), " does not split into ",
                                   size, " pieces"));
  }
  result.dims[split] /= size;
  result.dims[concat] *= size;
  return SingleShape(std::move(result));
}

absl::StatusOr<Shapes> CollectivePermuteShape(const ShapeRuleArgs& args) {
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(1));
  TXLA_ASSIGN_OR_RETURN(const Dims* pairs,
                        args.Get<Dims>("source_target_pairs"));
  if (pairs->size() % 2 != 0) {
    return args.Error("source_target_pairs must hold [source, target] pairs");
  }
  return SingleShape(args.shape(0));
}

}  // namespace

absl::Status RegisterCollectiveShapeRules(ShapeRuleTable* table) {
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kAllReduce, &AllReduceShape));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kAllGather, &AllGatherShape));
  TXLA_RETURN_IF_ERROR(
      table->Register(OpKind::kReduceScatter, &ReduceScatterShape));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kAllToAll, &AllToAllShape));
  return table->Register(OpKind::kCollectivePermute, &CollectivePermuteShape);
}

}  // namespace torch_xla
