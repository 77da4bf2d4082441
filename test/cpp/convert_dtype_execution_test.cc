// Execution of element type conversions (convert, bitcast_convert, float to int
// truncation, rounding to bf16/f16) and arithmetic in narrow, wide and
// half-precision element types. Every graph runs through the CPU plugin (lower
// -> compile -> execute) and is checked against values the test computes itself
// with plain C++ loops (test/cpp/float_reference_util.h): exact for integer and
// bit-level results, within ~8 f32 ULPs for transcendental functions.

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
using testing::FloatOfBits;
using testing::ExpectClose;
using testing::ExpectSameFloats;
using testing::RoundToBf16;
using testing::RoundToF16;
using testing::HalfBitsToDouble;
using testing::Bf16BitsToDouble;

// ---------------------------------------------------------------------------
// Convert and bitcast_convert.

TEST(ConvertExecTest, FloatToIntTruncatesTowardZero) {
  std::vector<float> a = {-2.7f, -0.5f, 0.5f, 2.7f, 100.9f, -100.9f, 1e6f};
  std::vector<int32_t> want;
  for (float v : a) want.push_back(static_cast<int32_t>(v));  // truncation
  EXPECT_EQ(Exec<int32_t>(Convert(Input(a, {7}), DType::kI32)), want);
  EXPECT_EQ(want[0], -2);
}

TEST(ConvertExecTest, IntToFloatRoundsToNearestEven) {
  // 2^24 + 1 and 2^24 + 3 are not representable in f32.
  std::vector<int32_t> a = {0, -7, 16777217, 16777219, 2147483647, -2147483647};
  std::vector<float> want;
  for (int32_t v : a) want.push_back(static_cast<float>(v));
  ExpectSameFloats(Exec<float>(Convert(Input(a, {6}), DType::kF32)), want);
  EXPECT_EQ(want[2], 16777216.0f);
  EXPECT_EQ(want[3], 16777220.0f);
}

TEST(ConvertExecTest, F32ThroughBf16AndF16RoundsToNearestEven) {
  const std::vector<float> a = {
      1.0f + std::ldexp(1.0f, -8),                          // tie -> 1
      1.0f + 3 * std::ldexp(1.0f, -8),                      // tie -> up
      1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20),  // above tie
      -3.14159265f,
      0.1f,
      65519.0f,
      65520.0f,
      1e-40f,
      std::ldexp(1.0f, -25),
      3 * std::ldexp(1.0f, -25),
      std::numeric_limits<float>::max(),
      -0.0f,
      float(-kInf)};
  const int64_t n = a.size();
  std::vector<float> want_bf16, want_f16;
  for (float v : a) {
    want_bf16.push_back(static_cast<float>(RoundToBf16(v)));
    want_f16.push_back(static_cast<float>(RoundToF16(v)));
  }
  EXPECT_EQ(want_bf16[0], 1.0f);
  EXPECT_EQ(want_bf16[1], 1.0f + std::ldexp(1.0f, -6));
  EXPECT_EQ(want_f16[5], 65504.0f);
  EXPECT_TRUE(std::isinf(want_f16[6]));
  Value x = Input(a, {n});
  {
    SCOPED_TRACE("bf16");
    ExpectSameFloats(
        Exec<float>(Convert(Convert(x, DType::kBF16), DType::kF32)), want_bf16);
  }
  {
    SCOPED_TRACE("f16");
    ExpectSameFloats(Exec<float>(Convert(Convert(x, DType::kF16), DType::kF32)),
                     want_f16);
  }
}

