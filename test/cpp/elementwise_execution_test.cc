// Execution of elementwise ops (unary and binary, float, integer and pred;
// integer division edge cases, shifts), compare in every direction (NaN, signed
// zero, total order), select and clamp. Every graph runs through the CPU plugin
// (lower -> compile -> execute) and is checked against values the test computes
// itself with plain C++ loops (test/cpp/float_reference_util.h): exact for
// integer and bit-level results, within ~8 f32 ULPs for transcendental
// functions.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
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
using testing::kInf;
using testing::kNaN;
using testing::ExpectClose;
using testing::ExpectSameFloats;

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

// The CHLO rows (no StableHLO op): XLA legalizes each to its own expansion.
TEST(ElementwiseExecTest, ChloMathMatchesLibm) {
  const std::vector<float> unit = {-0.999f, -0.7f, -0.25f, -0.0f, 0.0f,
                                   1e-4f,   0.3f,  0.75f,  0.999f};
  const std::vector<float> above_one = {1.0f, 1.001f, 1.5f, 3.0f, 100.0f,
                                        1e10f};
  const std::vector<float> all = {-20.0f, -3.7f, -0.5f, -0.0f, 0.0f,
                                  1e-5f,  0.25f, 2.5f,  20.0f};
  const struct {
    OpKind kind;
    double (*reference)(double);
    const std::vector<float>* inputs;
  } cases[] = {
      {OpKind::kAcos, [](double x) { return std::acos(x); }, &unit},
      {OpKind::kAsin, [](double x) { return std::asin(x); }, &unit},
      {OpKind::kAtanh, [](double x) { return std::atanh(x); }, &unit},
      {OpKind::kAcosh, [](double x) { return std::acosh(x); }, &above_one},
      {OpKind::kAsinh, [](double x) { return std::asinh(x); }, &all},
      {OpKind::kCosh, [](double x) { return std::cosh(x); }, &all},
      {OpKind::kSinh, [](double x) { return std::sinh(x); }, &all},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(OpKindName(c.kind)));
    const std::vector<float>& in = *c.inputs;
    std::vector<float> got =
        Exec<float>(Ok(MakeUnary(c.kind, Input(in, {int64_t(in.size())}))));
    std::vector<double> want;
    for (float x : in) want.push_back(c.reference(x));
    ExpectClose(got, want, 1e-6, 1e-7, in);
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

}  // namespace
}  // namespace torch_xla
