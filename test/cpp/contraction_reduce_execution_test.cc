// Execution of contractions and reductions: dot_general (matmul, batched,
// contracting a leading dim, transposed operands read through, preferred
// result type, outer product at full precision with a tolerance) and reduce
// (sum/prod/max/min, pred and/or, integers, init values of every element
// type, empty inputs). Graphs run through the CPU plugin and are checked
// against values computed here with plain C++ loops. Inputs lie on a grid
// of quarters (testing::Quarters), so sums and products are exact in f32 and
// results compare bit for bit.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "test/cpp/execution_test_util.h"
#include "test/cpp/ir_test_util.h"
#include "torch_xla/csrc/ir/builder.h"
#include "test/cpp/golden_util.h"

namespace torch_xla {
namespace {

using testing::Contains;
using testing::Exec;
using testing::Input;
using testing::Lower;
using testing::Make;
using testing::Quarters;
using testing::Strides;
using Dims = std::vector<int64_t>;

// ---------------------------------------------------------------------------
// dot_general.

Attrs DotDims(Dims lb, Dims rb, Dims lc, Dims rc) {
  return Attrs()
      .Set("lhs_batch", lb)
      .Set("rhs_batch", rb)
      .Set("lhs_contract", lc)
      .Set("rhs_contract", rc);
}

// out[b][i][j] = sum_k lhs[b][i][k] * rhs[b][k][j], in double.
std::vector<double> BatchedMatmulRef(const std::vector<float>& lhs,
                                     const std::vector<float>& rhs, int64_t b,
                                     int64_t m, int64_t k, int64_t n) {
  std::vector<double> out(b * m * n, 0.0);
  for (int64_t p = 0; p < b; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t q = 0; q < k; ++q)
          out[(p * m + i) * n + j] += double(lhs[(p * m + i) * k + q]) *
                                      double(rhs[(p * k + q) * n + j]);
  return out;
}

std::vector<float> ToFloats(const std::vector<double>& v) {
  return std::vector<float>(v.begin(), v.end());
}

TEST(DotExecTest, Matmul) {
  std::vector<float> a = Quarters(12, 1), b = Quarters(20, 2);
  Value dot = Make(OpKind::kDotGeneral, {Input(a, {3, 4}), Input(b, {4, 5})},
                   DotDims({}, {}, {1}, {0}));
  EXPECT_EQ(dot.shape(), Shape(DType::kF32, {3, 5}));
  EXPECT_EQ(Exec<float>(dot), ToFloats(BatchedMatmulRef(a, b, 1, 3, 4, 5)));
}

TEST(DotExecTest, ContractingTheLeadingLhsDim) {
  // lhs is [k=4, m=3]: out[i][j] = sum_q lhs[q][i] * rhs[q][j].
  std::vector<float> a = Quarters(12, 3), b = Quarters(20, 4);
  std::vector<float> at(12);
  for (int q = 0; q < 4; ++q)
    for (int i = 0; i < 3; ++i) at[i * 4 + q] = a[q * 3 + i];
  Value dot = Make(OpKind::kDotGeneral, {Input(a, {4, 3}), Input(b, {4, 5})},
                   DotDims({}, {}, {0}, {0}));
  EXPECT_EQ(Exec<float>(dot), ToFloats(BatchedMatmulRef(at, b, 1, 3, 4, 5)));
}

TEST(DotExecTest, Batched) {
  std::vector<float> a = Quarters(2 * 3 * 4, 5), b = Quarters(2 * 4 * 5, 6);
  Value dot =
      Make(OpKind::kDotGeneral, {Input(a, {2, 3, 4}), Input(b, {2, 4, 5})},
           DotDims({0}, {0}, {2}, {1}));
  EXPECT_EQ(dot.shape(), Shape(DType::kF32, {2, 3, 5}));
  EXPECT_EQ(Exec<float>(dot), ToFloats(BatchedMatmulRef(a, b, 2, 3, 4, 5)));
}

Value Transposed(Value x, Dims permutation) {
  return Make(OpKind::kTranspose, {std::move(x)},
              Attrs().Set("permutation", std::move(permutation)));
}

// The lowering reads through transposed operands (x @ W.t()): the dot takes
// W itself with its contracting dims mapped; values are unchanged.
TEST(DotExecTest, TransposedOperandsAreReadThrough) {
  std::vector<float> a = Quarters(12, 9), b = Quarters(20, 10);
  std::vector<float> at(12), bt(20);  // a is [4,3], b is [5,4]
  for (int q = 0; q < 4; ++q)
    for (int i = 0; i < 3; ++i) at[i * 4 + q] = a[q * 3 + i];
  for (int j = 0; j < 5; ++j)
    for (int q = 0; q < 4; ++q) bt[q * 5 + j] = b[j * 4 + q];
  Value dot = Make(OpKind::kDotGeneral,
                   {Transposed(Input(a, {4, 3}), {1, 0}),
                    Transposed(Input(b, {5, 4}), {1, 0})},
                   DotDims({}, {}, {1}, {0}));
  EXPECT_EQ(Exec<float>(dot), ToFloats(BatchedMatmulRef(at, bt, 1, 3, 4, 5)));
  const std::string text = Lower("dot", {dot});
  EXPECT_TRUE(Contains(text, "lhs_contracting_dimensions = [0], "
                             "rhs_contracting_dimensions = [1]"))
      << text;

  // Batched, rhs [2,5,3] transposed to [2,3,5]: batch and contracting dims
  // map through the permutation.
  std::vector<float> l = Quarters(2 * 4 * 3, 11), r = Quarters(2 * 5 * 3, 12);
  std::vector<float> rt(30);
  for (int p = 0; p < 2; ++p)
    for (int j = 0; j < 5; ++j)
      for (int q = 0; q < 3; ++q)
        rt[(p * 3 + q) * 5 + j] = r[(p * 5 + j) * 3 + q];
  Value batched = Make(OpKind::kDotGeneral,
                       {Input(l, {2, 4, 3}),
                        Transposed(Input(r, {2, 5, 3}), {0, 2, 1})},
                       DotDims({0}, {0}, {2}, {1}));
  EXPECT_EQ(Exec<float>(batched),
            ToFloats(BatchedMatmulRef(l, rt, 2, 4, 3, 5)));
}

// A transpose that reorders two free dims stays: reading through it would
// permute the result.
TEST(DotExecTest, TransposeOfFreeDimsIsKept) {
  std::vector<float> l = Quarters(6 * 2, 13), u = Quarters(4 * 3 * 2, 14);
  // v = u.permute(1, 0, 2): [3,4,2]; out[i][a][c] = sum_k l[i][k] u[c][a][k].
  Value dot = Make(OpKind::kDotGeneral,
                   {Input(l, {6, 2}),
                    Transposed(Input(u, {4, 3, 2}), {1, 0, 2})},
                   DotDims({}, {}, {1}, {2}));
  EXPECT_EQ(dot.shape(), Shape(DType::kF32, {6, 3, 4}));
  std::vector<float> want(6 * 3 * 4, 0.0f);
  for (int i = 0; i < 6; ++i)
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 4; ++c)
        for (int k = 0; k < 2; ++k)
          want[(i * 3 + a) * 4 + c] += l[i * 2 + k] * u[(c * 3 + a) * 2 + k];
  EXPECT_EQ(Exec<float>(dot), want);
  EXPECT_TRUE(Contains(Lower("dot", {dot}), "stablehlo.transpose"));
}

TEST(DotExecTest, PreferredResultType) {
  // bf16 operands, f32 result (quarters are exact in bf16).
  std::vector<float> a = Quarters(6, 7), b = Quarters(8, 8);
  auto bf16 = [](Value v) {
    return Make(OpKind::kConvert, {v}, Attrs().Set("dtype", DType::kBF16));
  };
  Value dot = Make(OpKind::kDotGeneral,
                   {bf16(Input(a, {2, 3, 1})), bf16(Input(b, {2, 1, 4}))},
                   DotDims({0}, {0}, {2}, {1}).Set("dtype", DType::kF32));
  EXPECT_EQ(dot.shape(), Shape(DType::kF32, {2, 3, 4}));
  EXPECT_EQ(Exec<float>(dot), ToFloats(BatchedMatmulRef(a, b, 2, 3, 1, 4)));

  // s8 operands, s32 result: 3 * 100 * 100 = 30000 does not fit in s8.
  std::vector<int8_t> x = {100, 100, 100, -128, 127, 1};
  std::vector<int8_t> y = {100, -100, 100, 100, 127, -128};
  Value idot = Make(OpKind::kDotGeneral, {Input(x, {2, 3}), Input(y, {3, 2})},
                    DotDims({}, {}, {1}, {0}).Set("dtype", DType::kI32));
  std::vector<int32_t> want(4, 0);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int q = 0; q < 3; ++q)
        want[i * 2 + j] += x[i * 3 + q] * y[q * 2 + j];
  EXPECT_EQ(want[0], 32700);
  EXPECT_EQ(Exec<int32_t>(idot), want);
}

