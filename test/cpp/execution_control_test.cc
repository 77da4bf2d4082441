// Execution tests, part 2: dot_general, reduce (init values of every
// element type, empty inputs), gather/scatter, rng_bit_generator, while
// (nested too) and optimization_barrier, multi-output graphs, a parameter
// used twice, and host-data scalars feeding ops. Graphs run through the CPU
// plugin and are checked against values computed here with plain C++ loops.
// Inputs are chosen on a grid of quarters so that sums and products are
// exact in f32 and results can be compared bit for bit; one test uses
// full-precision values with a tolerance. Part 1 (elementwise, convert,
// constants, data movement) is execution_test.cc.

#include <algorithm>
#include <bitset>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "gtest/gtest.h"
#include "test/cpp/ir_test_util.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/subgraph.h"
#include "torch_xla/csrc/runtime/client.h"
#include "torch_xla/csrc/tensor/device_data.h"
#include "torch_xla/csrc/tensor/graph_executor.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"
#include "test/cpp/execution_test_util.h"

namespace torch_xla {
namespace {

using testing::Exec;
using testing::Input;
using testing::Make;
using testing::Ok;
using testing::Read;
using Dims = std::vector<int64_t>;

// ---------------------------------------------------------------------------
// Helpers (inputs and Exec/Read: execution_test_util.h).

Value HostScalar(std::shared_ptr<HostData> data) {
  return MakeDataNode(std::move(data));
}

// Runs several values as one graph (one SyncTensors).
std::vector<XlaTensorPtr> SyncAll(const std::vector<Value>& values) {
  std::vector<XlaTensorPtr> tensors;
  for (const Value& v : values) tensors.push_back(XlaTensor::FromIr(v, 0));
  absl::Status status = SyncTensors(tensors);
  EXPECT_TRUE(status.ok()) << status;
  for (const XlaTensorPtr& t : tensors) {
    EXPECT_EQ(t->state(), TensorState::kDeviceData);
  }
  return tensors;
}

// n values k/4 with k pseudo-random in [-16, 16]: exact in f32 and bf16, and
// so are their short sums and products.
std::vector<float> Quarters(int64_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = static_cast<float>(static_cast<int>((seed >> 16) % 33) - 16) / 4;
  }
  return v;
}

// Row-major strides of `dims`.
Dims Strides(const Dims& dims) {
  Dims s(dims.size(), 1);
  for (int64_t d = static_cast<int64_t>(dims.size()) - 2; d >= 0; --d) {
    s[d] = s[d + 1] * dims[d + 1];
  }
  return s;
}

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

// ---------------------------------------------------------------------------
// gather and scatter.

TEST(GatherExecTest, RowGatherLikeEmbedding) {
  std::vector<float> table = Quarters(5 * 3, 21);
  std::vector<int32_t> ids = {3, 0, 3, 4};
  Value g = Make(OpKind::kGather, {Input(table, {5, 3}), Input(ids, {4, 1})},
                 Attrs()
                     .Set("offset_dims", Dims{1})
                     .Set("collapsed_dims", Dims{0})
                     .Set("start_index_map", Dims{0})
                     .Set("index_vec_dim", 1)
                     .Set("slice_sizes", Dims{1, 3}));
  std::vector<float> want;
  for (int32_t r : ids)
    want.insert(want.end(), &table[r * 3], &table[r * 3 + 3]);
  EXPECT_EQ(g.shape(), Shape(DType::kF32, {4, 3}));
  EXPECT_EQ(Exec<float>(g), want);
}

TEST(GatherExecTest, IndexSelectAlongDim1WithImplicitIndexVector) {
  // index_select(x, 1, ids): indices [2] with index_vec_dim = rank (1).
  std::vector<float> x = Quarters(3 * 5, 22);
  std::vector<int64_t> ids = {4, 1};
  Value g = Make(OpKind::kGather, {Input(x, {3, 5}), Input(ids, {2})},
                 Attrs()
                     .Set("offset_dims", Dims{0})
                     .Set("collapsed_dims", Dims{1})
                     .Set("start_index_map", Dims{1})
                     .Set("index_vec_dim", 1)
                     .Set("slice_sizes", Dims{3, 1}));
  std::vector<float> want;
  for (int i = 0; i < 3; ++i)
    for (int64_t c : ids) want.push_back(x[i * 5 + c]);
  EXPECT_EQ(g.shape().dims, (Dims{3, 2}));
  EXPECT_EQ(Exec<float>(g), want);
}

TEST(GatherExecTest, PointsAndClampedWindows) {
  std::vector<float> x = Quarters(4 * 5, 23);
  Value op = Input(x, {4, 5});
  std::vector<int32_t> pts = {0, 0, 3, 4, 2, 1};  // (row, col) pairs
  Value points = Make(OpKind::kGather, {op, Input(pts, {3, 2})},
                      Attrs()
                          .Set("offset_dims", Dims{})
                          .Set("collapsed_dims", Dims{0, 1})
                          .Set("start_index_map", Dims{0, 1})
                          .Set("index_vec_dim", 1)
                          .Set("slice_sizes", Dims{1, 1}));
  EXPECT_EQ(Exec<float>(points),
            (std::vector<float>{x[0], x[3 * 5 + 4], x[2 * 5 + 1]}));

  // 2x2 windows; XLA clamps each start so the window fits: (3,4) -> (2,3),
  // (-1,1) -> (0,1).
  std::vector<int32_t> starts = {1, 2, 3, 4, -1, 1};
  Value windows = Make(OpKind::kGather, {op, Input(starts, {3, 2})},
                       Attrs()
                           .Set("offset_dims", Dims{1, 2})
                           .Set("collapsed_dims", Dims{})
                           .Set("start_index_map", Dims{0, 1})
                           .Set("index_vec_dim", 1)
                           .Set("slice_sizes", Dims{2, 2}));
  std::vector<float> want;
  for (int w = 0; w < 3; ++w) {
    int r = std::min(std::max(starts[2 * w], 0), 2);
    int c = std::min(std::max(starts[2 * w + 1], 0), 3);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) want.push_back(x[(r + i) * 5 + c + j]);
  }
  EXPECT_EQ(Exec<float>(windows), want);
}

