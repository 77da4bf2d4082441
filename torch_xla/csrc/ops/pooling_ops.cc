#include "torch_xla/csrc/ops/pooling_ops.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/build_util.h"
#include "torch_xla/csrc/ops/opmath.h"

namespace torch_xla::ops {
namespace {

using Dims = std::vector<int64_t>;

int64_t Product(const Dims& dims, size_t begin = 0) {
  int64_t n = 1;
  for (size_t i = begin; i < dims.size(); ++i) n *= dims[i];
  return n;
}

Dims Concat(Dims a, const Dims& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// `lead` entries of `fill` before `spatial`: a window attribute over all
// of an operand's dims.
Dims Full(size_t lead, int64_t fill, const Dims& spatial) {
  return Concat(Dims(lead, fill), spatial);
}

// The pooled sizes of `in` (the spatial sizes) under `w`.
Dims PooledSizes(const Dims& in, const PoolWindow& w) {
  Dims out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const int64_t reach = w.dilation[i] * (w.kernel[i] - 1) + 1;
    out[i] = (in[i] + w.pad_lo[i] + w.pad_hi[i] - reach) / w.stride[i] + 1;
  }
  return out;
}

Dims Spatial(const Value& x, size_t nsp) {
  const Dims& dims = x.shape().dims;
  return Dims(dims.end() - nsp, dims.end());
}

Dims Leading(const Value& x, size_t nsp) {
  const Dims& dims = x.shape().dims;
  return Dims(dims.begin(), dims.end() - nsp);
}

absl::StatusOr<std::vector<Value>> ReduceWindow(std::vector<Value> operands,
                                                const char* kind, Attrs attrs) {
  TXLA_ASSIGN_OR_RETURN(
      NodePtr node, MakeNode(OpKind::kReduceWindow, std::move(operands),
                             std::move(attrs).Set("kind", kind)));
  std::vector<Value> out;
  for (size_t i = 0; i < node->num_outputs(); ++i) {
    out.emplace_back(node, static_cast<int>(i));
  }
  return out;
}

// The window attributes of `w` over an operand with `lead` leading dims
// (with `pad`, its padding).
Attrs WindowAttrs(const PoolWindow& w, size_t lead, bool pad = true) {
  Attrs attrs = Attrs()
                    .Set("window", Full(lead, 1, w.kernel))
                    .Set("strides", Full(lead, 1, w.stride));
  if (pad) {
    attrs.Set("pad_lo", Full(lead, 0, w.pad_lo))
        .Set("pad_hi", Full(lead, 0, w.pad_hi));
  }
  return attrs;
}

absl::StatusOr<Value> Lit(double value, DType dtype, const Dims& dims) {
  return MakeLiteral(value, dtype, dims);
}

// Each element's flat index into its input plane (h * W + w, ...), int64,
// broadcast over x's leading dims.
absl::StatusOr<Value> FlatIndex(const Dims& dims, size_t nsp) {
  const size_t lead = dims.size() - nsp;
  const Dims plane_dims(dims.begin() + lead, dims.end());
  TXLA_ASSIGN_OR_RETURN(Value index,
                        Iota(DType::kI64, {Product(plane_dims)}, 0));
  TXLA_ASSIGN_OR_RETURN(index, MakeReshape(std::move(index), plane_dims));
  return BroadcastInDim(std::move(index), dims, Range(lead, dims.size()));
}

// An empty batch: zeros of `dtype` shaped like the result.
absl::StatusOr<Value> Zeros(DType dtype, const Dims& dims) {
  return Lit(0, dtype, dims);
}

// Per output position divisor (the pooled sizes), in `dtype`.
absl::StatusOr<Value> Divisor(const PoolWindow& w, const Dims& in,
                              const Dims& out, bool count_include_pad,
                              std::optional<int64_t> divisor_override,
                              DType dtype) {
  if (divisor_override.has_value()) {
    return Lit(static_cast<double>(*divisor_override), dtype, out);
  }
  const size_t n = in.size();
  Attrs attrs = Attrs().Set("window", w.kernel).Set("strides", w.stride);
  Dims ones_dims = in, lo = w.pad_lo, hi = w.pad_hi;
  if (count_include_pad) {
    // 1 over the input and its explicit padding, 0 over ceil_mode's
    // overhang.
    for (size_t i = 0; i < n; ++i) {
      ones_dims[i] += 2 * w.pad_lo[i];
      hi[i] -= w.pad_lo[i];
      lo[i] = 0;
    }
  }
  TXLA_ASSIGN_OR_RETURN(Value ones, Lit(1, dtype, ones_dims));
  TXLA_ASSIGN_OR_RETURN(
      std::vector<Value> sums,
      ReduceWindow({std::move(ones)}, "sum",
                   std::move(attrs).Set("pad_lo", lo).Set("pad_hi", hi)));
  return sums[0];
}

// [out, size] averaging matrix of `dtype`: row i is 1 / length over eager's
// window [floor(i * size / out), ceil((i + 1) * size / out)).
absl::StatusOr<Value> AdaptiveMatrix(int64_t out, int64_t size, DType dtype) {
  const Dims dims = {out, size};
  TXLA_ASSIGN_OR_RETURN(Value i, Iota(DType::kI64, dims, 0));
  TXLA_ASSIGN_OR_RETURN(Value j, Iota(DType::kI64, dims, 1));
  auto lit = [&](double v) { return Lit(v, DType::kI64, dims); };
  TXLA_ASSIGN_OR_RETURN(Value size_v, lit(size));
  TXLA_ASSIGN_OR_RETURN(Value out_v, lit(out));
  TXLA_ASSIGN_OR_RETURN(Value one_i, lit(1));
  TXLA_ASSIGN_OR_RETURN(Value out_m1, lit(out - 1));
  TXLA_ASSIGN_OR_RETURN(Value start, Apply(OpKind::kMultiply, i, size_v));
  TXLA_ASSIGN_OR_RETURN(start, Apply(OpKind::kDivide, start, out_v));
  TXLA_ASSIGN_OR_RETURN(Value end, Apply(OpKind::kAdd, i, one_i));
  TXLA_ASSIGN_OR_RETURN(end, Apply(OpKind::kMultiply, end, size_v));
  TXLA_ASSIGN_OR_RETURN(end, Apply(OpKind::kAdd, end, out_m1));
  TXLA_ASSIGN_OR_RETURN(end, Apply(OpKind::kDivide, end, out_v));
  TXLA_ASSIGN_OR_RETURN(Value ge, Compare(j, start, "GE"));
  TXLA_ASSIGN_OR_RETURN(Value lt, Compare(j, end, "LT"));
  TXLA_ASSIGN_OR_RETURN(Value inside, Apply(OpKind::kAnd, ge, lt));
  TXLA_ASSIGN_OR_RETURN(Value length, Apply(OpKind::kSubtract, end, start));
  TXLA_ASSIGN_OR_RETURN(length, MakeConvert(length, dtype));
  TXLA_ASSIGN_OR_RETURN(Value one, Lit(1, dtype, dims));
  TXLA_ASSIGN_OR_RETURN(Value zero, Lit(0, dtype, dims));
  TXLA_ASSIGN_OR_RETURN(Value weight, Apply(OpKind::kDivide, one, length));
  return Select(inside, weight, zero);
}

// v with its dim `dim` replaced by m @ v along it (m: [n_out, n_in]; with
// `transposed`, m.T @ v): one dot at f32/f64's highest precision, its new
// dim moved back into place.
absl::StatusOr<Value> ApplyMatrix(Value v, Value m, int64_t dim,
                                  bool transposed) {
  const DType dtype = v.shape().dtype;
  Attrs attrs = Attrs()
                    .Set("lhs_contract", Dims{dim})
                    .Set("rhs_contract", Dims{transposed ? 0 : 1})
                    .Set("lhs_batch", Dims{})
                    .Set("rhs_batch", Dims{});
  if (dtype == DType::kF32 || dtype == DType::kF64) {
    attrs.Set("precision", "HIGHEST");
  }
  TXLA_ASSIGN_OR_RETURN(
      NodePtr node, MakeNode(OpKind::kDotGeneral, {std::move(v), std::move(m)},
                             std::move(attrs)));
  const int64_t rank = static_cast<int64_t>(node->shape().dims.size());
  Dims perm = Range(0, dim);
  perm.push_back(rank - 1);
  for (int64_t d = dim; d < rank - 1; ++d) perm.push_back(d);
  return MakeTranspose(Value(std::move(node)), perm);
}

// The separable averaging matrices over the trailing dims of v (sizes
// `in` -> `out`); with `transposed`, their transposes (the backward, where
// `in` is the forward's output size).
absl::StatusOr<Value> Adaptive(Value v, const Dims& in, const Dims& out,
                               bool transposed) {
  const int64_t lead = static_cast<int64_t>(v.shape().dims.size() - in.size());
  for (size_t axis = 0; axis < in.size(); ++axis) {
    const int64_t rows = transposed ? in[axis] : out[axis];
    const int64_t cols = transposed ? out[axis] : in[axis];
    TXLA_ASSIGN_OR_RETURN(Value m,
                          AdaptiveMatrix(rows, cols, v.shape().dtype));
    TXLA_ASSIGN_OR_RETURN(v, ApplyMatrix(std::move(v), std::move(m),
                                         lead + static_cast<int64_t>(axis),
                                         transposed));
  }
  return v;
}

bool Divides(const Dims& in, const Dims& out) {
  for (size_t i = 0; i < in.size(); ++i) {
    if (out[i] != 0 && in[i] % out[i] != 0) return false;
  }
  return true;
}

bool HasZero(const Dims& dims) {
  return std::find(dims.begin(), dims.end(), 0) != dims.end();
}

// [out, longest] int64 table: element j of adaptive window i over `size`,
// clamped to the window's last element.
absl::StatusOr<Value> WindowTable(int64_t out, int64_t size,
                                  int64_t longest) {
  const Dims dims = {out, longest};
  TXLA_ASSIGN_OR_RETURN(Value i, Iota(DType::kI64, dims, 0));
  TXLA_ASSIGN_OR_RETURN(Value j, Iota(DType::kI64, dims, 1));
  auto lit = [&](double v) { return Lit(v, DType::kI64, dims); };
  TXLA_ASSIGN_OR_RETURN(Value size_v, lit(size));
  TXLA_ASSIGN_OR_RETURN(Value out_v, lit(out));
  TXLA_ASSIGN_OR_RETURN(Value round_up, lit(size + out - 1));
  TXLA_ASSIGN_OR_RETURN(Value one, lit(1));
  TXLA_ASSIGN_OR_RETURN(Value scaled, Apply(OpKind::kMultiply, i, size_v));
  TXLA_ASSIGN_OR_RETURN(Value start, Apply(OpKind::kDivide, scaled, out_v));
  TXLA_ASSIGN_OR_RETURN(Value end, Apply(OpKind::kAdd, scaled, round_up));
  TXLA_ASSIGN_OR_RETURN(end, Apply(OpKind::kDivide, end, out_v));
  TXLA_ASSIGN_OR_RETURN(Value last, Apply(OpKind::kSubtract, end, one));
  TXLA_ASSIGN_OR_RETURN(Value at, Apply(OpKind::kAdd, start, j));
  return Apply(OpKind::kMinimum, at, last);
}

// x[..., table, ...] along `dim`: dim becomes the table's two dims.
absl::StatusOr<Value> TakeWindows(Value x, const Value& table, int64_t dim) {
  Dims sizes = x.shape().dims;
  const int64_t rank = static_cast<int64_t>(sizes.size());
  sizes[dim] = 1;
  Dims offset = Range(0, dim);
  for (int64_t d = dim + 2; d <= rank; ++d) offset.push_back(d);
  TXLA_ASSIGN_OR_RETURN(
      NodePtr node,
      MakeNode(OpKind::kGather, {std::move(x), table},
               Attrs()
                   .Set("offset_dims", std::move(offset))
                   .Set("collapsed_dims", Dims{dim})
                   .Set("start_index_map", Dims{dim})
                   .Set("index_vec_dim", static_cast<int64_t>(2))
                   .Set("slice_sizes", std::move(sizes))));
  return Value(std::move(node));
}

// One spatial dim `dim` (input size `size`, output `out`) of adaptive max
// pooling: (values, flat indices) -> the argmax over each window.
absl::StatusOr<std::array<Value, 2>> AdaptiveMaxAlong(Value values,
                                                      Value index, int64_t dim,
                                                      int64_t size,
                                                      int64_t out) {
  int64_t longest = 0;
  for (int64_t i = 0; i < out; ++i) {
    const int64_t start = i * size / out;
    const int64_t end = ((i + 1) * size + out - 1) / out;
    longest = std::max(longest, end - start);
  }
  Dims split = values.shape().dims;
  split[dim] = out;
  split.insert(split.begin() + dim + 1, longest);
  if (size % out == 0) {  // equal windows: a reshape
    TXLA_ASSIGN_OR_RETURN(values, MakeReshape(std::move(values), split));
    TXLA_ASSIGN_OR_RETURN(index, MakeReshape(std::move(index), split));
  } else {
    TXLA_ASSIGN_OR_RETURN(Value table, WindowTable(out, size, longest));
    TXLA_ASSIGN_OR_RETURN(values, TakeWindows(std::move(values), table, dim));
    TXLA_ASSIGN_OR_RETURN(index, TakeWindows(std::move(index), table, dim));
  }
  Dims window(split.size(), 1);
  window[dim + 1] = longest;
  TXLA_ASSIGN_OR_RETURN(
      std::vector<Value> r,
      ReduceWindow({std::move(values), std::move(index)}, "argmax",
                   Attrs().Set("window", std::move(window))));
  split.erase(split.begin() + dim + 1);
  TXLA_ASSIGN_OR_RETURN(Value v, MakeReshape(std::move(r[0]), split));
  TXLA_ASSIGN_OR_RETURN(Value i, MakeReshape(std::move(r[1]), split));
  return std::array<Value, 2>{std::move(v), std::move(i)};
}

}  // namespace

absl::StatusOr<std::array<Value, 2>> MaxPool(Value x, const PoolWindow& w) {
  const size_t nsp = w.kernel.size();
  const Dims& dims = x.shape().dims;
  const size_t lead = dims.size() - nsp;
  if (Product(dims) == 0) {  // an empty batch: no window to reduce
    const Dims out = Concat(Leading(x, nsp), PooledSizes(Spatial(x, nsp), w));
    TXLA_ASSIGN_OR_RETURN(Value values, Zeros(x.shape().dtype, out));
    TXLA_ASSIGN_OR_RETURN(Value indices, Zeros(DType::kI64, out));
    return std::array<Value, 2>{std::move(values), std::move(indices)};
  }
  TXLA_ASSIGN_OR_RETURN(Value index, FlatIndex(dims, nsp));
  TXLA_ASSIGN_OR_RETURN(
      std::vector<Value> r,
      ReduceWindow({std::move(x), std::move(index)}, "argmax",
                   WindowAttrs(w, lead).Set("win_dilation",
                                            Full(lead, 1, w.dilation))));
  return std::array<Value, 2>{std::move(r[0]), std::move(r[1])};
}

absl::StatusOr<Value> ScatterToIndices(Value grad, Value x, Value indices,
                                       int64_t nsp) {
  const Dims& dims = x.shape().dims;
  const size_t lead = dims.size() - nsp;
  const int64_t plane = Product(dims, lead);
  const int64_t planes = Product(dims) / std::max<int64_t>(plane, 1);
  const int64_t per_plane = Product(grad.shape().dims, lead);
  const Dims grid = {planes, per_plane};
  const DType dtype = grad.shape().dtype;
  // Flat index into all planes: plane number * plane size + index in plane.
  TXLA_ASSIGN_OR_RETURN(Value base, Iota(DType::kI64, grid, 0));
  TXLA_ASSIGN_OR_RETURN(Value plane_v, Lit(plane, DType::kI64, grid));
  TXLA_ASSIGN_OR_RETURN(base, Apply(OpKind::kMultiply, base, plane_v));
  TXLA_ASSIGN_OR_RETURN(Value idx, MakeConvert(std::move(indices),
                                               DType::kI64));
  TXLA_ASSIGN_OR_RETURN(idx, MakeReshape(std::move(idx), grid));
  TXLA_ASSIGN_OR_RETURN(Value flat, Apply(OpKind::kAdd, base, idx));
  TXLA_ASSIGN_OR_RETURN(flat, MakeReshape(flat, {planes * per_plane, 1}));
  TXLA_ASSIGN_OR_RETURN(Value zeros, Lit(0, dtype, {planes * plane}));
  TXLA_ASSIGN_OR_RETURN(Value updates,
                        MakeReshape(std::move(grad), {planes * per_plane}));
  TXLA_ASSIGN_OR_RETURN(
      NodePtr node,
      MakeNode(OpKind::kScatter,
               {std::move(zeros), std::move(flat), std::move(updates)},
               Attrs()
                   .Set("window_dims", Dims{})
                   .Set("inserted_dims", Dims{0})
                   .Set("scatter_dim_map", Dims{0})
                   .Set("index_vec_dim", static_cast<int64_t>(1))
                   .Set("kind", "add")));
  return MakeReshape(Value(std::move(node)), dims);
}

absl::StatusOr<Value> MaxPoolBackward(Value grad, Value x, Value indices,
                                      const PoolWindow& w) {
  const size_t nsp = w.kernel.size();
  const size_t lead = x.shape().dims.size() - nsp;
  const Dims pooled =
      Concat(Leading(x, nsp), PooledSizes(Spatial(x, nsp), w));
  auto any = [](const Dims& v, bool (*f)(int64_t)) {
    return std::any_of(v.begin(), v.end(), f);
  };
  // select_and_scatter recomputes the windows: only undilated ones with
  // padding it can express (eager's 3-d backward takes any geometry, with
  // its indices).
  const bool windowed =
      !any(w.dilation, [](int64_t d) { return d != 1; }) &&
      !any(w.pad_lo, [](int64_t p) { return p < 0; }) &&
      !any(w.pad_hi, [](int64_t p) { return p < 0; });
  if (Product(x.shape().dims) == 0) return Zeros(grad.shape().dtype,
                                                 x.shape().dims);
  if (!windowed || grad.shape().dims != indices.shape().dims ||
      grad.shape().dtype != x.shape().dtype || grad.shape().dims != pooled) {
    return ScatterToIndices(std::move(grad), std::move(x), std::move(indices),
                            static_cast<int64_t>(nsp));
  }
  TXLA_ASSIGN_OR_RETURN(
      NodePtr node,
      MakeNode(OpKind::kSelectAndScatter, {std::move(x), std::move(grad)},
               WindowAttrs(w, lead).Set("kind", "max")));
  return Value(std::move(node));
}

absl::StatusOr<Value> AvgPool(Value x, const PoolWindow& w,
                              bool count_include_pad,
                              std::optional<int64_t> divisor_override) {
  const size_t nsp = w.kernel.size();
  const size_t lead = x.shape().dims.size() - nsp;
  const DType dtype = x.shape().dtype;
  const Dims in = Spatial(x, nsp);
  const Dims out = PooledSizes(in, w);
  if (Product(x.shape().dims) == 0) {  // an empty batch
    return Zeros(dtype, Concat(Leading(x, nsp), out));
  }
  // Eager divides integer sums with truncation, floats in OpMathType.
  const DType acc = OpMathType(dtype);
  TXLA_ASSIGN_OR_RETURN(x, MakeConvert(std::move(x), acc));
  TXLA_ASSIGN_OR_RETURN(
      std::vector<Value> sums,
      ReduceWindow({std::move(x)}, "sum", WindowAttrs(w, lead)));
  TXLA_ASSIGN_OR_RETURN(Value divisor, Divisor(w, in, out, count_include_pad,
                                               divisor_override, acc));
  TXLA_ASSIGN_OR_RETURN(Value mean,
                        ApplyTo(OpKind::kDivide, sums[0], std::move(divisor)));
  return MakeConvert(std::move(mean), dtype);
}

absl::StatusOr<Value> AvgPoolBackward(Value grad, Value x,
                                      const PoolWindow& w,
                                      bool count_include_pad,
                                      std::optional<int64_t> divisor_override) {
  const size_t nsp = w.kernel.size();
  const size_t lead = x.shape().dims.size() - nsp;
  const DType dtype = grad.shape().dtype;
  const DType acc = OpMathType(dtype);
  const Dims in = Spatial(x, nsp);
  const Dims out = PooledSizes(in, w);
  if (grad.shape().dims != Concat(Leading(x, nsp), out)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "avg_pool_backward: grad ", grad.shape().ToString(),
        " is not the pooled shape of input ", x.shape().ToString()));
  }
  if (Product(x.shape().dims) == 0) return Zeros(dtype, x.shape().dims);
  TXLA_ASSIGN_OR_RETURN(grad, MakeConvert(std::move(grad), acc));
  TXLA_ASSIGN_OR_RETURN(Value divisor, Divisor(w, in, out, count_include_pad,
                                               divisor_override, acc));
  TXLA_ASSIGN_OR_RETURN(grad,
                        ApplyTo(OpKind::kDivide, grad, std::move(divisor)));
  // The transpose of a strided window sum: spread grad by the stride, pad
  // by k - 1 - p below and up to the input's size above, sum windows of k.
  Dims lo(nsp), hi(nsp);
  for (size_t i = 0; i < nsp; ++i) {
    lo[i] = w.kernel[i] - 1 - w.pad_lo[i];
    hi[i] = in[i] + w.pad_lo[i] - (out[i] - 1) * w.stride[i] - 1;
  }
  TXLA_ASSIGN_OR_RETURN(
      std::vector<Value> sums,
      ReduceWindow({std::move(grad)}, "sum",
                   Attrs()
                       .Set("window", Full(lead, 1, w.kernel))
                       .Set("pad_lo", Full(lead, 0, lo))
                       .Set("pad_hi", Full(lead, 0, hi))
                       .Set("base_dilation", Full(lead, 1, w.stride))));
  return MakeConvert(std::move(sums[0]), dtype);
}

