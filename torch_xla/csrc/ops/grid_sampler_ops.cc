#include "torch_xla/csrc/ops/grid_sampler_ops.h"

#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/shape_util.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/apply.h"
#include "torch_xla/csrc/ops/build_util.h"
#include "torch_xla/csrc/ops/opmath.h"
#include "torch_xla/csrc/ops/scatter_ops.h"

namespace torch_xla::ops {
namespace {

constexpr int64_t kNearest = 1, kBicubic = 2;
constexpr int64_t kZeros = 0, kReflection = 2;
constexpr double kCubicA = -0.75;

// Elementwise arithmetic on values of one shape and dtype (the compute
// dtype), keeping the first error, so that the tap formulas read as
// eager's. Numbers become literals of that shape.
class Calc {
 public:
  Calc(DType dtype, std::vector<int64_t> dims)
      : dtype_(dtype), dims_(std::move(dims)) {}

  Value Num(double v) { return Keep([&] { return MakeLiteral(v, dtype_, dims_); }); }
  Value Op(OpKind kind, const Value& a, const Value& b) {
    return Keep([&] { return Apply(kind, a, b); });
  }
  Value Op(OpKind kind, const Value& x) {
    return Keep([&] { return Apply(kind, x); });
  }
  Value Add(const Value& a, const Value& b) { return Op(OpKind::kAdd, a, b); }
  Value Sub(const Value& a, const Value& b) {
    return Op(OpKind::kSubtract, a, b);
  }
  Value Mul(const Value& a, const Value& b) {
    return Op(OpKind::kMultiply, a, b);
  }
  Value Div(const Value& a, const Value& b) {
    return Op(OpKind::kDivide, a, b);
  }
  Value Add(const Value& a, double b) { return Add(a, Num(b)); }
  Value Mul(const Value& a, double b) { return Mul(a, Num(b)); }
  Value Div(const Value& a, double b) { return Div(a, Num(b)); }
  // A pred of a `direction` b.
  Value Cmp(const Value& a, double b, absl::string_view direction) {
    Value nb = Num(b);
    return Keep([&] { return Compare(a, nb, direction); });
  }
  Value Sel(const Value& pred, const Value& a, const Value& b) {
    return Keep([&] { return Select(pred, a, b); });
  }
  Value Float(const Value& pred) {
    return Keep([&] { return MakeConvert(pred, dtype_); });
  }

  const absl::Status& status() const { return status_; }

 private:
  template <typename F>
  Value Keep(F build) {
    if (!status_.ok()) return Value();
    absl::StatusOr<Value> r = build();
    if (!r.ok()) {
      status_ = r.status();
      return Value();
    }
    return *std::move(r);
  }

