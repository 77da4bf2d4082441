// The PJRT runtime against the real CPU plugin: transfers of every dtype,
// compile and execute (elementwise, while loop, donation) and error text.

#include <cstring>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"
#include "torch_xla/csrc/metrics/metrics.h"
#include "torch_xla/csrc/runtime/client.h"
#include "torch_xla/csrc/runtime/plugin.h"

namespace torch_xla::runtime {
namespace {

Client* GetClient() {
  absl::StatusOr<Client*> client = Client::Global();
  EXPECT_TRUE(client.ok()) << client.status();
  return *client;
}

template <typename T>
std::vector<T> ToHost(Client* client, const Buffer& buffer) {
  std::vector<T> out(buffer.shape().num_elements());
  absl::Status status =
      client->TransferFromDevice(buffer, out.data(), buffer.shape().byte_size());
  EXPECT_TRUE(status.ok()) << status;
  return out;
}

TEST(RuntimeTest, DescribesDevices) {
  Client* client = GetClient();
  EXPECT_EQ(client->platform_name(), "cpu");
  ASSERT_FALSE(client->devices().empty());
  EXPECT_EQ(client->devices()[0].ordinal, 0);
  EXPECT_FALSE(client->devices()[0].kind.empty());
  EXPECT_FALSE(client->GetDevice(1000).ok());
}

TEST(RuntimeTest, ReportsThePluginAndChecksItsApiVersion) {
  Client* client = GetClient();
  EXPECT_NE(client->plugin_path().find(".so"), std::string::npos);
  // The plugin in use passed the startup check: as new as our header.
  EXPECT_TRUE(CheckPluginApiVersion(PJRT_API_MAJOR, PJRT_API_MINOR).ok());
  EXPECT_TRUE(CheckPluginApiVersion(PJRT_API_MAJOR, PJRT_API_MINOR + 5).ok());
  absl::Status older = CheckPluginApiVersion(PJRT_API_MAJOR,
                                             PJRT_API_MINOR - 1);
  EXPECT_FALSE(older.ok());
  EXPECT_NE(older.message().find("install a newer plugin"), std::string::npos)
      << older;
  EXPECT_FALSE(CheckPluginApiVersion(PJRT_API_MAJOR + 1, 0).ok());
}

TEST(RuntimeTest, RoundTripsEveryDType) {
  Client* client = GetClient();
  const std::vector<int64_t> dims = {3, 5};
  for (DType dtype : {DType::kF32, DType::kF64, DType::kBF16, DType::kF16,
                      DType::kI64, DType::kI32, DType::kI16, DType::kI8,
                      DType::kU8, DType::kBool}) {
    Shape shape(dtype, dims);
    std::vector<uint8_t> bytes(shape.byte_size());
    for (size_t i = 0; i < bytes.size(); ++i) {
      // Any bit pattern is a valid payload except for pred, which is 0/1.
      bytes[i] = dtype == DType::kBool ? (i % 3 == 0) : (i * 37 + 11) & 0xff;
    }
    absl::StatusOr<BufferPtr> buffer =
        client->TransferToDevice(bytes.data(), shape, 0);
    ASSERT_TRUE(buffer.ok()) << DTypeName(dtype) << ": " << buffer.status();
    EXPECT_EQ((*buffer)->shape(), shape);
    std::vector<uint8_t> back(bytes.size());
    ASSERT_TRUE(
        client->TransferFromDevice(**buffer, back.data(), back.size()).ok());
    EXPECT_EQ(back, bytes) << DTypeName(dtype);
  }
}

TEST(RuntimeTest, TransfersAreCountedInMetrics) {
  Client* client = GetClient();
  metrics::ClearMetrics();
  float value = 1.5f;
  absl::StatusOr<BufferPtr> buffer =
      client->TransferToDevice(&value, Shape(DType::kF32, {}), 0);
  ASSERT_TRUE(buffer.ok());
  float back = 0;
  ASSERT_TRUE(client->TransferFromDevice(**buffer, &back, 4).ok());
  EXPECT_EQ(back, 1.5f);
  EXPECT_EQ(metrics::FindMetric("TransferToDeviceTime")->count(), 1);
  EXPECT_EQ(metrics::FindMetric("TransferFromDeviceTime")->count(), 1);
  EXPECT_EQ(metrics::FindMetric("OutboundData")->accumulator(), 4);
}

TEST(RuntimeTest, CompilesAndRunsElementwise) {
  Client* client = GetClient();
  constexpr char kModule[] = R"(
module @elementwise {
  func.func public @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %0 = stablehlo.add %a, %b : tensor<4xf32>
    %1 = stablehlo.multiply %0, %b : tensor<4xf32>
    return %0, %1 : tensor<4xf32>, tensor<4xf32>
  }
})";
  absl::StatusOr<ExecutablePtr> executable =
      client->Compile(kModule, CompileSpec{});
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ((*executable)->num_outputs(), 2);
  Shape shape(DType::kF32, {4});
  std::vector<float> a = {1, 2, 3, 4}, b = {0.5, -1, 2, 10};
  BufferPtr da = *client->TransferToDevice(a.data(), shape, 0);
  BufferPtr db = *client->TransferToDevice(b.data(), shape, 0);
  auto outputs = client->Execute(**executable, {{da, db}});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ASSERT_EQ(outputs->size(), 1u);
  std::vector<float> sum = ToHost<float>(client, *(*outputs)[0][0]);
  std::vector<float> product = ToHost<float>(client, *(*outputs)[0][1]);
  for (int i = 0; i < 4; ++i) {
    EXPECT_FLOAT_EQ(sum[i], a[i] + b[i]);
    EXPECT_FLOAT_EQ(product[i], (a[i] + b[i]) * b[i]);
  }
}

