// Shape rules: gather and scatter with full StableHLO dimension numbers
// (batching dims included). Attribute names are short to stay in the
// std::string small buffer:
//   gather:  offset_dims, collapsed_dims, start_index_map, index_vec_dim,
//            slice_sizes, [operand_batch, indices_batch, sorted]
//   scatter: window_dims (update_window_dims), inserted_dims,
//            scatter_dim_map (scatter_dims_to_operand_dims), index_vec_dim,
//            kind ("replace" | "add"), [operand_batch, indices_batch,
//            sorted, unique]

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/shape_inference.h"
#include "torch_xla/csrc/ir/status_macros.h"

namespace torch_xla {
namespace {

using Shapes = std::vector<Shape>;
using Dims = std::vector<int64_t>;

bool Contains(const Dims& dims, int64_t d) {
  return std::find(dims.begin(), dims.end(), d) != dims.end();
}

absl::Status CheckSorted(const ShapeRuleArgs& args, absl::string_view what,
                         const Dims& dims) {
  if (std::is_sorted(dims.begin(), dims.end())) return absl::OkStatus();
  return args.Error(
      absl::StrCat(what, " ", DimsToString(dims), " must be sorted"));
}

absl::Status CheckDisjoint(const ShapeRuleArgs& args, absl::string_view a_name,
                           const Dims& a, absl::string_view b_name,
                           const Dims& b) {
  for (int64_t d : a) {
    if (Contains(b, d)) {
      return args.Error(absl::StrCat(a_name, " ", DimsToString(a), " and ",
                                     b_name, " ", DimsToString(b),
                                     " share dimension ", d));
    }
  }
  return absl::OkStatus();
}

// Checks shared by gather and scatter: index operand, index_vec_dim,
// start/scatter index map and batching dims. Returns the index vector size.
struct IndexDims {
  const Dims* index_map;
  int64_t index_vec_dim;
  const Dims* operand_batch;
  const Dims* indices_batch;
};

absl::Status CheckIndexing(const ShapeRuleArgs& args, const Shape& operand,
                           const Shape& indices, absl::string_view map_name,
                           const IndexDims& d) {
  if (!IsInteger(indices.dtype)) {
    return args.Error(absl::StrCat("indices ", indices.ToString(),
                                   " must have integer elements"));
  }
  if (d.index_vec_dim < 0 || d.index_vec_dim > indices.rank()) {
    return args.Error(absl::StrCat("index_vec_dim ", d.index_vec_dim,
                                   " must be in [0, ", indices.rank(),
                                   "] for indices ", indices.ToString()));
  }
  int64_t index_size =
      d.index_vec_dim < indices.rank() ? indices.dims[d.index_vec_dim] : 1;
  if (static_cast<int64_t>(d.index_map->size()) != index_size) {
    return args.Error(absl::StrCat(
        map_name, " ", DimsToString(*d.index_map), " has ",
        d.index_map->size(), " entries; the index vector of indices ",
        indices.ToString(), " (index_vec_dim ", d.index_vec_dim, ") has ",
        index_size));
  }
  TXLA_RETURN_IF_ERROR(CheckDimIndices(args, map_name, *d.index_map,
                                       operand.rank(),
                                       "operand", &operand));
  TXLA_RETURN_IF_ERROR(CheckDimIndices(args, "operand_batch", *d.operand_batch,
                                       operand.rank(),
                                       "operand", &operand));
  TXLA_RETURN_IF_ERROR(CheckSorted(args, "operand_batch", *d.operand_batch));
  TXLA_RETURN_IF_ERROR(CheckDisjoint(args, map_name, *d.index_map,
                                     "operand_batch", *d.operand_batch));
  TXLA_RETURN_IF_ERROR(CheckDimIndices(args, "indices_batch", *d.indices_batch,
                                       indices.rank(),
                                       "indices", &indices));
  if (Contains(*d.indices_batch, d.index_vec_dim)) {
    return args.Error(absl::StrCat("indices_batch ",
                                   DimsToString(*d.indices_batch),
                                   " must not contain index_vec_dim ",
                                   d.index_vec_dim));
  }
  if (d.operand_batch->size() != d.indices_batch->size()) {
    return args.Error(absl::StrCat(
        "operand_batch ", DimsToString(*d.operand_batch), " and indices_batch ",
        DimsToString(*d.indices_batch), " must have the same length"));
  }
  for (size_t i = 0; i < d.operand_batch->size(); ++i) {
    int64_t o = operand.dims[(*d.operand_batch)[i]];
    int64_t n = indices.dims[(*d.indices_batch)[i]];
    if (o != n) {
      return args.Error(absl::StrCat(
          "batching dimension sizes differ: operand ", operand.ToString(),
          " dim ", (*d.operand_batch)[i], " has ", o, ", indices ",
          indices.ToString(), " dim ", (*d.indices_batch)[i], " has ", n));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Shapes> GatherShape(const ShapeRuleArgs& args) {
  static const Dims kEmpty;
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(2));
  TXLA_ASSIGN_OR_RETURN(const Dims* offset_dims, args.Get<Dims>("offset_dims"));
  TXLA_ASSIGN_OR_RETURN(const Dims* collapsed,
                        args.Get<Dims>("collapsed_dims"));
  TXLA_ASSIGN_OR_RETURN(const Dims* index_map,
                        args.Get<Dims>("start_index_map"));
  TXLA_ASSIGN_OR_RETURN(const int64_t* index_vec_dim,
                        args.Get<int64_t>("index_vec_dim"));
  TXLA_ASSIGN_OR_RETURN(const Dims* slice_sizes, args.Get<Dims>("slice_sizes"));
  TXLA_ASSIGN_OR_RETURN(const Dims* ob, args.GetOptional<Dims>("operand_batch"));
  TXLA_ASSIGN_OR_RETURN(const Dims* ib, args.GetOptional<Dims>("indices_batch"));
  TXLA_ASSIGN_OR_RETURN(bool sorted, args.GetOr("sorted", false));
  (void)sorted;
  const Dims& operand_batch = ob ? *ob : kEmpty;
  const Dims& indices_batch = ib ? *ib : kEmpty;
  const Shape& operand = args.shape(0);
  const Shape& indices = args.shape(1);

  TXLA_RETURN_IF_ERROR(CheckIndexing(
      args, operand, indices, "start_index_map",
      {index_map, *index_vec_dim, &operand_batch, &indices_batch}));
  if (static_cast<int64_t>(slice_sizes->size()) != operand.rank()) {
    return args.Error(absl::StrCat("slice_sizes ", DimsToString(*slice_sizes),
                                   " must have one entry per dimension of "
                                   "operand ",
                                   operand.ToString()));
  }
  for (int64_t i = 0; i < operand.rank(); ++i) {
    int64_t s = (*slice_sizes)[i];
    if (s < 0 || s > operand.dims[i]) {
      return args.Error(absl::StrCat("slice_sizes ", DimsToString(*slice_sizes),
                                     ": dim ", i, " must be in [0, ",
                                     operand.dims[i], "] for operand ",
                                     operand.ToString()));
    }
  }
  TXLA_RETURN_IF_ERROR(CheckDimIndices(args, "collapsed_dims", *collapsed,
                                       operand.rank(),
                                       "operand", &operand));
  TXLA_RETURN_IF_ERROR(CheckSorted(args, "collapsed_dims", *collapsed));
  TXLA_RETURN_IF_ERROR(CheckDisjoint(args, "collapsed_dims", *collapsed,
                                     "operand_batch", operand_batch));
  for (const Dims* dims : {collapsed, &operand_batch}) {
    for (int64_t d : *dims) {
      if ((*slice_sizes)[d] > 1) {
        return args.Error(absl::StrCat(
            "slice_sizes ", DimsToString(*slice_sizes), ": dim ", d,
            " is collapsed or a batching dim, so its slice size must be <= 1"));
      }
    }
  }
  // Result = batch dims of the indices interleaved with the slice's offset
  // dims (at positions offset_dims).
  Dims batch_sizes;
  for (int64_t i = 0; i < indices.rank(); ++i) {
    if (i != *index_vec_dim) batch_sizes.push_back(indices.dims[i]);
  }
  Dims offset_sizes;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (!Contains(*collapsed, i) && !Contains(operand_batch, i)) {
      offset_sizes.push_back((*slice_sizes)[i]);
    }
  }
  if (offset_dims->size() != offset_sizes.size()) {
    return args.Error(absl::StrCat(
        "offset_dims ", DimsToString(*offset_dims), " has ",
        offset_dims->size(), " entries; the slice keeps ", offset_sizes.size(),
        " dims (operand rank ", operand.rank(), " minus collapsed and "
        "batching dims)"));
  }
  const int64_t result_rank = batch_sizes.size() + offset_sizes.size();
  TXLA_RETURN_IF_ERROR(CheckDimIndices(args, "offset_dims", *offset_dims,
                                       result_rank, "the result"));
  TXLA_RETURN_IF_ERROR(CheckSorted(args, "offset_dims", *offset_dims));
  Shape result(operand.dtype, {});
  size_t next_offset = 0, next_batch = 0;
  for (int64_t d = 0; d < result_rank; ++d) {
    result.dims.push_back(Contains(*offset_dims, d)
                              ? offset_sizes[next_offset++]
                              : batch_sizes[next_batch++]);
  }
  return SingleShape(std::move(result));
}

// scatter(operand, indices, updates).
absl::StatusOr<Shapes> ScatterShape(const ShapeRuleArgs& args) {
  static const Dims kEmpty;
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(3));
  TXLA_ASSIGN_OR_RETURN(const Dims* window_dims, args.Get<Dims>("window_dims"));
  TXLA_ASSIGN_OR_RETURN(const Dims* inserted, args.Get<Dims>("inserted_dims"));
  TXLA_ASSIGN_OR_RETURN(const Dims* index_map,
                        args.Get<Dims>("scatter_dim_map"));
  TXLA_ASSIGN_OR_RETURN(const int64_t* index_vec_dim,
                        args.Get<int64_t>("index_vec_dim"));
  TXLA_ASSIGN_OR_RETURN(const std::string* kind, args.Get<std::string>("kind"));
  TXLA_ASSIGN_OR_RETURN(const Dims* ob, args.GetOptional<Dims>("operand_batch"));
  TXLA_ASSIGN_OR_RETURN(const Dims* ib, args.GetOptional<Dims>("indices_batch"));
  TXLA_ASSIGN_OR_RETURN(bool sorted, args.GetOr("sorted", false));
  TXLA_ASSIGN_OR_RETURN(bool unique, args.GetOr("unique", false));
  (void)sorted;
  (void)unique;
  const Dims& operand_batch = ob ? *ob : kEmpty;
  const Dims& indices_batch = ib ? *ib : kEmpty;
  const Shape& operand = args.shape(0);
  const Shape& indices = args.shape(1);
  const Shape& updates = args.shape(2);

  if (*kind != "replace" && *kind != "add") {
    return args.Error(
        absl::StrCat("kind '", *kind, "' is not one of replace, add"));
  }
  if (updates.dtype != operand.dtype ||
      (*kind == "add" && operand.dtype == DType::kBool)) {
    return args.Error(absl::StrCat("updates ", updates.ToString(),
                                   " must have the element type of operand ",
                                   operand.ToString(),
                                   *kind == "add" ? " (numeric for add)" : ""));
  }
  TXLA_RETURN_IF_ERROR(CheckIndexing(
      args, operand, indices, "scatter_dim_map",
      {index_map, *index_vec_dim, &operand_batch, &indices_batch}));
  TXLA_RETURN_IF_ERROR(CheckDimIndices(args, "window_dims", *window_dims,
                                       updates.rank(),
                                       "updates", &updates));
  TXLA_RETURN_IF_ERROR(CheckSorted(args, "window_dims", *window_dims));
  TXLA_RETURN_IF_ERROR(CheckDimIndices(args, "inserted_dims", *inserted,
                                       operand.rank(),
                                       "operand", &operand));
  TXLA_RETURN_IF_ERROR(CheckSorted(args, "inserted_dims", *inserted));
  TXLA_RETURN_IF_ERROR(CheckDisjoint(args, "inserted_dims", *inserted,
                                     "operand_batch", operand_batch));
  if (operand.rank() != static_cast<int64_t>(window_dims->size() +
                                             inserted->size() +
                                             operand_batch.size())) {
    return args.Error(absl::StrCat(
        "operand ", operand.ToString(), " has rank ", operand.rank(),
        "; expected window_dims ", DimsToString(*window_dims),
        " + inserted_dims ", DimsToString(*inserted), " + operand_batch ",
        DimsToString(operand_batch), " dims"));
  }
  // Scatter dims of the updates must match the indices' batch dims.
  Dims index_batch_sizes;
  for (int64_t i = 0; i < indices.rank(); ++i) {
    if (i != *index_vec_dim) index_batch_sizes.push_back(indices.dims[i]);
  }
  Dims update_scatter_sizes;
  for (int64_t i = 0; i < updates.rank(); ++i) {
    if (!Contains(*window_dims, i)) update_scatter_sizes.push_back(updates.dims[i]);
  }
  if (update_scatter_sizes != index_batch_sizes) {
    return args.Error(absl::StrCat(
        "updates ", updates.ToString(), " scatter dims (all but window_dims ",
        DimsToString(*window_dims), ") have sizes ",
        DimsToString(update_scatter_sizes), "; indices ", indices.ToString(),
        " (without index_vec_dim ", *index_vec_dim, ") need ",
        DimsToString(index_batch_sizes)));
  }
  // Window dims must fit in the operand's remaining dims.
  size_t w = 0;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (Contains(*inserted, i) || Contains(operand_batch, i)) continue;
    int64_t size = updates.dims[(*window_dims)[w]];
    if (size > operand.dims[i]) {
      return args.Error(absl::StrCat(
          "updates ", updates.ToString(), " window dim ", (*window_dims)[w],
          " has size ", size, ", larger than operand ", operand.ToString(),
          " dim ", i));
    }
    ++w;
  }
  return SingleShape(operand);
}

}  // namespace

absl::Status RegisterGatherScatterShapeRules(ShapeRuleTable* table) {
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kGather, &GatherShape));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kScatter, &ScatterShape));
  return absl::OkStatus();
}

}  // namespace torch_xla