absl::StatusOr<Value> AdaptiveAvgPool(Value x, const Dims& out) {
  const size_t n = out.size();
  const DType dtype = x.shape().dtype;
  const DType acc = OpMathType(dtype);
  const Dims in = Spatial(x, n);
  const Dims lead = Leading(x, n);
  if (HasZero(out) || Product(x.shape().dims) == 0) {
    return Zeros(dtype, Concat(lead, out));
  }
  if (Divides(in, out)) {
    // Equal windows: a window sum, exactly eager's arithmetic.
    Dims k(n);
    for (size_t i = 0; i < n; ++i) k[i] = in[i] / out[i];
    TXLA_ASSIGN_OR_RETURN(x, MakeConvert(std::move(x), acc));
    TXLA_ASSIGN_OR_RETURN(
        std::vector<Value> sums,
        ReduceWindow({std::move(x)}, "sum",
                     Attrs()
                         .Set("window", Full(lead.size(), 1, k))
                         .Set("strides", Full(lead.size(), 1, k))));
    TXLA_ASSIGN_OR_RETURN(Value count, LiteralLike(Product(k), sums[0]));
    TXLA_ASSIGN_OR_RETURN(Value mean,
                          Apply(OpKind::kDivide, sums[0], std::move(count)));
    return MakeConvert(std::move(mean), dtype);
  }
  TXLA_ASSIGN_OR_RETURN(x, MakeConvert(std::move(x), acc));
  TXLA_ASSIGN_OR_RETURN(x, Adaptive(std::move(x), in, out, false));
  return MakeConvert(std::move(x), dtype);
}

