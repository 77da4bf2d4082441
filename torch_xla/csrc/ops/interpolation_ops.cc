#include "torch_xla/csrc/ops/interpolation_ops.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/build_util.h"

namespace torch_xla::ops {
namespace {

constexpr double kCubicA = -0.75;

double RoundF32(double value) {
  return static_cast<double>(static_cast<float>(value));
}

// Eager's compute_scales_value: 1/scale when given, else n_in/n_out.
double ScaleOf(int64_t n_in, int64_t n_out, std::optional<double> scale,
               bool f32) {
  const double value = scale.has_value() && *scale > 0
                           ? 1.0 / *scale
                           : static_cast<double>(n_in) / n_out;
  return f32 ? RoundF32(value) : value;
}

// Eager's area_pixel_compute_scale.
double AreaScale(int64_t n_in, int64_t n_out, bool align_corners,
                 std::optional<double> scale, bool f32) {
  if (align_corners) {
    const double value =
        n_out > 1 ? static_cast<double>(n_in - 1) / (n_out - 1) : 0.0;
    return f32 ? RoundF32(value) : value;
  }
  return ScaleOf(n_in, n_out, scale, f32);
}

// One tap of every output index: its source index (s64 [n_out]) and
// weight ([n_out] in the dim's dtype; null for 1).
struct Tap {
  Value index, weight;
};

// The builders of one spatial dim's taps, values of shape [n_out].
class Dim {
 public:
  Dim(int64_t n_in, int64_t n_out, DType dtype)
      : n_in_(n_in), n_out_(n_out), dtype_(dtype) {}

  int64_t n_in() const { return n_in_; }
  int64_t n_out() const { return n_out_; }
  DType dtype() const { return dtype_; }

  absl::StatusOr<Value> Lit(double value) const { return Lit(value, dtype_); }
  absl::StatusOr<Value> Lit(double value, DType dtype) const {
    return MakeLiteral(value, dtype, {n_out_});
  }
  absl::StatusOr<Value> Positions(DType dtype) const {
    return Iota(dtype, {n_out_}, 0);
  }
  // a kind literal(value).
  absl::StatusOr<Value> With(OpKind kind, Value a, double value) const {
    TXLA_ASSIGN_OR_RETURN(Value b, Lit(value, a.shape().dtype));
    return Apply(kind, std::move(a), std::move(b));
  }
  // min(floor(x), n_in - 1) as s64.
  absl::StatusOr<Value> FloorIndex(Value x) const {
    TXLA_ASSIGN_OR_RETURN(Value f, Apply(OpKind::kFloor, std::move(x)));
    TXLA_ASSIGN_OR_RETURN(f, MakeConvert(std::move(f), DType::kI64));
    return With(OpKind::kMinimum, std::move(f), n_in_ - 1);
  }
  absl::StatusOr<Value> ClampIndex(Value index) const {
    TXLA_ASSIGN_OR_RETURN(index,
                          With(OpKind::kMinimum, std::move(index), n_in_ - 1));
    return With(OpKind::kMaximum, std::move(index), 0);
  }
  // clamp(x, 0, 1).
  absl::StatusOr<Value> Unit(Value x) const {
    TXLA_ASSIGN_OR_RETURN(x, With(OpKind::kMaximum, std::move(x), 0));
    return With(OpKind::kMinimum, std::move(x), 1);
  }
  // Eager's area_pixel_compute_source_index for every output index.
  absl::StatusOr<Value> Source(double ratio, bool align_corners,
                               bool cubic) const {
    TXLA_ASSIGN_OR_RETURN(Value o, Positions(dtype_));
    TXLA_ASSIGN_OR_RETURN(Value r, Lit(ratio));
    if (align_corners) return Apply(OpKind::kMultiply, std::move(r), o);
    TXLA_ASSIGN_OR_RETURN(o, With(OpKind::kAdd, std::move(o), 0.5));
    TXLA_ASSIGN_OR_RETURN(Value x,
                          Apply(OpKind::kMultiply, std::move(r), std::move(o)));
    TXLA_ASSIGN_OR_RETURN(x, With(OpKind::kSubtract, std::move(x), 0.5));
    if (cubic) return x;
    return With(OpKind::kMaximum, std::move(x), 0);
  }

