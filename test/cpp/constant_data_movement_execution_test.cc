// Execution of constants (float literals rounded per element type, integer and
// bool literals, iota) and data movement (broadcast_in_dim, reshape, transpose,
// reverse, slice, dynamic slices with clamped starts, concatenate, pad). Every
// graph runs through the CPU plugin (lower -> compile -> execute) and is
// checked against values the test computes itself with plain C++ loops
// (test/cpp/float_reference_util.h): exact for integer and bit-level results,
// within ~8 f32 ULPs for transcendental functions.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "test/cpp/execution_test_util.h"
#include "test/cpp/float_reference_util.h"
#include "test/cpp/ir_test_util.h"
#include "torch_xla/csrc/ir/builder.h"

namespace torch_xla {
namespace {

using testing::Exec;
using testing::Input;
using testing::Make;
using testing::Ok;
using testing::Convert;
using testing::kInf;
using testing::kNaN;
using testing::BitsOf;
using testing::RoundToBf16;
using testing::RoundToF16;
using testing::HalfBitsToDouble;
using testing::Bf16BitsToDouble;
using Dims = std::vector<int64_t>;

// ---------------------------------------------------------------------------
// Constants and iota.

TEST(ConstantExecTest, FloatLiteralsRoundPerElementType) {
  EXPECT_EQ(Exec<float>(Ok(MakeConstant(0.1, Shape(DType::kF32, {2})))),
            (std::vector<float>{0.1f, 0.1f}));
  EXPECT_EQ(Exec<double>(Ok(MakeConstant(0.1, Shape(DType::kF64, {})))),
            (std::vector<double>{0.1}));
  EXPECT_EQ(Exec<float>(Ok(MakeConstant(-kInf, Shape(DType::kF32, {})))),
            (std::vector<float>{float(-kInf)}));
  EXPECT_TRUE(std::isnan(
      Exec<float>(Ok(MakeConstant(kNaN, Shape(DType::kF32, {}))))[0]));
  EXPECT_EQ(
      BitsOf(Exec<float>(Ok(MakeConstant(-0.0, Shape(DType::kF32, {}))))[0]),
      0x80000000u);

  // bf16 / f16 literals: raw bits, decoded and compared with the rounding
  // of the double literal; a few well-known encodings pinned.
  struct HalfCase {
    double value;
    DType dtype;
    uint16_t known_bits;
  };
  const HalfCase cases[] = {
      {0.1, DType::kBF16, 0x3DCD},
      {0.1, DType::kF16, 0x2E66},
      {-kInf, DType::kF16, 0xFC00},
      {-kInf, DType::kBF16, 0xFF80},
      {65504.0, DType::kF16, 0x7BFF},
      {65520.0, DType::kF16, 0x7C00},
      {1e-8, DType::kF16, 0x0000},
      {1.0 + std::ldexp(3.0, -8), DType::kBF16, 0x3F82},
      {-2.0, DType::kF16, 0xC000},
      {std::ldexp(3.0, -25), DType::kF16, 0x0002},
  };
  for (const HalfCase& c : cases) {
    SCOPED_TRACE(std::to_string(c.value) + " " +
                 std::string(DTypeName(c.dtype)));
    std::vector<uint16_t> bits =
        Exec<uint16_t>(Ok(MakeConstant(c.value, Shape(c.dtype, {3}))));
    ASSERT_EQ(bits.size(), 3u);
    EXPECT_EQ(bits[0], c.known_bits);
    EXPECT_EQ(bits[2], c.known_bits);
    const bool bf16 = c.dtype == DType::kBF16;
    EXPECT_EQ(bf16 ? Bf16BitsToDouble(bits[0]) : HalfBitsToDouble(bits[0]),
              bf16 ? RoundToBf16(c.value) : RoundToF16(c.value));
  }
  // A bf16 constant read back through convert: 0.1 -> 0.10009765625.
  EXPECT_EQ(Exec<float>(Convert(Ok(MakeConstant(0.1, Shape(DType::kBF16, {}))),
                                DType::kF32)),
            (std::vector<float>{0.10009765625f}));
}

TEST(ConstantExecTest, IntegerAndBoolLiterals) {
  EXPECT_EQ(Exec<int32_t>(Ok(MakeIntConstant(-7, Shape(DType::kI32, {3})))),
            (std::vector<int32_t>{-7, -7, -7}));
  EXPECT_EQ(Exec<uint8_t>(Ok(MakeIntConstant(255, Shape(DType::kU8, {})))),
            (std::vector<uint8_t>{255}));
  EXPECT_EQ(Exec<uint64_t>(Ok(MakeIntConstant(-1, Shape(DType::kU64, {})))),
            (std::vector<uint64_t>{0xffffffffffffffffull}));
  EXPECT_EQ(Exec<int64_t>(Ok(MakeIntConstant(
                std::numeric_limits<int64_t>::min(), Shape(DType::kI64, {})))),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::min()}));
  EXPECT_EQ(Exec<float>(Ok(MakeIntConstant(3, Shape(DType::kF32, {})))),
            (std::vector<float>{3.0f}));
  EXPECT_EQ(Exec<uint8_t>(Ok(MakeBoolConstant(true, Shape(DType::kBool, {2})))),
            (std::vector<uint8_t>{1, 1}));
}