  DType dtype_;
  std::vector<int64_t> dims_;
  absl::Status status_;
};

// A source coordinate, its derivative by the pre-padding one (null for 1)
// and the unnormalization's factor d source / d grid.
struct Coord {
  Value x;
  Value grad;
  double mult = 1;
};

// Eager's grid_sampler_unnormalize.
Coord Unnormalize(Calc& c, const Value& g, int64_t size, bool align) {
  if (align) {
    return {c.Mul(c.Div(c.Add(g, 1), 2), size - 1), Value(), (size - 1) / 2.0};
  }
  return {c.Div(c.Add(c.Mul(c.Add(g, 1), size), -1), 2), Value(), size / 2.0};
}

// Eager's clip_coordinates_set_grad: x into [0, size - 1], gradient 0 at
// and past the borders.
Coord Clip(Calc& c, const Value& x, int64_t size) {
  Value inside = c.Op(OpKind::kAnd, c.Cmp(x, 0, "GT"), c.Cmp(x, size - 1, "LT"));
  Value clipped = c.Op(OpKind::kMinimum, c.Op(OpKind::kMaximum, x, c.Num(0)),
                       c.Num(size - 1));
  return {clipped, c.Float(inside)};
}

// Eager's reflect_coordinates_set_grad over [twice_low / 2, twice_high / 2].
Coord Reflect(Calc& c, Value x, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return {c.Num(0), c.Num(0)};
  const double low = twice_low / 2.0;
  const double span = (twice_high - twice_low) / 2.0;
  x = c.Add(x, -low);
  Value negative = c.Cmp(x, 0, "LT");
  Value sign = c.Sel(negative, c.Num(-1), c.Num(1));
  x = c.Op(OpKind::kAbs, x);
  Value extra = c.Op(OpKind::kRemainder, x, c.Num(span));
  Value flips = c.Op(OpKind::kFloor, c.Div(x, span));
  Value even = c.Cmp(c.Op(OpKind::kRemainder, flips, c.Num(2)), 0, "EQ");
  Value folded = c.Sel(even, c.Add(extra, low),
                       c.Add(c.Sub(c.Num(span), extra), low));
  return {folded, c.Sel(even, sign, c.Op(OpKind::kNegate, sign))};
}

// Eager's padding of a source coordinate (compute_coordinates_set_grad).
Coord Pad(Calc& c, const Value& x, int64_t size, int64_t padding,
          bool align) {
  if (padding == kZeros) return {x, Value()};
  Value grad;
  Value v = x;
  if (padding == kReflection) {
    Coord r = align ? Reflect(c, x, 0, 2 * (size - 1))
                    : Reflect(c, x, -1, 2 * size - 1);
    v = r.x;
    grad = r.grad;
  }
  Coord clipped = Clip(c, v, size);
  if (grad) clipped.grad = c.Mul(grad, clipped.grad);
  return clipped;
}

// Eager's grid_sampler_compute_source_index_set_grad.
Coord Source(Calc& c, const Value& g, int64_t size, int64_t padding,
             bool align) {
  Coord u = Unnormalize(c, g, size, align);
  Coord p = Pad(c, u.x, size, padding, align);
  p.mult = u.mult;
  return p;
}

// Each output point's taps, [N, P] values per tap.
struct Taps {
  std::vector<Value> ys, xs, w, dwx, dwy;
  Value gx_factor, gy_factor;  // d source / d grid per point
};

// The chain factor of a source coordinate: grad * mult.
Value Factor(Calc& c, const Coord& s) {
  return s.grad ? c.Mul(s.grad, s.mult) : c.Num(s.mult);
}

// A bicubic tap's coordinate, padded and, as eager casts it to an
// integer, truncated: floor, since a padded coordinate is >= 0 (with zeros
// padding it is an integer already).
Value PaddedTap(Calc& c, const Value& x, int64_t size, int64_t padding,
                bool align) {
  Value p = Pad(c, x, size, padding, align).x;
  return padding == kZeros ? p : c.Op(OpKind::kFloor, p);
}

Taps MakeTaps(Calc& c, const Value& gx, const Value& gy, int64_t H,
              int64_t W, int64_t mode, int64_t padding, bool align) {
  Taps t;
  if (mode == kBicubic) {
    Coord ux = Unnormalize(c, gx, W, align), uy = Unnormalize(c, gy, H, align);
    t.gx_factor = c.Num(ux.mult);
    t.gy_factor = c.Num(uy.mult);
    Value x0 = c.Op(OpKind::kFloor, ux.x), y0 = c.Op(OpKind::kFloor, uy.x);
    const double a = kCubicA;
    auto near = [&](const Value& x) {  // ((a + 2) x - (a + 3)) x x + 1
      return c.Add(c.Mul(c.Mul(c.Add(c.Mul(x, a + 2), -(a + 3)), x), x), 1);
    };
    auto far = [&](const Value& x) {  // ((a x - 5a) x + 8a) x - 4a
      return c.Add(
          c.Mul(c.Add(c.Mul(c.Add(c.Mul(x, a), -5 * a), x), 8 * a), x),
          -4 * a);
    };
    auto weights = [&](const Value& s, std::vector<Value>* w,
                       std::vector<Value>* d) {
      Value one_minus = c.Sub(c.Num(1), s), two_minus = c.Sub(c.Num(2), s);
      *w = {far(c.Add(s, 1)), near(s), near(one_minus), far(two_minus)};
      // Eager's get_cubic_coefficients_grad.
      Value x = c.Sub(c.Num(-1), s);
      Value d0 = c.Add(c.Mul(c.Add(c.Mul(x, -3 * a), -10 * a), x), -8 * a);
      x = c.Op(OpKind::kNegate, s);
      Value d1 = c.Mul(c.Add(c.Mul(x, -3 * (a + 2)), -2 * (a + 3)), x);
      x = one_minus;
      Value d2 = c.Mul(c.Add(c.Mul(x, 3 * (a + 2)), -2 * (a + 3)), x);
      x = two_minus;
      Value d3 = c.Add(c.Mul(c.Add(c.Mul(x, 3 * a), -10 * a), x), 8 * a);
      *d = {d0, d1, d2, d3};
    };
    std::vector<Value> wx, dx, wy, dy;
    weights(c.Sub(ux.x, x0), &wx, &dx);
    weights(c.Sub(uy.x, y0), &wy, &dy);
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) {
        t.xs.push_back(PaddedTap(c, c.Add(x0, i - 1), W, padding, align));
        t.ys.push_back(PaddedTap(c, c.Add(y0, j - 1), H, padding, align));
        t.w.push_back(c.Mul(wx[i], wy[j]));
        t.dwx.push_back(c.Op(OpKind::kNegate, c.Mul(dx[i], wy[j])));
        t.dwy.push_back(c.Op(OpKind::kNegate, c.Mul(dy[j], wx[i])));
      }
    }
    return t;
  }
  Coord sx = Source(c, gx, W, padding, align);
  Coord sy = Source(c, gy, H, padding, align);
  t.gx_factor = Factor(c, sx);
  t.gy_factor = Factor(c, sy);
  if (mode == kNearest) {  // rounds half to even, as eager's nearbyint
    t.xs = {c.Op(OpKind::kRoundNearestEven, sx.x)};
    t.ys = {c.Op(OpKind::kRoundNearestEven, sy.x)};
    t.w = {c.Num(1)};
    return t;
  }
  Value x0 = c.Op(OpKind::kFloor, sx.x), y0 = c.Op(OpKind::kFloor, sy.x);
  Value x1 = c.Add(x0, 1), y1 = c.Add(y0, 1);
  Value wx0 = c.Sub(x1, sx.x), wx1 = c.Sub(sx.x, x0);
  Value wy0 = c.Sub(y1, sy.x), wy1 = c.Sub(sy.x, y0);
  t.ys = {y0, y0, y1, y1};
  t.xs = {x0, x1, x0, x1};
  t.w = {c.Mul(wx0, wy0), c.Mul(wx1, wy0), c.Mul(wx0, wy1), c.Mul(wx1, wy1)};
  auto neg = [&](const Value& v) { return c.Op(OpKind::kNegate, v); };
  t.dwx = {neg(wy0), wy0, neg(wy1), wy1};
  t.dwy = {neg(wx0), neg(wx1), wx0, wx1};
  return t;
}

