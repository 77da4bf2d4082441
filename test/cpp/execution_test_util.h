#ifndef TORCH_XLA_TEST_CPP_EXECUTION_TEST_UTIL_H_
#define TORCH_XLA_TEST_CPP_EXECUTION_TEST_UTIL_H_

// Helpers of the execution tests: device-data inputs from host vectors and
// running values through the CPU plugin (lower -> compile -> execute).

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

// A device-data leaf holding `values` (row-major). Pred data is uint8_t 0/1
// with dtype kBool; bf16/f16 data is uint16_t bits.
template <typename T>
Value Input(const std::vector<T>& values, std::vector<int64_t> dims,
            DType dtype = DefaultDType<T>()) {
  Shape shape(dtype, std::move(dims));
  if (shape.byte_size() != static_cast<int64_t>(values.size() * sizeof(T))) {
    ADD_FAILURE() << "test bug: " << values.size() << " values for "
                  << shape.ToString();
    std::abort();
  }
  runtime::Client* client = Ok(runtime::Client::Global());
  runtime::BufferPtr buffer =
      Ok(client->TransferToDevice(values.data(), shape, 0));
  return MakeDataNode(std::make_shared<DeviceData>(shape, std::vector{buffer}));
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

}  // namespace testing
}  // namespace torch_xla

#endif  // TORCH_XLA_TEST_CPP_EXECUTION_TEST_UTIL_H_
