#ifndef TORCH_XLA_TEST_CPP_FLOAT_REFERENCE_UTIL_H_
#define TORCH_XLA_TEST_CPP_FLOAT_REFERENCE_UTIL_H_

// Reference float arithmetic for execution tests, independent of the code
// under test: bits of a float, rounding to bf16/f16 in plain double
// arithmetic, decoding half-precision bits, and comparing results (within a
// tolerance, or bit for bit).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace torch_xla {
namespace testing {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline const double kNaN = std::nan("");

inline uint32_t BitsOf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

inline float FloatOfBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// Each |actual - expected| <= rel * |expected| + abs; NaN must match NaN.
inline void ExpectClose(const std::vector<float>& actual,
                        const std::vector<double>& expected, double rel,
                        double abs, const std::vector<float>& inputs = {}) {
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
inline void ExpectSameFloats(const std::vector<float>& actual,
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
inline double RoundToFormat(double x, int mantissa, int min_exp,
                            double max_finite) {
  if (std::isnan(x) || std::isinf(x) || x == 0) return x;
  const int e = std::max(std::ilogb(x), min_exp);
  const double ulp = std::ldexp(1.0, e - mantissa);
  const double r = std::nearbyint(x / ulp) * ulp;  // FE_TONEAREST: ties even
  return std::fabs(r) > max_finite ? std::copysign(kInf, x) : r;
}
inline double RoundToBf16(double x) {
  return RoundToFormat(x, 7, -126, std::ldexp(255.0, 120));
}
inline double RoundToF16(double x) {
  return RoundToFormat(x, 10, -14, 65504.0);
}

inline double HalfBitsToDouble(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double v = exponent == 0    ? std::ldexp(mantissa, -24)
             : exponent == 31 ? (mantissa ? kNaN : kInf)
                              : std::ldexp(1024 + mantissa, exponent - 25);
  return (h & 0x8000) ? -v : v;
}
inline double Bf16BitsToDouble(uint16_t b) {
  return FloatOfBits(static_cast<uint32_t>(b) << 16);
}

}  // namespace testing
}  // namespace torch_xla

#endif  // TORCH_XLA_TEST_CPP_FLOAT_REFERENCE_UTIL_H_