// [N, P] values stacked into [N, T, P].
absl::StatusOr<Value> Stack(const std::vector<Value>& values, int64_t N,
                            int64_t P) {
  std::vector<Value> rows;
  for (const Value& v : values) {
    TXLA_ASSIGN_OR_RETURN(Value r, MakeReshape(v, {N, 1, P}));
    rows.push_back(std::move(r));
  }
  if (rows.size() == 1) return rows[0];
  TXLA_ASSIGN_OR_RETURN(NodePtr node,
                        MakeNode(OpKind::kConcatenate, std::move(rows),
                                 Attrs().Set("dimension", int64_t{1})));
  return Value(std::move(node));
}

// What the forward and the backward share: the taps laid out [N, T, P],
// where they are inside the plane, and the flat plane index per tap,
// broadcast over channels [N, C, T * P].
struct Layout {
  int64_t N, C, H, W, Ho, Wo, P, T;
  DType cd;
  Taps taps;
  Value weight;  // [N, T, P], 0 outside the plane
  Value valid;   // [N, T, P] as cd
  Value index;   // s64 [N, C, T * P]
};

absl::StatusOr<Layout> MakeLayout(const Value& input, const Value& grid,
                                  int64_t mode, int64_t padding, bool align) {
  const std::vector<int64_t>& in = input.shape().dims;
  const std::vector<int64_t>& gd = grid.shape().dims;
  if (in.size() != 4 || gd.size() != 4 || gd[3] != 2 || gd[0] != in[0]) {
    return absl::InvalidArgumentError(absl::StrCat(
        "grid_sampler_2d: input ", input.shape().ToString(), " and grid ",
        grid.shape().ToString(), " must be [N, C, H, W] and [N, Ho, Wo, 2]"));
  }
  Layout l;
  l.N = in[0], l.C = in[1], l.H = in[2], l.W = in[3], l.Ho = gd[1],
  l.Wo = gd[2];
  l.P = l.Ho * l.Wo;
  l.cd = OpMathType(input.shape().dtype);
  TXLA_ASSIGN_OR_RETURN(Value g, MakeConvert(grid, l.cd));
  TXLA_ASSIGN_OR_RETURN(g, MakeReshape(std::move(g), {l.N, l.P, 2}));
  TXLA_ASSIGN_OR_RETURN(Value gx, MakeSliceDim(g, 2, 0, 1));
  TXLA_ASSIGN_OR_RETURN(gx, MakeReshape(std::move(gx), {l.N, l.P}));
  TXLA_ASSIGN_OR_RETURN(Value gy, MakeSliceDim(g, 2, 1, 2));
  TXLA_ASSIGN_OR_RETURN(gy, MakeReshape(std::move(gy), {l.N, l.P}));
  Calc c(l.cd, {l.N, l.P});
  l.taps = MakeTaps(c, gx, gy, l.H, l.W, mode, padding, align);
  TXLA_RETURN_IF_ERROR(c.status());
  l.T = static_cast<int64_t>(l.taps.w.size());
  TXLA_ASSIGN_OR_RETURN(Value ys, Stack(l.taps.ys, l.N, l.P));
  TXLA_ASSIGN_OR_RETURN(Value xs, Stack(l.taps.xs, l.N, l.P));
  TXLA_ASSIGN_OR_RETURN(Value w, Stack(l.taps.w, l.N, l.P));
  Calc c3(l.cd, {l.N, l.T, l.P});
  Value inside = c3.Op(
      OpKind::kAnd,
      c3.Op(OpKind::kAnd, c3.Cmp(xs, 0, "GE"), c3.Cmp(xs, l.W - 1, "LE")),
      c3.Op(OpKind::kAnd, c3.Cmp(ys, 0, "GE"), c3.Cmp(ys, l.H - 1, "LE")));
  l.valid = c3.Float(inside);
  l.weight = c3.Mul(w, l.valid);
  Value flat = c3.Sel(inside, c3.Add(c3.Mul(ys, l.W), xs), c3.Num(0));
  TXLA_RETURN_IF_ERROR(c3.status());
  TXLA_ASSIGN_OR_RETURN(flat, MakeConvert(std::move(flat), DType::kI64));
  TXLA_ASSIGN_OR_RETURN(flat, MakeReshape(std::move(flat), {l.N, 1, l.T * l.P}));
  TXLA_ASSIGN_OR_RETURN(l.index,
                        MakeBroadcastTo(std::move(flat), {l.N, l.C, l.T * l.P}));
  return l;
}

