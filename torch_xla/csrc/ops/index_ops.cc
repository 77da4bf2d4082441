#include "torch_xla/csrc/ops/index_ops.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/ir/error_class.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/build_util.h"

namespace torch_xla::ops {
namespace {

// Rows of the 2-d `table` at the 1-d s64 `idx`, or the elements of a 1-d
// table: one gather along dim 0.
absl::StatusOr<Value> GatherRows(Value table, Value idx) {
  std::vector<int64_t> sizes = table.shape().dims;
  sizes[0] = 1;
  const int64_t rank = static_cast<int64_t>(sizes.size());
  const int64_t idx_rank = static_cast<int64_t>(idx.shape().dims.size());
  std::vector<int64_t> offset_dims = Range(idx_rank, idx_rank + rank - 1);
  TXLA_ASSIGN_OR_RETURN(
      NodePtr node,
      MakeNode(OpKind::kGather, {std::move(table), std::move(idx)},
               Attrs()
                   .Set("offset_dims", std::move(offset_dims))
                   .Set("collapsed_dims", std::vector<int64_t>{0})
                   .Set("start_index_map", std::vector<int64_t>{0})
                   .Set("index_vec_dim", idx_rank)
                   .Set("slice_sizes", std::move(sizes))));
  return Value(std::move(node));
}

// `base` with `updates` (one row, or element, per index of the 1-d `idx`)
// added into its rows.
absl::StatusOr<Value> ScatterAddRows(Value base, Value idx, Value updates) {
  const int64_t rank = static_cast<int64_t>(base.shape().dims.size());
  TXLA_ASSIGN_OR_RETURN(
      NodePtr node,
      MakeNode(OpKind::kScatter,
               {std::move(base), std::move(idx), std::move(updates)},
               Attrs()
                   .Set("window_dims", Range(1, rank))
                   .Set("inserted_dims", std::vector<int64_t>{0})
                   .Set("scatter_dim_map", std::vector<int64_t>{0})
                   .Set("index_vec_dim", static_cast<int64_t>(1))
                   .Set("kind", "add")));
  return Value(std::move(node));
}

}  // namespace

absl::StatusOr<Value> Embedding(Value weight, Value indices) {
  if (weight.shape().dims.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "embedding: 'weight' must be 2-D, got ", weight.shape().ToString()));
  }
  TXLA_ASSIGN_OR_RETURN(Value idx, MakeConvert(std::move(indices),
                                               DType::kI64));
  return GatherRows(std::move(weight), std::move(idx));
}

absl::StatusOr<Value> EmbeddingBackward(Value grad, Value indices,
                                        int64_t num_weights, Value padding_idx,
                                        bool scale_grad_by_freq) {
  int64_t n = 1, grad_count = 1;
  for (int64_t d : indices.shape().dims) n *= d;
  const std::vector<int64_t>& grad_dims = grad.shape().dims;
  for (int64_t d : grad_dims) grad_count *= d;
  const int64_t dim = grad_dims.empty() ? 0 : grad_dims.back();
  if (grad_dims.empty() || n * dim != grad_count ||
      num_weights < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "embedding_dense_backward: grad ", grad.shape().ToString(),
        " does not hold one row per index of ", indices.shape().ToString(),
        " (", num_weights, " weights)"));
  }
  const DType dtype = grad.shape().dtype;
  TXLA_ASSIGN_OR_RETURN(Value g, MakeReshape(std::move(grad), {n, dim}));
  TXLA_ASSIGN_OR_RETURN(Value idx, MakeConvert(std::move(indices),
                                               DType::kI64));
  TXLA_ASSIGN_OR_RETURN(idx, MakeReshape(std::move(idx), {n}));
  if (scale_grad_by_freq) {
    TXLA_ASSIGN_OR_RETURN(Value none, MakeLiteral(0, dtype, {num_weights}));
    TXLA_ASSIGN_OR_RETURN(Value ones, MakeLiteral(1, dtype, {n}));
    TXLA_ASSIGN_OR_RETURN(Value counts,
                          ScatterAddRows(std::move(none), idx, std::move(ones)));
    TXLA_ASSIGN_OR_RETURN(Value per_row, GatherRows(std::move(counts), idx));
    TXLA_ASSIGN_OR_RETURN(Value wide,
                          BroadcastInDim(std::move(per_row), {n, dim}, {0}));
    TXLA_ASSIGN_OR_RETURN(g, Apply(OpKind::kDivide, std::move(g),
                                   std::move(wide)));
  }
  if (padding_idx) {
    TXLA_ASSIGN_OR_RETURN(Value pad, MakeBroadcastTo(std::move(padding_idx),
                                                     {n}));
    TXLA_ASSIGN_OR_RETURN(Value keep, Compare(idx, std::move(pad), "NE"));
    TXLA_ASSIGN_OR_RETURN(keep, BroadcastInDim(std::move(keep), {n, dim}, {0}));
    TXLA_ASSIGN_OR_RETURN(Value zeros, MakeLiteral(0, dtype, {n, dim}));
    TXLA_ASSIGN_OR_RETURN(g, Select(std::move(keep), std::move(g),
                                    std::move(zeros)));
  }
  TXLA_ASSIGN_OR_RETURN(Value base, MakeLiteral(0, dtype, {num_weights, dim}));
  return ScatterAddRows(std::move(base), std::move(idx), std::move(g));
}

