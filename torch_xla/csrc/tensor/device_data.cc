#include "torch_xla/csrc/tensor/device_data.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/error_class.h"

#include "torch_xla/csrc/ir/float_bits.h"

namespace torch_xla {
namespace {

// The element's bytes for a floating type, rounded once (ir/float_bits.h).
std::vector<uint8_t> FloatBytes(uint64_t bits, DType dtype) {
  std::vector<uint8_t> bytes(DTypeByteSize(dtype));
  std::memcpy(bytes.data(), &bits, bytes.size());  // little endian
  return bytes;
}


constexpr double kTwoTo63 = 9223372036854775808.0;

// `value` truncated toward zero into int64 without undefined behaviour.
int64_t SaturatingInt64(double value) {
  if (std::isnan(value)) return 0;
  if (value >= kTwoTo63) return INT64_MAX;
  if (value < -kTwoTo63) return INT64_MIN;
  return static_cast<int64_t>(value);
}

std::shared_ptr<HostData> Scalar(DType dtype, std::vector<uint8_t> bytes) {
  return std::make_shared<HostData>(Shape(dtype, {}), std::move(bytes));
}

// What a dtype holds, for eager's checked conversion.
struct Range {
  double lowest, max;          // as doubles
  int64_t min_int, max_int;    // signed integers
  uint64_t max_bits;           // unsigned integers: the largest value
  bool max_is_power_of_two;    // max (as a double) is 2^63 or 2^64: exclusive
  const char* text;
};

Range RangeOf(DType dtype) {
  switch (dtype) {
    case DType::kF16: return {-65504.0, 65504.0, 0, 0, 0, false, "[-65504, 65504]"};
    case DType::kBF16:
      return {-3.3895313892515355e38, 3.3895313892515355e38, 0, 0, 0, false,
              "[-3.3895e+38, 3.3895e+38]"};
    case DType::kF32:
      return {-3.4028234663852886e38, 3.4028234663852886e38, 0, 0, 0, false,
              "[-3.4028e+38, 3.4028e+38]"};
    case DType::kI64:
      return {-kTwoTo63, kTwoTo63, INT64_MIN, INT64_MAX, 0, true,
              "[-9223372036854775808, 9223372036854775807]"};
    case DType::kI32:
      return {-2147483648.0, 2147483647.0, INT32_MIN, INT32_MAX, 0, false,
              "[-2147483648, 2147483647]"};
    case DType::kI16:
      return {-32768.0, 32767.0, INT16_MIN, INT16_MAX, 0, false,
              "[-32768, 32767]"};
    case DType::kI8: return {-128.0, 127.0, INT8_MIN, INT8_MAX, 0, false, "[-128, 127]"};
    case DType::kU8: return {0.0, 255.0, 0, 0, UINT8_MAX, false, "[0, 255]"};
    case DType::kU32:
      return {0.0, 4294967295.0, 0, 0, UINT32_MAX, false, "[0, 4294967295]"};
    case DType::kU64:
      return {0.0, 2 * kTwoTo63, 0, 0, UINT64_MAX, true,
              "[0, 18446744073709551615]"};
    default:  // f64, bool: everything fits
      return {-HUGE_VAL, HUGE_VAL, INT64_MIN, INT64_MAX, UINT64_MAX, false,
              "any value"};
  }
}

}  // namespace

DeviceData::DeviceData(Shape shape, std::vector<runtime::BufferPtr> buffers)
    : Data(std::move(shape), DataKind::kDevice), buffers_(std::move(buffers)) {}

DeviceData::DeviceData(Shape shape, std::vector<runtime::BufferPtr> buffers,
                       ShardingPtr sharding)
    : DeviceData(std::move(shape), std::move(buffers)) {
  set_sharding(std::move(sharding));
}

bool DeviceData::IsDeleted() const {
  for (const runtime::BufferPtr& buffer : buffers_) {
    if (buffer->IsDeleted()) return true;
  }
  return false;
}

absl::Status DeviceData::CheckNotDeleted() const {
  if (!IsDeleted()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "cannot execute: an input (", shape().ToString(), ", data id ", id(),
      ") was donated to an earlier computation and is deleted"));
}

HostData::HostData(Shape shape, std::vector<uint8_t> bytes)
    : Data(std::move(shape), DataKind::kHost), bytes_(std::move(bytes)) {}

std::shared_ptr<HostData> HostData::Fill(Shape shape,
                                         std::vector<uint8_t> element) {
  auto data = std::make_shared<HostData>(std::move(shape), std::move(element));
  data->is_fill_ = true;
  return data;
}

std::shared_ptr<HostData> HostData::Element() const {
  const size_t size = static_cast<size_t>(DTypeByteSize(shape().dtype));
  return std::make_shared<HostData>(
      Shape(shape().dtype, {}),
      std::vector<uint8_t>(bytes_.begin(), bytes_.begin() + size));
}

std::vector<uint8_t> HostData::DenseBytes() const {
  if (!is_fill_) return bytes_;
  const size_t element = bytes_.size();
  const size_t count = static_cast<size_t>(shape().num_elements());
  std::vector<uint8_t> out(element * count);
  if (std::all_of(bytes_.begin(), bytes_.end(), [](uint8_t b) { return b == 0; })) {
    return out;  // zero-initialised already
  }
  for (size_t i = 0; i < count; ++i) {
    std::memcpy(out.data() + i * element, bytes_.data(), element);
  }
  return out;
}

std::shared_ptr<HostData> MakeHostFill(const HostData& scalar, Shape shape) {
  return HostData::Fill(std::move(shape), scalar.DenseBytes());
}