TEST(DotExecTest, OuterProductAndFullPrecision) {
  std::vector<float> u = {1, -2}, v = {0.5, 3, -4};
  std::vector<float> outer;
  for (float p : u)
    for (float q : v) outer.push_back(p * q);
  EXPECT_EQ(
      Exec<float>(Make(OpKind::kDotGeneral, {Input(u, {2}), Input(v, {3})})),
      outer);

  // Non-representable values: within f32 accumulation error of the double
  // result (relative to the sum of |terms|), with HIGHEST precision.
  std::vector<float> a(8 * 16), b(16 * 8);
  for (size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.37 * i + 0.1);
  for (size_t i = 0; i < b.size(); ++i) b[i] = std::cos(0.91 * i);
  std::vector<float> got = Exec<float>(
      Make(OpKind::kDotGeneral, {Input(a, {8, 16}), Input(b, {16, 8})},
           DotDims({}, {}, {1}, {0}).Set("precision", "HIGHEST")));
  std::vector<double> want = BatchedMatmulRef(a, b, 1, 8, 16, 8);
  ASSERT_EQ(got.size(), want.size());
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      double magnitude = 0;
      for (int q = 0; q < 16; ++q)
        magnitude += std::fabs(a[i * 16 + q] * b[q * 8 + j]);
      EXPECT_NEAR(got[i * 8 + j], want[i * 8 + j], 4e-7 * magnitude)
          << i << "," << j;
    }
  }
}

