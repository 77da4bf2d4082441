// Execution tests, part 1: elementwise ops, compare/select/clamp, convert and
// bitcast, narrow/wide/half-precision element types, constants and iota,
// data movement. Every graph runs through the CPU plugin (lower -> compile ->
// execute) and is checked against values the test computes itself with plain
// C++ loops: exact for integer and bit-level results, within ~8 f32 ULPs
// for transcendental functions. Part 2 (dot, reduce, gather/scatter, rng,
// while, multi-output graphs, host scalars) is execution_control_test.cc.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "gtest/gtest.h"
#include "test/cpp/ir_test_util.h"
#include "torch_xla/csrc/ir/builder.h"
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
using Dims = std::vector<int64_t>;

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::nan("");

// ---------------------------------------------------------------------------
// Helpers (inputs and Exec/Read: execution_test_util.h): comparing.

uint32_t BitsOf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

float FloatOfBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// Each |actual - expected| <= rel * |expected| + abs; NaN must match NaN.
void ExpectClose(const std::vector<float>& actual,
                 const std::vector<double>& expected, double rel, double abs,
                 const std::vector<float>& inputs = {}) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    std::string where =
        "element " + std::to_string(i) +
        (i < inputs.size() ? " (input " + std::to_string(inputs[i]) + ")" : "");
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(actual[i])) << where << ": got " << actual[i];
    } else if (std::isinf(expected[i])) {
      EXPECT_EQ(actual[i], expected[i]) << where;
    } else {
      EXPECT_NEAR(actual[i], expected[i], rel * std::fabs(expected[i]) + abs)
          << where;
    }
  }
}

// Bit-exact float comparison (distinguishes -0.0 from 0.0; NaN == NaN).
void ExpectSameFloats(const std::vector<float>& actual,
                      const std::vector<float>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    if (std::isnan(expected[i]) && std::isnan(actual[i])) continue;
    EXPECT_EQ(BitsOf(actual[i]), BitsOf(expected[i]))
        << "element " << i << ": got " << actual[i] << ", expected "
        << expected[i];
  }
}

// `x` rounded to nearest-even in a binary float format with `mantissa`
// fraction bits and smallest normal exponent `min_exp`; beyond `max_finite`
// it is +-inf. Plain double arithmetic, independent of the code under test.
double RoundToFormat(double x, int mantissa, int min_exp, double max_finite) {
  if (std::isnan(x) || std::isinf(x) || x == 0) return x;
  const int e = std::max(std::ilogb(x), min_exp);
  const double ulp = std::ldexp(1.0, e - mantissa);
  const double r = std::nearbyint(x / ulp) * ulp;  // FE_TONEAREST: ties even
  return std::fabs(r) > max_finite ? std::copysign(kInf, x) : r;
}
double RoundToBf16(double x) {
  return RoundToFormat(x, 7, -126, std::ldexp(255.0, 120));
}
double RoundToF16(double x) { return RoundToFormat(x, 10, -14, 65504.0); }

double HalfBitsToDouble(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double v = exponent == 0    ? std::ldexp(mantissa, -24)
             : exponent == 31 ? (mantissa ? kNaN : kInf)
                              : std::ldexp(1024 + mantissa, exponent - 25);
  return (h & 0x8000) ? -v : v;
}
double Bf16BitsToDouble(uint16_t b) {
  return FloatOfBits(static_cast<uint32_t>(b) << 16);
}

Value Convert(const Value& x, DType dtype) {
  return Make(OpKind::kConvert, {x}, Attrs().Set("dtype", dtype));
}

// ---------------------------------------------------------------------------
// Elementwise.

struct UnaryCase {
  OpKind kind;
  double (*reference)(double);
  bool positive_domain;  // log, sqrt, ...: positive inputs only
  bool exact;            // rounding and sign ops: bit-exact
};