// The tapped input values [N, C, T, P] in the compute dtype.
absl::StatusOr<Value> Tapped(const Value& input, const Layout& l) {
  TXLA_ASSIGN_OR_RETURN(Value x, MakeConvert(input, l.cd));
  TXLA_ASSIGN_OR_RETURN(x, MakeReshape(std::move(x), {l.N, l.C, l.H * l.W}));
  TXLA_ASSIGN_OR_RETURN(Value v, GatherAlongDim(std::move(x), 2, l.index));
  return MakeReshape(std::move(v), {l.N, l.C, l.T, l.P});
}

// A [N, T, P] value as [N, C, T, P] (the same for every channel).
absl::StatusOr<Value> OverChannels(const Value& v, const Layout& l) {
  TXLA_ASSIGN_OR_RETURN(Value r, MakeReshape(v, {l.N, 1, l.T, l.P}));
  return MakeBroadcastTo(std::move(r), {l.N, l.C, l.T, l.P});
}

}  // namespace

absl::StatusOr<Value> GridSampler2d(Value input, Value grid, int64_t mode,
                                    int64_t padding, bool align_corners) {
  TXLA_ASSIGN_OR_RETURN(Layout l,
                        MakeLayout(input, grid, mode, padding, align_corners));
  const DType dtype = input.shape().dtype;
  const std::vector<int64_t> out_dims = {l.N, l.C, l.Ho, l.Wo};
  if (NumElements(out_dims) == 0) return MakeLiteral(0, dtype, out_dims);
  TXLA_ASSIGN_OR_RETURN(Value values, Tapped(input, l));
  TXLA_ASSIGN_OR_RETURN(Value w, OverChannels(l.weight, l));
  TXLA_ASSIGN_OR_RETURN(Value out,
                        Apply(OpKind::kMultiply, std::move(values), std::move(w)));
  TXLA_ASSIGN_OR_RETURN(out, MakeReduce(std::move(out), {2}, "sum", false));
  TXLA_ASSIGN_OR_RETURN(out, MakeReshape(std::move(out), out_dims));
  return MakeConvert(std::move(out), dtype);
}