namespace {

// The geometry of x[indices] for integer index tensors: `idx` the s64
// [*B, k] start indices of the k indexed `dims` (negatives wrapped), the
// window (offset) dims, and the result's shape.
struct IndexGeometry {
  Value idx;
  std::vector<int64_t> dims, offset_dims, result_shape;
  int64_t index_vec_dim = 0;
};

absl::StatusOr<IndexGeometry> Geometry(const Shape& x,
                                       const std::vector<Value>& indices) {
  const std::vector<int64_t>& shape = x.dims;
  const int64_t rank = static_cast<int64_t>(shape.size());
  IndexGeometry g;
  std::vector<const Shape*> index_shapes;
  for (size_t d = 0; d < indices.size(); ++d) {
    if (!indices[d]) continue;
    g.dims.push_back(static_cast<int64_t>(d));
    index_shapes.push_back(&indices[d].shape());
  }
  if (static_cast<int64_t>(indices.size()) > rank || g.dims.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "index: ", indices.size(), " indices (", g.dims.size(),
        " of them tensors) for a tensor of shape ", x.ToString()));
  }
  TXLA_ASSIGN_OR_RETURN(std::vector<int64_t> batch,
                        InferBroadcastDims(index_shapes));
  const int64_t b = static_cast<int64_t>(batch.size());
  std::vector<int64_t> column = batch;
  column.push_back(1);
  std::vector<Value> columns;
  for (int64_t d : g.dims) {
    // s64, negatives wrapped, broadcast to [*B, 1].
    TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(indices[d], DType::kI64));
    const std::vector<int64_t> v_dims = v.shape().dims;
    TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0, DType::kI64, v_dims));
    TXLA_ASSIGN_OR_RETURN(Value size,
                          MakeLiteral(static_cast<double>(shape[d]),
                                      DType::kI64, v_dims));
    TXLA_ASSIGN_OR_RETURN(Value negative, Compare(v, std::move(zero), "LT"));
    TXLA_ASSIGN_OR_RETURN(Value wrapped, Apply(OpKind::kAdd, v,
                                               std::move(size)));
    TXLA_ASSIGN_OR_RETURN(v, Select(std::move(negative), std::move(wrapped),
                                    std::move(v)));
    TXLA_ASSIGN_OR_RETURN(v, MakeBroadcastTo(std::move(v), batch));
    TXLA_ASSIGN_OR_RETURN(v, MakeReshape(std::move(v), column));
    columns.push_back(std::move(v));
  }
  g.idx = columns[0];
  if (columns.size() > 1) {
    TXLA_ASSIGN_OR_RETURN(NodePtr node,
                          MakeNode(OpKind::kConcatenate, std::move(columns),
                                   Attrs().Set("dimension", b)));
    g.idx = Value(std::move(node));
  }
  bool adjacent = true;
  for (size_t i = 0; i < g.dims.size(); ++i) {
    adjacent = adjacent && g.dims[i] == g.dims[0] + static_cast<int64_t>(i);
  }
  const int64_t at = adjacent ? g.dims[0] : 0;
  std::vector<int64_t> rest;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(g.dims.begin(), g.dims.end(), d) == g.dims.end()) {
      rest.push_back(shape[d]);
    }
  }
  for (int64_t j = 0; j < static_cast<int64_t>(rest.size()); ++j) {
    g.offset_dims.push_back(j < at ? j : j + b);
  }
  g.result_shape.assign(rest.begin(), rest.begin() + at);
  g.result_shape.insert(g.result_shape.end(), batch.begin(), batch.end());
  g.result_shape.insert(g.result_shape.end(), rest.begin() + at, rest.end());
  g.index_vec_dim = b;
  return g;
}

}  // namespace

absl::StatusOr<Value> AdvancedIndex(Value x,
                                    const std::vector<Value>& indices) {
  TXLA_ASSIGN_OR_RETURN(IndexGeometry g, Geometry(x.shape(), indices));
  std::vector<int64_t> slice_sizes = x.shape().dims;
  for (int64_t d : g.dims) slice_sizes[d] = 1;
  TXLA_ASSIGN_OR_RETURN(
      NodePtr node,
      MakeNode(OpKind::kGather, {std::move(x), std::move(g.idx)},
               Attrs()
                   .Set("offset_dims", std::move(g.offset_dims))
                   .Set("collapsed_dims", g.dims)
                   .Set("start_index_map", g.dims)
                   .Set("index_vec_dim", g.index_vec_dim)
                   .Set("slice_sizes", std::move(slice_sizes))));
  return Value(std::move(node));
}