TEST(ElementwiseExecTest, UnaryFloatMatchesLibm) {
  const std::vector<float> all = {-3.7f, -2.5f, -1.5f, -0.5f, -0.3f,
                                  -0.0f, 0.0f,  0.25f, 0.5f,  1.5f,
                                  2.5f,  3.7f,  7.0f,  -9.25f};
  const std::vector<float> positive = {1e-3f, 0.1f,  0.5f,   1.0f,    2.0f,
                                       3.7f,  10.0f, 100.0f, 12345.0f};
  const UnaryCase cases[] = {
      {OpKind::kExponential, [](double x) { return std::exp(x); }, false,
       false},
      {OpKind::kExponentialMinusOne, [](double x) { return std::expm1(x); },
       false, false},
      {OpKind::kLog, [](double x) { return std::log(x); }, true, false},
      {OpKind::kLogPlusOne, [](double x) { return std::log1p(x); }, true,
       false},
      {OpKind::kSqrt, [](double x) { return std::sqrt(x); }, true, false},
      {OpKind::kRsqrt, [](double x) { return 1.0 / std::sqrt(x); }, true,
       false},
      {OpKind::kCbrt, [](double x) { return std::cbrt(x); }, false, false},
      {OpKind::kSine, [](double x) { return std::sin(x); }, false, false},
      {OpKind::kCosine, [](double x) { return std::cos(x); }, false, false},
      {OpKind::kTan, [](double x) { return std::tan(x); }, false, false},
      {OpKind::kTanh, [](double x) { return std::tanh(x); }, false, false},
      {OpKind::kLogistic, [](double x) { return 1.0 / (1.0 + std::exp(-x)); },
       false, false},
      {OpKind::kErf, [](double x) { return std::erf(x); }, false, false},
      {OpKind::kFloor, [](double x) { return std::floor(x); }, false, true},
      {OpKind::kCeil, [](double x) { return std::ceil(x); }, false, true},
      {OpKind::kRoundNearestEven, [](double x) { return std::nearbyint(x); },
       false, true},
      {OpKind::kAbs, [](double x) { return std::fabs(x); }, false, true},
      {OpKind::kNegate, [](double x) { return -x; }, false, true},
      {OpKind::kSign, [](double x) { return x > 0   ? 1.0
                                            : x < 0 ? -1.0
                                                    : x; },
       false, true},
  };
  for (const UnaryCase& c : cases) {
    SCOPED_TRACE(std::string(OpKindName(c.kind)));
    const std::vector<float>& in = c.positive_domain ? positive : all;
    std::vector<float> got =
        Exec<float>(Ok(MakeUnary(c.kind, Input(in, {int64_t(in.size())}))));
    std::vector<double> want;
    for (float x : in) want.push_back(c.reference(x));
    if (c.exact) {
      std::vector<float> want_f(want.begin(), want.end());
      ExpectSameFloats(got, want_f);
    } else {
      // ~8 f32 ULPs relative, plus an absolute floor for results near 0.
      ExpectClose(got, want, 1e-6, 1e-7, in);
    }
  }
}

TEST(ElementwiseExecTest, IsFiniteOnSpecialValues) {
  std::vector<float> in = {1.0f,         -0.0f,       float(kInf),
                           float(-kInf), float(kNaN), 3.4e38f};
  EXPECT_EQ(Exec<uint8_t>(Ok(MakeUnary(OpKind::kIsFinite, Input(in, {6})))),
            (std::vector<uint8_t>{1, 1, 0, 0, 0, 1}));
}

