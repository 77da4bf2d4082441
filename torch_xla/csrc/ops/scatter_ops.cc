#include "torch_xla/csrc/ops/scatter_ops.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/ir/error_class.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/build_util.h"
#include "torch_xla/csrc/ops/cumulative_ops.h"

namespace torch_xla::ops {
namespace {

int64_t Rank(const Value& v) {
  return static_cast<int64_t>(v.shape().dims.size());
}

int64_t NumElements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// `dims`, or [1] for a 0-d shape (a scalar indexes like a 1-vector).
std::vector<int64_t> AtLeast1d(std::vector<int64_t> dims) {
  if (dims.empty()) dims.push_back(1);
  return dims;
}

std::vector<int64_t> AllBut(int64_t rank, int64_t skip) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i) {
    if (i != skip) out.push_back(i);
  }
  return out;
}

// [*index's dims, rank] coordinates for one element per index element:
// index's value along `dim`, the element's own position along the others.
absl::StatusOr<Value> ElementCoordinates(Value index, int64_t dim,
                                         int64_t rank) {
  const std::vector<int64_t> shape = index.shape().dims;
  std::vector<int64_t> column = shape;
  column.push_back(1);
  std::vector<Value> columns;
  for (int64_t k = 0; k < rank; ++k) {
    Value c = index;
    if (k != dim) {
      TXLA_ASSIGN_OR_RETURN(c, Iota(DType::kI64, shape, k));
    }
    TXLA_ASSIGN_OR_RETURN(c, MakeReshape(std::move(c), column));
    columns.push_back(std::move(c));
  }
  if (rank == 1) return columns[0];
  TXLA_ASSIGN_OR_RETURN(
      NodePtr node,
      MakeNode(OpKind::kConcatenate, std::move(columns),
               Attrs().Set("dimension", static_cast<int64_t>(shape.size()))));
  return Value(std::move(node));
}

// The integer index as s64 of `dims`.
absl::StatusOr<Value> S64Index(Value index, const std::vector<int64_t>& dims) {
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(index), DType::kI64));
  return MakeReshape(std::move(v), dims);
}

// One scatter of `updates` ([*coordinates' batch]) into `target` at the
// full coordinates `coords` ([*batch, rank]).
absl::StatusOr<Value> ScatterElements(Value target, Value coords,
                                      Value updates, bool add) {
  const int64_t rank = Rank(target);
  const int64_t batch = Rank(coords) - 1;
  TXLA_ASSIGN_OR_RETURN(
      NodePtr node,
      MakeNode(OpKind::kScatter,
               {std::move(target), std::move(coords), std::move(updates)},
               Attrs()
                   .Set("window_dims", std::vector<int64_t>{})
                   .Set("inserted_dims", Range(0, rank))
                   .Set("scatter_dim_map", Range(0, rank))
                   .Set("index_vec_dim", batch)
                   .Set("kind", add ? "add" : "replace")));
  return Value(std::move(node));
}

// `target` with `updates` scattered (replaced or added; bool adds as or,
// through s32 counts) by `scatter(target, updates)`.
template <typename ScatterFn>
absl::StatusOr<Value> ScatterMaybeBool(Value target, Value updates, bool add,
                                       ScatterFn scatter) {
  if (!add || target.shape().dtype != DType::kBool) {
    return scatter(std::move(target), std::move(updates), add);
  }
  TXLA_ASSIGN_OR_RETURN(Value zeros,
                        MakeLiteral(0, DType::kI32, target.shape().dims));
  TXLA_ASSIGN_OR_RETURN(Value counts_in,
                        MakeConvert(std::move(updates), DType::kI32));
  TXLA_ASSIGN_OR_RETURN(Value counts,
                        scatter(zeros, std::move(counts_in), true));
  TXLA_ASSIGN_OR_RETURN(Value any, Compare(std::move(counts),
                                           std::move(zeros), "NE"));
  return Apply(OpKind::kOr, std::move(target), std::move(any));
}

// The integer index as a 1-d s64 vector, negative values wrapped by
// `size` (as Python's).
absl::StatusOr<Value> WrappedFlatIndex(Value index, int64_t size) {
  const int64_t n = NumElements(index.shape().dims);
  TXLA_ASSIGN_OR_RETURN(Value idx, S64Index(std::move(index), {n}));
  TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0, DType::kI64, {n}));
  TXLA_ASSIGN_OR_RETURN(Value wrap, MakeLiteral(static_cast<double>(size),
                                                DType::kI64, {n}));
  TXLA_ASSIGN_OR_RETURN(Value negative, Compare(idx, std::move(zero), "LT"));
  TXLA_ASSIGN_OR_RETURN(Value wrapped, Apply(OpKind::kAdd, idx,
                                             std::move(wrap)));
  return Select(std::move(negative), std::move(wrapped), std::move(idx));
}