 private:
  int64_t n_in_, n_out_;
  DType dtype_;
};

absl::StatusOr<std::vector<Tap>> NearestTaps(const Dim& dim,
                                             std::optional<double> scale,
                                             bool exact) {
  if (!exact && dim.n_out() == dim.n_in()) {
    TXLA_ASSIGN_OR_RETURN(Value o, dim.Positions(DType::kI64));
    return std::vector<Tap>{{std::move(o), Value()}};
  }
  if (!exact && dim.n_out() == 2 * dim.n_in()) {
    TXLA_ASSIGN_OR_RETURN(Value o, dim.Positions(DType::kI64));
    TXLA_ASSIGN_OR_RETURN(o, dim.With(OpKind::kDivide, std::move(o), 2));
    return std::vector<Tap>{{std::move(o), Value()}};
  }
  // float in eager, for every dtype
  const double s = ScaleOf(dim.n_in(), dim.n_out(), scale, /*f32=*/true);
  TXLA_ASSIGN_OR_RETURN(Value o, dim.Positions(DType::kF32));
  if (exact) {
    TXLA_ASSIGN_OR_RETURN(o, dim.With(OpKind::kAdd, std::move(o), 0.5));
  }
  TXLA_ASSIGN_OR_RETURN(o, dim.With(OpKind::kMultiply, std::move(o), s));
  TXLA_ASSIGN_OR_RETURN(Value index, dim.FloorIndex(std::move(o)));
  return std::vector<Tap>{{std::move(index), Value()}};
}

absl::StatusOr<std::vector<Tap>> LinearTaps(const Dim& dim,
                                            bool align_corners,
                                            std::optional<double> scale) {
  if (dim.n_out() == dim.n_in()) {
    TXLA_ASSIGN_OR_RETURN(Value o, dim.Positions(DType::kI64));
    return std::vector<Tap>{{std::move(o), Value()}};
  }
  const double ratio = AreaScale(dim.n_in(), dim.n_out(), align_corners,
                                 scale, dim.dtype() == DType::kF32);
  TXLA_ASSIGN_OR_RETURN(Value x, dim.Source(ratio, align_corners, false));
  TXLA_ASSIGN_OR_RETURN(Value i0, dim.FloorIndex(x));
  TXLA_ASSIGN_OR_RETURN(Value base, MakeConvert(i0, dim.dtype()));
  TXLA_ASSIGN_OR_RETURN(
      Value l1, Apply(OpKind::kSubtract, std::move(x), std::move(base)));
  TXLA_ASSIGN_OR_RETURN(l1, dim.Unit(std::move(l1)));
  TXLA_ASSIGN_OR_RETURN(Value last, dim.Lit(dim.n_in() - 1, DType::kI64));
  TXLA_ASSIGN_OR_RETURN(Value inside, Compare(i0, std::move(last), "LT"));
  TXLA_ASSIGN_OR_RETURN(Value step, MakeConvert(std::move(inside),
                                                DType::kI64));
  TXLA_ASSIGN_OR_RETURN(Value i1, Apply(OpKind::kAdd, i0, std::move(step)));
  TXLA_ASSIGN_OR_RETURN(Value one, dim.Lit(1));
  TXLA_ASSIGN_OR_RETURN(Value l0, Apply(OpKind::kSubtract, std::move(one), l1));
  return std::vector<Tap>{{std::move(i0), std::move(l0)},
                          {std::move(i1), std::move(l1)}};
}

// Keys' cubic convolution weights of the taps i-1, i, i+1, i+2 for the
// fraction t (eager's get_cubic_upsample_coefficients).
absl::StatusOr<std::vector<Value>> CubicWeights(const Dim& dim, Value t) {
  const double a = kCubicA;
  // ((A + 2) x - (A + 3)) x x + 1, for |x| <= 1
  auto near = [&](Value x) -> absl::StatusOr<Value> {
    TXLA_ASSIGN_OR_RETURN(Value v, dim.With(OpKind::kMultiply, x, a + 2));
    TXLA_ASSIGN_OR_RETURN(v, dim.With(OpKind::kSubtract, std::move(v), a + 3));
    TXLA_ASSIGN_OR_RETURN(v, Apply(OpKind::kMultiply, std::move(v), x));
    TXLA_ASSIGN_OR_RETURN(v, Apply(OpKind::kMultiply, std::move(v), x));
    return dim.With(OpKind::kAdd, std::move(v), 1);
  };
  // ((A x - 5A) x + 8A) x - 4A, for 1 < |x| < 2
  auto far = [&](Value x) -> absl::StatusOr<Value> {
    TXLA_ASSIGN_OR_RETURN(Value v, dim.With(OpKind::kMultiply, x, a));
    TXLA_ASSIGN_OR_RETURN(v, dim.With(OpKind::kSubtract, std::move(v), 5 * a));
    TXLA_ASSIGN_OR_RETURN(v, Apply(OpKind::kMultiply, std::move(v), x));
    TXLA_ASSIGN_OR_RETURN(v, dim.With(OpKind::kAdd, std::move(v), 8 * a));
    TXLA_ASSIGN_OR_RETURN(v, Apply(OpKind::kMultiply, std::move(v), x));
    return dim.With(OpKind::kSubtract, std::move(v), 4 * a);
  };
  TXLA_ASSIGN_OR_RETURN(Value one, dim.Lit(1));
  TXLA_ASSIGN_OR_RETURN(Value u, Apply(OpKind::kSubtract, std::move(one), t));
  TXLA_ASSIGN_OR_RETURN(Value t1, dim.With(OpKind::kAdd, t, 1));
  TXLA_ASSIGN_OR_RETURN(Value u1, dim.With(OpKind::kAdd, u, 1));
  std::vector<Value> w(4);
  TXLA_ASSIGN_OR_RETURN(w[0], far(std::move(t1)));
  TXLA_ASSIGN_OR_RETURN(w[1], near(std::move(t)));
  TXLA_ASSIGN_OR_RETURN(w[2], near(std::move(u)));
  TXLA_ASSIGN_OR_RETURN(w[3], far(std::move(u1)));
  return w;
}

absl::StatusOr<std::vector<Tap>> CubicTaps(const Dim& dim, bool align_corners,
                                           std::optional<double> scale) {
  const double ratio = AreaScale(dim.n_in(), dim.n_out(), align_corners,
                                 scale, dim.dtype() == DType::kF32);
  TXLA_ASSIGN_OR_RETURN(Value x, dim.Source(ratio, align_corners, true));
  TXLA_ASSIGN_OR_RETURN(Value i, dim.FloorIndex(x));
  TXLA_ASSIGN_OR_RETURN(Value base, MakeConvert(i, dim.dtype()));
  TXLA_ASSIGN_OR_RETURN(
      Value t, Apply(OpKind::kSubtract, std::move(x), std::move(base)));
  TXLA_ASSIGN_OR_RETURN(t, dim.Unit(std::move(t)));
  TXLA_ASSIGN_OR_RETURN(std::vector<Value> weights,
                        CubicWeights(dim, std::move(t)));
  std::vector<Tap> taps;
  for (int k = 0; k < 4; ++k) {
    TXLA_ASSIGN_OR_RETURN(Value index, dim.With(OpKind::kAdd, i, k - 1));
    TXLA_ASSIGN_OR_RETURN(index, dim.ClampIndex(std::move(index)));
    taps.push_back({std::move(index), std::move(weights[k])});
  }
  return taps;
}

absl::StatusOr<std::vector<Tap>> TapsOf(InterpolationKind kind, const Dim& dim,
                                        std::optional<double> scale,
                                        bool align_corners) {
  switch (kind) {
    case InterpolationKind::kNearest:
      return NearestTaps(dim, scale, false);
    case InterpolationKind::kNearestExact:
      return NearestTaps(dim, scale, true);
    case InterpolationKind::kLinear:
      return LinearTaps(dim, align_corners, scale);
    case InterpolationKind::kCubic:
      return CubicTaps(dim, align_corners, scale);
  }
  return absl::InvalidArgumentError("unknown interpolation kind");
}

// The [n_out, n_in] matrix whose row o sums its taps' weights at their
// indices.
absl::StatusOr<Value> Matrix(const Dim& dim, std::vector<Tap> taps) {
  const std::vector<int64_t> shape = {dim.n_out(), dim.n_in()};
  TXLA_ASSIGN_OR_RETURN(Value columns, Iota(DType::kI64, shape, 1));
  TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0, dim.dtype(), shape));
  TXLA_ASSIGN_OR_RETURN(Value one, MakeLiteral(1, dim.dtype(), shape));
  Value total;
  for (Tap& tap : taps) {
    TXLA_ASSIGN_OR_RETURN(Value index,
                          BroadcastInDim(std::move(tap.index), shape, {0}));
    TXLA_ASSIGN_OR_RETURN(Value hit, Compare(std::move(index), columns, "EQ"));
    Value value = one;
    if (tap.weight) {
      TXLA_ASSIGN_OR_RETURN(value,
                            BroadcastInDim(std::move(tap.weight), shape, {0}));
    }
    TXLA_ASSIGN_OR_RETURN(Value term,
                          Select(std::move(hit), std::move(value), zero));
    if (total) {
      TXLA_ASSIGN_OR_RETURN(total, Apply(OpKind::kAdd, std::move(total),
                                         std::move(term)));
    } else {
      total = std::move(term);
    }
  }
  return total;
}

