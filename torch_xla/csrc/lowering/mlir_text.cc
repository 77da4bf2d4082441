#include "torch_xla/csrc/lowering/mlir_text.h"

#include <cmath>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

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

bool IsBareIdentifier(absl::string_view s) {
  if (s.empty()) return false;
  auto letter = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (!letter(s[0])) return false;
  for (char c : s) {
    if (!letter(c) && !(c >= '0' && c <= '9') && c != '$' && c != '.') {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string I64Array(absl::Span<const int64_t> values) {
  if (values.empty()) return "array<i64>";
  return absl::StrCat("array<i64: ", absl::StrJoin(values, ", "), ">");
}

std::string I64List(absl::Span<const int64_t> values) {
  return absl::StrCat("[", absl::StrJoin(values, ", "), "]");
}

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

absl::StatusOr<std::string> SplatLiteral(const AttrValue& value, DType dtype) {
  if (IsFloating(dtype)) {
    double v;
    if (const auto* d = std::get_if<double>(&value)) {
      v = *d;
    } else if (const auto* i = std::get_if<int64_t>(&value)) {
      v = static_cast<double>(*i);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "no ", DTypeName(dtype), " literal for ", AttrValueToString(value)));
    }
    return absl::StrFormat("0x%0*X", static_cast<int>(DTypeByteSize(dtype) * 2),
                           FloatBits(v, dtype));
  }
  if (dtype == DType::kBool) {
    if (const auto* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
    if (const auto* i = std::get_if<int64_t>(&value)) {
      return *i != 0 ? "true" : "false";
    }
  } else if (const auto* i = std::get_if<int64_t>(&value)) {
    if (dtype == DType::kU64) return absl::StrCat(static_cast<uint64_t>(*i));
    return absl::StrCat(*i);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "no ", DTypeName(dtype), " literal for ", AttrValueToString(value)));
}

std::string MlirStringLiteral(absl::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      absl::StrAppend(&out, absl::StrFormat("\\%02X", c));
    }
  }
  out += '"';
  return out;
}

std::string MlirSymbol(absl::string_view name) {
  if (name.empty()) return "@unnamed";
  if (IsBareIdentifier(name)) return absl::StrCat("@", name);
  return absl::StrCat("@", MlirStringLiteral(name));
}

std::string FunctionType(absl::Span<const std::string> operand_types,
                         absl::Span<const std::string> result_types) {
  std::string out =
      absl::StrCat("(", absl::StrJoin(operand_types, ", "), ") -> ");
  if (result_types.size() == 1) {
    out += result_types[0];
  } else {
    absl::StrAppend(&out, "(", absl::StrJoin(result_types, ", "), ")");
  }
  return out;
}

}  // namespace torch_xla
