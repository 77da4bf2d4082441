// sort, convolution, reduce_window and select_and_scatter: shape-rule errors,
// and execution through the CPU plugin checked against plain C++ loops
// (PyTorch's orders: stable sort with NaN largest, first max / last NaN in
// pooling windows, padding never selected).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "test/cpp/execution_test_util.h"
#include "test/cpp/ir_test_util.h"
#include "torch_xla/csrc/ir/builder.h"

namespace torch_xla {
namespace {

using testing::Exec;
using testing::Input;
using testing::Leaf;
using testing::Make;
using testing::Ok;
using Dims = std::vector<int64_t>;

const float kNaN = std::nanf("");
const float kInf = std::numeric_limits<float>::infinity();

std::string ErrorOf(OpKind kind, std::vector<Value> operands, Attrs attrs) {
  absl::StatusOr<NodePtr> node =
      MakeNode(kind, std::move(operands), std::move(attrs));
  EXPECT_FALSE(node.ok());
  return node.ok() ? "" : std::string(node.status().message());
}

std::vector<float> RandomFloats(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

void ExpectNear(const std::vector<float>& actual,
                const std::vector<double>& expected, double tol) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], tol * (1 + std::fabs(expected[i])))
        << "element " << i;
  }
}

// ---------------------------------------------------------------------------
// Shape rules.

TEST(NativeShapeTest, ErrorsNameTheOpAndShapes) {
  NodePtr x = Leaf(DType::kF32, {2, 3});
  NodePtr y = Leaf(DType::kF32, {3, 2});
  EXPECT_EQ(ErrorOf(OpKind::kSort, {x, y}, Attrs().Set("dimension", 0)),
            "sort: all operands must have the dimensions of the first, got "
            "f32[2,3], f32[3,2]");
  EXPECT_EQ(ErrorOf(OpKind::kSort, {x}, Attrs().Set("dimension", 2)),
            "sort: dimension 2 is out of range for operands f32[2,3] of "
            "rank 2");
  EXPECT_EQ(ErrorOf(OpKind::kSort, {Leaf(DType::kF32, {})},
                    Attrs().Set("dimension", 0)),
            "sort: operands must have rank >= 1, got f32[] (reshape a "
            "scalar to [1])");
  NodePtr img = Leaf(DType::kF32, {1, 4, 5, 5});
  NodePtr w = Leaf(DType::kF32, {6, 3, 3, 3});
  EXPECT_EQ(ErrorOf(OpKind::kConvolution, {img, w}, Attrs()),
            "convolution: lhs f32[1,4,5,5] has 4 input features; with "
            "feature_groups 1 rhs f32[6,3,3,3] must have 4 in its "
            "input-feature dim 1, got 3");
  EXPECT_EQ(ErrorOf(OpKind::kConvolution,
                    {img, Leaf(DType::kF32, {6, 4, 7, 3})}, Attrs()),
            "convolution: spatial dim 0: the padded (and dilated) input has "
            "size 5, smaller than the dilated kernel (7); lhs f32[1,4,5,5], "
            "rhs f32[6,4,7,3]");
  EXPECT_EQ(ErrorOf(OpKind::kReduceWindow, {x},
                    Attrs().Set("kind", "sum").Set("window", Dims{1, 4})),
            "reduce_window: dim 1: the window [1,4] (dilated size 4) does not "
            "fit the padded operand (size 3) of f32[2,3]");
  EXPECT_EQ(ErrorOf(OpKind::kReduceWindow, {x},
                    Attrs().Set("kind", "sum").Set("window", Dims{2})),
            "reduce_window: window [2] must have one entry per dim of "
            "operand f32[2,3]");
  EXPECT_EQ(ErrorOf(OpKind::kSelectAndScatter, {x, x},
                    Attrs().Set("kind", "max").Set("window", Dims{2, 2})),
            "select_and_scatter: source f32[2,3] must have the window result "
            "dims [1,2] of operand f32[2,3]");
}

// ---------------------------------------------------------------------------
// Sort.

// PyTorch's ascending order: NaN last, -0.0 == 0.0.
bool TorchLess(float a, float b) {
  if (std::isnan(a)) return false;
  return std::isnan(b) || a < b;
}