// v with its dim `dim` replaced by m @ v along it (m [n_out, n_in]; with
// `transposed`, m^T @ v): one dot_general at f32/f64's highest precision,
// whose new dim lands last and is moved back.
absl::StatusOr<Value> ApplyMatrix(Value v, Value m, int64_t dim,
                                  bool transposed) {
  Attrs attrs = Attrs()
                    .Set("lhs_contract", std::vector<int64_t>{dim})
                    .Set("rhs_contract",
                         std::vector<int64_t>{transposed ? 0 : 1})
                    .Set("lhs_batch", std::vector<int64_t>{})
                    .Set("rhs_batch", std::vector<int64_t>{});
  const DType dtype = v.shape().dtype;
  if (dtype == DType::kF32 || dtype == DType::kF64) {
    attrs.Set("precision", "HIGHEST");
  }
  TXLA_ASSIGN_OR_RETURN(
      NodePtr node, MakeNode(OpKind::kDotGeneral, {std::move(v), std::move(m)},
                             std::move(attrs)));
  Value out(std::move(node));
  const int64_t rank = static_cast<int64_t>(out.shape().dims.size());
  std::vector<int64_t> perm = Range(0, dim);
  perm.push_back(rank - 1);
  for (int64_t d = dim; d < rank - 1; ++d) perm.push_back(d);
  return MakeTranspose(std::move(out), perm);
}