TEST(ElementwiseExecTest, UnaryIntegerAndPred) {
  std::vector<int32_t> a = {0, 1, -1, 7, -8, 123456, -2147483647};
  Value x = Input(a, {7});
  std::vector<int32_t> not_a, abs_a, neg_a, sign_a;
  for (int32_t v : a) {
    not_a.push_back(~v);
    abs_a.push_back(v < 0 ? -v : v);
    neg_a.push_back(-v);
    sign_a.push_back(v > 0 ? 1 : v < 0 ? -1 : 0);
  }
  EXPECT_EQ(Exec<int32_t>(Ok(MakeUnary(OpKind::kNot, x))), not_a);
  EXPECT_EQ(Exec<int32_t>(Ok(MakeUnary(OpKind::kAbs, x))), abs_a);
  EXPECT_EQ(Exec<int32_t>(Ok(MakeUnary(OpKind::kNegate, x))), neg_a);
  EXPECT_EQ(Exec<int32_t>(Ok(MakeUnary(OpKind::kSign, x))), sign_a);

  std::vector<uint8_t> u = {0, 1, 0x0f, 0xff};
  EXPECT_EQ(Exec<uint8_t>(Ok(MakeUnary(OpKind::kNot, Input(u, {4})))),
            (std::vector<uint8_t>{0xff, 0xfe, 0xf0, 0x00}));
  std::vector<uint8_t> p = {1, 0, 0, 1};
  EXPECT_EQ(
      Exec<uint8_t>(Ok(MakeUnary(OpKind::kNot, Input(p, {4}, DType::kBool)))),
      (std::vector<uint8_t>{0, 1, 1, 0}));
}

// A binary op and its reference on one element pair.
template <typename T>
struct BinaryCase {
  OpKind kind;
  T (*reference)(T, T);
};

// Runs each op on (a, b) and compares with its reference: bit-exact for
// floats (IEEE basic operations are correctly rounded), exact for integers.
template <typename T>
void ExpectBinaryOps(const std::vector<T>& a, const std::vector<T>& b,
                     std::initializer_list<BinaryCase<T>> cases) {
  Value x = Input(a, {int64_t(a.size())}), y = Input(b, {int64_t(b.size())});
  for (const BinaryCase<T>& c : cases) {
    SCOPED_TRACE(std::string(OpKindName(c.kind)));
    std::vector<T> want;
    for (size_t i = 0; i < a.size(); ++i)
      want.push_back(c.reference(a[i], b[i]));
    std::vector<T> got = Exec<T>(Ok(MakeBinary(c.kind, x, y)));
    if constexpr (std::is_floating_point_v<T>) {
      ExpectSameFloats(got, want);
    } else {
      EXPECT_EQ(got, want);
    }
  }
}

TEST(ElementwiseExecTest, BinaryFloat) {
  const std::vector<float> a = {1.5f, -2.25f, 7.0f,  -7.0f,
                                0.1f, 5.5f,   -0.0f, 3.0f};
  const std::vector<float> b = {0.5f, 4.0f,  -2.0f, 2.5f,
                                0.3f, -1.5f, 2.0f,  -0.0f};
  using F = float;
  ExpectBinaryOps<F>(
      a, b,
      {{OpKind::kAdd, [](F p, F q) { return p + q; }},
       {OpKind::kSubtract, [](F p, F q) { return p - q; }},
       {OpKind::kMultiply, [](F p, F q) { return p * q; }},
       {OpKind::kDivide, [](F p, F q) { return p / q; }},
       // C fmod: the result has the dividend's sign; fmod is exact.
       {OpKind::kRemainder, [](F p, F q) { return std::fmod(p, q); }},
       {OpKind::kMaximum, [](F p, F q) { return p > q ? p : q; }},
       {OpKind::kMinimum, [](F p, F q) { return p < q ? p : q; }}});
  // Spot values of fmod's sign rule: -7 rem 2.5 = -2, 7 rem -2 = 1.
  EXPECT_EQ(std::fmod(a[3], b[3]), -2.0f);
  EXPECT_EQ(std::fmod(a[2], b[2]), 1.0f);

  std::vector<double> atan2_want;
  for (size_t i = 0; i < a.size(); ++i) {
    atan2_want.push_back(std::atan2(a[i], b[i]));
  }
  ExpectClose(Exec<float>(Ok(MakeBinary(OpKind::kAtan2, Input(a, {2, 4}),
                                        Input(b, {2, 4})))),
              atan2_want, 1e-6, 1e-7);
}