// Gather of the slices of x along `dim` at the 1-d s64 `idx`.
absl::StatusOr<Value> GatherSlices(Value x, int64_t dim, Value idx) {
  const int64_t rank = Rank(x);
  std::vector<int64_t> sizes = x.shape().dims;
  sizes[dim] = 1;
  TXLA_ASSIGN_OR_RETURN(
      NodePtr node,
      MakeNode(OpKind::kGather, {std::move(x), std::move(idx)},
               Attrs()
                   .Set("offset_dims", AllBut(rank, dim))
                   .Set("collapsed_dims", std::vector<int64_t>{dim})
                   .Set("start_index_map", std::vector<int64_t>{dim})
                   .Set("index_vec_dim", static_cast<int64_t>(1))
                   .Set("slice_sizes", std::move(sizes))));
  return Value(std::move(node));
}

// `base` with the slices `updates` scattered along `dim` at the 1-d s64
// `idx`.
absl::StatusOr<Value> ScatterSlices(Value base, int64_t dim, Value idx,
                                    Value updates, bool add) {
  const int64_t rank = Rank(base);
  TXLA_ASSIGN_OR_RETURN(
      NodePtr node,
      MakeNode(OpKind::kScatter,
               {std::move(base), std::move(idx), std::move(updates)},
               Attrs()
                   .Set("window_dims", AllBut(rank, dim))
                   .Set("inserted_dims", std::vector<int64_t>{dim})
                   .Set("scatter_dim_map", std::vector<int64_t>{dim})
                   .Set("index_vec_dim", static_cast<int64_t>(1))
                   .Set("kind", add ? "add" : "replace")));
  return Value(std::move(node));
}

// Slices `source` (x's rank) replaced (add false) or added at `index`
// along `dim`; a 0-d x works as a 1-vector.
absl::StatusOr<Value> ScatterAlongSlices(Value x, int64_t dim, Value index,
                                         Value source, bool add) {
  const std::vector<int64_t> shape = x.shape().dims;
  if (shape.empty()) {
    TXLA_ASSIGN_OR_RETURN(Value x1, MakeReshape(std::move(x), {1}));
    if (Rank(source) == 0) {
      TXLA_ASSIGN_OR_RETURN(source, MakeReshape(std::move(source), {1}));
    }
    TXLA_ASSIGN_OR_RETURN(Value out, ScatterAlongSlices(std::move(x1), 0,
                                                        std::move(index),
                                                        std::move(source),
                                                        add));
    return MakeReshape(std::move(out), {});
  }
  const int64_t n = NumElements(index.shape().dims);
  TXLA_ASSIGN_OR_RETURN(Value idx, S64Index(std::move(index), {n}));
  return ScatterMaybeBool(
      std::move(x), std::move(source), add,
      [&](Value target, Value updates, bool kind_add) {
        return ScatterSlices(std::move(target), dim, idx, std::move(updates),
                             kind_add);
      });
}

}  // namespace

absl::StatusOr<Value> GatherAlongDim(Value x, int64_t dim, Value index) {
  const std::vector<int64_t> ishape = index.shape().dims;
  if (NumElements(ishape) == 0) {
    return MakeLiteral(0, x.shape().dtype, ishape);
  }
  const std::vector<int64_t> xdims = AtLeast1d(x.shape().dims);
  const int64_t rank = static_cast<int64_t>(xdims.size());
  TXLA_ASSIGN_OR_RETURN(Value v, MakeReshape(std::move(x), xdims));
  TXLA_ASSIGN_OR_RETURN(Value iv, S64Index(std::move(index),
                                           AtLeast1d(ishape)));
  TXLA_ASSIGN_OR_RETURN(Value coords,
                        ElementCoordinates(std::move(iv), dim, rank));
  TXLA_ASSIGN_OR_RETURN(
      NodePtr node,
      MakeNode(OpKind::kGather, {std::move(v), std::move(coords)},
               Attrs()
                   .Set("offset_dims", std::vector<int64_t>{})
                   .Set("collapsed_dims", Range(0, rank))
                   .Set("start_index_map", Range(0, rank))
                   .Set("index_vec_dim", rank)
                   .Set("slice_sizes", std::vector<int64_t>(rank, 1))));
  return MakeReshape(Value(std::move(node)), ishape);
}