DType AccumulationOf(DType dtype) {
  return dtype == DType::kF64 ? DType::kF64 : DType::kF32;
}

// v (in the accumulation dtype) with A_d applied along each of the last
// spatial dims, sizes n_in -> n_out (transposed: the backward's A_d^T).
absl::StatusOr<Value> Resample(Value v, InterpolationKind kind,
                               const std::vector<int64_t>& n_in,
                               const std::vector<int64_t>& n_out,
                               const std::vector<std::optional<double>>& scales,
                               bool align_corners, bool transposed) {
  const int64_t lead =
      static_cast<int64_t>(v.shape().dims.size() - n_in.size());
  const DType acc = v.shape().dtype;
  for (size_t d = 0; d < n_in.size(); ++d) {
    Dim dim(n_in[d], n_out[d], acc);
    TXLA_ASSIGN_OR_RETURN(std::vector<Tap> taps,
                          TapsOf(kind, dim, scales[d], align_corners));
    TXLA_ASSIGN_OR_RETURN(Value m, Matrix(dim, std::move(taps)));
    TXLA_ASSIGN_OR_RETURN(v, ApplyMatrix(std::move(v), std::move(m),
                                         lead + static_cast<int64_t>(d),
                                         transposed));
  }
  return v;
}

absl::Status CheckRank(const char* what, const Shape& shape, size_t rank,
                       size_t sizes, size_t n_scales) {
  if (shape.dims.size() != rank + 2 || sizes != rank || n_scales != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": ", shape.ToString(), " with ", sizes, " sizes and ",
        n_scales, " scales; expected [N, C] and one size and scale per "
                  "spatial dim"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Value> Upsample(Value x, InterpolationKind kind,
                               const std::vector<int64_t>& size,
                               const std::vector<std::optional<double>>& scales,
                               bool align_corners) {
  const size_t rank = size.size();
  TXLA_RETURN_IF_ERROR(
      CheckRank("upsample", x.shape(), rank, size.size(), scales.size()));
  const DType dtype = x.shape().dtype;
  std::vector<int64_t> spatial(x.shape().dims.begin() + 2,
                               x.shape().dims.end());
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x),
                                             AccumulationOf(dtype)));
  // (unlike the backward, eager's cubic forward never copies)
  TXLA_ASSIGN_OR_RETURN(v, Resample(std::move(v), kind, spatial, size, scales,
                                    align_corners, /*transposed=*/false));
  return MakeConvert(std::move(v), dtype);
}

absl::StatusOr<Value> UpsampleBackward(
    Value grad, InterpolationKind kind, const std::vector<int64_t>& input_size,
    const std::vector<std::optional<double>>& scales, bool align_corners) {
  const size_t rank = scales.size();
  TXLA_RETURN_IF_ERROR(CheckRank("upsample backward", grad.shape(), rank,
                                 input_size.size() - 2, scales.size()));
  const DType dtype = grad.shape().dtype;
  std::vector<int64_t> output(grad.shape().dims.begin() + 2,
                              grad.shape().dims.end());
  std::vector<int64_t> spatial(input_size.begin() + 2, input_size.end());
  auto has_zero = [](const std::vector<int64_t>& dims) {
    return std::find(dims.begin(), dims.end(), 0) != dims.end();
  };
  if (has_zero(input_size) || has_zero(grad.shape().dims)) {
    return MakeLiteral(0, dtype, input_size);
  }
  if (kind == InterpolationKind::kCubic && spatial == output) {
    return grad;  // eager copies when no size changes
  }
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(grad),
                                             AccumulationOf(dtype)));
  TXLA_ASSIGN_OR_RETURN(v,
                        Resample(std::move(v), kind, spatial, output, scales,
                                 align_corners, /*transposed=*/true));
  return MakeConvert(std::move(v), dtype);
}

}  // namespace torch_xla::ops