HostNumber HostNumber::Int(int64_t value) {
  HostNumber n;
  n.kind = Kind::kInt64;
  n.i = value;
  return n;
}

HostNumber HostNumber::Uint(uint64_t value) {
  HostNumber n;
  n.kind = Kind::kUint64;
  n.u = value;
  return n;
}

HostNumber HostNumber::Double(double value) {
  HostNumber n;
  n.kind = Kind::kDouble;
  n.d = value;
  return n;
}

std::string HostNumber::ToString() const {
  switch (kind) {
    case Kind::kInt64: return absl::StrCat(i);
    case Kind::kUint64: return absl::StrCat(u);
    case Kind::kDouble: return absl::StrCat(d);
  }
  return "?";
}

absl::string_view TorchDTypeName(DType dtype) {
  switch (dtype) {
    case DType::kF32: return "float32";
    case DType::kF64: return "float64";
    case DType::kBF16: return "bfloat16";
    case DType::kF16: return "float16";
    case DType::kI64: return "int64";
    case DType::kI32: return "int32";
    case DType::kI16: return "int16";
    case DType::kI8: return "int8";
    case DType::kU8: return "uint8";
    case DType::kBool: return "bool";
    case DType::kU32: return "uint32";
    case DType::kU64: return "uint64";
  }
  return "?";
}

std::shared_ptr<HostData> MakeHostScalarNumber(const HostNumber& number,
                                               DType dtype) {
  // Integer bits: two's complement of the integer (or of the truncated
  // double); the narrow cast keeps the low bytes (little endian).
  uint64_t bits = 0;
  switch (number.kind) {
    case HostNumber::Kind::kInt64:
      if (IsFloating(dtype)) {
        return Scalar(dtype, FloatBytes(FloatBitsOfInt(number.i, dtype), dtype));
      }
      bits = static_cast<uint64_t>(number.i);
      if (dtype == DType::kBool) bits = number.i != 0;
      break;
    case HostNumber::Kind::kUint64:
      if (IsFloating(dtype)) {
        return Scalar(dtype, FloatBytes(FloatBits(static_cast<double>(number.u),
                                                  dtype),
                                        dtype));
      }
      bits = dtype == DType::kBool ? number.u != 0 : number.u;
      break;
    case HostNumber::Kind::kDouble: {
      const double d = number.d;
      if (IsFloating(dtype)) {
        return Scalar(dtype, FloatBytes(FloatBits(d, dtype), dtype));
      }
      if (dtype == DType::kBool) {
        bits = d != 0;  // NaN is true, as in eager
      } else if (dtype == DType::kU64 && d >= kTwoTo63 && d < 2 * kTwoTo63) {
        bits = static_cast<uint64_t>(d);
      } else {
        bits = static_cast<uint64_t>(SaturatingInt64(d));
      }
      break;
    }
  }
  std::vector<uint8_t> bytes(DTypeByteSize(dtype));
  std::memcpy(bytes.data(), &bits, bytes.size());  // little endian
  return Scalar(dtype, std::move(bytes));
}

std::shared_ptr<HostData> MakeHostScalar(double value, DType dtype) {
  return MakeHostScalarNumber(HostNumber::Double(value), dtype);
}

std::shared_ptr<HostData> MakeHostScalarInt(int64_t value, DType dtype) {
  return MakeHostScalarNumber(HostNumber::Int(value), dtype);
}

absl::StatusOr<std::shared_ptr<HostData>> MakeCheckedHostScalar(
    const HostNumber& number, DType dtype) {
  if (dtype == DType::kBool || dtype == DType::kF64) {
    return MakeHostScalarNumber(number, dtype);
  }
  const Range range = RangeOf(dtype);
  bool fits = true;
  switch (number.kind) {
    case HostNumber::Kind::kInt64:
      if (IsFloating(dtype)) {
        fits = static_cast<double>(number.i) <= range.max &&
               static_cast<double>(number.i) >= range.lowest;
      } else if (IsUnsignedInteger(dtype)) {
        // Negative integers wrap, down to -max (eager allows uint8 -129).
        const uint64_t magnitude =
            number.i < 0 ? 0 - static_cast<uint64_t>(number.i)
                         : static_cast<uint64_t>(number.i);
        fits = magnitude <= range.max_bits;
      } else {
        fits = number.i >= range.min_int && number.i <= range.max_int;
      }
      break;
    case HostNumber::Kind::kUint64:
      fits = IsFloating(dtype) ? static_cast<double>(number.u) <= range.max
                               : number.u <= range.max_bits &&
                                     IsUnsignedInteger(dtype);
      break;
    case HostNumber::Kind::kDouble: {
      const double d = number.d;
      if (IsFloating(dtype)) {
        fits = std::isnan(d) || std::isinf(d) ||
               (d >= range.lowest && d <= range.max);
      } else {
        // NaN fails every comparison; the upper bound is exclusive where
        // max + 1 is exactly a double (2^63, 2^64), else inclusive.
        fits = d >= range.lowest &&
               (range.max_is_power_of_two ? d < range.max : d <= range.max);
      }
      break;
    }
  }
  if (!fits) {
    return EagerRuntimeError(absl::StrCat(
        "value cannot be converted to type ", TorchDTypeName(dtype),
        " without overflow: got ", number.ToString(), ", but ",
        TorchDTypeName(dtype), " holds ", range.text,
        ". Use a value in that range or a wider dtype"));
  }
  return MakeHostScalarNumber(number, dtype);
}

}  // namespace torch_xla
