#include "torch_xla/csrc/ops/shape_ops.h"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/build_util.h"

namespace torch_xla::ops {
namespace {

absl::StatusOr<Value> Build(OpKind kind, std::vector<Value> operands,
                            Attrs attrs) {
  TXLA_ASSIGN_OR_RETURN(NodePtr node,
                        MakeNode(kind, std::move(operands), std::move(attrs)));
  return Value(std::move(node));
}

absl::StatusOr<Value> Concatenate(std::vector<Value> values, int64_t dim) {
  return Build(OpKind::kConcatenate, std::move(values),
               Attrs().Set("dimension", dim));
}

// x rolled by `shift` along `dim`: its last `shift` entries move first.
absl::StatusOr<Value> RollDim(Value x, int64_t shift, int64_t dim) {
  const int64_t n = x.shape().dims[dim];
  if (n == 0) return x;
  shift = ((shift % n) + n) % n;
  if (shift == 0) return x;
  TXLA_ASSIGN_OR_RETURN(Value tail, MakeSliceDim(x, dim, n - shift, n));
  TXLA_ASSIGN_OR_RETURN(Value head, MakeSliceDim(x, dim, 0, n - shift));
  return Concatenate({std::move(tail), std::move(head)}, dim);
}

absl::StatusOr<Value> Reverse(Value x, int64_t dim) {
  return Build(OpKind::kReverse, {std::move(x)},
               Attrs().Set("dims", std::vector<int64_t>{dim}));
}

// x with `lo` mirrored entries before and `hi` after along `dim` (the edge
// itself not repeated).
absl::StatusOr<Value> ReflectDim(Value x, int64_t dim, int64_t lo,
                                 int64_t hi) {
  const int64_t n = x.shape().dims[dim];
  std::vector<Value> parts;
  if (lo) {
    TXLA_ASSIGN_OR_RETURN(Value edge, MakeSliceDim(x, dim, 1, lo + 1));
    TXLA_ASSIGN_OR_RETURN(edge, Reverse(std::move(edge), dim));
    parts.push_back(std::move(edge));
  }
  parts.push_back(x);
  if (hi) {
    TXLA_ASSIGN_OR_RETURN(Value edge, MakeSliceDim(x, dim, n - hi - 1, n - 1));
    TXLA_ASSIGN_OR_RETURN(edge, Reverse(std::move(edge), dim));
    parts.push_back(std::move(edge));
  }
  if (parts.size() == 1) return x;
  return Concatenate(std::move(parts), dim);
}

// x with its first / last entry along `dim` repeated lo / hi times.
absl::StatusOr<Value> ReplicateDim(Value x, int64_t dim, int64_t lo,
                                   int64_t hi) {
  const int64_t n = x.shape().dims[dim];
  std::vector<Value> parts;
  for (auto [count, start] : {std::pair<int64_t, int64_t>{lo, 0},
                              std::pair<int64_t, int64_t>{-1, -1},
                              std::pair<int64_t, int64_t>{hi, n - 1}}) {
    if (start < 0) {
      parts.push_back(x);
    } else if (count) {
      TXLA_ASSIGN_OR_RETURN(Value edge, MakeSliceDim(x, dim, start, start + 1));
      std::vector<int64_t> dims = x.shape().dims;
      dims[dim] = count;
      TXLA_ASSIGN_OR_RETURN(edge, MakeBroadcastTo(std::move(edge), dims));
      parts.push_back(std::move(edge));
    }
  }
  if (parts.size() == 1) return x;
  return Concatenate(std::move(parts), dim);
}

// ReflectDim's gradient: g's middle n entries plus each mirrored edge,
// reversed, added where it was copied from.
absl::StatusOr<Value> ReflectDimBackward(Value g, int64_t dim, int64_t lo,
                                         int64_t hi, int64_t n) {
  TXLA_ASSIGN_OR_RETURN(Value acc, MakeSliceDim(g, dim, lo, lo + n));
  TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0, g.shape().dtype, {}));
  const size_t rank = g.shape().dims.size();
  for (auto [count, from, start] :
       {std::tuple<int64_t, int64_t, int64_t>{lo, 0, 1},
        std::tuple<int64_t, int64_t, int64_t>{hi, lo + n, n - hi - 1}}) {
    if (!count) continue;
    TXLA_ASSIGN_OR_RETURN(Value edge, MakeSliceDim(g, dim, from, from + count));
    TXLA_ASSIGN_OR_RETURN(edge, Reverse(std::move(edge), dim));
    std::vector<int64_t> low(rank, 0), high(rank, 0);
    low[dim] = start;
    high[dim] = n - start - count;
    TXLA_ASSIGN_OR_RETURN(
        Value placed, Build(OpKind::kPad, {std::move(edge), zero},
                            Attrs().Set("low", std::move(low))
                                .Set("high", std::move(high))));
    TXLA_ASSIGN_OR_RETURN(
        acc, Apply(OpKind::kAdd, std::move(acc), std::move(placed)));
  }
  return acc;
}