TEST(ConstantExecTest, IntegerValueForFloatTypeRoundsOnce) {
  // 2^60 + 2^36 + 1 is just above the midpoint between two f32 values, so it
  // rounds up; rounding to double first (dropping the +1) makes it a tie
  // that rounds down to 2^60.
  const int64_t v = (int64_t{1} << 60) + (int64_t{1} << 36) + 1;
  const float want = static_cast<float>(v);  // one rounding
  EXPECT_EQ(want, std::ldexp(1.0f, 60) + std::ldexp(1.0f, 37));
  std::vector<float> got =
      Exec<float>(Ok(MakeIntConstant(v, Shape(DType::kF32, {}))));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(BitsOf(got[0]), BitsOf(want)) << std::hexfloat << got[0];
}

TEST(ConstantExecTest, Iota) {
  auto iota = [](DType dtype, Dims dims, int64_t dim) {
    return Make(
        OpKind::kIota, {},
        Attrs().Set("dtype", dtype).Set("dims", dims).Set("dimension", dim));
  };
  std::vector<int32_t> cols, rows;
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 5; ++j) {
      cols.push_back(j);
      rows.push_back(i);
    }
  }
  EXPECT_EQ(Exec<int32_t>(iota(DType::kI32, {4, 5}, 1)), cols);
  EXPECT_EQ(Exec<int32_t>(iota(DType::kI32, {4, 5}, 0)), rows);
  EXPECT_EQ(Exec<float>(iota(DType::kF32, {6}, 0)),
            (std::vector<float>{0, 1, 2, 3, 4, 5}));
}

// ---------------------------------------------------------------------------
// Data movement.

// 0, 1, 2, ... as floats.
std::vector<float> Arange(int64_t n, float start = 0) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = start + i;
  return v;
}

TEST(DataMovementExecTest, BroadcastInDim) {
  std::vector<float> a = Arange(6, 1);  // [2,3]
  Value x = Input(a, {2, 3});
  std::vector<float> want;
  for (int k = 0; k < 4; ++k) want.insert(want.end(), a.begin(), a.end());
  EXPECT_EQ(Exec<float>(Make(OpKind::kBroadcastInDim, {x},
                             Attrs()
                                 .Set("dims", Dims{4, 2, 3})
                                 .Set("broadcast_dims", Dims{1, 2}))),
            want);
  // [3] along dim 0 of [3,2]: out[i][j] = v[i].
  Value v = Input(std::vector<float>{7, 8, 9}, {3});
  EXPECT_EQ(
      Exec<float>(
          Make(OpKind::kBroadcastInDim, {v},
               Attrs().Set("dims", Dims{3, 2}).Set("broadcast_dims", Dims{0}))),
      (std::vector<float>{7, 7, 8, 8, 9, 9}));
  // Size-1 dim expanded: [1,3] -> [2,3].
  Value row = Input(std::vector<float>{1, 2, 3}, {1, 3});
  EXPECT_EQ(
      Exec<float>(Make(
          OpKind::kBroadcastInDim, {row},
          Attrs().Set("dims", Dims{2, 3}).Set("broadcast_dims", Dims{0, 1}))),
      (std::vector<float>{1, 2, 3, 1, 2, 3}));
  // Scalar -> [4].
  Value s = Input(std::vector<int32_t>{-3}, {});
  EXPECT_EQ(Exec<int32_t>(Make(
                OpKind::kBroadcastInDim, {s},
                Attrs().Set("dims", Dims{4}).Set("broadcast_dims", Dims{}))),
            (std::vector<int32_t>{-3, -3, -3, -3}));
}

