#include "torch_xla/csrc/tensor/host_constants.h"

#include <cmath>
#include <cstring>

#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/graph_walk.h"
#include "torch_xla/csrc/ir/replace_values.h"
#include "torch_xla/csrc/tensor/device_data.h"

namespace torch_xla {
namespace {

template <typename T>
T Load(const uint8_t* bytes) {
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

double HalfToDouble(uint16_t bits) {
  int exponent = (bits >> 10) & 0x1f;
  double mantissa = bits & 0x3ff;
  double magnitude =
      exponent == 0    ? std::ldexp(mantissa, -24)
      : exponent == 31 ? (mantissa == 0 ? INFINITY : NAN)
                       : std::ldexp(1024 + mantissa, exponent - 25);
  return (bits & 0x8000) ? -magnitude : magnitude;
}

// A constant for one element of `dtype` splatted to `shape`; null when a
// constant cannot hold it.
NodePtr ElementConstant(const uint8_t* e, const Shape& shape) {
  absl::StatusOr<NodePtr> node = nullptr;
  switch (shape.dtype) {
    case DType::kF32:
      node = MakeConstant(Load<float>(e), shape);
      break;
    case DType::kF64:
      node = MakeConstant(Load<double>(e), shape);
      break;
    case DType::kBF16: {
      uint32_t bits = static_cast<uint32_t>(Load<uint16_t>(e)) << 16;
      float value;
      std::memcpy(&value, &bits, 4);
      node = MakeConstant(value, shape);
      break;
    }
    case DType::kF16:
      node = MakeConstant(HalfToDouble(Load<uint16_t>(e)), shape);
      break;
    case DType::kI64:
      node = MakeIntConstant(Load<int64_t>(e), shape);
      break;
    case DType::kI32:
      node = MakeIntConstant(Load<int32_t>(e), shape);
      break;
    case DType::kI16:
      node = MakeIntConstant(Load<int16_t>(e), shape);
      break;
    case DType::kI8:
      node = MakeIntConstant(Load<int8_t>(e), shape);
      break;
    case DType::kU8:
      node = MakeIntConstant(Load<uint8_t>(e), shape);
      break;
    case DType::kU32:
      node = MakeIntConstant(Load<uint32_t>(e), shape);
      break;
    case DType::kU64: {
      uint64_t value = Load<uint64_t>(e);
      if (value >> 63) return nullptr;
      node = MakeIntConstant(static_cast<int64_t>(value), shape);
      break;
    }
    case DType::kBool:
      node = MakeBoolConstant(*e != 0, shape);
      break;
  }
  return node.ok() ? *node : nullptr;
}

}  // namespace

absl::StatusOr<std::vector<Value>> InlineHostData(
    absl::Span<const Value> roots) {
  Replacements replacements;
  for (const Node* node : ComputePostOrder(roots).nodes) {
    const DataPtr& data = node->data();
    if (data == nullptr || data->kind() != DataKind::kHost) continue;
    const auto& host = static_cast<const HostData&>(*data);
    if (!host.is_uniform()) continue;
    std::vector<uint8_t> element = host.is_fill()
                                       ? host.Element()->bytes()
                                       : host.bytes();
    if (NodePtr constant = ElementConstant(element.data(), host.shape())) {
      replacements.AddData(data->id(), std::move(constant));
    }
  }
  return ReplaceValues(roots, replacements);
}

}  // namespace torch_xla