TEST(SortExecTest, StableWithTiesNaNAndSignedZeroBothDirections) {
  const std::vector<float> x = {2.0f, kNaN, 1.0f, 2.0f, -0.0f, 0.0f,
                                kNaN, -kInf, 1.0f, kInf, 0.0f, -0.0f};
  const int64_t n = x.size();
  for (bool descending : {false, true}) {
    Value v = Input(x, {n});
    NodePtr iota = Make(OpKind::kIota, {},
                        Attrs().Set("dtype", DType::kI32).Set("dims", Dims{n})
                            .Set("dimension", 0));
    NodePtr sorted = Make(OpKind::kSort, {v, iota},
                          Attrs().Set("dimension", 0)
                              .Set("descending", descending));
    std::vector<int32_t> expected(n);
    std::iota(expected.begin(), expected.end(), 0);
    std::stable_sort(expected.begin(), expected.end(), [&](int a, int b) {
      return descending ? TorchLess(x[b], x[a]) : TorchLess(x[a], x[b]);
    });
    EXPECT_EQ(Exec<int32_t>(Value(sorted, 1)), expected)
        << "descending " << descending;
    std::vector<float> values = Exec<float>(Value(sorted, 0));
    for (int64_t i = 0; i < n; ++i) {
      const float e = x[expected[i]];
      if (std::isnan(e)) {
        EXPECT_TRUE(std::isnan(values[i])) << i;
      } else {
        EXPECT_EQ(std::signbit(values[i]), std::signbit(e)) << i;
        EXPECT_EQ(values[i], e) << i;
      }
    }
  }
}

TEST(SortExecTest, AlongEachDimOfAMatrix) {
  const std::vector<float> x = RandomFloats(12, 7);
  for (int64_t dim : {0, 1}) {
    std::vector<float> got = Exec<float>(
        Make(OpKind::kSort, {Input(x, {3, 4})}, Attrs().Set("dimension", dim)));
    std::vector<float> expected = x;
    if (dim == 1) {
      for (int r = 0; r < 3; ++r) {
        std::sort(expected.begin() + 4 * r, expected.begin() + 4 * r + 4);
      }
    } else {
      for (int c = 0; c < 4; ++c) {
        std::vector<float> col = {x[c], x[4 + c], x[8 + c]};
        std::sort(col.begin(), col.end());
        for (int r = 0; r < 3; ++r) expected[4 * r + c] = col[r];
      }
    }
    EXPECT_EQ(got, expected) << "dim " << dim;
  }
}

TEST(SortExecTest, TwoKeysLexicographicWithPayload) {
  const std::vector<int32_t> k1 = {3, 1, 3, 1, 2, 2, 1};
  const std::vector<uint8_t> k2 = {0, 9, 0, 4, 7, 1, 4};
  const std::vector<int32_t> payload = {0, 1, 2, 3, 4, 5, 6};
  NodePtr sorted = Make(OpKind::kSort,
                        {Input(k1, {7}), Input(k2, {7}), Input(payload, {7})},
                        Attrs().Set("dimension", 0).Set("num_keys", 2));
  EXPECT_EQ(Exec<int32_t>(Value(sorted, 2)),
            (std::vector<int32_t>{3, 6, 1, 5, 4, 0, 2}));
}

// ---------------------------------------------------------------------------
// Convolution.

struct ConvCase {
  int64_t n, c, h, w, o, kh, kw;
  Dims stride, lo, hi, lhs_dil, rhs_dil;
  int64_t groups;
};