absl::StatusOr<Value> AdaptiveAvgPoolBackward(Value grad, Value x,
                                              int64_t nsp) {
  const DType dtype = grad.shape().dtype;
  const DType acc = OpMathType(dtype);
  const Dims in = Spatial(x, nsp);
  const Dims out = Spatial(grad, nsp);
  const Dims lead = Leading(grad, nsp);
  if (HasZero(out)) return Zeros(dtype, x.shape().dims);
  TXLA_ASSIGN_OR_RETURN(grad, MakeConvert(std::move(grad), acc));
  if (Divides(in, out)) {
    Dims k(nsp), spread = lead, kept = Range(0, lead.size());
    for (int64_t i = 0; i < nsp; ++i) {
      k[i] = in[i] / out[i];
      kept.push_back(static_cast<int64_t>(spread.size()));
      spread.push_back(out[i]);
      spread.push_back(k[i]);
    }
    TXLA_ASSIGN_OR_RETURN(Value count, LiteralLike(Product(k), grad));
    TXLA_ASSIGN_OR_RETURN(grad,
                          Apply(OpKind::kDivide, grad, std::move(count)));
    // Each output element spread over its window: [.., o0, k0, o1, k1, ..].
    TXLA_ASSIGN_OR_RETURN(grad, BroadcastInDim(std::move(grad), spread, kept));
    TXLA_ASSIGN_OR_RETURN(grad, MakeReshape(std::move(grad), x.shape().dims));
    return MakeConvert(std::move(grad), dtype);
  }
  TXLA_ASSIGN_OR_RETURN(grad, Adaptive(std::move(grad), out, in, true));
  return MakeConvert(std::move(grad), dtype);
}

