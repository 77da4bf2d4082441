#include "torch_xla/csrc/tensor/device_data.h"

#include <algorithm>
#include <cstring>

#include "torch_xla/csrc/ir/float_bits.h"

namespace torch_xla {
namespace {

// The element's bytes for a floating type, rounded once (ir/float_bits.h).
std::vector<uint8_t> FloatBytes(uint64_t bits, DType dtype) {
  std::vector<uint8_t> bytes(DTypeByteSize(dtype));
  std::memcpy(bytes.data(), &bits, bytes.size());  // little endian
  return bytes;
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

std::shared_ptr<HostData> MakeHostScalar(double value, DType dtype) {
  std::vector<uint8_t> bytes;
  switch (dtype) {
    case DType::kF32:
    case DType::kF64:
    case DType::kBF16:
    case DType::kF16: bytes = FloatBytes(FloatBits(value, dtype), dtype); break;
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
    case DType::kF32:
    case DType::kF64:
    case DType::kBF16:
    case DType::kF16:
      bytes = FloatBytes(FloatBitsOfInt(value, dtype), dtype);
      break;
    default: return MakeHostScalar(static_cast<double>(value), dtype);
  }
  return std::make_shared<HostData>(Shape(dtype, {}), std::move(bytes));
}

}  // namespace torch_xla