// NCHW x OIHW -> NCHW, by definition.
std::vector<double> NaiveConv(const ConvCase& p, const std::vector<float>& x,
                              const std::vector<float>& w, Dims* out_dims) {
  const int64_t cg = p.c / p.groups, og = p.o / p.groups;
  const int64_t in[2] = {p.h, p.w}, k[2] = {p.kh, p.kw};
  int64_t out[2];
  for (int i = 0; i < 2; ++i) {
    const int64_t padded = p.lo[i] + (in[i] - 1) * p.lhs_dil[i] + 1 + p.hi[i];
    out[i] = (padded - ((k[i] - 1) * p.rhs_dil[i] + 1)) / p.stride[i] + 1;
  }
  *out_dims = {p.n, p.o, out[0], out[1]};
  // Input index of padded, dilated position q along axis i, or -1.
  auto source = [&](int i, int64_t q) -> int64_t {
    q -= p.lo[i];
    if (q < 0 || q % p.lhs_dil[i] != 0) return -1;
    q /= p.lhs_dil[i];
    return q < in[i] ? q : -1;
  };
  std::vector<double> y(p.n * p.o * out[0] * out[1], 0.0);
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t o = 0; o < p.o; ++o)
      for (int64_t oy = 0; oy < out[0]; ++oy)
        for (int64_t ox = 0; ox < out[1]; ++ox) {
          double acc = 0;
          for (int64_t cc = 0; cc < cg; ++cc)
            for (int64_t ky = 0; ky < p.kh; ++ky)
              for (int64_t kx = 0; kx < p.kw; ++kx) {
                int64_t iy = source(0, oy * p.stride[0] + ky * p.rhs_dil[0]);
                int64_t ix = source(1, ox * p.stride[1] + kx * p.rhs_dil[1]);
                if (iy < 0 || ix < 0) continue;
                int64_t c = (o / og) * cg + cc;
                acc += double(x[((n * p.c + c) * p.h + iy) * p.w + ix]) *
                       w[((o * cg + cc) * p.kh + ky) * p.kw + kx];
              }
          y[((n * p.o + o) * out[0] + oy) * out[1] + ox] = acc;
        }
  return y;
}

TEST(ConvolutionExecTest, StridePaddingDilationGroupsLhsDilation) {
  const std::vector<ConvCase> cases = {
      {2, 3, 7, 6, 4, 3, 3, {1, 1}, {0, 0}, {0, 0}, {1, 1}, {1, 1}, 1},
      {1, 4, 9, 8, 6, 3, 2, {2, 3}, {1, 0}, {2, 1}, {1, 1}, {2, 1}, 2},
      {2, 6, 5, 5, 6, 2, 3, {1, 1}, {1, 2}, {1, 2}, {2, 3}, {1, 1}, 3},
      {1, 2, 4, 4, 4, 3, 3, {1, 1}, {2, 2}, {2, 2}, {2, 2}, {1, 1}, 2},
  };
  uint32_t seed = 1;
  for (const ConvCase& p : cases) {
    std::vector<float> x = RandomFloats(p.n * p.c * p.h * p.w, seed++);
    std::vector<float> w =
        RandomFloats(p.o * (p.c / p.groups) * p.kh * p.kw, seed++);
    Dims out_dims;
    std::vector<double> expected = NaiveConv(p, x, w, &out_dims);
    NodePtr y = Make(
        OpKind::kConvolution,
        {Input(x, {p.n, p.c, p.h, p.w}),
         Input(w, {p.o, p.c / p.groups, p.kh, p.kw})},
        Attrs()
            .Set("strides", p.stride)
            .Set("pad_lo", p.lo)
            .Set("pad_hi", p.hi)
            .Set("lhs_dilation", p.lhs_dil)
            .Set("rhs_dilation", p.rhs_dil)
            .Set("feature_groups", p.groups)
            .Set("precision", "HIGHEST"));
    ASSERT_EQ(y->shape().dims, out_dims);
    ExpectNear(Exec<float>(y), expected, 1e-5);
  }
}

TEST(ConvolutionExecTest, BatchGroupsGiveTheGroupedWeightGradient) {
  // dw[o, c', ky, kx] = sum_{n, y, x} x[n, g(o) * C/g + c', y + ky, x + kx]
  //                     * grad[n, o, y, x] (stride 1, no padding).
  const int64_t n = 2, c = 4, h = 5, w = 5, o = 6, g = 2, k = 3;
  const int64_t oh = h - k + 1, ow = w - k + 1;
  std::vector<float> x = RandomFloats(n * c * h * w, 11);
  std::vector<float> grad = RandomFloats(n * o * oh * ow, 12);
  std::vector<double> expected(o * (c / g) * k * k, 0.0);
  for (int64_t oo = 0; oo < o; ++oo)
    for (int64_t cc = 0; cc < c / g; ++cc)
      for (int64_t ky = 0; ky < k; ++ky)
        for (int64_t kx = 0; kx < k; ++kx) {
          double acc = 0;
          const int64_t ch = (oo / (o / g)) * (c / g) + cc;
          for (int64_t b = 0; b < n; ++b)
            for (int64_t y = 0; y < oh; ++y)
              for (int64_t xx = 0; xx < ow; ++xx)
                acc += double(x[((b * c + ch) * h + y + ky) * w + xx + kx]) *
                       grad[((b * o + oo) * oh + y) * ow + xx];
          expected[((oo * (c / g) + cc) * k + ky) * k + kx] = acc;
        }
  NodePtr dw = Make(OpKind::kConvolution,
                    {Input(x, {n, c, h, w}), Input(grad, {n, o, oh, ow})},
                    Attrs()
                        .Set("lhs_dims", Dims{1, 0, 2, 3})
                        .Set("rhs_dims", Dims{0, 1, 2, 3})
                        .Set("out_dims", Dims{1, 0, 2, 3})
                        .Set("batch_groups", g)
                        .Set("precision", "HIGHEST"));
  ASSERT_EQ(dw->shape().dims, (Dims{o, c / g, k, k}));
  ExpectNear(Exec<float>(dw), expected, 1e-5);
}