absl::StatusOr<std::array<Value, 2>> AdaptiveMaxPool(Value x,
                                                     const Dims& out) {
  const size_t n = out.size();
  const Dims in = Spatial(x, n);
  const Dims lead = Leading(x, n);
  if (HasZero(out) || Product(x.shape().dims) == 0) {
    TXLA_ASSIGN_OR_RETURN(Value values,
                          Zeros(x.shape().dtype, Concat(lead, out)));
    TXLA_ASSIGN_OR_RETURN(Value indices,
                          Zeros(DType::kI64, Concat(lead, out)));
    return std::array<Value, 2>{std::move(values), std::move(indices)};
  }
  if (Divides(in, out)) {  // equal windows: max pooling
    PoolWindow w;
    for (size_t i = 0; i < n; ++i) {
      w.kernel.push_back(in[i] / out[i]);
      w.stride.push_back(in[i] / out[i]);
      w.pad_lo.push_back(0);
      w.pad_hi.push_back(0);
      w.dilation.push_back(1);
    }
    return MaxPool(std::move(x), w);
  }
  // Separable: the last dim first, each step's index the flat index so far
  // (ties go to the smaller, NaNs to the larger: row-major first maximum,
  // last NaN).
  Value values = std::move(x), index;
  int64_t stride = 1;
  for (int64_t axis = static_cast<int64_t>(n) - 1; axis >= 0; --axis) {
    const int64_t dim = static_cast<int64_t>(lead.size()) + axis;
    TXLA_ASSIGN_OR_RETURN(Value pos,
                          Iota(DType::kI64, values.shape().dims, dim));
    if (stride != 1) {
      TXLA_ASSIGN_OR_RETURN(Value s, LiteralLike(stride, pos));
      TXLA_ASSIGN_OR_RETURN(pos, Apply(OpKind::kMultiply, pos, std::move(s)));
    }
    if (index) {
      TXLA_ASSIGN_OR_RETURN(index,
                            Apply(OpKind::kAdd, std::move(index), pos));
    } else {
      index = std::move(pos);
    }
    TXLA_ASSIGN_OR_RETURN(
        auto r, AdaptiveMaxAlong(std::move(values), std::move(index), dim,
                                 in[axis], out[axis]));
    values = std::move(r[0]);
    index = std::move(r[1]);
    stride *= in[axis];
  }
  return std::array<Value, 2>{std::move(values), std::move(index)};
}

}  // namespace torch_xla::ops