// ReplicateDim's gradient: g's middle n entries, each edge entry plus the
// sum of its copies.
absl::StatusOr<Value> ReplicateDimBackward(Value g, int64_t dim, int64_t lo,
                                           int64_t hi, int64_t n) {
  TXLA_ASSIGN_OR_RETURN(Value acc, MakeSliceDim(g, dim, lo, lo + n));
  for (auto [count, from, at] :
       {std::tuple<int64_t, int64_t, int64_t>{lo, 0, 0},
        std::tuple<int64_t, int64_t, int64_t>{hi, lo + n, n - 1}}) {
    if (!count) continue;
    TXLA_ASSIGN_OR_RETURN(Value copies,
                          MakeSliceDim(g, dim, from, from + count));
    TXLA_ASSIGN_OR_RETURN(
        Value total, MakeReduce(std::move(copies), {dim}, "sum",
                                /*keep_dims=*/true));
    TXLA_ASSIGN_OR_RETURN(Value edge, MakeSliceDim(acc, dim, at, at + 1));
    TXLA_ASSIGN_OR_RETURN(
        edge, Apply(OpKind::kAdd, std::move(total), std::move(edge)));
    TXLA_ASSIGN_OR_RETURN(
        acc, MakeUpdateSliceDim(std::move(acc), std::move(edge), dim, at));
  }
  return acc;
}

// Where aten.diagonal finds a diagonal: the permutation moving d1, d2
// last, its first row and column, and its length.
struct DiagonalGeometry {
  std::vector<int64_t> perm;
  int64_t row = 0, col = 0, n = 0;
};

DiagonalGeometry Diagonal(const std::vector<int64_t>& dims, int64_t offset,
                          int64_t d1, int64_t d2) {
  DiagonalGeometry g;
  for (int64_t i = 0; i < static_cast<int64_t>(dims.size()); ++i) {
    if (i != d1 && i != d2) g.perm.push_back(i);
  }
  g.perm.push_back(d1);
  g.perm.push_back(d2);
  g.row = std::max<int64_t>(-offset, 0);
  g.col = std::max<int64_t>(offset, 0);
  g.n = std::max<int64_t>(std::min(dims[d1] - g.row, dims[d2] - g.col), 0);
  return g;
}

}  // namespace

absl::StatusOr<Value> Cat(std::vector<Value> values, int64_t dim,
                          DType dtype) {
  std::vector<Value> parts;
  for (Value& v : values) {
    const std::vector<int64_t>& dims = v.shape().dims;
    if (dims.size() == 1 && dims[0] == 0) continue;  // legacy empty
    TXLA_ASSIGN_OR_RETURN(Value converted, MakeConvert(std::move(v), dtype));
    parts.push_back(std::move(converted));
  }
  if (parts.empty()) return MakeLiteral(0, dtype, {0});
  if (parts.size() == 1) return std::move(parts[0]);
  return Concatenate(std::move(parts), dim);
}

absl::StatusOr<Value> Stack(std::vector<Value> values, int64_t dim,
                            DType dtype) {
  std::vector<Value> parts;
  for (Value& v : values) {
    std::vector<int64_t> dims = v.shape().dims;
    dims.insert(dims.begin() + dim, 1);
    TXLA_ASSIGN_OR_RETURN(Value converted, MakeConvert(std::move(v), dtype));
    TXLA_ASSIGN_OR_RETURN(Value part, MakeReshape(std::move(converted), dims));
    parts.push_back(std::move(part));
  }
  if (parts.size() == 1) return std::move(parts[0]);
  return Concatenate(std::move(parts), dim);
}

absl::StatusOr<Value> Flip(Value x, const std::vector<int64_t>& dims) {
  if (dims.empty() || x.shape().dims.empty()) return x;
  return Build(OpKind::kReverse, {std::move(x)}, Attrs().Set("dims", dims));
}

absl::StatusOr<Value> Roll(Value x, const std::vector<int64_t>& shifts,
                           const std::vector<int64_t>& dims) {
  if (dims.empty()) {
    const std::vector<int64_t> shape = x.shape().dims;
    int64_t numel = 1;
    for (int64_t d : shape) numel *= d;
    TXLA_ASSIGN_OR_RETURN(Value flat, MakeReshape(std::move(x), {numel}));
    TXLA_ASSIGN_OR_RETURN(Value rolled, RollDim(std::move(flat), shifts[0], 0));
    return MakeReshape(std::move(rolled), shape);
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    TXLA_ASSIGN_OR_RETURN(x, RollDim(std::move(x), shifts[i], dims[i]));
  }
  return x;
}