TEST(ConvolutionExecTest, Bf16OperandsWithF32Result) {
  // Small integers are exact in bf16; the f32 result holds the exact sums.
  std::vector<uint16_t> x, w;
  auto bf16 = [](float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return static_cast<uint16_t>(bits >> 16);
  };
  for (int i = 0; i < 2 * 3 * 4; ++i) x.push_back(bf16(i % 5 - 2));
  for (int i = 0; i < 2 * 3 * 3; ++i) w.push_back(bf16(i % 3 - 1));
  // x [2, 3, 4] (1-d, NCW) with w [2, 3, 3] -> [2, 2, 2].
  NodePtr y = Make(OpKind::kConvolution,
                   {Input(x, {2, 3, 4}, DType::kBF16),
                    Input(w, {2, 3, 3}, DType::kBF16)},
                   Attrs().Set("dtype", DType::kF32));
  std::vector<double> ref;
  for (int b = 0; b < 2; ++b)
    for (int o = 0; o < 2; ++o)
      for (int p = 0; p < 2; ++p) {
        double acc = 0;
        for (int c = 0; c < 3; ++c)
          for (int k = 0; k < 3; ++k)
            acc += double((b * 12 + c * 4 + p + k) % 5 - 2) *
                   double((o * 9 + c * 3 + k) % 3 - 1);
        ref.push_back(acc);
      }
  ExpectNear(Exec<float>(y), ref, 0);
}

// ---------------------------------------------------------------------------
// reduce_window, select_and_scatter (2-d windows over [H, W]).

struct Window2d {
  int64_t h, w, kh, kw, sh, sw, lo_h, lo_w, hi_h, hi_w;
  int64_t out_h() const { return (lo_h + h + hi_h - kh) / sh + 1; }
  int64_t out_w() const { return (lo_w + w + hi_w - kw) / sw + 1; }
  Attrs attrs(const char* kind) const {
    return Attrs()
        .Set("kind", kind)
        .Set("window", Dims{kh, kw})
        .Set("strides", Dims{sh, sw})
        .Set("pad_lo", Dims{lo_h, lo_w})
        .Set("pad_hi", Dims{hi_h, hi_w});
  }
  // Calls fn(flat input index) for the in-bounds elements of window (y, x),
  // in row-major order.
  template <typename Fn>
  void ForEach(int64_t y, int64_t x, Fn fn) const {
    for (int64_t ky = 0; ky < kh; ++ky)
      for (int64_t kx = 0; kx < kw; ++kx) {
        int64_t iy = y * sh + ky - lo_h, ix = x * sw + kx - lo_w;
        if (iy >= 0 && iy < h && ix >= 0 && ix < w) fn(iy * this->w + ix);
      }
  }
};

TEST(ReduceWindowExecTest, SumMaxMinWithPadding) {
  const Window2d g{5, 6, 3, 2, 2, 2, 1, 0, 1, 1};
  std::vector<float> x = RandomFloats(g.h * g.w, 21);
  std::vector<double> sum, max, min;
  for (int64_t y = 0; y < g.out_h(); ++y)
    for (int64_t xx = 0; xx < g.out_w(); ++xx) {
      double s = 0, hi = -kInf, lo = kInf;
      g.ForEach(y, xx, [&](int64_t i) {
        s += x[i];
        hi = std::max<double>(hi, x[i]);
        lo = std::min<double>(lo, x[i]);
      });
      sum.push_back(s);
      max.push_back(hi);
      min.push_back(lo);
    }
  Value v = Input(x, {g.h, g.w});
  ExpectNear(Exec<float>(Make(OpKind::kReduceWindow, {v}, g.attrs("sum"))),
             sum, 1e-6);
  ExpectNear(Exec<float>(Make(OpKind::kReduceWindow, {v}, g.attrs("max"))),
             max, 0);
  ExpectNear(Exec<float>(Make(OpKind::kReduceWindow, {v}, g.attrs("min"))),
             min, 0);
}