absl::StatusOr<Value> ScatterAlongDim(Value x, int64_t dim, Value index,
                                      Value src, bool broadcast_src,
                                      bool add) {
  const std::vector<int64_t> shape = x.shape().dims;
  const std::vector<int64_t> ishape = AtLeast1d(index.shape().dims);
  if (NumElements(ishape) == 0) return x;
  const int64_t rank = static_cast<int64_t>(AtLeast1d(shape).size());
  Value u;
  if (broadcast_src) {
    TXLA_ASSIGN_OR_RETURN(u, MakeConvert(std::move(src), x.shape().dtype));
    TXLA_ASSIGN_OR_RETURN(u, MakeBroadcastTo(std::move(u), ishape));
  } else {
    const std::vector<int64_t> src_dims = AtLeast1d(src.shape().dims);
    TXLA_ASSIGN_OR_RETURN(u, MakeReshape(std::move(src), src_dims));
    if (Rank(u) != static_cast<int64_t>(ishape.size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "scatter: src ", u.shape().ToString(),
          " must have the rank of index [", absl::StrJoin(ishape, ", "), "]"));
    }
    for (int64_t k = 0; k < Rank(u); ++k) {
      if (u.shape().dims[k] != ishape[k]) {
        TXLA_ASSIGN_OR_RETURN(u, MakeSliceDim(std::move(u), k, 0, ishape[k]));
      }
    }
  }
  TXLA_ASSIGN_OR_RETURN(Value v, MakeReshape(std::move(x), AtLeast1d(shape)));
  TXLA_ASSIGN_OR_RETURN(Value iv, S64Index(std::move(index), ishape));
  TXLA_ASSIGN_OR_RETURN(Value coords,
                        ElementCoordinates(std::move(iv), dim, rank));
  TXLA_ASSIGN_OR_RETURN(
      Value out,
      ScatterMaybeBool(std::move(v), std::move(u), add,
                       [&](Value target, Value updates, bool kind_add) {
                         return ScatterElements(std::move(target), coords,
                                                std::move(updates), kind_add);
                       }));
  return MakeReshape(std::move(out), shape);
}

absl::StatusOr<Value> ScatterReduce(Value x, int64_t dim, Value index,
                                    Value src, bool mean, bool include_self) {
  const Shape shape = x.shape();
  if (mean && !IsFloating(shape.dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "scatter_reduce: mean is built for floating x here, got ",
        shape.ToString()));
  }
  TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0, shape.dtype, {}));
  Value base = x;
  if (!include_self) {
    TXLA_ASSIGN_OR_RETURN(base, ScatterAlongDim(std::move(x), dim, index, zero,
                                                true, false));
  }
  TXLA_ASSIGN_OR_RETURN(Value total,
                        ScatterAlongDim(std::move(base), dim, index,
                                        std::move(src), false, true));
  if (!mean) return total;
  // Positions no index reaches keep count 1 (their own value).
  TXLA_ASSIGN_OR_RETURN(Value count, MakeLiteral(1, shape.dtype, shape.dims));
  if (!include_self) {
    TXLA_ASSIGN_OR_RETURN(count, ScatterAlongDim(std::move(count), dim, index,
                                                 zero, true, false));
  }
  TXLA_ASSIGN_OR_RETURN(Value one, MakeLiteral(1, shape.dtype, {}));
  TXLA_ASSIGN_OR_RETURN(count, ScatterAlongDim(std::move(count), dim,
                                               std::move(index),
                                               std::move(one), true, true));
  return Apply(OpKind::kDivide, std::move(total), std::move(count));
}

absl::StatusOr<Value> IndexSelect(Value x, int64_t dim, Value index) {
  if (Rank(x) == 0) return x;
  const int64_t n = NumElements(index.shape().dims);
  TXLA_ASSIGN_OR_RETURN(Value idx, S64Index(std::move(index), {n}));
  return GatherSlices(std::move(x), dim, std::move(idx));
}

absl::StatusOr<Value> IndexCopy(Value x, int64_t dim, Value index,
                                Value source) {
  return ScatterAlongSlices(std::move(x), dim, std::move(index),
                            std::move(source), false);
}

absl::StatusOr<Value> IndexAdd(Value x, int64_t dim, Value index,
                               Value source, Value alpha) {
  if (alpha) {
    TXLA_ASSIGN_OR_RETURN(alpha, MakeConvert(std::move(alpha),
                                             source.shape().dtype));
    TXLA_ASSIGN_OR_RETURN(source, ApplyTo(OpKind::kMultiply, std::move(source),
                                          std::move(alpha)));
  }
  return ScatterAlongSlices(std::move(x), dim, std::move(index),
                            std::move(source), true);
}

