#include "torch_xla/csrc/ir/float_bits.h"

#include <cmath>
#include <cstring>

namespace torch_xla {
namespace {

// Rounds a finite, non-zero magnitude to a binary format with `exp_bits`
// exponent bits and `mant_bits` stored mantissa bits; returns the bits
// without the sign.
uint64_t RoundMagnitude(double a, int exp_bits, int mant_bits) {
  uint64_t dbits;
  std::memcpy(&dbits, &a, sizeof(dbits));
  const int dexp = static_cast<int>((dbits >> 52) & 0x7ff);
  if (dexp == 0) return 0;  // double subnormal: far below every target
  const int e = dexp - 1023;  // a = sig * 2^(e - 52), sig in [2^52, 2^53)
  const uint64_t sig = (dbits & ((uint64_t{1} << 52) - 1)) | (uint64_t{1} << 52);
  const int bias = (1 << (exp_bits - 1)) - 1;
  const int emin = 1 - bias;
  // Result quantum 2^q: normals keep mant_bits bits below the leading one,
  // subnormals have the fixed quantum of the smallest exponent.
  const int q = (e >= emin ? e : emin) - mant_bits;
  const int shift = 52 + q - e;  // >= 52 - mant_bits > 0
  uint64_t n = 0;
  if (shift < 64) {
    n = sig >> shift;
    const uint64_t rem = sig & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    if (rem > half || (rem == half && (n & 1))) ++n;
  }
  const uint64_t inf = ((uint64_t{1} << exp_bits) - 1) << mant_bits;
  if (e < emin) {
    // Subnormal; n == 2^mant_bits encodes the smallest normal number.
    return n;
  }
  int biased = e + bias;
  if (n == (uint64_t{1} << (mant_bits + 1))) {  // rounded up to 2^(e+1)
    n >>= 1;
    ++biased;
  }
  if (biased >= (1 << exp_bits) - 1) return inf;
  return (static_cast<uint64_t>(biased) << mant_bits) |
         (n & ((uint64_t{1} << mant_bits) - 1));
}

void FloatFormat(DType dtype, int* exp_bits, int* mant_bits) {
  switch (dtype) {
    case DType::kF64:
      *exp_bits = 11, *mant_bits = 52;
      return;
    case DType::kF16:
      *exp_bits = 5, *mant_bits = 10;
      return;
    case DType::kBF16:
      *exp_bits = 8, *mant_bits = 7;
      return;
    default:  // f32
      *exp_bits = 8, *mant_bits = 23;
      return;
  }
}

}  // namespace

uint64_t FloatBits(double value, DType dtype) {
  if (dtype == DType::kF64) {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    return bits;
  }
  int exp_bits, mant_bits;
  FloatFormat(dtype, &exp_bits, &mant_bits);
  const uint64_t sign = std::signbit(value) ? uint64_t{1} << (exp_bits + mant_bits)
                                            : 0;
  const uint64_t inf = ((uint64_t{1} << exp_bits) - 1) << mant_bits;
  if (std::isnan(value)) return sign | inf | (uint64_t{1} << (mant_bits - 1));
  if (std::isinf(value)) return sign | inf;
  if (value == 0) return sign;
  return sign | RoundMagnitude(std::fabs(value), exp_bits, mant_bits);
}

uint64_t FloatBitsOfInt(int64_t value, DType dtype) {
  if (dtype == DType::kF64) return FloatBits(static_cast<double>(value), dtype);
  // Round to a double with round-to-odd (truncate, then keep a sticky bit in
  // the last place): a double has more than twice the bits of f32, so the
  // second rounding to the target is then exactly the one rounding of the
  // integer.
  const bool negative = value < 0;
  uint64_t magnitude = negative ? ~static_cast<uint64_t>(value) + 1
                                : static_cast<uint64_t>(value);
  int shift = 0;
  while ((magnitude >> shift) >= (uint64_t{1} << 53)) ++shift;
  uint64_t kept = magnitude >> shift;
  if (shift > 0 && (magnitude & ((uint64_t{1} << shift) - 1)) != 0) kept |= 1;
  const double odd = std::ldexp(static_cast<double>(kept), shift);
  return FloatBits(negative ? -odd : odd, dtype);
}

}  // namespace torch_xla