TEST(ReduceWindowExecTest, BaseDilationSpreadsTheInput) {
  // base_dilation 2 on [3]: [a, 0, b, 0, c]; windows of 2: a, b, b, c.
  std::vector<float> got = Exec<float>(Make(
      OpKind::kReduceWindow, {Input(std::vector<float>{1, 2, 4}, {3})},
      Attrs().Set("kind", "sum").Set("window", Dims{2}).Set("base_dilation",
                                                            Dims{2})));
  EXPECT_EQ(got, (std::vector<float>{1, 2, 2, 4}));
}

TEST(ReduceWindowExecTest, ArgmaxFirstMaxLastNaNNeverPadding) {
  const Window2d g{4, 5, 3, 3, 1, 2, 1, 1, 1, 1};
  std::vector<float> x = {1, 3, 3, 0, 2,     //
                          3, kNaN, 1, kNaN, 5,  //
                          -kInf, -kInf, 2, 2, 5,  //
                          -kInf, -kInf, 0, kNaN, 1};
  std::vector<int64_t> index(x.size());
  std::iota(index.begin(), index.end(), 0);
  std::vector<int64_t> expected;
  for (int64_t y = 0; y < g.out_h(); ++y)
    for (int64_t xx = 0; xx < g.out_w(); ++xx) {
      int64_t best = -1;
      g.ForEach(y, xx, [&](int64_t i) {  // eager's loop
        if (best < 0 || x[i] > x[best] || std::isnan(x[i])) best = i;
      });
      expected.push_back(best);
    }
  NodePtr r = Make(OpKind::kReduceWindow,
                   {Input(x, {g.h, g.w}), Input(index, {g.h, g.w})},
                   g.attrs("argmax"));
  EXPECT_EQ(Exec<int64_t>(Value(r, 1)), expected);
  std::vector<float> values = Exec<float>(Value(r, 0));
  for (size_t i = 0; i < expected.size(); ++i) {
    const float e = x[expected[i]];
    if (std::isnan(e)) {
      EXPECT_TRUE(std::isnan(values[i])) << i;
    } else {
      EXPECT_EQ(values[i], e) << i;
    }
  }
  // A window of -inf alone reports its first element.
  NodePtr all = Make(
      OpKind::kReduceWindow,
      {Input(std::vector<float>(4, -kInf), {2, 2}),
       Input(std::vector<int64_t>{0, 1, 2, 3}, {2, 2})},
      Window2d{2, 2, 2, 2, 2, 2, 1, 1, 1, 1}.attrs("argmax"));
  EXPECT_EQ(Exec<int64_t>(Value(all, 1)), (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(SelectAndScatterExecTest, MaxGradientGoesToTheArgmax) {
  const Window2d g{5, 5, 3, 3, 2, 2, 1, 1, 1, 1};
  std::vector<float> x = {1, 3, 3, 0, 2,     //
                          3, kNaN, 1, 2, 5,  //
                          -kInf, -kInf, 2, 2, 5,  //
                          4, 4, 0, kNaN, 1,  //
                          0, 0, 0, 0, 0};
  std::vector<float> source = RandomFloats(g.out_h() * g.out_w(), 31);
  std::vector<double> expected(x.size(), 0.0);
  for (int64_t y = 0, s = 0; y < g.out_h(); ++y)
    for (int64_t xx = 0; xx < g.out_w(); ++xx, ++s) {
      int64_t best = -1;
      g.ForEach(y, xx, [&](int64_t i) {
        if (best < 0 || x[i] > x[best] || std::isnan(x[i])) best = i;
      });
      expected[best] += source[s];
    }
  NodePtr r = Make(OpKind::kSelectAndScatter,
                   {Input(x, {g.h, g.w}),
                    Input(source, {g.out_h(), g.out_w()})},
                   g.attrs("max"));
  ExpectNear(Exec<float>(r), expected, 1e-6);
}

}  // namespace
}  // namespace torch_xla