TEST(ConvertExecTest, ToAndFromPred) {
  std::vector<float> a = {0.0f, -0.0f, 0.5f, -2.0f, float(kNaN), 1e-30f};
  Value p = Convert(Input(a, {6}), DType::kBool);
  EXPECT_EQ(Exec<uint8_t>(p), (std::vector<uint8_t>{0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(Exec<float>(Convert(p, DType::kF32)),
            (std::vector<float>{0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(Exec<uint8_t>(Convert(Input(std::vector<int32_t>{0, -3, 2}, {3}),
                                  DType::kBool)),
            (std::vector<uint8_t>{0, 1, 1}));
  EXPECT_EQ(
      Exec<int32_t>(Convert(
          Input(std::vector<uint8_t>{1, 0}, {2}, DType::kBool), DType::kI32)),
      (std::vector<int32_t>{1, 0}));
}

TEST(ConvertExecTest, BitcastConvertReinterpretsBits) {
  std::vector<float> a = {1.0f, -0.0f, -2.5f, float(kInf), 1e-45f};
  std::vector<uint32_t> bits;
  for (float v : a) bits.push_back(BitsOf(v));
  EXPECT_EQ(bits[0], 0x3F800000u);
  Value x = Input(a, {5});
  EXPECT_EQ(Exec<uint32_t>(Make(OpKind::kBitcastConvert, {x},
                                Attrs().Set("dtype", DType::kU32))),
            bits);
  std::vector<int32_t> ints = {0x40490FDB, int32_t(0xBF800000u), 0x7F7FFFFF};
  std::vector<float> floats;
  for (int32_t i : ints) floats.push_back(FloatOfBits(uint32_t(i)));
  ExpectSameFloats(Exec<float>(Make(OpKind::kBitcastConvert, {Input(ints, {3})},
                                    Attrs().Set("dtype", DType::kF32))),
                   floats);
}

// ---------------------------------------------------------------------------
// Narrow, wide and half-precision element types.

TEST(DTypeExecTest, NarrowAndWideIntegersWrapAndCompare) {
  // s8 and u8 wrap around; u8 shifts are logical on 8 bits.
  std::vector<int8_t> s8a = {100, -100, 127, 5}, s8b = {100, -100, 1, -7};
  std::vector<int8_t> s8_sum;
  for (int i = 0; i < 4; ++i)
    s8_sum.push_back(int8_t(uint8_t(s8a[i] + s8b[i])));
  EXPECT_EQ(Exec<int8_t>(
                Ok(MakeBinary(OpKind::kAdd, Input(s8a, {4}), Input(s8b, {4})))),
            s8_sum);
  EXPECT_EQ(s8_sum[0], -56);
  std::vector<uint8_t> u8a = {5, 200, 255}, u8b = {10, 3, 1};
  Value u = Input(u8a, {3}), v = Input(u8b, {3});
  EXPECT_EQ(Exec<uint8_t>(Ok(MakeBinary(OpKind::kSubtract, u, v))),
            (std::vector<uint8_t>{251, 197, 254}));
  EXPECT_EQ(Exec<uint8_t>(Ok(MakeBinary(OpKind::kShiftRightLogical, u, v))),
            (std::vector<uint8_t>{0, 25, 127}));
  // s64 beyond 32 bits; u64 compares as unsigned.
  std::vector<int64_t> s64a = {3000000000, -3000000000, int64_t{1} << 40};
  std::vector<int64_t> s64b = {3, 7, -(int64_t{1} << 20)};
  std::vector<int64_t> prod, quot;
  for (int i = 0; i < 3; ++i) {
    prod.push_back(s64a[i] * s64b[i]);
    quot.push_back(s64a[i] / s64b[i]);
  }
  Value x = Input(s64a, {3}), y = Input(s64b, {3});
  EXPECT_EQ(Exec<int64_t>(Ok(MakeBinary(OpKind::kMultiply, x, y))), prod);
  EXPECT_EQ(Exec<int64_t>(Ok(MakeBinary(OpKind::kDivide, x, y))), quot);
  std::vector<uint64_t> u64a = {uint64_t{1} << 63, 1, ~uint64_t{0}};
  std::vector<uint64_t> u64b = {1, uint64_t{1} << 63, ~uint64_t{0} - 1};
  EXPECT_EQ(
      Exec<uint8_t>(Ok(MakeCompare(Input(u64a, {3}), Input(u64b, {3}), "GT"))),
      (std::vector<uint8_t>{1, 0, 1}));
}

TEST(DTypeExecTest, ConvertAcrossWidths) {
  // Integer narrowing keeps the low bits; widening sign- or zero-extends.
  std::vector<int32_t> wide = {300, -129, 127, -1};
  std::vector<int8_t> narrow;
  for (int32_t v : wide) narrow.push_back(int8_t(uint8_t(uint32_t(v) & 0xff)));
  EXPECT_EQ(Exec<int8_t>(Convert(Input(wide, {4}), DType::kI8)), narrow);
  EXPECT_EQ(narrow[0], 44);
  EXPECT_EQ(Exec<int32_t>(
                Convert(Input(std::vector<uint8_t>{255, 1}, {2}), DType::kI32)),
            (std::vector<int32_t>{255, 1}));
  EXPECT_EQ(Exec<int32_t>(Convert(Input(std::vector<int8_t>{-1, -128}, {2}),
                                  DType::kI32)),
            (std::vector<int32_t>{-1, -128}));
  // Wide integers and f64 to f32: one round-to-nearest-even step.
  std::vector<uint32_t> u32 = {4294967295u, 16777217u};
  std::vector<int64_t> s64 = {(int64_t{1} << 60) + (int64_t{1} << 36) + 1, -3};
  std::vector<double> f64 = {0.1, 1.0 + std::ldexp(1.0, -24), 1e300};
  auto as_floats = [](const auto& v) {
    std::vector<float> out;
    for (auto e : v) out.push_back(static_cast<float>(e));
    return out;
  };
  ExpectSameFloats(Exec<float>(Convert(Input(u32, {2}), DType::kF32)),
                   as_floats(u32));
  ExpectSameFloats(Exec<float>(Convert(Input(s64, {2}), DType::kF32)),
                   as_floats(s64));
  ExpectSameFloats(Exec<float>(Convert(Input(f64, {3}), DType::kF32)),
                   as_floats(f64));
  EXPECT_EQ(
      Exec<double>(Convert(Input(std::vector<float>{0.1f}, {1}), DType::kF64)),
      (std::vector<double>{double(0.1f)}));
  // bitcast s16 -> bf16: 0x3FC0 is 1.5.
  Value bf =
      Make(OpKind::kBitcastConvert,
           {Input(std::vector<uint16_t>{0x3FC0, 0xC020}, {2}, DType::kI16)},
           Attrs().Set("dtype", DType::kBF16));
  EXPECT_EQ(Exec<float>(Convert(bf, DType::kF32)),
            (std::vector<float>{1.5f, -2.5f}));
}

// bf16 / f16 bits of a value exactly representable in that type.
std::vector<uint16_t> HalfBits(const std::vector<double>& v, DType dtype) {
  std::vector<uint16_t> out;
  for (double d : v) {
    if (dtype == DType::kBF16) {
      out.push_back(uint16_t(BitsOf(float(d)) >> 16));
      continue;
    }
    uint32_t bits = 0;  // search: 65536 candidates is cheap
    while (bits < 0x10000 && HalfBitsToDouble(bits) != d) ++bits;
    if (bits == 0x10000) ADD_FAILURE() << "test bug: " << d << " is not f16";
    out.push_back(static_cast<uint16_t>(bits));
  }
  return out;
}

TEST(DTypeExecTest, Bf16AndF16ArithmeticRoundsOnce) {
  // Operands exact in both types; sums and products of 8/11-bit mantissas
  // are exact in double, so the expected result is one rounding of it.
  const std::vector<double> a = {1.5,       -2.75, 100.5,
                                 0.0078125, 3.0,   1.0 + 1.0 / 128};
  const std::vector<double> b = {0.3125, 1.25, -0.5, 1024.0, 3.0, 1.0 / 256};
  for (DType dtype : {DType::kBF16, DType::kF16}) {
    SCOPED_TRACE(std::string(DTypeName(dtype)));
    auto round = dtype == DType::kBF16 ? RoundToBf16 : RoundToF16;
    Value x = Input(HalfBits(a, dtype), {6}, dtype);
    Value y = Input(HalfBits(b, dtype), {6}, dtype);
    struct {
      OpKind kind;
      double (*f)(double, double);
    } ops[] = {
        {OpKind::kAdd, [](double p, double q) { return p + q; }},
        {OpKind::kSubtract, [](double p, double q) { return p - q; }},
        {OpKind::kMultiply, [](double p, double q) { return p * q; }},
        {OpKind::kMaximum, [](double p, double q) { return std::max(p, q); }}};
    // The bf16/f16 result is read directly: a convert to f32 in the same
    // graph lets XLA keep excess precision (its default
    // xla_allow_excess_precision), and the unrounded f32 sum comes back.
    for (const auto& op : ops) {
      SCOPED_TRACE(std::string(OpKindName(op.kind)));
      std::vector<double> want;
      for (int i = 0; i < 6; ++i) want.push_back(round(op.f(a[i], b[i])));
      EXPECT_EQ(Exec<uint16_t>(Ok(MakeBinary(op.kind, x, y))),
                HalfBits(want, dtype));
    }
    // A transcendental: within one ulp of the type (2^-7 / 2^-10 relative).
    const std::vector<double> in = {1.5, -2.75, 0.0078125, 3.0};
    std::vector<float> got;
    for (uint16_t bits : Exec<uint16_t>(Ok(MakeUnary(
             OpKind::kExponential, Input(HalfBits(in, dtype), {4}, dtype))))) {
      got.push_back(dtype == DType::kBF16 ? Bf16BitsToDouble(bits)
                                          : HalfBitsToDouble(bits));
    }
    std::vector<double> want_exp;
    for (double v : in) want_exp.push_back(std::exp(v));
    ExpectClose(got, want_exp, dtype == DType::kBF16 ? 1.0 / 128 : 1.0 / 1024,
                0);
  }
}

}  // namespace
}  // namespace torch_xla
