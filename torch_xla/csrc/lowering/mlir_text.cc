#include "torch_xla/csrc/lowering/mlir_text.h"

#include <cmath>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace torch_xla {
namespace {

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

void AppendI64ArrayField(absl::string_view field,
                         const std::vector<int64_t>* values, int64_t trivial,
                         std::vector<std::string>* fields) {
  if (values == nullptr) return;
  for (int64_t v : *values) {
    if (v != trivial) {
      fields->push_back(absl::StrCat(field, " = ", I64Array(*values)));
      return;
    }
  }
}

std::string I64List(absl::Span<const int64_t> values) {
  return absl::StrCat("[", absl::StrJoin(values, ", "), "]");
}

absl::StatusOr<std::string> SplatLiteral(const AttrValue& value, DType dtype) {
  if (IsFloating(dtype)) {
    uint64_t bits;
    if (const auto* d = std::get_if<double>(&value)) {
      bits = FloatBits(*d, dtype);
    } else if (const auto* i = std::get_if<int64_t>(&value)) {
      bits = FloatBitsOfInt(*i, dtype);  // one rounding, even beyond 2^53
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "no ", DTypeName(dtype), " literal for ", AttrValueToString(value)));
    }
    return absl::StrFormat("0x%0*X", static_cast<int>(DTypeByteSize(dtype) * 2),
                           bits);
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