absl::StatusOr<Value> Repeat(Value x, const std::vector<int64_t>& repeats) {
  // [s0, s1, ..] -> [r0, s0, r1, s1, ..] -> [r0 * s0, r1 * s1, ..]
  std::vector<int64_t> shape = x.shape().dims;
  shape.insert(shape.begin(), repeats.size() - shape.size(), 1);
  TXLA_ASSIGN_OR_RETURN(Value v, MakeReshape(std::move(x), shape));
  std::vector<int64_t> spread, kept, out;
  for (size_t i = 0; i < shape.size(); ++i) {
    spread.push_back(repeats[i]);
    spread.push_back(shape[i]);
    kept.push_back(static_cast<int64_t>(2 * i + 1));
    out.push_back(repeats[i] * shape[i]);
  }
  TXLA_ASSIGN_OR_RETURN(v, BroadcastInDim(std::move(v), spread, kept));
  return MakeReshape(std::move(v), out);
}

absl::StatusOr<Value> Triangle(Value x, Value diagonal, bool lower) {
  const std::vector<int64_t> shape = x.shape().dims;
  const int64_t rank = static_cast<int64_t>(shape.size());
  const std::vector<int64_t> plane = {shape[rank - 2], shape[rank - 1]};
  TXLA_ASSIGN_OR_RETURN(Value cols, Iota(DType::kI64, plane, 1));
  TXLA_ASSIGN_OR_RETURN(Value rows, Iota(DType::kI64, plane, 0));
  TXLA_ASSIGN_OR_RETURN(Value diff, Apply(OpKind::kSubtract, std::move(cols),
                                          std::move(rows)));
  TXLA_ASSIGN_OR_RETURN(Value k, MakeBroadcastTo(std::move(diagonal), plane));
  TXLA_ASSIGN_OR_RETURN(
      Value mask, Compare(std::move(diff), std::move(k), lower ? "LE" : "GE"));
  TXLA_ASSIGN_OR_RETURN(mask,
                        BroadcastInDim(std::move(mask), shape,
                                       {rank - 2, rank - 1}));
  TXLA_ASSIGN_OR_RETURN(Value zeros,
                        MakeLiteral(0, x.shape().dtype, shape));
  return Select(std::move(mask), std::move(x), std::move(zeros));
}

absl::StatusOr<Value> ConstantPad(Value x, Value fill,
                                  std::vector<int64_t> low,
                                  std::vector<int64_t> high) {
  return Build(OpKind::kPad, {std::move(x), std::move(fill)},
               Attrs().Set("low", std::move(low)).Set("high", std::move(high)));
}

absl::StatusOr<Value> ModePad(Value x, const std::vector<int64_t>& dims,
                              const std::vector<int64_t>& low,
                              const std::vector<int64_t>& high, bool reflect) {
  for (size_t i = 0; i < dims.size(); ++i) {
    TXLA_ASSIGN_OR_RETURN(
        x, reflect ? ReflectDim(std::move(x), dims[i], low[i], high[i])
                   : ReplicateDim(std::move(x), dims[i], low[i], high[i]));
  }
  return x;
}

absl::StatusOr<Value> ModePadBackward(Value grad,
                                      const std::vector<int64_t>& sizes,
                                      const std::vector<int64_t>& dims,
                                      const std::vector<int64_t>& low,
                                      const std::vector<int64_t>& high,
                                      bool reflect) {
  for (size_t i = dims.size(); i-- > 0;) {
    const int64_t d = dims[i], n = sizes[d];
    TXLA_ASSIGN_OR_RETURN(
        grad,
        reflect ? ReflectDimBackward(std::move(grad), d, low[i], high[i], n)
                : ReplicateDimBackward(std::move(grad), d, low[i], high[i],
                                       n));
  }
  return grad;
}

absl::StatusOr<Value> DiagonalValue(Value x, int64_t offset, int64_t d1,
                                    int64_t d2) {
  DiagonalGeometry g = Diagonal(x.shape().dims, offset, d1, d2);
  const int64_t n = g.n;
  if (n == 0) g.row = g.col = 0;  // an empty diagonal: keep it in bounds
  TXLA_ASSIGN_OR_RETURN(Value v, MakeTranspose(std::move(x), g.perm));
  std::vector<int64_t> batch = v.shape().dims;
  batch.resize(batch.size() - 2);
  const size_t nb = batch.size();
  std::vector<int64_t> start(nb, 0), limit = batch;
  start.push_back(g.row);
  start.push_back(g.col);
  limit.push_back(g.row + n);
  limit.push_back(g.col + n);
  TXLA_ASSIGN_OR_RETURN(v, Build(OpKind::kSlice, {std::move(v)},
                                 Attrs().Set("start", std::move(start))
                                     .Set("limit", std::move(limit))));
  std::vector<int64_t> flat = batch;
  flat.push_back(n * n);
  TXLA_ASSIGN_OR_RETURN(v, MakeReshape(std::move(v), flat));
  // Elements (i, i) of an n x n block sit n + 1 apart once flattened.
  std::vector<int64_t> strides(nb, 1);
  strides.push_back(n + 1);
  return Build(OpKind::kSlice, {std::move(v)},
               Attrs()
                   .Set("start", std::vector<int64_t>(nb + 1, 0))
                   .Set("limit", std::move(flat))
                   .Set("strides", std::move(strides)));
}