TEST(GatherExecTest, BatchingDimsTakeAlongDim) {
  // out[b][j] = x[b][idx[b][j]] with operand/indices batching dims.
  std::vector<float> x = Quarters(2 * 5, 24);
  std::vector<int32_t> idx = {4, 0, 2, 1, 1, 3};
  Value g = Make(OpKind::kGather, {Input(x, {2, 5}), Input(idx, {2, 3, 1})},
                 Attrs()
                     .Set("offset_dims", Dims{})
                     .Set("collapsed_dims", Dims{1})
                     .Set("operand_batch", Dims{0})
                     .Set("indices_batch", Dims{0})
                     .Set("start_index_map", Dims{1})
                     .Set("index_vec_dim", 2)
                     .Set("slice_sizes", Dims{1, 1}));
  std::vector<float> want;
  for (int b = 0; b < 2; ++b)
    for (int j = 0; j < 3; ++j) want.push_back(x[b * 5 + idx[b * 3 + j]]);
  EXPECT_EQ(Exec<float>(g), want);
}

Attrs RowScatter(const char* kind) {
  return Attrs()
      .Set("window_dims", Dims{1})
      .Set("inserted_dims", Dims{0})
      .Set("scatter_dim_map", Dims{0})
      .Set("index_vec_dim", 1)
      .Set("kind", kind);
}

