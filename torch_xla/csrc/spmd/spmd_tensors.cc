#include "torch_xla/csrc/spmd/spmd_tensors.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/metrics/metrics.h"
#include "torch_xla/csrc/runtime/client.h"
#include "torch_xla/csrc/spmd/spmd_execution.h"
#include "torch_xla/csrc/spmd/spmd_mode.h"
#include "torch_xla/csrc/tensor/device_data.h"
#include "torch_xla/csrc/tensor/graph_executor.h"

namespace torch_xla {
namespace {

absl::Status CheckSpmd(absl::string_view what) {
  if (spmd::IsSpmd()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      what, " needs SPMD mode: call torch_xla.runtime.use_spmd() (or set "
      "XLA_USE_SPMD=1) before creating XLA tensors"));
}

// Splits the tensor's global value over the devices: host data straight
// from its bytes, device data through a host copy.
absl::StatusOr<std::shared_ptr<DeviceData>> Reshard(const XlaTensorPtr& tensor,
                                                   ShardingPtr sharding) {
  if (tensor->state() == TensorState::kHostData) {
    const auto& host = static_cast<const HostData&>(*tensor->data());
    if (!host.is_fill()) {
      return ShardHostArray(host.bytes().data(), tensor->shape(),
                            std::move(sharding));
    }
    std::vector<uint8_t> dense = host.DenseBytes();
    return ShardHostArray(dense.data(), tensor->shape(), std::move(sharding));
  }
  std::vector<uint8_t> bytes(tensor->shape().byte_size());
  TXLA_RETURN_IF_ERROR(TensorToHost(tensor, bytes.data(),
                                    static_cast<int64_t>(bytes.size())));
  return ShardHostArray(bytes.data(), tensor->shape(), std::move(sharding));
}

}  // namespace

absl::StatusOr<XlaTensorPtr> TensorFromHost(const void* data, Shape shape,
                                            int device) {
  if (spmd::IsSpmd()) {
    static metrics::Counter* usage = metrics::GetCounter("VirtualDeviceUsage");
    usage->Add(1);
    std::vector<uint8_t> bytes(shape.byte_size());
    if (!bytes.empty()) std::memcpy(bytes.data(), data, bytes.size());
    return XlaTensor::FromData(
        std::make_shared<HostData>(std::move(shape), std::move(bytes)), 0);
  }
  TXLA_ASSIGN_OR_RETURN(runtime::Client * client, runtime::Client::Global());
  TXLA_ASSIGN_OR_RETURN(runtime::BufferPtr buffer,
                        client->TransferToDevice(data, shape, device));
  return XlaTensor::FromData(
      std::make_shared<DeviceData>(shape, std::vector{buffer}), device);
}

absl::Status MarkSharding(const XlaTensorPtr& tensor, ShardingPtr sharding) {
  TXLA_RETURN_IF_ERROR(CheckSpmd("mark_sharding"));
  absl::Status fits = CheckShardingFits(*sharding, tensor->shape(),
                                        spmd::SpmdDeviceCount());
  if (!fits.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "mark_sharding of tensor ", tensor->id(), ": ", fits.message()));
  }
  switch (tensor->state()) {
    case TensorState::kDeleted:
      return tensor->CheckReadable();
    case TensorState::kPlaceholder:
      tensor->data()->set_sharding(std::move(sharding));
      return absl::OkStatus();
    case TensorState::kIrValue: {
      Value value = tensor->ir_value();
      if (value.node->kind() == OpKind::kSharding) {
        value = value.node->operand(0);
      }
      const std::string text = sharding->ToString();
      TXLA_ASSIGN_OR_RETURN(
          NodePtr annotated,
          MakeNode(OpKind::kSharding, {value},
                   Attrs().Set("sharding", absl::string_view(text))));
      TXLA_RETURN_IF_ERROR(tensor->SetIrValue(Value(annotated)));
      tensor->set_pending_sharding(std::move(sharding));
      return absl::OkStatus();
    }
    case TensorState::kDeviceData:
      if (tensor->sharding() != nullptr && *tensor->sharding() == *sharding) {
        return absl::OkStatus();
      }
      break;
    case TensorState::kHostData:
      break;
  }
  TXLA_ASSIGN_OR_RETURN(std::shared_ptr<DeviceData> sharded,
                        Reshard(tensor, std::move(sharding)));
  sharded->set_owner_alias_id(tensor->alias_id());
  return tensor->SetData(std::move(sharded));
}

absl::Status ClearSharding(const XlaTensorPtr& tensor) {
  switch (tensor->state()) {
    case TensorState::kDeleted:
      return tensor->CheckReadable();
    case TensorState::kPlaceholder:
      tensor->data()->set_sharding(nullptr);
      return absl::OkStatus();
    case TensorState::kIrValue: {
      const Value& value = tensor->ir_value();
      tensor->set_pending_sharding(nullptr);
      if (value.node->kind() != OpKind::kSharding) return absl::OkStatus();
      return tensor->SetIrValue(value.node->operand(0));
    }
    case TensorState::kHostData:
      return absl::OkStatus();
    case TensorState::kDeviceData:
      break;
  }
  if (tensor->sharding() == nullptr) return absl::OkStatus();
  std::vector<uint8_t> bytes(tensor->shape().byte_size());
  TXLA_RETURN_IF_ERROR(TensorToHost(tensor, bytes.data(),
                                    static_cast<int64_t>(bytes.size())));
  return tensor->SetData(
      std::make_shared<HostData>(tensor->shape(), std::move(bytes)));
}

absl::StatusOr<std::vector<LocalShard>> LocalShards(
    const XlaTensorPtr& tensor) {
  TXLA_RETURN_IF_ERROR(tensor->CheckReadable());
  if (tensor->state() == TensorState::kIrValue) {
    TXLA_RETURN_IF_ERROR(SyncTensors({tensor}));
  }
  const DataPtr& data = tensor->data();
  if (data->kind() != DataKind::kDevice || data->sharding() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tensor ", tensor->id(), " has no shards: it is not on the SPMD "
        "devices yet (mark_sharding it, or use it in a computation first)"));
  }
  const auto& device_data = static_cast<const DeviceData&>(*data);
  const Sharding& sharding = *data->sharding();
  const Shape shard_shape = ShardShape(sharding, data->shape());
  // In a multi-process job this process's buffers are the shards of SPMD
  // devices [first, first + local_count).
  const spmd::SpmdPlacement placement = spmd::GetSpmdPlacement();
  const int64_t held = static_cast<int64_t>(device_data.buffers().size());
  const bool global = placement.process_count > 1 &&
                      held == placement.local_count;
  std::vector<ShardBox> boxes = ShardBoxes(
      sharding, data->shape(), global ? placement.global_count : held);
  const int64_t first = global ? placement.first : 0;
  std::vector<LocalShard> shards;
  for (size_t d = 0; d < device_data.buffers().size(); ++d) {
    LocalShard shard;
    shard.device = static_cast<int>(d);
    shard.box = boxes[first + d];
    shard.tensor = XlaTensor::FromData(
        std::make_shared<DeviceData>(
            shard_shape, std::vector{device_data.buffers()[d]}),
        shard.device);
    shards.push_back(std::move(shard));
  }
  return shards;
}

}  // namespace torch_xla