TEST(ElementwiseExecTest, PowerFloat) {
  const std::vector<float> base = {2.0f,  9.0f,  0.5f, 10.0f,
                                   -2.0f, -2.0f, 0.0f, 1.7f};
  const std::vector<float> exp = {10.0f, 0.5f, -3.0f, -1.5f,
                                  3.0f,  0.5f, 0.0f,  2.3f};
  std::vector<double> want;
  for (size_t i = 0; i < base.size(); ++i) {
    want.push_back(std::pow(double(base[i]), double(exp[i])));
  }
  ExpectClose(Exec<float>(Ok(MakeBinary(OpKind::kPower, Input(base, {8}),
                                        Input(exp, {8})))),
              want, 1e-6, 0, base);
  EXPECT_TRUE(std::isnan(want[5]));  // (-2)^0.5 checked as NaN above
}

TEST(ElementwiseExecTest, BinaryInteger) {
  // Every sign combination for division and remainder.
  const std::vector<int32_t> a = {7, -7, 7, -7, 1, 0, 100, -100, 2147483647};
  const std::vector<int32_t> b = {2, 2, -2, -2, 3, 5, 7, 7, 2};
  // C++ '/' truncates toward zero and '%' takes the dividend's sign, as
  // XLA's integer divide and remainder do.
  using I = int32_t;
  ExpectBinaryOps<I>(
      a, b,
      {{OpKind::kDivide, [](I p, I q) { return p / q; }},
       {OpKind::kRemainder, [](I p, I q) { return p % q; }},
       {OpKind::kAdd, [](I p, I q) { return I(uint32_t(p) + uint32_t(q)); }},
       {OpKind::kSubtract, [](I p, I q) { return p - q; }},
       {OpKind::kMultiply,
        [](I p, I q) { return I(uint32_t(p) * uint32_t(q)); }},
       {OpKind::kMaximum, [](I p, I q) { return std::max(p, q); }},
       {OpKind::kMinimum, [](I p, I q) { return std::min(p, q); }},
       {OpKind::kAnd, [](I p, I q) { return p & q; }},
       {OpKind::kOr, [](I p, I q) { return p | q; }},
       {OpKind::kXor, [](I p, I q) { return p ^ q; }}});
  // The same, spelled out.
  EXPECT_EQ(a[1] / b[1], -3);
  EXPECT_EQ(a[2] / b[2], -3);
  EXPECT_EQ(a[1] % b[1], -1);
  EXPECT_EQ(a[2] % b[2], 1);

  // Integer power by repeated multiplication (non-negative exponents).
  std::vector<int32_t> base = {2, -3, 5, 0, 1, -1, 7};
  std::vector<int32_t> exponent = {10, 3, 0, 4, 100, 7, 2};
  std::vector<int32_t> want;
  for (size_t i = 0; i < base.size(); ++i) {
    int32_t r = 1;
    for (int k = 0; k < exponent[i]; ++k) r *= base[i];
    want.push_back(r);
  }
  EXPECT_EQ(Exec<int32_t>(Ok(MakeBinary(OpKind::kPower, Input(base, {7}),
                                        Input(exponent, {7})))),
            want);
}

TEST(ElementwiseExecTest, IntegerDivisionEdgeCasesFollowXla) {
  // XLA defines x / 0 = -1 (all ones), x % 0 = x, INT_MIN / -1 = INT_MIN and
  // INT_MIN % -1 = 0 instead of trapping.
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  Value x = Input(std::vector<int32_t>{5, -5, kMin, kMin}, {4});
  Value y = Input(std::vector<int32_t>{0, 0, -1, 0}, {4});
  EXPECT_EQ(Exec<int32_t>(Ok(MakeBinary(OpKind::kDivide, x, y))),
            (std::vector<int32_t>{-1, -1, kMin, -1}));
  EXPECT_EQ(Exec<int32_t>(Ok(MakeBinary(OpKind::kRemainder, x, y))),
            (std::vector<int32_t>{5, -5, 0, kMin}));
  // Unsigned: 0x80000000 / 3 is unsigned division, not signed.
  Value u = Input(std::vector<uint32_t>{0x80000000u, 10u, 7u}, {3});
  Value v = Input(std::vector<uint32_t>{3u, 3u, 0u}, {3});
  EXPECT_EQ(Exec<uint32_t>(Ok(MakeBinary(OpKind::kDivide, u, v))),
            (std::vector<uint32_t>{0x80000000u / 3u, 3u, 0xffffffffu}));
  EXPECT_EQ(Exec<uint32_t>(Ok(MakeBinary(OpKind::kRemainder, u, v))),
            (std::vector<uint32_t>{0x80000000u % 3u, 1u, 7u}));
}