TEST(RuntimeTest, RunsWhileLoopWithDynamicSlices) {
  Client* client = GetClient();
  // out[i] = 2 * xs[i] + i for i in 0..4, one row per iteration.
  constexpr char kModule[] = R"(
module @loop {
  func.func public @main(%xs: tensor<5x3xf32>) -> tensor<5x3xf32> {
    %zero = stablehlo.constant dense<0> : tensor<i64>
    %init = stablehlo.constant dense<0.0> : tensor<5x3xf32>
    %r:3 = stablehlo.while(%i = %zero, %acc = %init, %x = %xs) : tensor<i64>, tensor<5x3xf32>, tensor<5x3xf32>
      cond {
        %n = stablehlo.constant dense<5> : tensor<i64>
        %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %z = stablehlo.constant dense<0> : tensor<i64>
        %row = stablehlo.dynamic_slice %x, %i, %z, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i64>, tensor<i64>) -> tensor<1x3xf32>
        %two = stablehlo.constant dense<2.0> : tensor<1x3xf32>
        %dbl = stablehlo.multiply %row, %two : tensor<1x3xf32>
        %fi = stablehlo.convert %i : (tensor<i64>) -> tensor<f32>
        %fb = stablehlo.broadcast_in_dim %fi, dims = [] : (tensor<f32>) -> tensor<1x3xf32>
        %val = stablehlo.add %dbl, %fb : tensor<1x3xf32>
        %upd = stablehlo.dynamic_update_slice %acc, %val, %i, %z : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<i64>, tensor<i64>) -> tensor<5x3xf32>
        %one = stablehlo.constant dense<1> : tensor<i64>
        %next = stablehlo.add %i, %one : tensor<i64>
        stablehlo.return %next, %upd, %x : tensor<i64>, tensor<5x3xf32>, tensor<5x3xf32>
      }
    return %r#1 : tensor<5x3xf32>
  }
})";
  absl::StatusOr<ExecutablePtr> executable =
      client->Compile(kModule, CompileSpec{});
  ASSERT_TRUE(executable.ok()) << executable.status();
  std::vector<float> xs(15);
  std::iota(xs.begin(), xs.end(), 1.0f);
  BufferPtr input =
      *client->TransferToDevice(xs.data(), Shape(DType::kF32, {5, 3}), 0);
  auto outputs = client->Execute(**executable, {{input}});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  std::vector<float> out = ToHost<float>(client, *(*outputs)[0][0]);
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 3; ++j) {
      EXPECT_FLOAT_EQ(out[i * 3 + j], 2 * xs[i * 3 + j] + i);
    }
  }
}

