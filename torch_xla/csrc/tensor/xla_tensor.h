#ifndef TORCH_XLA_CSRC_TENSOR_XLA_TENSOR_H_
#define TORCH_XLA_CSRC_TENSOR_XLA_TENSOR_H_

// XlaTensor: the C++ side of a lazy 'xla' tensor. It has a unique tensor ID,
// an alias ID (kept by in-place updates; donation pairs buffers with outputs
// by it), a shape, a device and exactly one state: device data, an IR value
// (pending computation), host data, placeholder, or deleted (its buffer was
// donated). Python holds tensors through shared_ptr; the registry keeps weak
// references to every live tensor so sync can find pending work.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/data.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/shape.h"

namespace torch_xla {

enum class TensorState { kDeviceData, kIrValue, kHostData, kPlaceholder, kDeleted };

absl::string_view TensorStateName(TensorState state);

class XlaTensor;
using XlaTensorPtr = std::shared_ptr<XlaTensor>;
struct ViewInfo;  // tensor/views.h

class XlaTensor {
 private:
  struct PrivateKey {
    explicit PrivateKey() = default;
  };

 public:
  // A tensor whose value is `data` (device, host or placeholder).
  static XlaTensorPtr FromData(DataPtr data, int device);
  // A tensor whose value is the pending computation `value`.
  static XlaTensorPtr FromIr(Value value, int device);

  XlaTensor(PrivateKey, Shape shape, int device);
  ~XlaTensor();
  XlaTensor(const XlaTensor&) = delete;
  XlaTensor& operator=(const XlaTensor&) = delete;

  int64_t id() const { return id_; }
  int64_t alias_id() const { return alias_id_; }
  // A tensor that replaces another's value (functionalized in-place ops)
  // takes over its alias ID.
  void set_alias_id(int64_t alias_id) { alias_id_ = alias_id; }
  const Shape& shape() const { return shape_; }
  int device() const { return device_; }
  TensorState state() const;

  // The value to use this tensor as an operand: its pending IR, or a leaf for
  // its data (the same leaf node every time). Fails for a deleted tensor.
  absl::StatusOr<Value> GetIrValue();
  // Pending IR, or an empty Value when the tensor holds data.
  const Value& ir_value() const { return ir_value_; }
  // The data, or null while the value is pending or deleted.
  const DataPtr& data() const { return data_; }

  // In-place update: new value, same tensor ID and alias ID. The shape must
  // match the tensor's.
  absl::Status SetIrValue(Value value);
  absl::Status SetData(DataPtr data);
  // The buffer was donated: reading the tensor is an error from now on.
  void MarkDeleted();

  // Counts value changes made by in-place ops (not by sync): views of this
  // tensor re-derive their values when it moves.
  int64_t version() const { return version_; }
  void BumpVersion() { ++version_; }

  // Explicit buffer donation (_set_buffer_donation).
  bool buffer_donation() const { return buffer_donation_; }
  void set_buffer_donation(bool donate) { buffer_donation_ = donate; }

  // SPMD: how the value is split over the devices. Data carries its own
  // (sharded device data, a placeholder declared sharded); a pending value
  // carries the sharding its result must get (mark_sharding on it, or the
  // sharding of the data an in-place update replaced). Null: unsharded.
  ShardingPtr sharding() const {
    return data_ != nullptr && data_->sharding() != nullptr ? data_->sharding()
                                                            : pending_sharding_;
  }
  void set_pending_sharding(ShardingPtr sharding) {
    pending_sharding_ = std::move(sharding);
  }

  // The view this handle holds the value of (null for a root): lets the
  // sync re-derive a view from its root instead of computing it as a second
  // output (views.h, TakeRederivableViews). Python owns the ViewInfo.
  std::shared_ptr<ViewInfo> view() const { return view_.lock(); }
  void set_view(const std::shared_ptr<ViewInfo>& view) { view_ = view; }

  // Error for reading this tensor's value when it has none (placeholder or
  // deleted); OK otherwise.
  absl::Status CheckReadable() const;

  std::string DebugString() const;

 private:
  const int64_t id_;
  int64_t alias_id_;
  const Shape shape_;
  const int device_;
  DataPtr data_;
  NodePtr data_node_;  // cached leaf for data_
  Value ir_value_;
  bool deleted_ = false;
  bool buffer_donation_ = false;
  int64_t version_ = 0;
  ShardingPtr pending_sharding_;
  std::weak_ptr<ViewInfo> view_;
};

// Live tensors, in creation order. Thread-safe.
std::vector<XlaTensorPtr> LiveTensors();
int64_t LiveTensorCount();

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_TENSOR_XLA_TENSOR_H_
