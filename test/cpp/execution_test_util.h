#ifndef TORCH_XLA_TEST_CPP_EXECUTION_TEST_UTIL_H_
#define TORCH_XLA_TEST_CPP_EXECUTION_TEST_UTIL_H_

// Helpers of the execution tests: device-data inputs and tensors from host
// vectors, reading tensors back, and running values through the CPU plugin
// (lower -> compile -> execute).

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <type_traits>
#include <vector>

#include "gtest/gtest.h"
#include "test/cpp/ir_test_util.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/runtime/client.h"
#include "torch_xla/csrc/tensor/device_data.h"
#include "torch_xla/csrc/tensor/graph_executor.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla {
namespace testing {

template <typename T>
DType DefaultDType() {
  if constexpr (std::is_same_v<T, float>) return DType::kF32;
  if constexpr (std::is_same_v<T, double>) return DType::kF64;
  if constexpr (std::is_same_v<T, int8_t>) return DType::kI8;
  if constexpr (std::is_same_v<T, int32_t>) return DType::kI32;
  if constexpr (std::is_same_v<T, int64_t>) return DType::kI64;
  if constexpr (std::is_same_v<T, uint8_t>) return DType::kU8;
  if constexpr (std::is_same_v<T, uint32_t>) return DType::kU32;
  if constexpr (std::is_same_v<T, uint64_t>) return DType::kU64;
  return DType::kBF16;  // uint16_t bits: pass kBF16 or kF16 explicitly
}

// Device data holding `values` (row-major) on `device`. Pred data is
// uint8_t 0/1 with dtype kBool; bf16/f16 data is uint16_t bits.
template <typename T>
std::shared_ptr<DeviceData> DeviceDataFromHost(const std::vector<T>& values,
                                               std::vector<int64_t> dims,
                                               DType dtype, int device) {
  Shape shape(dtype, std::move(dims));
  if (shape.byte_size() != static_cast<int64_t>(values.size() * sizeof(T))) {
    ADD_FAILURE() << "test bug: " << values.size() << " values for "
                  << shape.ToString();
    std::abort();
  }
  runtime::Client* client = Ok(runtime::Client::Global());
  runtime::BufferPtr buffer =
      Ok(client->TransferToDevice(values.data(), shape, device));
  return std::make_shared<DeviceData>(shape, std::vector{buffer});
}

// A device-data leaf holding `values` on device 0.
template <typename T>
Value Input(const std::vector<T>& values, std::vector<int64_t> dims,
            DType dtype = DefaultDType<T>()) {
  return MakeDataNode(DeviceDataFromHost(values, std::move(dims), dtype, 0));
}

// An f32 tensor holding `values` as device data on `device`.
inline XlaTensorPtr TensorFromHost(const std::vector<float>& values,
                                   std::vector<int64_t> dims,
                                   int device = 0) {
  return XlaTensor::FromData(
      DeviceDataFromHost(values, std::move(dims), DType::kF32, device),
      device);
}

// The elements of a tensor (running its pending graph first).
template <typename T>
std::vector<T> Read(const XlaTensorPtr& tensor) {
  const Shape& shape = tensor->shape();
  std::vector<T> out(shape.num_elements());
  if (shape.byte_size() != static_cast<int64_t>(out.size() * sizeof(T))) {
    ADD_FAILURE() << "reading " << shape.ToString() << " as " << sizeof(T)
                  << "-byte elements";
    return out;
  }
  absl::Status status = TensorToHost(tensor, out.data(), shape.byte_size());
  EXPECT_TRUE(status.ok()) << status;
  return out;
}

// Lowers, compiles and runs `value` alone; returns its elements.
template <typename T>
std::vector<T> Exec(const Value& value) {
  return Read<T>(XlaTensor::FromIr(value, 0));
}

// A host-data leaf (a scalar or fill sent when the graph runs).
inline Value HostScalar(std::shared_ptr<HostData> data) {
  return MakeDataNode(std::move(data));
}

// Runs several values as one graph (one SyncTensors); the tensors hold
// device data afterwards.
inline std::vector<XlaTensorPtr> SyncAll(const std::vector<Value>& values) {
  std::vector<XlaTensorPtr> tensors;
  for (const Value& v : values) tensors.push_back(XlaTensor::FromIr(v, 0));
  absl::Status status = SyncTensors(tensors);
  EXPECT_TRUE(status.ok()) << status;
  for (const XlaTensorPtr& t : tensors) {
    EXPECT_EQ(t->state(), TensorState::kDeviceData);
  }
  return tensors;
}

// n values k/4 with k pseudo-random in [-16, 16]: exact in f32 and bf16, and
// so are their short sums and products.
inline std::vector<float> Quarters(int64_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = static_cast<float>(static_cast<int>((seed >> 16) % 33) - 16) / 4;
  }
  return v;
}

// x converted to `dtype` (a convert node).
inline Value Convert(const Value& x, DType dtype) {
  return Make(OpKind::kConvert, {x}, Attrs().Set("dtype", dtype));
}

// Row-major strides of `dims`.
inline std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int64_t d = static_cast<int64_t>(dims.size()) - 2; d >= 0; --d) {
    s[d] = s[d + 1] * dims[d + 1];
  }
  return s;
}

}  // namespace testing
}  // namespace torch_xla

#endif  // TORCH_XLA_TEST_CPP_EXECUTION_TEST_UTIL_H_