absl::StatusOr<Value> AdvancedIndexPut(Value x,
                                       const std::vector<Value>& indices,
                                       Value values, bool accumulate) {
  const Shape shape = x.shape();
  bool any_index = false;
  for (const Value& index : indices) any_index = any_index || bool(index);
  std::vector<int64_t> target = shape.dims;
  IndexGeometry g;
  if (any_index) {
    TXLA_ASSIGN_OR_RETURN(g, Geometry(shape, indices));
    target = g.result_shape;
  }
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(values), shape.dtype));
  absl::StatusOr<Value> wide = MakeBroadcastTo(v, target);
  if (!wide.ok() || static_cast<size_t>(v.shape().dims.size()) >
                        target.size()) {
    return EagerRuntimeError(absl::StrCat(
        "shape mismatch: value tensor of shape [",
        absl::StrJoin(v.shape().dims, ", "),
        "] cannot be broadcast to indexing result of shape [",
        absl::StrJoin(target, ", "), "]"));
  }
  v = *std::move(wide);
  if (!any_index) {
    if (!accumulate) return v;
    return Apply(shape.dtype == DType::kBool ? OpKind::kOr : OpKind::kAdd,
                 std::move(x), std::move(v));
  }
  // scatter-add needs numbers: bool accumulates (or) through int8.
  const bool bool_add = accumulate && shape.dtype == DType::kBool;
  if (bool_add) {
    TXLA_ASSIGN_OR_RETURN(x, MakeConvert(std::move(x), DType::kI8));
    TXLA_ASSIGN_OR_RETURN(v, MakeConvert(std::move(v), DType::kI8));
  }
  TXLA_ASSIGN_OR_RETURN(
      NodePtr node,
      MakeNode(OpKind::kScatter, {std::move(x), std::move(g.idx), std::move(v)},
               Attrs()
                   .Set("window_dims", std::move(g.offset_dims))
                   .Set("inserted_dims", g.dims)
                   .Set("scatter_dim_map", g.dims)
                   .Set("index_vec_dim", g.index_vec_dim)
                   .Set("kind", accumulate ? "add" : "replace")));
  Value out(std::move(node));
  if (!bool_add) return out;
  TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0, DType::kI8,
                                                out.shape().dims));
  return Compare(std::move(out), std::move(zero), "NE");
}

absl::StatusOr<Value> IndexOutOfRange(Value index, int64_t low, int64_t size,
                                      std::optional<int64_t> exempt) {
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(index), DType::kI64));
  const std::vector<int64_t> dims = v.shape().dims;
  TXLA_ASSIGN_OR_RETURN(Value lo, MakeLiteral(static_cast<double>(low),
                                              DType::kI64, dims));
  TXLA_ASSIGN_OR_RETURN(Value hi, MakeLiteral(static_cast<double>(size),
                                              DType::kI64, dims));
  TXLA_ASSIGN_OR_RETURN(Value below, Compare(v, std::move(lo), "LT"));
  TXLA_ASSIGN_OR_RETURN(Value above, Compare(v, std::move(hi), "GE"));
  TXLA_ASSIGN_OR_RETURN(Value outside, Apply(OpKind::kOr, std::move(below),
                                             std::move(above)));
  if (exempt.has_value()) {
    TXLA_ASSIGN_OR_RETURN(Value skip, MakeLiteral(static_cast<double>(*exempt),
                                                  DType::kI64, dims));
    TXLA_ASSIGN_OR_RETURN(Value counted, Compare(v, std::move(skip), "NE"));
    TXLA_ASSIGN_OR_RETURN(outside, Apply(OpKind::kAnd, std::move(outside),
                                         std::move(counted)));
  }
  if (dims.empty()) return outside;
  return MakeReduce(std::move(outside), Range(0, dims.size()), "or", false);
}

absl::StatusOr<Value> FoldCheck(Value code, Value bad, int64_t number) {
  if (bad.shape() != Shape(DType::kBool, {})) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a device check's flag must be a pred scalar, got ",
        bad.shape().ToString()));
  }
  if (!code) {
    TXLA_ASSIGN_OR_RETURN(code, MakeLiteral(0, DType::kI32, {}));
  }
  TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0, DType::kI32, {}));
  TXLA_ASSIGN_OR_RETURN(Value clean, Compare(code, std::move(zero), "EQ"));
  TXLA_ASSIGN_OR_RETURN(Value first, Apply(OpKind::kAnd, std::move(bad),
                                           std::move(clean)));
  TXLA_ASSIGN_OR_RETURN(Value n, MakeLiteral(static_cast<double>(number),
                                             DType::kI32, {}));
  return Select(std::move(first), std::move(n), std::move(code));
}

}  // namespace torch_xla::ops
