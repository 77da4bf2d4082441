#include "torch_xla/csrc/ir/shape.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace torch_xla {
namespace {

struct DTypeInfo {
  absl::string_view name;
  absl::string_view mlir_name;
  int64_t byte_size;
};

// Indexed by DType.
constexpr DTypeInfo kDTypeInfo[kNumDTypes] = {
    {"f32", "f32", 4},  {"f64", "f64", 8}, {"bf16", "bf16", 2},
    {"f16", "f16", 2},  {"s64", "i64", 8}, {"s32", "i32", 4},
    {"s16", "i16", 2},  {"s8", "i8", 1},   {"u8", "ui8", 1},
    {"pred", "i1", 1},  {"u32", "ui32", 4}, {"u64", "ui64", 8},
};

const DTypeInfo& Info(DType dtype) {
  return kDTypeInfo[static_cast<int>(dtype)];
}

}  // namespace

absl::string_view DTypeName(DType dtype) { return Info(dtype).name; }
absl::string_view DTypeMlirName(DType dtype) { return Info(dtype).mlir_name; }
int64_t DTypeByteSize(DType dtype) { return Info(dtype).byte_size; }

absl::StatusOr<DType> DTypeFromName(absl::string_view name) {
  for (int i = 0; i < kNumDTypes; ++i) {
    if (kDTypeInfo[i].name == name) return static_cast<DType>(i);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown element type '", name, "'"));
}

bool IsFloating(DType dtype) {
  return dtype == DType::kF32 || dtype == DType::kF64 ||
         dtype == DType::kBF16 || dtype == DType::kF16;
}

bool IsSignedInteger(DType dtype) {
  return dtype == DType::kI64 || dtype == DType::kI32 ||
         dtype == DType::kI16 || dtype == DType::kI8;
}

bool IsUnsignedInteger(DType dtype) {
  return dtype == DType::kU8 || dtype == DType::kU32 || dtype == DType::kU64;
}

int64_t Shape::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::string Shape::ToString() const {
  return absl::StrCat(DTypeName(dtype), "[", absl::StrJoin(dims, ","), "]");
}

std::string Shape::ToMlirType() const {
  std::string out = "tensor<";
  for (int64_t d : dims) absl::StrAppend(&out, d, "x");
  absl::StrAppend(&out, DTypeMlirName(dtype), ">");
  return out;
}

}  // namespace torch_xla