TEST(DataMovementExecTest, ReshapeTransposeReverse) {
  std::vector<float> a = Arange(24);  // [2,3,4]
  Value x = Input(a, {2, 3, 4});
  // Reshape keeps row-major order.
  Value r = Make(OpKind::kReshape, {x}, Attrs().Set("dims", Dims{4, 6}));
  EXPECT_EQ(r.shape(), Shape(DType::kF32, {4, 6}));
  EXPECT_EQ(Exec<float>(r), a);

  // Transpose with permutation {2,0,1}: out[k][i][j] = a[i][j][k].
  std::vector<float> want;
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) want.push_back(a[(i * 3 + j) * 4 + k]);
  Value t =
      Make(OpKind::kTranspose, {x}, Attrs().Set("permutation", Dims{2, 0, 1}));
  EXPECT_EQ(t.shape(), Shape(DType::kF32, {4, 2, 3}));
  EXPECT_EQ(Exec<float>(t), want);

  // Reverse dims {0, 2}: out[i][j][k] = a[1-i][j][3-k].
  std::vector<float> rev;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k)
        rev.push_back(a[((1 - i) * 3 + j) * 4 + (3 - k)]);
  EXPECT_EQ(
      Exec<float>(Make(OpKind::kReverse, {x}, Attrs().Set("dims", Dims{0, 2}))),
      rev);
}

TEST(DataMovementExecTest, SliceWithStrides) {
  std::vector<float> a = Arange(20);  // [4,5]
  Value x = Input(a, {4, 5});
  auto ref = [&](Dims start, Dims limit, Dims stride) {
    std::vector<float> out;
    for (int64_t i = start[0]; i < limit[0]; i += stride[0])
      for (int64_t j = start[1]; j < limit[1]; j += stride[1])
        out.push_back(a[i * 5 + j]);
    return out;
  };
  EXPECT_EQ(Exec<float>(Make(
                OpKind::kSlice, {x},
                Attrs().Set("start", Dims{1, 2}).Set("limit", Dims{3, 5}))),
            ref({1, 2}, {3, 5}, {1, 1}));
  Value strided = Make(OpKind::kSlice, {x},
                       Attrs()
                           .Set("start", Dims{1, 0})
                           .Set("limit", Dims{4, 5})
                           .Set("strides", Dims{2, 2}));
  EXPECT_EQ(strided.shape().dims, (Dims{2, 3}));
  EXPECT_EQ(Exec<float>(strided), ref({1, 0}, {4, 5}, {2, 2}));
  EXPECT_EQ(Exec<float>(strided), (std::vector<float>{5, 7, 9, 15, 17, 19}));
}

// XLA clamps dynamic start indices so the window stays inside the operand.
int64_t ClampStart(int64_t start, int64_t dim, int64_t size) {
  return std::min(std::max<int64_t>(start, 0), dim - size);
}

TEST(DataMovementExecTest, DynamicSliceClampsStarts) {
  std::vector<float> a = Arange(20);  // [4,5]
  const int64_t starts[][2] = {{1, 2}, {0, 0}, {3, 4}, {-1, -5}, {100, 1}};
  for (const auto& s : starts) {
    SCOPED_TRACE(std::to_string(s[0]) + "," + std::to_string(s[1]));
    Value x = Input(a, {4, 5});
    Value i0 = Input(std::vector<int32_t>{int32_t(s[0])}, {});
    Value i1 = Input(std::vector<int32_t>{int32_t(s[1])}, {});
    const int64_t r0 = ClampStart(s[0], 4, 2), r1 = ClampStart(s[1], 5, 3);
    std::vector<float> want;
    for (int64_t i = r0; i < r0 + 2; ++i)
      for (int64_t j = r1; j < r1 + 3; ++j) want.push_back(a[i * 5 + j]);
    EXPECT_EQ(Exec<float>(Make(OpKind::kDynamicSlice, {x, i0, i1},
                               Attrs().Set("sizes", Dims{2, 3}))),
              want);
  }
}