TEST(ElementwiseExecTest, Shifts) {
  const std::vector<int32_t> a = {1, -16, 0x40000000, -1, 12345, -12345, 5, -5};
  const std::vector<int32_t> n = {3, 2, 1, 31, 4, 4, 32, 33};
  Value x = Input(a, {8}), s = Input(n, {8});
  std::vector<int32_t> left, arith, logical;
  for (size_t i = 0; i < a.size(); ++i) {
    const uint32_t ua = static_cast<uint32_t>(a[i]);
    // XLA: a shift by >= the bit width gives 0 (left, logical) or the sign
    // fill (arithmetic).
    const bool big = n[i] >= 32;
    left.push_back(big ? 0 : int32_t(ua << n[i]));
    logical.push_back(big ? 0 : int32_t(ua >> n[i]));
    arith.push_back(big ? (a[i] < 0 ? -1 : 0)
                        : int32_t(a[i] < 0 ? ~(~ua >> n[i]) : ua >> n[i]));
  }
  EXPECT_EQ(Exec<int32_t>(Ok(MakeBinary(OpKind::kShiftLeft, x, s))), left);
  EXPECT_EQ(Exec<int32_t>(Ok(MakeBinary(OpKind::kShiftRightArithmetic, x, s))),
            arith);
  EXPECT_EQ(Exec<int32_t>(Ok(MakeBinary(OpKind::kShiftRightLogical, x, s))),
            logical);
  EXPECT_EQ(arith[1], -4);
  EXPECT_EQ(logical[1], int32_t(0x3ffffffc));
}

TEST(ElementwiseExecTest, PredLogic) {
  const std::vector<uint8_t> p = {0, 0, 1, 1}, q = {0, 1, 0, 1};
  Value x = Input(p, {4}, DType::kBool), y = Input(q, {4}, DType::kBool);
  EXPECT_EQ(Exec<uint8_t>(Ok(MakeBinary(OpKind::kAnd, x, y))),
            (std::vector<uint8_t>{0, 0, 0, 1}));
  EXPECT_EQ(Exec<uint8_t>(Ok(MakeBinary(OpKind::kOr, x, y))),
            (std::vector<uint8_t>{0, 1, 1, 1}));
  EXPECT_EQ(Exec<uint8_t>(Ok(MakeBinary(OpKind::kXor, x, y))),
            (std::vector<uint8_t>{0, 1, 1, 0}));
}

// ---------------------------------------------------------------------------
// Compare, select, clamp.

const char* const kDirections[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};

template <typename T>
bool CompareRef(T a, T b, const std::string& d) {
  if (d == "EQ") return a == b;
  if (d == "NE") return a != b;
  if (d == "LT") return a < b;
  if (d == "LE") return a <= b;
  if (d == "GT") return a > b;
  return a >= b;
}

template <typename T>
void ExpectCompareAllDirections(const std::vector<T>& a,
                                const std::vector<T>& b, DType dtype) {
  Value x = Input(a, {int64_t(a.size())}, dtype);
  Value y = Input(b, {int64_t(b.size())}, dtype);
  for (const char* d : kDirections) {
    SCOPED_TRACE(d);
    std::vector<uint8_t> want;
    for (size_t i = 0; i < a.size(); ++i)
      want.push_back(CompareRef(a[i], b[i], d));
    EXPECT_EQ(Exec<uint8_t>(Ok(MakeCompare(x, y, d))), want);
  }
}

