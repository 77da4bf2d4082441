#include "torch_xla/csrc/tensor/device_data.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace torch_xla {
namespace {

uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

uint16_t ToBFloat16(float value) {
  uint32_t bits = FloatBits(value);
  if (std::isnan(value)) return 0x7fc0;
  bits += 0x7fff + ((bits >> 16) & 1);  // round to nearest even
  return static_cast<uint16_t>(bits >> 16);
}

uint16_t ToHalf(float value) {
  uint32_t bits = FloatBits(value);
  uint32_t sign = (bits >> 16) & 0x8000;
  if (std::isnan(value)) return static_cast<uint16_t>(sign | 0x7e00);
  float magnitude = std::fabs(value);
  if (magnitude >= 65520.0f) return static_cast<uint16_t>(sign | 0x7c00);
  if (magnitude < 6.103515625e-05f) {  // subnormal: units of 2^-24
    float units = std::nearbyint(magnitude * 16777216.0f);
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(units));
  }
  uint32_t abs_bits = bits & 0x7fffffff;
  uint32_t mantissa = abs_bits & 0x7fffff;
  int32_t exponent = static_cast<int32_t>(abs_bits >> 23) - 127 + 15;
  uint32_t half = (static_cast<uint32_t>(exponent) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;
  return static_cast<uint16_t>(sign | half);
}

template <typename T>
std::vector<uint8_t> BytesOf(T value) {
  std::vector<uint8_t> bytes(sizeof(T));
  std::memcpy(bytes.data(), &value, sizeof(T));
  return bytes;
}

}  // namespace

DeviceData::DeviceData(Shape shape, std::vector<runtime::BufferPtr> buffers)
    : Data(std::move(shape), DataKind::kDevice), buffers_(std::move(buffers)) {}

bool DeviceData::IsDeleted() const {
  for (const runtime::BufferPtr& buffer : buffers_) {
    if (buffer->IsDeleted()) return true;
  }
  return false;
}

HostData::HostData(Shape shape, std::vector<uint8_t> bytes)
    : Data(std::move(shape), DataKind::kHost), bytes_(std::move(bytes)) {}

std::shared_ptr<HostData> HostData::Fill(Shape shape,
                                         std::vector<uint8_t> element) {
  auto data = std::make_shared<HostData>(std::move(shape), std::move(element));
  data->is_fill_ = true;
  return data;
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

std::shared_ptr<HostData> MakeHostScalar(double value, DType dtype) {
  std::vector<uint8_t> bytes;
  switch (dtype) {
    case DType::kF32: bytes = BytesOf(static_cast<float>(value)); break;
    case DType::kF64: bytes = BytesOf(value); break;
    case DType::kBF16: bytes = BytesOf(ToBFloat16(static_cast<float>(value))); break;
    case DType::kF16: bytes = BytesOf(ToHalf(static_cast<float>(value))); break;
    case DType::kI64: bytes = BytesOf(static_cast<int64_t>(value)); break;
    case DType::kI32: bytes = BytesOf(static_cast<int32_t>(value)); break;
    case DType::kI16: bytes = BytesOf(static_cast<int16_t>(value)); break;
    case DType::kI8: bytes = BytesOf(static_cast<int8_t>(value)); break;
    case DType::kU8: bytes = BytesOf(static_cast<uint8_t>(value)); break;
    case DType::kBool: bytes = BytesOf(static_cast<uint8_t>(value != 0)); break;
    case DType::kU32: bytes = BytesOf(static_cast<uint32_t>(value)); break;
    case DType::kU64: bytes = BytesOf(static_cast<uint64_t>(value)); break;
  }
  return std::make_shared<HostData>(Shape(dtype, {}), std::move(bytes));
}

std::shared_ptr<HostData> MakeHostScalarInt(int64_t value, DType dtype) {
  std::vector<uint8_t> bytes;
  switch (dtype) {
    case DType::kI64: bytes = BytesOf(value); break;
    case DType::kU64: bytes = BytesOf(static_cast<uint64_t>(value)); break;
    case DType::kI32: bytes = BytesOf(static_cast<int32_t>(value)); break;
    case DType::kU32: bytes = BytesOf(static_cast<uint32_t>(value)); break;
    default: return MakeHostScalar(static_cast<double>(value), dtype);
  }
  return std::make_shared<HostData>(Shape(dtype, {}), std::move(bytes));
}

}  // namespace torch_xla