absl::StatusOr<Value> IndexFill(Value x, int64_t dim, Value index,
                                Value value) {
  const std::vector<int64_t> shape = AtLeast1d(x.shape().dims);
  const int64_t n = NumElements(index.shape().dims);
  // Eager wraps negative indices.
  TXLA_ASSIGN_OR_RETURN(Value idx, WrappedFlatIndex(std::move(index),
                                                    shape[dim]));
  std::vector<int64_t> rows = shape;
  rows[dim] = n;
  TXLA_ASSIGN_OR_RETURN(Value fill, MakeConvert(std::move(value),
                                                x.shape().dtype));
  TXLA_ASSIGN_OR_RETURN(fill, MakeBroadcastTo(std::move(fill), rows));
  return ScatterAlongSlices(std::move(x), dim, std::move(idx),
                            std::move(fill), false);
}

absl::StatusOr<Value> Take(Value x, Value index) {
  const std::vector<int64_t> ishape = index.shape().dims;
  const int64_t total = NumElements(x.shape().dims);
  if (NumElements(ishape) == 0 || total == 0) {
    return MakeLiteral(0, x.shape().dtype, ishape);
  }
  TXLA_ASSIGN_OR_RETURN(Value flat, MakeReshape(std::move(x), {total}));
  TXLA_ASSIGN_OR_RETURN(Value idx, WrappedFlatIndex(std::move(index), total));
  TXLA_ASSIGN_OR_RETURN(Value out,
                        GatherSlices(std::move(flat), 0, std::move(idx)));
  return MakeReshape(std::move(out), ishape);
}

absl::StatusOr<Value> Put(Value x, Value index, Value source,
                          bool accumulate) {
  const std::vector<int64_t> shape = x.shape().dims;
  const int64_t n = NumElements(index.shape().dims);
  const int64_t total = NumElements(shape);
  if (n == 0 || total == 0) return x;
  TXLA_ASSIGN_OR_RETURN(Value flat, MakeReshape(std::move(x), {total}));
  TXLA_ASSIGN_OR_RETURN(Value idx, WrappedFlatIndex(std::move(index), total));
  TXLA_ASSIGN_OR_RETURN(Value src, MakeReshape(std::move(source), {n}));
  TXLA_ASSIGN_OR_RETURN(
      Value out,
      ScatterMaybeBool(std::move(flat), std::move(src), accumulate,
                       [&](Value target, Value updates, bool add) {
                         return ScatterSlices(std::move(target), 0, idx,
                                              std::move(updates), add);
                       }));
  return MakeReshape(std::move(out), shape);
}

absl::StatusOr<Value> MaskedIndexPut(Value x, int64_t mask_at, Value mask,
                                     Value values, bool accumulate) {
  const Shape shape = x.shape();
  const int64_t m = Rank(mask);
  std::vector<int64_t> before(shape.dims.begin(),
                              shape.dims.begin() + mask_at);
  std::vector<int64_t> after(shape.dims.begin() + mask_at + m,
                             shape.dims.end());
  // The selected count broadcasts as one dim of size 1.
  std::vector<int64_t> value_shape = before;
  value_shape.push_back(1);
  value_shape.insert(value_shape.end(), after.begin(), after.end());
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(values), shape.dtype));
  absl::StatusOr<Value> wide = MakeBroadcastTo(v, value_shape);
  if (!wide.ok() || Rank(v) > static_cast<int64_t>(value_shape.size())) {
    return EagerRuntimeError(absl::StrCat(
        "shape mismatch: value tensor of shape [",
        absl::StrJoin(v.shape().dims, ", "),
        "] cannot be broadcast to indexing result of shape [",
        absl::StrJoin(value_shape, ", "), "]"));
  }
  std::vector<int64_t> spread = before;
  spread.insert(spread.end(), m, 1);
  spread.insert(spread.end(), after.begin(), after.end());
  TXLA_ASSIGN_OR_RETURN(v, MakeReshape(*std::move(wide), spread));
  TXLA_ASSIGN_OR_RETURN(v, MakeBroadcastTo(std::move(v), shape.dims));
  TXLA_ASSIGN_OR_RETURN(Value keep, MakeConvert(std::move(mask),
                                                DType::kBool));
  TXLA_ASSIGN_OR_RETURN(keep, BroadcastInDim(std::move(keep), shape.dims,
                                             Range(mask_at, mask_at + m)));
  if (!accumulate) return Select(std::move(keep), std::move(v), std::move(x));
  TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0, shape.dtype, shape.dims));
  TXLA_ASSIGN_OR_RETURN(Value added, Select(std::move(keep), std::move(v),
                                            std::move(zero)));
  return Apply(OpKind::kAdd, std::move(x), std::move(added));
}