TEST(DataMovementExecTest, DynamicUpdateSliceClampsStarts) {
  std::vector<float> a = Arange(20);          // [4,5]
  std::vector<float> upd = {-1, -2, -3, -4};  // [2,2]
  const int64_t starts[][2] = {{1, 1}, {0, 3}, {3, 4}, {-2, 0}};
  for (const auto& s : starts) {
    SCOPED_TRACE(std::to_string(s[0]) + "," + std::to_string(s[1]));
    const int64_t r0 = ClampStart(s[0], 4, 2), r1 = ClampStart(s[1], 5, 2);
    std::vector<float> want = a;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        want[(r0 + i) * 5 + r1 + j] = upd[i * 2 + j];
    Value out = Make(OpKind::kDynamicUpdateSlice,
                     {Input(a, {4, 5}), Input(upd, {2, 2}),
                      Input(std::vector<int64_t>{s[0]}, {}),
                      Input(std::vector<int64_t>{s[1]}, {})});
    EXPECT_EQ(Exec<float>(out), want);
  }
}

TEST(DataMovementExecTest, Concatenate) {
  std::vector<float> a = Arange(6), b = Arange(4, 100), c = Arange(2, -10);
  // dim 1: [2,3] ++ [2,2] ++ [2,1].
  Value x = Input(a, {2, 3}), y = Input(b, {2, 2}), z = Input(c, {2, 1});
  std::vector<float> want;
  for (int i = 0; i < 2; ++i) {
    want.insert(want.end(), a.begin() + i * 3, a.begin() + i * 3 + 3);
    want.insert(want.end(), b.begin() + i * 2, b.begin() + i * 2 + 2);
    want.push_back(c[i]);
  }
  EXPECT_EQ(Exec<float>(Make(OpKind::kConcatenate, {x, y, z},
                             Attrs().Set("dimension", 1))),
            want);
  // dim 0: [2,3] ++ [1,3].
  std::vector<float> d = {7, 8, 9};
  std::vector<float> want0 = a;
  want0.insert(want0.end(), d.begin(), d.end());
  EXPECT_EQ(Exec<float>(Make(OpKind::kConcatenate, {x, Input(d, {1, 3})},
                             Attrs().Set("dimension", 0))),
            want0);
}

// Reference pad for rank 2: output coordinate o maps to input o - low when
// that lands on a stride of interior + 1 inside the input.
std::vector<float> PadRef(const std::vector<float>& a, Dims dims, Dims low,
                          Dims high, Dims interior, float value) {
  Dims out_dims(2);
  for (int d = 0; d < 2; ++d) {
    out_dims[d] = low[d] + high[d] + dims[d] + (dims[d] - 1) * interior[d];
  }
  std::vector<float> out;
  for (int64_t i = 0; i < out_dims[0]; ++i) {
    for (int64_t j = 0; j < out_dims[1]; ++j) {
      int64_t src[2], o[2] = {i, j};
      bool inside = true;
      for (int d = 0; d < 2; ++d) {
        int64_t p = o[d] - low[d];
        inside = inside && p >= 0 && p % (interior[d] + 1) == 0 &&
                 p / (interior[d] + 1) < dims[d];
        src[d] = p / (interior[d] + 1);
      }
      out.push_back(inside ? a[src[0] * dims[1] + src[1]] : value);
    }
  }
  return out;
}

TEST(DataMovementExecTest, PadLowHighInteriorAndNegative) {
  std::vector<float> a = Arange(6, 1);  // [2,3]
  struct PadCase {
    Dims low, high, interior;
  };
  const PadCase cases[] = {
      {{1, 0}, {0, 2}, {0, 1}},
      {{0, 0}, {0, 0}, {2, 0}},
      {{-1, 0}, {0, -1}, {0, 1}},  // negative edge padding crops
      {{1, -2}, {1, 1}, {1, 1}},
  };
  for (const PadCase& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.low) +
                 ::testing::PrintToString(c.high) +
                 ::testing::PrintToString(c.interior));
    Value x = Input(a, {2, 3});
    Value pad_value = Input(std::vector<float>{-0.5f}, {});
    Value out = Make(OpKind::kPad, {x, pad_value},
                     Attrs()
                         .Set("low", c.low)
                         .Set("high", c.high)
                         .Set("interior", c.interior));
    EXPECT_EQ(Exec<float>(out),
              PadRef(a, {2, 3}, c.low, c.high, c.interior, -0.5f));
  }
  // Spot check of the first case: [[-.5 x3 ...], [1,-.5,2,-.5,3,-.5,-.5], ...].
  EXPECT_EQ(PadRef(a, {2, 3}, {1, 0}, {0, 2}, {0, 1}, 0),
            (std::vector<float>{0, 0, 0, 0, 0, 0, 0, 1, 0, 2, 0,
                                3, 0, 0, 4, 0, 5, 0, 6, 0, 0}));
}

}  // namespace
}  // namespace torch_xla