// ---------------------------------------------------------------------------
// reduce.

// Folds `x` (dims `dims`) over the dims in `reduce` with `f` from `init`.
template <typename T, typename F>
std::vector<T> ReduceRef(const std::vector<T>& x, const Dims& dims,
                         const Dims& reduce, T init, F f) {
  Dims kept;
  for (int64_t d = 0; d < int64_t(dims.size()); ++d) {
    if (std::find(reduce.begin(), reduce.end(), d) == reduce.end()) {
      kept.push_back(d);
    }
  }
  Dims out_dims;
  for (int64_t d : kept) out_dims.push_back(dims[d]);
  const Dims in_strides = Strides(dims), out_strides = Strides(out_dims);
  int64_t out_n = 1;
  for (int64_t s : out_dims) out_n *= s;
  std::vector<T> out(out_n, init);
  for (int64_t i = 0; i < int64_t(x.size()); ++i) {
    int64_t o = 0;
    for (size_t k = 0; k < kept.size(); ++k) {
      o += (i / in_strides[kept[k]]) % dims[kept[k]] * out_strides[k];
    }
    out[o] = f(out[o], x[i]);
  }
  return out;
}

Value Reduce(const Value& x, Dims dims, const char* kind) {
  return Make(OpKind::kReduce, {x},
              Attrs().Set("dims", dims).Set("kind", kind));
}

TEST(ReduceExecTest, FloatSumProdMaxMin) {
  const Dims dims = {2, 3, 4};
  std::vector<float> a = Quarters(24, 11);
  Value x = Input(a, dims);
  auto sum = [](float p, float q) { return p + q; };
  EXPECT_EQ(Exec<float>(Reduce(x, {1}, "sum")),
            ReduceRef(a, dims, {1}, 0.0f, sum));
  EXPECT_EQ(Exec<float>(Reduce(x, {0, 2}, "sum")),
            ReduceRef(a, dims, {0, 2}, 0.0f, sum));
  Value all = Reduce(x, {0, 1, 2}, "sum");
  EXPECT_EQ(all.shape(), Shape(DType::kF32, {}));
  EXPECT_EQ(Exec<float>(all), ReduceRef(a, dims, {0, 1, 2}, 0.0f, sum));
  EXPECT_EQ(Exec<float>(Reduce(x, {}, "sum")), a);
  EXPECT_EQ(
      Exec<float>(Reduce(x, {2}, "prod")),
      ReduceRef(a, dims, {2}, 1.0f, [](float p, float q) { return p * q; }));

  // max over all-negative values and min over all-positive values: a wrong
  // init (0 instead of -inf / +inf) would show.
  std::vector<float> neg(24), pos(24);
  for (int i = 0; i < 24; ++i) {
    neg[i] = -1.0f - std::fabs(a[i]) - i * 0.5f;
    pos[i] = 1.0f + std::fabs(a[i]) + i * 0.25f;
  }
  auto mx = [](float p, float q) { return std::max(p, q); };
  auto mn = [](float p, float q) { return std::min(p, q); };
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(Exec<float>(Reduce(Input(neg, dims), {1}, "max")),
            ReduceRef(neg, dims, {1}, -inf, mx));
  EXPECT_EQ(Exec<float>(Reduce(Input(pos, dims), {0, 2}, "min")),
            ReduceRef(pos, dims, {0, 2}, inf, mn));
  EXPECT_EQ(Exec<float>(Reduce(x, {0, 1}, "max")),
            ReduceRef(a, dims, {0, 1}, -inf, mx));
}