TEST(ScatterExecTest, ReplaceAndAddRows) {
  std::vector<float> base = Quarters(5 * 3, 31), upd = Quarters(3 * 3, 32);
  std::vector<int32_t> rows = {4, 0, 2};
  std::vector<float> replaced = base, added = base;
  for (int u = 0; u < 3; ++u) {
    for (int j = 0; j < 3; ++j) {
      replaced[rows[u] * 3 + j] = upd[u * 3 + j];
      added[rows[u] * 3 + j] += upd[u * 3 + j];
    }
  }
  auto scatter = [&](const char* kind) {
    return Make(OpKind::kScatter,
                {Input(base, {5, 3}), Input(rows, {3, 1}), Input(upd, {3, 3})},
                RowScatter(kind));
  };
  EXPECT_EQ(Exec<float>(scatter("replace")), replaced);
  EXPECT_EQ(Exec<float>(scatter("add")), added);
}

TEST(ScatterExecTest, AddAccumulatesDuplicateIndices) {
  // index_add_ with repeated rows, and index_put_(accumulate) on points.
  std::vector<float> base = Quarters(4 * 2, 33), upd = {1, 2, 10, 20, 100, 200};
  std::vector<int32_t> rows = {1, 3, 1};
  std::vector<float> want = base;
  for (int u = 0; u < 3; ++u)
    for (int j = 0; j < 2; ++j) want[rows[u] * 2 + j] += upd[u * 2 + j];
  EXPECT_EQ(Exec<float>(Make(
                OpKind::kScatter,
                {Input(base, {4, 2}), Input(rows, {3, 1}), Input(upd, {3, 2})},
                RowScatter("add"))),
            want);
  EXPECT_EQ(want[2], base[2] + 101);

  std::vector<int32_t> pts = {0, 1, 2, 3, 0, 1, 1, 0};  // (0,1) twice
  std::vector<int32_t> vals = {5, 7, 11, 13};
  std::vector<int32_t> grid(12, 1), want_grid(12, 1);
  for (int u = 0; u < 4; ++u)
    want_grid[pts[2 * u] * 4 + pts[2 * u + 1]] += vals[u];
  Value s = Make(OpKind::kScatter,
                 {Input(grid, {3, 4}), Input(pts, {4, 2}), Input(vals, {4})},
                 Attrs()
                     .Set("window_dims", Dims{})
                     .Set("inserted_dims", Dims{0, 1})
                     .Set("scatter_dim_map", Dims{0, 1})
                     .Set("index_vec_dim", 1)
                     .Set("kind", "add"));
  EXPECT_EQ(Exec<int32_t>(s), want_grid);
  EXPECT_EQ(want_grid[1], 1 + 5 + 11);
}

TEST(ScatterExecTest, OutOfBoundsUpdatesAreSkipped) {
  // Unlike gather, scatter does not clamp: an update window that does not
  // fit is dropped.
  std::vector<float> base = {0, 0, 0, 0, 0, 0}, upd = {1, 2, 3, 4};
  std::vector<int32_t> rows = {2, 7};
  EXPECT_EQ(Exec<float>(Make(
                OpKind::kScatter,
                {Input(base, {3, 2}), Input(rows, {2, 1}), Input(upd, {2, 2})},
                RowScatter("add"))),
            (std::vector<float>{0, 0, 0, 0, 1, 2}));
}

// ---------------------------------------------------------------------------
// rng_bit_generator.

struct RngOut {
  std::vector<uint64_t> state;
  std::vector<uint32_t> bits;
};

RngOut Rng(std::vector<uint64_t> state, Dims dims,
           const char* algorithm = "DEFAULT") {
  Value s = Input(state, {int64_t(state.size())});
  NodePtr rng = Make(OpKind::kRngBitGenerator, {s},
                     Attrs()
                         .Set("dtype", DType::kU32)
                         .Set("dims", dims)
                         .Set("algorithm", algorithm));
  EXPECT_EQ(rng->shape(0), Shape(DType::kU64, {int64_t(state.size())}));
  EXPECT_EQ(rng->shape(1), Shape(DType::kU32, dims));
  std::vector<XlaTensorPtr> t = SyncAll({Value(rng, 0), Value(rng, 1)});
  return {Read<uint64_t>(t[0]), Read<uint32_t>(t[1])};
}