TEST(RuntimeTest, DonatedInputIsDeletedAndOutputIsRight) {
  Client* client = GetClient();
  constexpr char kModule[] = R"(
module @donate {
  func.func public @main(%a: tensor<1024xf32> {tf.aliasing_output = 0 : i32}) -> tensor<1024xf32> {
    %0 = stablehlo.add %a, %a : tensor<1024xf32>
    return %0 : tensor<1024xf32>
  }
})";
  absl::StatusOr<ExecutablePtr> executable =
      client->Compile(kModule, CompileSpec{});
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ((*executable)->alias_bytes(), 4096);
  std::vector<float> a(1024);
  std::iota(a.begin(), a.end(), 0.0f);
  BufferPtr input =
      *client->TransferToDevice(a.data(), Shape(DType::kF32, {1024}), 0);
  const int64_t live_before = LiveDeviceBytes();
  auto outputs = client->Execute(**executable, {{input}});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_TRUE(input->IsDeleted());
  // The output took the input's memory over: live bytes did not grow.
  EXPECT_EQ(LiveDeviceBytes(), live_before);
  std::vector<float> out = ToHost<float>(client, *(*outputs)[0][0]);
  for (int i = 0; i < 1024; ++i) EXPECT_FLOAT_EQ(out[i], 2.0f * i);

  // Running again with the donated buffer is a clear error, not a crash.
  auto again = client->Execute(**executable, {{input}});
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("donated"), std::string::npos)
      << again.status();
  std::vector<float> host(1024);
  EXPECT_FALSE(client->TransferFromDevice(*input, host.data(), 4096).ok());
}

TEST(RuntimeTest, NonDonatableIndicesKeepTheInput) {
  Client* client = GetClient();
  constexpr char kModule[] = R"(
module @keep {
  func.func public @main(%a: tensor<8xf32> {jax.buffer_donor = true}) -> tensor<8xf32> {
    %0 = stablehlo.negate %a : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
})";
  ExecutablePtr executable = *client->Compile(kModule, CompileSpec{});
  std::vector<float> a(8, 3.0f);
  BufferPtr input =
      *client->TransferToDevice(a.data(), Shape(DType::kF32, {8}), 0);
  const int64_t kKeep[] = {0};
  auto outputs = client->Execute(*executable, {{input}}, kKeep);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_FALSE(input->IsDeleted());
  EXPECT_EQ(ToHost<float>(client, *input)[0], 3.0f);
  EXPECT_EQ(ToHost<float>(client, *(*outputs)[0][0])[0], -3.0f);
}

TEST(RuntimeTest, MalformedModuleReportsXlaDiagnostic) {
  Client* client = GetClient();
  constexpr char kModule[] = R"(
module @bad {
  func.func public @main(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
    %0 = "stablehlo.add"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
})";
  absl::StatusOr<ExecutablePtr> executable =
      client->Compile(kModule, CompileSpec{});
  ASSERT_FALSE(executable.ok());
  EXPECT_NE(executable.status().message().find("stablehlo.add"),
            std::string::npos)
      << executable.status();
  EXPECT_NE(executable.status().message().find("PJRT_Client_Compile"),
            std::string::npos);
}

TEST(RuntimeTest, RejectsArgumentsOfTheWrongShape) {
  Client* client = GetClient();
  constexpr char kModule[] = R"(
module @typed {
  func.func public @main(%a: tensor<2xf32>) -> tensor<2xf32> {
    return %a : tensor<2xf32>
  }
})";
  ExecutablePtr executable = *client->Compile(kModule, CompileSpec{});
  executable->set_parameter_shapes({Shape(DType::kF32, {2})});
  int32_t ints[2] = {1, 2};
  BufferPtr wrong =
      *client->TransferToDevice(ints, Shape(DType::kI32, {2}), 0);
  auto outputs = client->Execute(*executable, {{wrong}});
  ASSERT_FALSE(outputs.ok());
  EXPECT_NE(outputs.status().message().find("s32[2]"), std::string::npos)
      << outputs.status();
}

TEST(RuntimeTest, CompileOptionsAreNeverEmpty) {
  EXPECT_FALSE(SerializeCompileOptions(CompileSpec{}).empty());
  // executable_build_options { num_replicas: 1 num_partitions: 1 }
  EXPECT_EQ(SerializeCompileOptions(CompileSpec{}),
            std::string("\x1a\x04\x20\x01\x28\x01", 6));
}

}  // namespace
}  // namespace torch_xla::runtime