absl::StatusOr<std::array<Value, 2>> GridSampler2dBackward(
    Value grad_output, Value input, Value grid, int64_t mode, int64_t padding,
    bool align_corners, bool input_grad) {
  TXLA_ASSIGN_OR_RETURN(Layout l,
                        MakeLayout(input, grid, mode, padding, align_corners));
  const DType dtype = input.shape().dtype;
  std::array<Value, 2> out;
  const bool empty = l.N * l.C * l.P == 0;
  TXLA_ASSIGN_OR_RETURN(Value go, MakeConvert(std::move(grad_output), l.cd));
  TXLA_ASSIGN_OR_RETURN(go, MakeReshape(std::move(go), {l.N, l.C, 1, l.P}));
  TXLA_ASSIGN_OR_RETURN(go,
                        MakeBroadcastTo(std::move(go), {l.N, l.C, l.T, l.P}));
  if (input_grad) {
    TXLA_ASSIGN_OR_RETURN(Value zeros,
                          MakeLiteral(0, l.cd, {l.N, l.C, l.H * l.W}));
    Value gi = zeros;
    if (!empty) {
      TXLA_ASSIGN_OR_RETURN(Value w, OverChannels(l.weight, l));
      TXLA_ASSIGN_OR_RETURN(Value part, Apply(OpKind::kMultiply, go, w));
      TXLA_ASSIGN_OR_RETURN(part, MakeReshape(std::move(part),
                                              {l.N, l.C, l.T * l.P}));
      TXLA_ASSIGN_OR_RETURN(gi, ScatterAlongDim(std::move(zeros), 2, l.index,
                                                std::move(part),
                                                /*broadcast_src=*/false,
                                                /*add=*/true));
    }
    TXLA_ASSIGN_OR_RETURN(gi, MakeReshape(std::move(gi), {l.N, l.C, l.H, l.W}));
    TXLA_ASSIGN_OR_RETURN(out[0], MakeConvert(std::move(gi), dtype));
  }
  const DType grid_dtype = grid.shape().dtype;
  if (mode == kNearest || empty) {
    TXLA_ASSIGN_OR_RETURN(out[1],
                          MakeLiteral(0, grid_dtype, grid.shape().dims));
    return out;
  }
  TXLA_ASSIGN_OR_RETURN(Value values, Tapped(input, l));
  TXLA_ASSIGN_OR_RETURN(Value per_tap,
                        Apply(OpKind::kMultiply, std::move(values), go));
  TXLA_ASSIGN_OR_RETURN(per_tap, MakeReduce(std::move(per_tap), {1}, "sum",
                                            false));  // [N, T, P]
  TXLA_ASSIGN_OR_RETURN(Value dwx, Stack(l.taps.dwx, l.N, l.P));
  TXLA_ASSIGN_OR_RETURN(Value dwy, Stack(l.taps.dwy, l.N, l.P));
  Calc c3(l.cd, {l.N, l.T, l.P});
  per_tap = c3.Mul(per_tap, l.valid);
  Value sx = c3.Mul(per_tap, dwx), sy = c3.Mul(per_tap, dwy);
  TXLA_RETURN_IF_ERROR(c3.status());
  Calc c(l.cd, {l.N, l.P});
  TXLA_ASSIGN_OR_RETURN(Value gix, MakeReduce(std::move(sx), {1}, "sum", false));
  TXLA_ASSIGN_OR_RETURN(Value giy, MakeReduce(std::move(sy), {1}, "sum", false));
  gix = c.Mul(gix, l.taps.gx_factor);
  giy = c.Mul(giy, l.taps.gy_factor);
  TXLA_RETURN_IF_ERROR(c.status());
  TXLA_ASSIGN_OR_RETURN(gix, MakeReshape(std::move(gix), {l.N, l.P, 1}));
  TXLA_ASSIGN_OR_RETURN(giy, MakeReshape(std::move(giy), {l.N, l.P, 1}));
  TXLA_ASSIGN_OR_RETURN(NodePtr both,
                        MakeNode(OpKind::kConcatenate, {std::move(gix),
                                                        std::move(giy)},
                                 Attrs().Set("dimension", int64_t{2})));
  TXLA_ASSIGN_OR_RETURN(Value gg,
                        MakeReshape(Value(std::move(both)), grid.shape().dims));
  TXLA_ASSIGN_OR_RETURN(out[1], MakeConvert(std::move(gg), grid_dtype));
  return out;
}

}  // namespace torch_xla::ops
