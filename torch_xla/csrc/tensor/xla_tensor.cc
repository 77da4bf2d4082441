#include "torch_xla/csrc/tensor/xla_tensor.h"

#include <atomic>
#include <map>
#include <mutex>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/spmd/spmd_execution.h"

namespace torch_xla {
namespace {

int64_t NextTensorId() {
  static std::atomic<int64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

struct Registry {
  std::mutex mu;
  std::map<int64_t, std::weak_ptr<XlaTensor>> tensors;  // by ID = creation order
};

Registry& GetRegistry() {
  static auto* registry = new Registry();
  return *registry;
}

void Register(const XlaTensorPtr& tensor) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  registry.tensors.emplace(tensor->id(), tensor);
}

}  // namespace

absl::string_view TensorStateName(TensorState state) {
  switch (state) {
    case TensorState::kDeviceData: return "device data";
    case TensorState::kIrValue: return "IR value";
    case TensorState::kHostData: return "host data";
    case TensorState::kPlaceholder: return "placeholder";
    case TensorState::kDeleted: return "deleted";
  }
  return "?";
}

XlaTensor::XlaTensor(PrivateKey, Shape shape, int device)
    : id_(NextTensorId()), alias_id_(id_), shape_(std::move(shape)),
      device_(device) {}

XlaTensor::~XlaTensor() {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  registry.tensors.erase(id_);
}

XlaTensorPtr XlaTensor::FromData(DataPtr data, int device) {
  auto tensor = std::make_shared<XlaTensor>(PrivateKey(), data->shape(), device);
  // The first tensor to hold data owns it for donation; sharers (clones,
  // aliases) never take it over.
  if (data->owner_alias_id() < 0) data->set_owner_alias_id(tensor->alias_id());
  tensor->data_ = std::move(data);
  Register(tensor);
  return tensor;
}

XlaTensorPtr XlaTensor::FromIr(Value value, int device) {
  auto tensor =
      std::make_shared<XlaTensor>(PrivateKey(), value.shape(), device);
  tensor->ir_value_ = std::move(value);
  Register(tensor);
  return tensor;
}

TensorState XlaTensor::state() const {
  if (deleted_) return TensorState::kDeleted;
  if (ir_value_) return TensorState::kIrValue;
  switch (data_->kind()) {
    case DataKind::kDevice: return TensorState::kDeviceData;
    case DataKind::kHost: return TensorState::kHostData;
    case DataKind::kPlaceholder: return TensorState::kPlaceholder;
  }
  return TensorState::kDeleted;
}

absl::Status XlaTensor::CheckReadable() const {
  switch (state()) {
    case TensorState::kDeleted:
      return absl::FailedPreconditionError(absl::StrCat(
          "tensor ", id_, " (", shape_.ToString(),
          ") was donated to a computation and is deleted; its buffer now "
          "holds another tensor's value. Keep a clone if you need it after "
          "the step, or turn donation off for it with "
          "_set_buffer_donation(t, False)"));
    case TensorState::kPlaceholder:
      return absl::FailedPreconditionError(absl::StrCat(
          "tensor ", id_, " (", shape_.ToString(),
          ") is a placeholder and has no data: it can be traced and lowered "
          "but not read or executed. Feed real data instead"));
    default:
      return absl::OkStatus();
  }
}

absl::StatusOr<Value> XlaTensor::GetIrValue() {
  if (deleted_) return CheckReadable();
  if (ir_value_) return ir_value_;
  if (data_node_ == nullptr) {
    TXLA_ASSIGN_OR_RETURN(DataPtr uploaded, UploadTracedHostData(data_));
    if (uploaded != nullptr) data_ = std::move(uploaded);
    data_node_ = MakeDataNode(data_);
  }
  return Value(data_node_);
}

absl::Status XlaTensor::SetIrValue(Value value) {
  if (value.shape() != shape_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "in-place update of tensor ", id_, " (", shape_.ToString(),
        ") with a value of shape ", value.shape().ToString()));
  }
  // An in-place update keeps the tensor's layout over the devices.
  if (data_ != nullptr && data_->sharding() != nullptr) {
    pending_sharding_ = data_->sharding();
  }
  ir_value_ = std::move(value);
  data_ = nullptr;
  data_node_ = nullptr;
  deleted_ = false;
  return absl::OkStatus();
}

absl::Status XlaTensor::SetData(DataPtr data) {
  if (data->shape() != shape_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tensor ", id_, " (", shape_.ToString(), ") given data of shape ",
        data->shape().ToString()));
  }
  data_ = std::move(data);
  data_node_ = nullptr;
  ir_value_ = Value();
  deleted_ = false;
  pending_sharding_ = nullptr;
  return absl::OkStatus();
}

void XlaTensor::MarkDeleted() {
  deleted_ = true;
  data_ = nullptr;
  data_node_ = nullptr;
  ir_value_ = Value();
}

std::string XlaTensor::DebugString() const {
  return absl::StrCat("XlaTensor(id=", id_, ", alias_id=", alias_id_,
                      ", shape=", shape_.ToString(), ", device=xla:", device_,
                      ", state=", TensorStateName(state()), ")");
}

std::vector<XlaTensorPtr> LiveTensors() {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  std::vector<XlaTensorPtr> out;
  out.reserve(registry.tensors.size());
  for (const auto& [id, weak] : registry.tensors) {
    if (XlaTensorPtr tensor = weak.lock()) out.push_back(std::move(tensor));
  }
  return out;
}

int64_t LiveTensorCount() {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  return static_cast<int64_t>(registry.tensors.size());
}

}  // namespace torch_xla
