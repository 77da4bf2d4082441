#include "torch_xla/csrc/ops/shape_ops.h"

#include <cstdint>
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
