// A 4-device CPU client: CPU_NUM_DEVICES sets the device count, computations
// compiled for device 1 and device 3 run there (PJRT says where each output
// lives), and buffers move between devices directly (CopyToDevice). Its own
// binary: one PJRT client per process.

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "torch_xla/csrc/metrics/metrics.h"
#include "torch_xla/csrc/runtime/client.h"

namespace torch_xla::runtime {
namespace {

constexpr int kDevices = 4;

// The process's one client: 4 CPU devices, made from options (not the
// environment).
Client* FourDeviceClient() {
  static Client* client = [] {
    ClientOptions options;
    options.cpu_device_count = kDevices;
    absl::StatusOr<std::unique_ptr<Client>> created = Client::Create(options);
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? created->release() : nullptr;
  }();
  return client;
}

std::vector<float> ToHost(Client* client, const Buffer& buffer) {
  std::vector<float> out(buffer.shape().num_elements());
  absl::Status status = client->TransferFromDevice(
      buffer, out.data(), buffer.shape().byte_size());
  EXPECT_TRUE(status.ok()) << status;
  return out;
}

// y = x * x + c, with a different constant c per device's program.
std::string Program(float c) {
  return "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
         "  %c = stablehlo.constant dense<" +
         std::to_string(c) +
         "> : tensor<4xf32>\n"
         "  %0 = stablehlo.multiply %x, %x : tensor<4xf32>\n"
         "  %1 = stablehlo.add %0, %c : tensor<4xf32>\n"
         "  return %1 : tensor<4xf32>\n"
         "}\n";
}

TEST(RuntimeDevicesTest, CpuNumDevicesSetsTheDeviceCount) {
  setenv("CPU_NUM_DEVICES", "4", /*overwrite=*/1);
  EXPECT_EQ(Client::OptionsFromEnv().cpu_device_count, 4);
  setenv("CPU_NUM_DEVICES", "0", /*overwrite=*/1);  // ignored: default 1
  EXPECT_EQ(Client::OptionsFromEnv().cpu_device_count, 1);
  unsetenv("CPU_NUM_DEVICES");
}

TEST(RuntimeDevicesTest, ClientHasFourOrderedDevices) {
  Client* client = FourDeviceClient();
  ASSERT_NE(client, nullptr);
  ASSERT_EQ(client->devices().size(), 4u);
  for (int i = 0; i < kDevices; ++i) {
    EXPECT_EQ(client->devices()[i].ordinal, i);
  }
  float value = 7;
  BufferPtr buffer =
      *client->TransferToDevice(&value, Shape(DType::kF32, {}), 3);
  EXPECT_EQ(buffer->device_ordinal(), 3);
  EXPECT_EQ(*client->DeviceOrdinalOf(*buffer), 3);
}

TEST(RuntimeDevicesTest, ComputationsRunOnDevicesOneAndThree) {
  Client* client = FourDeviceClient();
  ASSERT_NE(client, nullptr);
  const std::vector<float> x = {1, -2, 3, 0.5};
  for (int ordinal : {1, 3}) {
    SCOPED_TRACE("device " + std::to_string(ordinal));
    CompileSpec spec;
    spec.device_ids = {client->devices()[ordinal].id};
    const float c = 10.0f * ordinal;
    absl::StatusOr<ExecutablePtr> executable =
        client->Compile(Program(c), spec);
    ASSERT_TRUE(executable.ok()) << executable.status();
    EXPECT_EQ((*executable)->device_ordinals(), std::vector<int>{ordinal});

    BufferPtr input =
        *client->TransferToDevice(x.data(), Shape(DType::kF32, {4}), ordinal);
    absl::StatusOr<std::vector<std::vector<BufferPtr>>> outputs =
        client->Execute(**executable, {{input}});
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    ASSERT_EQ(outputs->size(), 1u);
    ASSERT_EQ((*outputs)[0].size(), 1u);
    const Buffer& out = *(*outputs)[0][0];
    ASSERT_TRUE(out.AwaitReady().ok());
    EXPECT_EQ(out.device_ordinal(), ordinal);
    absl::StatusOr<int> where = client->DeviceOrdinalOf(out);
    ASSERT_TRUE(where.ok()) << where.status();
    EXPECT_EQ(*where, ordinal);
    EXPECT_EQ(ToHost(client, out),
              (std::vector<float>{1 + c, 4 + c, 9 + c, 0.25f + c}));

    // An input on another device is refused, naming both devices.
    BufferPtr elsewhere =
        *client->TransferToDevice(x.data(), Shape(DType::kF32, {4}), 0);
    absl::StatusOr<std::vector<std::vector<BufferPtr>>> wrong =
        client->Execute(**executable, {{elsewhere}});
    ASSERT_FALSE(wrong.ok());
    EXPECT_NE(wrong.status().message().find(
                  "lives on device 0 but the computation runs on device " +
                  std::to_string(ordinal)),
              std::string::npos)
        << wrong.status();
  }
}

TEST(RuntimeDevicesTest, CopyToDeviceMovesBytesWithoutTheHost) {
  Client* client = FourDeviceClient();
  ASSERT_NE(client, nullptr);
  const std::vector<float> x = {1.5f, -0.0f, 3e38f, -7.25f, 0.1f, 42};
  BufferPtr source =
      *client->TransferToDevice(x.data(), Shape(DType::kF32, {2, 3}), 1);
  metrics::ClearMetrics();
  absl::StatusOr<BufferPtr> copy = client->CopyToDevice(*source, 3);
  ASSERT_TRUE(copy.ok()) << copy.status();
  // No host transfer took part; one device-to-device copy did.
  EXPECT_EQ(metrics::GetMetric("TransferToDeviceTime",
                               metrics::Metric::Unit::kNanoseconds)
                ->count(),
            0);
  EXPECT_EQ(metrics::GetMetric("TransferFromDeviceTime",
                               metrics::Metric::Unit::kNanoseconds)
                ->count(),
            0);
  EXPECT_EQ(metrics::GetMetric("TransferDeviceToDeviceTime",
                               metrics::Metric::Unit::kNanoseconds)
                ->count(),
            1);
  EXPECT_EQ((*copy)->shape(), Shape(DType::kF32, {2, 3}));
  EXPECT_EQ((*copy)->device_ordinal(), 3);
  EXPECT_EQ(*client->DeviceOrdinalOf(**copy), 3);
  EXPECT_EQ(*client->DeviceOrdinalOf(*source), 1);
  // Bit for bit (-0.0 included), and the source is unchanged.
  std::vector<float> back = ToHost(client, **copy);
  ASSERT_EQ(back.size(), x.size());
  EXPECT_EQ(std::memcmp(back.data(), x.data(), x.size() * sizeof(float)), 0);
  EXPECT_EQ(ToHost(client, *source), x);
}

TEST(RuntimeDevicesTest, CopyToDeviceWaitsForTheComputationOfItsSource) {
  Client* client = FourDeviceClient();
  ASSERT_NE(client, nullptr);
  CompileSpec spec;
  spec.device_ids = {client->devices()[1].id};
  ExecutablePtr executable = *client->Compile(Program(0.5f), spec);
  const std::vector<float> x = {1, 2, 3, 4};
  BufferPtr input =
      *client->TransferToDevice(x.data(), Shape(DType::kF32, {4}), 1);
  BufferPtr out = (*client->Execute(*executable, {{input}}))[0][0];
  absl::StatusOr<BufferPtr> copy = client->CopyToDevice(*out, 3);
  ASSERT_TRUE(copy.ok()) << copy.status();
  EXPECT_EQ(ToHost(client, **copy),
            (std::vector<float>{1.5f, 4.5f, 9.5f, 16.5f}));
}

TEST(RuntimeDevicesTest, CopyToDeviceErrorsNameTheBufferAndDevices) {
  Client* client = FourDeviceClient();
  ASSERT_NE(client, nullptr);
  float value = 1;
  BufferPtr buffer =
      *client->TransferToDevice(&value, Shape(DType::kF32, {}), 1);
  absl::StatusOr<BufferPtr> same = client->CopyToDevice(*buffer, 1);
  ASSERT_FALSE(same.ok());
  EXPECT_EQ(same.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(same.status().message().find(
                "copy of a f32[] buffer from cpu device 1 to device 1: the "
                "buffer is already there"),
            std::string::npos)
      << same.status();
  absl::StatusOr<BufferPtr> past = client->CopyToDevice(*buffer, 4);
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(past.status().message().find(
                "to device 4: device ordinal 4 is out of range: cpu has 4 "
                "devices (0..3)"),
            std::string::npos)
      << past.status();
}

TEST(RuntimeDevicesTest, MissingPluginSaysWhatToInstall) {
  ClientOptions options;
  options.device_type = "TPU";
  absl::StatusOr<std::unique_ptr<Client>> client = Client::Create(options);
  ASSERT_FALSE(client.ok());
  EXPECT_NE(client.status().message().find("pip install libtpu"),
            std::string::npos)
      << client.status();
}

}  // namespace
}  // namespace torch_xla::runtime