namespace {

// For the flat pred mask `m`: the number of trues before each position
// (the source element a true position takes), s64.
absl::StatusOr<Value> MaskPositions(const Value& m) {
  TXLA_ASSIGN_OR_RETURN(Value ones, MakeConvert(m, DType::kI64));
  TXLA_ASSIGN_OR_RETURN(Value upto,
                        Cumulative(ones, 0, OpKind::kAdd, DType::kI64));
  return Apply(OpKind::kSubtract, std::move(upto), std::move(ones));
}

// `v` broadcast to `shape` and flattened.
absl::StatusOr<Value> FlatBroadcast(Value v, const std::vector<int64_t>& shape) {
  TXLA_ASSIGN_OR_RETURN(v, MakeBroadcastTo(std::move(v), shape));
  return MakeReshape(std::move(v), {NumElements(shape)});
}

}  // namespace

absl::StatusOr<MaskedScatterResult> MaskedScatter(
    Value x, Value mask, Value source, const std::vector<int64_t>& shape) {
  const int64_t total = NumElements(shape);
  const int64_t k = NumElements(source.shape().dims);
  MaskedScatterResult r;
  TXLA_ASSIGN_OR_RETURN(Value v, MakeBroadcastTo(std::move(x), shape));
  TXLA_ASSIGN_OR_RETURN(Value m, MakeBroadcastTo(std::move(mask), shape));
  TXLA_ASSIGN_OR_RETURN(Value flat_m, MakeReshape(m, {total}));
  if (total > 0) {
    TXLA_ASSIGN_OR_RETURN(Value count, MakeConvert(flat_m, DType::kI64));
    TXLA_ASSIGN_OR_RETURN(count, MakeReduce(std::move(count), {0}, "sum",
                                            false));
    TXLA_ASSIGN_OR_RETURN(Value limit, MakeLiteral(static_cast<double>(k),
                                                   DType::kI64, {}));
    TXLA_ASSIGN_OR_RETURN(r.too_many, Compare(std::move(count),
                                              std::move(limit), "GT"));
  }
  if (k == 0 || total == 0) {  // then the mask must be all false
    r.out = std::move(v);
    return r;
  }
  TXLA_ASSIGN_OR_RETURN(Value src, MakeReshape(std::move(source), {k}));
  TXLA_ASSIGN_OR_RETURN(Value pos, MaskPositions(flat_m));
  TXLA_ASSIGN_OR_RETURN(Value picked, GatherSlices(std::move(src), 0,
                                                   std::move(pos)));
  TXLA_ASSIGN_OR_RETURN(picked, MakeReshape(std::move(picked), shape));
  TXLA_ASSIGN_OR_RETURN(r.out, Select(std::move(m), std::move(picked),
                                      std::move(v)));
  return r;
}

absl::StatusOr<Value> MaskedScatterBackward(
    Value grad, Value mask, const std::vector<int64_t>& sizes) {
  const int64_t k = NumElements(sizes);
  const DType dtype = grad.shape().dtype;
  TXLA_ASSIGN_OR_RETURN(Value out, MakeLiteral(0, dtype, {k}));
  if (k == 0) return MakeReshape(std::move(out), sizes);
  TXLA_ASSIGN_OR_RETURN(std::vector<int64_t> shape,
                        InferBroadcastDims({&grad.shape(), &mask.shape()}));
  const int64_t total = NumElements(shape);
  TXLA_ASSIGN_OR_RETURN(Value g, FlatBroadcast(std::move(grad), shape));
  TXLA_ASSIGN_OR_RETURN(Value m, FlatBroadcast(std::move(mask), shape));
  // False positions add 0 at element 0; true ones hit distinct elements.
  TXLA_ASSIGN_OR_RETURN(Value pos, MaskPositions(m));
  TXLA_ASSIGN_OR_RETURN(Value zero_pos, MakeLiteral(0, DType::kI64, {total}));
  TXLA_ASSIGN_OR_RETURN(pos, Select(m, std::move(pos), std::move(zero_pos)));
  TXLA_ASSIGN_OR_RETURN(Value zeros, MakeLiteral(0, dtype, {total}));
  TXLA_ASSIGN_OR_RETURN(g, Select(std::move(m), std::move(g),
                                  std::move(zeros)));
  TXLA_ASSIGN_OR_RETURN(out, ScatterSlices(std::move(out), 0, std::move(pos),
                                           std::move(g), true));
  return MakeReshape(std::move(out), sizes);
}

}  // namespace torch_xla::ops