TEST(RngExecTest, DeterministicPerStateAndAdvancesState) {
  for (const char* algorithm : {"DEFAULT", "THREE_FRY"}) {
    SCOPED_TRACE(algorithm);
    RngOut a = Rng({1, 2}, {2, 3}, algorithm);
    RngOut again = Rng({1, 2}, {2, 3}, algorithm);
    RngOut other = Rng({1, 3}, {2, 3}, algorithm);
    ASSERT_EQ(a.bits.size(), 6u);
    ASSERT_EQ(a.state.size(), 2u);
    EXPECT_EQ(a.bits, again.bits);
    EXPECT_EQ(a.state, again.state);
    EXPECT_NE(a.bits, other.bits);
    EXPECT_NE(a.state, (std::vector<uint64_t>{1, 2}));
    // Continuing from the new state gives new bits.
    EXPECT_NE(Rng(a.state, {2, 3}, algorithm).bits, a.bits);
  }
  RngOut philox = Rng({1, 2, 3}, {4}, "PHILOX");
  EXPECT_EQ(philox.state.size(), 3u);
  EXPECT_NE(philox.state, (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(Rng({1, 2, 3}, {4}, "PHILOX").bits, philox.bits);
}

TEST(RngExecTest, BitsLookUniform) {
  RngOut r = Rng({42, 7}, {64, 64});
  ASSERT_EQ(r.bits.size(), 4096u);
  int64_t ones = 0;
  for (uint32_t b : r.bits) ones += std::bitset<32>(b).count();
  // 131072 bits; a fair source is within 0.5 +- 0.02 (~14 sigma).
  const double fraction = double(ones) / (4096.0 * 32);
  EXPECT_GT(fraction, 0.48);
  EXPECT_LT(fraction, 0.52);
  EXPECT_GT(std::set<uint32_t>(r.bits.begin(), r.bits.end()).size(), 4090u);

  // u64 bits: shape and dtype of both outputs.
  NodePtr rng =
      Make(OpKind::kRngBitGenerator, {Input(std::vector<uint64_t>{5, 6}, {2})},
           Attrs().Set("dtype", DType::kU64).Set("dims", Dims{3}));
  std::vector<XlaTensorPtr> t = SyncAll({Value(rng, 0), Value(rng, 1)});
  EXPECT_EQ(t[1]->shape(), Shape(DType::kU64, {3}));
  std::vector<uint64_t> bits = Read<uint64_t>(t[1]);
  EXPECT_NE(bits[0], bits[1]);
  EXPECT_NE(bits[0] >> 32, 0u);  // the high half is random too
}

// ---------------------------------------------------------------------------
// while and optimization_barrier.

// Cumulative sum over the rows of x [rows, cols]:
//   i = 0; acc = 0; out = 0
//   while (i < n) { acc += x[i]; out[i] = acc; i += 1 }
// with x and n (a host scalar) carried in; rows read and written through
// dynamic_slice / dynamic_update_slice at the loop counter.
NodePtr CumsumLoop(const Value& x, const Value& n, int64_t rows, int64_t cols) {
  const Shape is(DType::kI32, {}), row(DType::kF32, {1, cols}),
      mat(DType::kF32, {rows, cols});
  const std::vector<Shape> carried = {is, is, row, mat, mat};
  auto params = [&] {
    std::vector<NodePtr> p;
    for (size_t i = 0; i < carried.size(); ++i) {
      p.push_back(Ok(MakeParameter(i, carried[i])));
    }
    return p;
  };
  std::vector<NodePtr> c = params();
  SubGraphPtr cond =
      Ok(SubGraph::Create(c, {Ok(MakeCompare(c[0], c[1], "LT"))}));
  std::vector<NodePtr> b = params();
  NodePtr zero = Ok(MakeIntConstant(0, is));
  NodePtr x_row = Make(OpKind::kDynamicSlice, {b[4], b[0], zero},
                       Attrs().Set("sizes", Dims{1, cols}));
  NodePtr acc = Ok(MakeBinary(OpKind::kAdd, b[2], x_row));
  NodePtr out = Make(OpKind::kDynamicUpdateSlice, {b[3], acc, b[0], zero});
  NodePtr next = Ok(MakeBinary(OpKind::kAdd, b[0], Ok(MakeIntConstant(1, is))));
  SubGraphPtr body = Ok(SubGraph::Create(b, {next, b[1], acc, out, b[4]}));
  return Make(OpKind::kWhile,
              {Ok(MakeIntConstant(0, is)), n, Ok(MakeConstant(0.0, row)),
               Ok(MakeConstant(0.0, mat)), x},
              Attrs().Set("cond", cond).Set("body", body));
}

TEST(WhileExecTest, CumulativeSumOverRows) {
  const int64_t rows = 5, cols = 3;
  std::vector<float> x = Quarters(rows * cols, 41);
  for (int64_t trips : {int64_t{5}, int64_t{3}, int64_t{0}}) {
    SCOPED_TRACE(trips);
    NodePtr loop = CumsumLoop(Input(x, {rows, cols}),
                              HostScalar(MakeHostScalarInt(trips, DType::kI32)),
                              rows, cols);
    std::vector<XlaTensorPtr> t = SyncAll(
        {Value(loop, 0), Value(loop, 2), Value(loop, 3), Value(loop, 4)});
    std::vector<float> acc(cols, 0.0f), out(rows * cols, 0.0f);
    for (int64_t i = 0; i < trips; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        acc[j] += x[i * cols + j];
        out[i * cols + j] = acc[j];
      }
    }
    EXPECT_EQ(Read<int32_t>(t[0]), (std::vector<int32_t>{int32_t(trips)}));
    EXPECT_EQ(Read<float>(t[1]), acc);
    EXPECT_EQ(Read<float>(t[2]), out);
    EXPECT_EQ(Read<float>(t[3]), x);  // carried through unchanged
  }
}

TEST(WhileExecTest, OptimizationBarrierPassesValuesThrough) {
  std::vector<float> a = {1.5f, -0.0f, 1e38f};
  std::vector<int32_t> b = {-7, 2147483647};
  NodePtr barrier =
      Make(OpKind::kOptimizationBarrier, {Input(a, {3}), Input(b, {2})});
  ASSERT_EQ(barrier->num_outputs(), 2u);
  // Its results feed further ops, and are results themselves.
  Value doubled =
      Ok(MakeBinary(OpKind::kAdd, Value(barrier, 0), Value(barrier, 0)));
  std::vector<XlaTensorPtr> t =
      SyncAll({Value(barrier, 0), Value(barrier, 1), doubled});
  EXPECT_EQ(Read<float>(t[0]), a);
  EXPECT_EQ(std::signbit(Read<float>(t[0])[1]), true);
  EXPECT_EQ(Read<int32_t>(t[1]), b);
  EXPECT_EQ(Read<float>(t[2]), (std::vector<float>{3.0f, 0.0f, 2e38f}));
}

// while (i < n) { x = step(x); i += 1 } over (f32[2] x, s32[] i); returns x.
Value CountedLoop(const Value& x, int64_t n,
                  const std::function<Value(const Value&)>& step) {
  const Shape xs(DType::kF32, {2}), is(DType::kI32, {});
  NodePtr cx = Ok(MakeParameter(0, xs)), ci = Ok(MakeParameter(1, is));
  SubGraphPtr cond = Ok(SubGraph::Create(
      {cx, ci}, {Ok(MakeCompare(ci, Ok(MakeIntConstant(n, is)), "LT"))}));
  NodePtr bx = Ok(MakeParameter(0, xs)), bi = Ok(MakeParameter(1, is));
  SubGraphPtr body = Ok(SubGraph::Create(
      {bx, bi}, {step(bx), Ok(MakeBinary(OpKind::kAdd, bi,
                                         Ok(MakeIntConstant(1, is))))}));
  NodePtr loop = Make(OpKind::kWhile, {x, Ok(MakeIntConstant(0, is))},
                      Attrs().Set("cond", cond).Set("body", body));
  return Value(loop, 0);
}

TEST(WhileExecTest, NestedLoops) {
  // 4 times: { x = 2x; 3 times: { x = x / 2 + 1 } } (exact in f32).
  const Shape xs(DType::kF32, {2});
  auto inner = [&](const Value& x) {
    return Value(Ok(MakeBinary(
        OpKind::kAdd,
        Ok(MakeBinary(OpKind::kMultiply, x, Ok(MakeConstant(0.5, xs)))),
        Ok(MakeConstant(1.0, xs)))));
  };
  auto outer = [&](const Value& x) {
    return CountedLoop(
        Ok(MakeBinary(OpKind::kMultiply, x, Ok(MakeConstant(2.0, xs)))), 3,
        inner);
  };
  std::vector<float> x = {3.0f, -20.0f};
  std::vector<float> want = x;
  for (float& v : want) {
    for (int i = 0; i < 4; ++i) {
      v *= 2;
      for (int j = 0; j < 3; ++j) v = v * 0.5f + 1;
    }
  }
  EXPECT_EQ(Exec<float>(CountedLoop(Input(x, {2}), 4, outer)), want);
}

// ---------------------------------------------------------------------------
// Graph shapes: several results, a leaf used twice.

TEST(GraphExecTest, MultiOutputWithSharedSubexpressions) {
  std::vector<float> a = Quarters(6, 51), b = Quarters(6, 52);
  Value x = Input(a, {2, 3}), y = Input(b, {2, 3});
  NodePtr sum = Ok(MakeBinary(OpKind::kAdd, x, y));
  NodePtr sq = Ok(MakeBinary(OpKind::kMultiply, sum, sum));
  NodePtr diff = Ok(MakeBinary(OpKind::kSubtract, sum, y));
  Value total = Reduce(sq, {0, 1}, "sum");
  // Two tensors share the value `sq`: both get it.
  std::vector<XlaTensorPtr> t = SyncAll({sum, sq, diff, total, sq});
  std::vector<float> want_sum, want_sq, want_diff;
  float want_total = 0;
  for (int i = 0; i < 6; ++i) {
    want_sum.push_back(a[i] + b[i]);
    want_sq.push_back(want_sum[i] * want_sum[i]);
    want_diff.push_back(want_sum[i] - b[i]);
    want_total += want_sq[i];
  }
  EXPECT_EQ(Read<float>(t[0]), want_sum);
  EXPECT_EQ(Read<float>(t[1]), want_sq);
  EXPECT_EQ(Read<float>(t[2]), want_diff);
  EXPECT_EQ(Read<float>(t[3]), (std::vector<float>{want_total}));
  EXPECT_EQ(Read<float>(t[4]), want_sq);
}

TEST(GraphExecTest, OneLeafUsedTwiceIsOneParameter) {
  std::vector<float> a = {1.5f, -2.0f, 3.0f};
  Value x = Input(a, {3});
  // x * x + x, with x reached through two paths.
  Value out =
      Ok(MakeBinary(OpKind::kAdd, Ok(MakeBinary(OpKind::kMultiply, x, x)), x));
  XlaTensorPtr tensor = XlaTensor::FromIr(out, 0);
  absl::StatusOr<std::string> text = TensorsToHloText({tensor});
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_NE(text->find("@main(%arg0: tensor<3xf32>)"), std::string::npos)
      << *text;
  EXPECT_EQ(text->find("%arg1"), std::string::npos) << *text;
  std::vector<float> want;
  for (float v : a) want.push_back(v * v + v);
  EXPECT_EQ(Read<float>(tensor), want);
}

// ---------------------------------------------------------------------------
// Host-data scalars feeding ops.

TEST(HostScalarExecTest, ScalarsFeedArithmeticIndexingAndSelect) {
  std::vector<float> a = {1, 2, 3, 4};
  Value x = Input(a, {4});
  auto splat = [](const Value& s, int64_t n) {
    return Make(OpKind::kBroadcastInDim, {s},
                Attrs().Set("dims", Dims{n}).Set("broadcast_dims", Dims{}));
  };
  // Same graph, two scalar values: the scalar is a parameter, not baked in.
  for (float scale : {2.5f, -0.5f}) {
    Value s = HostScalar(MakeHostScalar(scale, DType::kF32));
    std::vector<float> want;
    for (float v : a) want.push_back(v * scale);
    EXPECT_EQ(Exec<float>(Ok(MakeBinary(OpKind::kMultiply, x, splat(s, 4)))),
              want);
  }
  // Integer scalar (exact beyond 2^53 through MakeHostScalarInt).
  const int64_t big = (int64_t{1} << 60) + 3;
  Value i64 = Input(std::vector<int64_t>{1, -1}, {2});
  EXPECT_EQ(Exec<int64_t>(Ok(MakeBinary(
                OpKind::kAdd, i64,
                splat(HostScalar(MakeHostScalarInt(big, DType::kI64)), 2)))),
            (std::vector<int64_t>{big + 1, big - 1}));
  // bf16 scalar: 0.1 rounds to 0.10009765625 (0x3DCD).
  EXPECT_EQ(Exec<float>(Make(OpKind::kConvert,
                             {HostScalar(MakeHostScalar(0.1, DType::kBF16))},
                             Attrs().Set("dtype", DType::kF32))),
            (std::vector<float>{0.10009765625f}));
  // A start index for dynamic_slice.
  Value start = HostScalar(MakeHostScalarInt(2, DType::kI32));
  EXPECT_EQ(Exec<float>(Make(OpKind::kDynamicSlice, {x, start},
                             Attrs().Set("sizes", Dims{2}))),
            (std::vector<float>{3, 4}));
  // A pred scalar choosing between two tensors.
  Value neg = Ok(MakeUnary(OpKind::kNegate, x));
  for (bool p : {true, false}) {
    Value pred = HostScalar(MakeHostScalar(p ? 1.0 : 0.0, DType::kBool));
    EXPECT_EQ(Exec<float>(Make(OpKind::kSelect, {pred, x, neg})),
              p ? a : (std::vector<float>{-1, -2, -3, -4}));
  }
  // A fill (torch.full) as an operand.
  Value fill = MakeDataNode(MakeHostFill(*MakeHostScalar(0.75, DType::kF32),
                                         Shape(DType::kF32, {4})));
  EXPECT_EQ(Exec<float>(Ok(MakeBinary(OpKind::kSubtract, x, fill))),
            (std::vector<float>{0.25, 1.25, 2.25, 3.25}));
}

TEST(HostScalarExecTest, ScalarsRoundOnceLikeConstants) {
  // Each value lies just above a rounding midpoint of the target type, by
  // less than half an f32 (or double) ulp: rounding once rounds up.
  const double bf = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);
  EXPECT_EQ(Exec<uint16_t>(HostScalar(MakeHostScalar(bf, DType::kBF16))),
            (std::vector<uint16_t>{0x3F81}));  // 1 + 2^-7
  const double h = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(Exec<uint16_t>(HostScalar(MakeHostScalar(h, DType::kF16))),
            (std::vector<uint16_t>{0x3C01}));  // 1 + 2^-10
  const int64_t v = (int64_t{1} << 60) + (int64_t{1} << 36) + 1;
  EXPECT_EQ(Exec<float>(HostScalar(MakeHostScalarInt(v, DType::kF32))),
            (std::vector<float>{static_cast<float>(v)}));
}

}  // namespace
}  // namespace torch_xla