TEST(CompareExecTest, AllDirectionsF32IncludingNaNAndSignedZero) {
  // C++ comparisons on floats are IEEE (unordered NaN: only NE is true).
  ExpectCompareAllDirections<float>(
      {1.0f, 2.0f, 3.0f, -0.0f, float(kNaN), 1.0f, float(-kInf), -5.5f},
      {2.0f, 2.0f, 1.0f, 0.0f, 1.0f, float(kNaN), -1e38f, -5.25f}, DType::kF32);
}

TEST(CompareExecTest, AllDirectionsS32AndU32) {
  ExpectCompareAllDirections<int32_t>({-5, 0, 7, 7, -2147483647 - 1, 3},
                                      {-4, 0, -7, 7, 2147483647, -3},
                                      DType::kI32);
  // 0x80000000 is large when unsigned (negative if compared as signed).
  ExpectCompareAllDirections<uint32_t>({0x80000000u, 1u, 5u},
                                       {1u, 0xffffffffu, 5u}, DType::kU32);
}

TEST(CompareExecTest, TotalOrderSeparatesSignedZeroAndNaN) {
  Value x = Input(std::vector<float>{-0.0f, float(kNaN), 1.0f}, {3});
  Value y = Input(std::vector<float>{0.0f, float(kInf), float(kNaN)}, {3});
  Value lt = Make(OpKind::kCompare, {x, y},
                  Attrs().Set("direction", "LT").Set("total_order", true));
  // Total order: -0 < +0 < ... < +inf < +NaN.
  EXPECT_EQ(Exec<uint8_t>(lt), (std::vector<uint8_t>{1, 0, 1}));
}

TEST(SelectClampExecTest, SelectElementwiseAndScalarPredicate) {
  std::vector<float> a = {1, 2, 3, 4}, b = {-1, -2, -3, -4};
  std::vector<uint8_t> p = {1, 0, 0, 1};
  Value x = Input(a, {4}), y = Input(b, {4});
  EXPECT_EQ(
      Exec<float>(Make(OpKind::kSelect, {Input(p, {4}, DType::kBool), x, y})),
      (std::vector<float>{1, -2, -3, 4}));
  Value no = Input(std::vector<uint8_t>{0}, {}, DType::kBool);
  EXPECT_EQ(Exec<float>(Make(OpKind::kSelect, {no, x, y})), b);
  // The predicate from a compare: max(a, 2.5) via select.
  Value gt =
      Ok(MakeCompare(x, Ok(MakeConstant(2.5, Shape(DType::kF32, {4}))), "GT"));
  EXPECT_EQ(Exec<float>(
                Make(OpKind::kSelect,
                     {gt, x, Ok(MakeConstant(2.5, Shape(DType::kF32, {4})))})),
            (std::vector<float>{2.5, 2.5, 3, 4}));
}

TEST(SelectClampExecTest, ClampScalarAndTensorBounds) {
  std::vector<float> a = {-3, -1, 0, 0.5, 2, 9};
  Value x = Input(a, {6});
  Value lo = Input(std::vector<float>{-1.5f}, {}),
        hi = Input(std::vector<float>{1.0f}, {});
  std::vector<float> want;
  for (float v : a) want.push_back(std::min(std::max(v, -1.5f), 1.0f));
  EXPECT_EQ(Exec<float>(Make(OpKind::kClamp, {lo, x, hi})), want);

  std::vector<int32_t> ai = {-10, 5, 20, 7}, l = {0, 6, 0, 7},
                       h = {1, 10, 15, 7};
  std::vector<int32_t> want_i;
  for (size_t i = 0; i < ai.size(); ++i) {
    want_i.push_back(std::min(std::max(ai[i], l[i]), h[i]));
  }
  EXPECT_EQ(Exec<int32_t>(Make(OpKind::kClamp,
                               {Input(l, {4}), Input(ai, {4}), Input(h, {4})})),
            want_i);
}

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
