#ifndef TORCH_XLA_CSRC_IR_SHAPE_H_
#define TORCH_XLA_CSRC_IR_SHAPE_H_

// Element types and array shapes shared by the IR, the lowering and the
// runtime. Plain values: no ownership, no torch, no PJRT.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace torch_xla {

// The element types PyTorch users need. Order is part of the Python ABI
// (bindings pass the enum as an int), so append only.
enum class DType : uint8_t {
  kF32,
  kF64,
  kBF16,
  kF16,
  kI64,
  kI32,
  kI16,
  kI8,
  kU8,
  kBool,
  kU32,
  kU64,
};

inline constexpr int kNumDTypes = 12;

// Short name used in IR dumps and errors: "f32", "bf16", "s64", "pred", ...
absl::string_view DTypeName(DType dtype);
// Element type as spelled in MLIR tensor types: "f32", "bf16", "i64", "i1",
// "ui8".
absl::string_view DTypeMlirName(DType dtype);
absl::StatusOr<DType> DTypeFromName(absl::string_view name);
int64_t DTypeByteSize(DType dtype);
bool IsFloating(DType dtype);
bool IsSignedInteger(DType dtype);
bool IsUnsignedInteger(DType dtype);
inline bool IsInteger(DType dtype) {
  return IsSignedInteger(dtype) || IsUnsignedInteger(dtype);
}

// A dense array type: element type plus dimensions (rank 0 is a scalar).
struct Shape {
  DType dtype = DType::kF32;
  std::vector<int64_t> dims;

  Shape() = default;
  Shape(DType dtype, std::vector<int64_t> dims)
      : dtype(dtype), dims(std::move(dims)) {}

  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  int64_t num_elements() const;
  int64_t byte_size() const { return num_elements() * DTypeByteSize(dtype); }

  // "f32[2,3]", "pred[]".
  std::string ToString() const;
  // "tensor<2x3xf32>", "tensor<i1>".
  std::string ToMlirType() const;

  friend bool operator==(const Shape& a, const Shape& b) {
    return a.dtype == b.dtype && a.dims == b.dims;
  }
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }
};

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_IR_SHAPE_H_
