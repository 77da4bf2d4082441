// CopyTensorToDevice on a 4-device CPU client (its own binary: the process's
// one client is made with CPU_NUM_DEVICES=4): pending IR runs on the source
// device and the result is copied device to device (no host transfer),
// host data is shared, and placeholders, donated and sharded tensors and
// devices out of range are errors naming the tensor.

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "test/cpp/execution_test_util.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/data.h"
#include "torch_xla/csrc/metrics/metrics.h"
#include "torch_xla/csrc/runtime/client.h"
#include "torch_xla/csrc/tensor/device_copy.h"
#include "torch_xla/csrc/tensor/device_data.h"
#include "torch_xla/csrc/tensor/graph_executor.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla {
namespace {

runtime::Client* Client() {
  static runtime::Client* client = [] {
    setenv("CPU_NUM_DEVICES", "4", /*overwrite=*/1);
    absl::StatusOr<runtime::Client*> global = runtime::Client::Global();
    EXPECT_TRUE(global.ok()) << global.status();
    return global.ok() ? *global : nullptr;
  }();
  return client;
}

runtime::BufferPtr Upload(const std::vector<float>& values, int device) {
  Shape shape(DType::kF32, {static_cast<int64_t>(values.size())});
  return *Client()->TransferToDevice(values.data(), shape, device);
}

XlaTensorPtr FromHost(const std::vector<float>& values, int device) {
  Client();  // the 4-device client first
  return testing::TensorFromHost(
      values, {static_cast<int64_t>(values.size())}, device);
}

int64_t Samples(const char* name) {
  return metrics::GetMetric(name, metrics::Metric::Unit::kNanoseconds)
      ->count();
}

// The device PJRT says holds the tensor's buffer.
int BufferDevice(const XlaTensorPtr& tensor) {
  auto* data = static_cast<const DeviceData*>(tensor->data().get());
  return *Client()->DeviceOrdinalOf(*data->buffer());
}

std::string ErrorOf(const XlaTensorPtr& tensor, int device) {
  absl::StatusOr<XlaTensorPtr> copy = CopyTensorToDevice(tensor, device);
  EXPECT_FALSE(copy.ok());
  return copy.ok() ? "" : std::string(copy.status().message());
}

TEST(DeviceCopyTest, PendingIrRunsOnTheSourceThenCopiesDeviceToDevice) {
  ASSERT_NE(Client(), nullptr);
  ASSERT_EQ(Client()->devices().size(), 4u);
  XlaTensorPtr x = FromHost({1, -2, 3.5}, 1);
  // x * x + x, pending on device 1 (no host scalars: nothing to upload).
  Value xv = *x->GetIrValue();
  XlaTensorPtr pending = XlaTensor::FromIr(
      *MakeBinary(OpKind::kAdd, *MakeBinary(OpKind::kMultiply, xv, xv), xv),
      1);
  metrics::ClearMetrics();
  absl::StatusOr<XlaTensorPtr> copy = CopyTensorToDevice(pending, 3);
  ASSERT_TRUE(copy.ok()) << copy.status();
  EXPECT_EQ(Samples("TransferToDeviceTime"), 0);
  EXPECT_EQ(Samples("TransferFromDeviceTime"), 0);
  EXPECT_EQ(Samples("TransferDeviceToDeviceTime"), 1);
  EXPECT_EQ(pending->state(), TensorState::kDeviceData);
  EXPECT_EQ(BufferDevice(pending), 1);
  EXPECT_EQ((*copy)->device(), 3);
  EXPECT_EQ(BufferDevice(*copy), 3);
  EXPECT_NE((*copy)->id(), pending->id());
  EXPECT_NE((*copy)->alias_id(), pending->alias_id());
  EXPECT_EQ(testing::Read<float>(*copy), (std::vector<float>{2, 2, 15.75}));
  EXPECT_EQ(testing::Read<float>(pending), (std::vector<float>{2, 2, 15.75}));
}

TEST(DeviceCopyTest, TheCopyFeedsAComputationOnTheTargetDevice) {
  XlaTensorPtr x = FromHost({1, 2}, 0);
  XlaTensorPtr copy = *CopyTensorToDevice(x, 2);
  XlaTensorPtr y = FromHost({10, 20}, 2);
  XlaTensorPtr sum = XlaTensor::FromIr(
      *MakeBinary(OpKind::kAdd, *copy->GetIrValue(), *y->GetIrValue()), 2);
  EXPECT_EQ(testing::Read<float>(sum), (std::vector<float>{11, 22}));
  EXPECT_EQ(BufferDevice(sum), 2);
}

TEST(DeviceCopyTest, HostDataAndSameDeviceAreSharedNotCopied) {
  XlaTensorPtr scalar =
      XlaTensor::FromData(MakeHostScalar(2.5, DType::kF32), 0);
  metrics::ClearMetrics();
  XlaTensorPtr moved = *CopyTensorToDevice(scalar, 3);
  EXPECT_EQ(moved->data(), scalar->data());
  EXPECT_EQ(moved->device(), 3);
  XlaTensorPtr x = FromHost({4}, 1);
  XlaTensorPtr same = *CopyTensorToDevice(x, 1);
  EXPECT_EQ(same->data(), x->data());
  EXPECT_EQ(Samples("TransferDeviceToDeviceTime"), 0);
}

TEST(DeviceCopyTest, ErrorsNameTheTensorAndDevice) {
  XlaTensorPtr x = FromHost({1, 2, 3}, 1);
  EXPECT_EQ(ErrorOf(x, 4),
            "copying tensor " + std::to_string(x->id()) +
                " (f32[3]) to device 4: device ordinal 4 is out of range: "
                "cpu has 4 devices (0..3)");
  XlaTensorPtr placeholder =
      XlaTensor::FromData(MakePlaceholder(Shape(DType::kF32, {2})), 0);
  EXPECT_NE(ErrorOf(placeholder, 1).find("is a placeholder and has no data"),
            std::string::npos);
  XlaTensorPtr donated = FromHost({1}, 0);
  donated->MarkDeleted();
  EXPECT_NE(ErrorOf(donated, 1).find("was donated to a computation"),
            std::string::npos);
  XlaTensorPtr sharded = XlaTensor::FromData(
      std::make_shared<DeviceData>(
          Shape(DType::kF32, {2}),
          std::vector{Upload({1}, 0), Upload({2}, 1)}),
      0);
  EXPECT_NE(ErrorOf(sharded, 2).find("is sharded over 2 devices; replicate "
                                     "it or clear its sharding first"),
            std::string::npos);
}

}  // namespace
}  // namespace torch_xla