absl::StatusOr<Value> DiagonalUpdate(Value base, Value update, int64_t offset,
                                     int64_t d1, int64_t d2) {
  const DiagonalGeometry g = Diagonal(base.shape().dims, offset, d1, d2);
  if (g.n == 0) return base;
  std::vector<int64_t> inverse(g.perm.size());
  for (size_t i = 0; i < g.perm.size(); ++i) inverse[g.perm[i]] = i;
  const DType dtype = base.shape().dtype;
  TXLA_ASSIGN_OR_RETURN(Value v, MakeTranspose(std::move(base), g.perm));
  const std::vector<int64_t> dims = v.shape().dims;
  const int64_t nb = static_cast<int64_t>(dims.size()) - 2;
  const int64_t rows = dims[nb], cols = dims[nb + 1];
  // Row i of the plane holds update[i - row] at column i + offset.
  std::vector<int64_t> low(nb + 1, 0), high(nb + 1, 0);
  low[nb] = g.row;
  high[nb] = rows - g.row - g.n;
  TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0, dtype, {}));
  TXLA_ASSIGN_OR_RETURN(Value column,
                        ConstantPad(std::move(update), std::move(zero),
                                    std::move(low), std::move(high)));
  TXLA_ASSIGN_OR_RETURN(Value spread, BroadcastInDim(std::move(column), dims,
                                                     Range(0, nb + 1)));
  const std::vector<int64_t> plane = {rows, cols};
  TXLA_ASSIGN_OR_RETURN(Value col_index, Iota(DType::kI64, plane, 1));
  TXLA_ASSIGN_OR_RETURN(Value row_index, Iota(DType::kI64, plane, 0));
  TXLA_ASSIGN_OR_RETURN(Value diff, Apply(OpKind::kSubtract,
                                          std::move(col_index),
                                          std::move(row_index)));
  TXLA_ASSIGN_OR_RETURN(Value k, MakeLiteral(static_cast<double>(offset),
                                             DType::kI64, plane));
  TXLA_ASSIGN_OR_RETURN(Value mask,
                        Compare(std::move(diff), std::move(k), "EQ"));
  TXLA_ASSIGN_OR_RETURN(mask,
                        BroadcastInDim(std::move(mask), dims, {nb, nb + 1}));
  TXLA_ASSIGN_OR_RETURN(
      Value out, Select(std::move(mask), std::move(spread), std::move(v)));
  return MakeTranspose(std::move(out), inverse);
}

absl::StatusOr<Value> SelectBackward(Value grad,
                                     const std::vector<int64_t>& sizes,
                                     int64_t dim, int64_t index) {
  std::vector<int64_t> kept = sizes;
  kept[dim] = 1;
  std::vector<int64_t> low(sizes.size(), 0), high(sizes.size(), 0);
  low[dim] = index;
  high[dim] = sizes[dim] - index - 1;
  const DType dtype = grad.shape().dtype;
  TXLA_ASSIGN_OR_RETURN(Value g, MakeReshape(std::move(grad), kept));
  TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0, dtype, {}));
  return ConstantPad(std::move(g), std::move(zero), std::move(low),
                     std::move(high));
}

absl::StatusOr<Value> Arange(int64_t n, DType dtype, DType compute,
                             Value start, Value step) {
  TXLA_ASSIGN_OR_RETURN(Value i, Iota(compute, {n}, 0));
  if (start) {
    TXLA_ASSIGN_OR_RETURN(Value steps, MakeBroadcastTo(std::move(step), {n}));
    TXLA_ASSIGN_OR_RETURN(Value from, MakeBroadcastTo(std::move(start), {n}));
    TXLA_ASSIGN_OR_RETURN(
        Value offsets, Apply(OpKind::kMultiply, std::move(i), std::move(steps)));
    TXLA_ASSIGN_OR_RETURN(
        i, Apply(OpKind::kAdd, std::move(from), std::move(offsets)));
  }
  return MakeConvert(std::move(i), dtype);
}

}  // namespace torch_xla::ops
