// CPU_NUM_DEVICES creates that many CPU devices (its own binary: one PJRT
// client per process).

#include <cstdlib>

#include "gtest/gtest.h"
#include "torch_xla/csrc/runtime/client.h"

namespace torch_xla::runtime {
namespace {

TEST(RuntimeDevicesTest, CpuNumDevicesGivesThatManyDevices) {
  setenv("CPU_NUM_DEVICES", "4", /*overwrite=*/1);
  absl::StatusOr<Client*> client = Client::Global();
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_EQ((*client)->devices().size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ((*client)->devices()[i].ordinal, i);
  }
  // Each device runs its own computation.
  float value = 7;
  absl::StatusOr<BufferPtr> buffer =
      (*client)->TransferToDevice(&value, Shape(DType::kF32, {}), 3);
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  EXPECT_EQ((*buffer)->device_ordinal(), 3);
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
