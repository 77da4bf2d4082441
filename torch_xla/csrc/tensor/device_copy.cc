#include "torch_xla/csrc/tensor/device_copy.h"

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/runtime/client.h"
#include "torch_xla/csrc/tensor/device_data.h"
#include "torch_xla/csrc/tensor/graph_executor.h"

namespace torch_xla {

absl::StatusOr<XlaTensorPtr> CopyTensorToDevice(const XlaTensorPtr& tensor,
                                                int device) {
  absl::Status readable = tensor->CheckReadable();
  if (!readable.ok()) return readable;
  absl::StatusOr<runtime::Client*> client = runtime::Client::Global();
  if (!client.ok()) return client.status();
  absl::StatusOr<const runtime::Device*> target = (*client)->GetDevice(device);
  if (!target.ok()) {
    return absl::Status(
        target.status().code(),
        absl::StrCat("copying tensor ", tensor->id(), " (",
                     tensor->shape().ToString(), ") to device ", device,
                     ": ", target.status().message()));
  }
  if (tensor->state() == TensorState::kIrValue) {
    absl::Status synced = SyncTensors({tensor});
    if (!synced.ok()) return synced;
  }
  const DataPtr& data = tensor->data();
  if (data->kind() != DataKind::kDevice) {
    // Host data is not bound to a device: share it (sent at execution).
    return XlaTensor::FromData(data, device);
  }
  auto* device_data = static_cast<const DeviceData*>(data.get());
  if (device_data->buffers().size() != 1) {
    return absl::UnimplementedError(absl::StrCat(
        "copying tensor ", tensor->id(), " (", tensor->shape().ToString(),
        ") to device ", device, ": it is sharded over ",
        device_data->buffers().size(),
        " devices; replicate it or clear its sharding first"));
  }
  if (device_data->device_ordinal() == device) {
    return XlaTensor::FromData(data, device);
  }
  absl::StatusOr<runtime::BufferPtr> copy =
      (*client)->CopyToDevice(*device_data->buffer(), device);
  if (!copy.ok()) return copy.status();
  return XlaTensor::FromData(
      std::make_shared<DeviceData>(tensor->shape(), std::vector{*copy}),
      device);
}

}  // namespace torch_xla