TEST(ReduceExecTest, PredAndOr) {
  // Rows: all true, mixed, all false.
  std::vector<uint8_t> p = {1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0};
  Value x = Input(p, {3, 4}, DType::kBool);
  EXPECT_EQ(Exec<uint8_t>(Reduce(x, {1}, "and")),
            (std::vector<uint8_t>{1, 0, 0}));
  EXPECT_EQ(Exec<uint8_t>(Reduce(x, {1}, "or")),
            (std::vector<uint8_t>{1, 1, 0}));
  EXPECT_EQ(Exec<uint8_t>(Reduce(x, {0}, "or")),
            (std::vector<uint8_t>{1, 1, 1, 1}));
  EXPECT_EQ(Exec<uint8_t>(Reduce(x, {0}, "and")),
            (std::vector<uint8_t>{0, 0, 0, 0}));
}

TEST(ReduceExecTest, Integer) {
  const Dims dims = {3, 4};
  std::vector<int32_t> a = {5, -3, 100000, 7, -1, -2, -3, -4, 2, 0, -70000, 9};
  Value x = Input(a, dims);
  auto sum = [](int32_t p, int32_t q) { return p + q; };
  EXPECT_EQ(Exec<int32_t>(Reduce(x, {0}, "sum")),
            ReduceRef(a, dims, {0}, 0, sum));
  EXPECT_EQ(Exec<int32_t>(Reduce(x, {0, 1}, "sum")),
            ReduceRef(a, dims, {0, 1}, 0, sum));
  EXPECT_EQ(Exec<int32_t>(Reduce(x, {1}, "prod")),
            ReduceRef(a, dims, {1}, 1, [](int32_t p, int32_t q) {
              return int32_t(uint32_t(p) * uint32_t(q));
            }));
  // Row 1 is all negative: max must start from INT_MIN, not 0.
  EXPECT_EQ(Exec<int32_t>(Reduce(x, {1}, "max")),
            ReduceRef(a, dims, {1}, std::numeric_limits<int32_t>::min(),
                      [](int32_t p, int32_t q) { return std::max(p, q); }));
  EXPECT_EQ(Exec<int32_t>(Reduce(x, {1}, "max"))[1], -1);
  EXPECT_EQ(Exec<int32_t>(Reduce(x, {0}, "min")),
            ReduceRef(a, dims, {0}, std::numeric_limits<int32_t>::max(),
                      [](int32_t p, int32_t q) { return std::min(p, q); }));
  EXPECT_EQ(
      Exec<int32_t>(Reduce(x, {1}, "and")),
      ReduceRef(a, dims, {1}, -1, [](int32_t p, int32_t q) { return p & q; }));
  EXPECT_EQ(
      Exec<int32_t>(Reduce(x, {1}, "or")),
      ReduceRef(a, dims, {1}, 0, [](int32_t p, int32_t q) { return p | q; }));
}

// Reduces x [2, n/2] over dim 1 with `kind`, against the fold from `init`.
template <typename T>
void ExpectRowReduce(const std::vector<T>& x, DType dtype, const char* kind,
                     T init, T (*f)(T, T)) {
  SCOPED_TRACE(std::string(DTypeName(dtype)) + " " + kind);
  const Dims dims = {2, int64_t(x.size() / 2)};
  EXPECT_EQ(Exec<T>(Reduce(Input(x, dims, dtype), {1}, kind)),
            ReduceRef(x, dims, {1}, init, f));
}

TEST(ReduceExecTest, InitValuesAcrossElementTypes) {
  // Inputs sit at the far end of each type's range, so an init value that is
  // not the identity (0, or a narrower type's limit) changes the result.
  using U8 = uint8_t;
  ExpectRowReduce<U8>({200, 255, 254, 7, 9, 255}, DType::kU8, "min", 255,
                      [](U8 p, U8 q) { return std::min(p, q); });
  ExpectRowReduce<U8>({200, 100, 1, 255, 255, 255}, DType::kU8, "sum", 0,
                      [](U8 p, U8 q) { return U8(p + q); });  // wraps
  using S8 = int8_t;
  ExpectRowReduce<S8>({-100, -128, -5, -1, -2, -3}, DType::kI8, "max", -128,
                      [](S8 p, S8 q) { return std::max(p, q); });
  using U32 = uint32_t;
  ExpectRowReduce<U32>(
      {0xFFFFFFFEu, 0xFFFFFFF0u, 0x80000000u, 5u, 0xFFFFFFFFu, 6u}, DType::kU32,
      "min", 0xFFFFFFFFu, [](U32 p, U32 q) { return std::min(p, q); });
  ExpectRowReduce<U32>({0xFFFF00FFu, 0xF0F0F0F0u, 0xFFFFFFFFu, 1u, 3u, 7u},
                       DType::kU32, "and", 0xFFFFFFFFu,
                       [](U32 p, U32 q) { return p & q; });
  using S64 = int64_t;
  const S64 kMin64 = std::numeric_limits<S64>::min();
  const S64 kMax64 = std::numeric_limits<S64>::max();
  ExpectRowReduce<S64>(
      {-(S64{1} << 40), kMin64 + 1, -7, kMin64, -3, -(S64{1} << 50)},
      DType::kI64, "max", kMin64, [](S64 p, S64 q) { return std::max(p, q); });
  ExpectRowReduce<S64>({S64{1} << 50, kMax64, 3, kMax64, kMax64 - 1, 1 << 30},
                       DType::kI64, "min", kMax64,
                       [](S64 p, S64 q) { return std::min(p, q); });
  using U64 = uint64_t;
  ExpectRowReduce<U64>({~U64{0} - 1, U64{1} << 63, ~U64{0}, 5, 6, 7},
                       DType::kU64, "min", ~U64{0},
                       [](U64 p, U64 q) { return std::min(p, q); });
  const double inf = std::numeric_limits<double>::infinity();
  ExpectRowReduce<double>({-1e300, -3.5, -1e-300, -7, -8, -9}, DType::kF64,
                          "max", -inf,
                          [](double p, double q) { return std::max(p, q); });

  // bf16 max of negatives and f16 min of large positives (exact values).
  struct HalfCase {
    DType dtype;
    const char* kind;
    std::vector<float> in, want;
  };
  const HalfCase halves[] = {
      {DType::kBF16, "max", {-1.5f, -3e38f, -0.5f, -2, -4, -8}, {-0.5f, -2}},
      {DType::kF16,
       "min",
       {60000, 65504, 30000, 2048, 4096, 1024},
       {30000, 1024}},
  };
  for (const HalfCase& c : halves) {
    SCOPED_TRACE(std::string(DTypeName(c.dtype)) + " " + c.kind);
    Value x = Make(OpKind::kConvert, {Input(c.in, {2, 3})},
                   Attrs().Set("dtype", c.dtype));
    Value r = Make(OpKind::kConvert, {Reduce(x, {1}, c.kind)},
                   Attrs().Set("dtype", DType::kF32));
    EXPECT_EQ(Exec<float>(r), c.want);
  }
}

TEST(ReduceExecTest, EmptyInputsGiveTheInitValue) {
  const float inf = std::numeric_limits<float>::infinity();
  Value empty = Input(std::vector<float>{}, {0, 3});
  EXPECT_EQ(Exec<float>(Reduce(empty, {0}, "sum")),
            (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(Exec<float>(Reduce(empty, {0}, "prod")),
            (std::vector<float>{1, 1, 1}));
  EXPECT_EQ(Exec<float>(Reduce(empty, {0}, "max")),
            (std::vector<float>{-inf, -inf, -inf}));
  // An empty result is read back as zero bytes.
  Value x = Input(Quarters(6, 12), {2, 3});
  Value none = Make(OpKind::kSlice, {x},
                    Attrs().Set("start", Dims{1, 1}).Set("limit", Dims{1, 3}));
  EXPECT_EQ(none.shape().dims, (Dims{0, 2}));
  EXPECT_TRUE(Exec<float>(none).empty());
}

}  // namespace
}  // namespace torch_xla
