#ifndef TORCH_XLA_CSRC_IR_DATA_H_
#define TORCH_XLA_CSRC_IR_DATA_H_

// What a leaf of the graph stands for: a device buffer, host bytes sent at
// execution, or a placeholder with no data at all. Each object has a
// process-wide unique ID; lowering keys parameters by it (never by a buffer
// handle, which a placeholder does not have). Graph leaves and tensors share
// ownership of a Data through shared_ptr.

#include <cstdint>
#include <memory>
#include <utility>

#include "torch_xla/csrc/ir/shape.h"
#include "torch_xla/csrc/ir/sharding.h"

namespace torch_xla {

enum class DataKind : uint8_t {
  kDevice,       // backed by runtime buffers (one per device when sharded)
  kHost,         // host bytes, transferred only when a graph executes
  kPlaceholder,  // shape and dtype only; reading it is an error
};

class Data {
 public:
  Data(Shape shape, DataKind kind);
  virtual ~Data() = default;
  Data(const Data&) = delete;
  Data& operator=(const Data&) = delete;

  int64_t id() const { return id_; }
  const Shape& shape() const { return shape_; }
  DataKind kind() const { return kind_; }

  // Alias ID of the tensor that first held this data (-1: none). At sync,
  // an output with the same alias ID may take its buffer over (donation).
  int64_t owner_alias_id() const { return owner_alias_id_; }
  void set_owner_alias_id(int64_t id) { owner_alias_id_ = id; }

  // True when every element has one known value (a fill or a single host
  // element): such data can become a constant inside a staged-out body.
  virtual bool is_uniform() const { return false; }

  // How the value is split over the devices of an SPMD program: device data
  // with one buffer per device, or a placeholder declared sharded. Null:
  // not sharded (one device, or host data not yet placed).
  const ShardingPtr& sharding() const { return sharding_; }
  void set_sharding(ShardingPtr sharding) { sharding_ = std::move(sharding); }

 private:
  const int64_t id_;
  const Shape shape_;
  const DataKind kind_;
  int64_t owner_alias_id_ = -1;
  ShardingPtr sharding_;
};

using DataPtr = std::shared_ptr<Data>;

// A placeholder: shape and dtype, no buffer, no host bytes. It lowers to a
// computation parameter keyed by its unique data ID like any leaf, never
// allocates, and every attempt to read its value is an error. Tracing a
// function on placeholders is how a loop body or a staged function becomes
// a sub-graph (docs/placeholders_and_lowering.md).
class PlaceholderData final : public Data {
 public:
  explicit PlaceholderData(Shape shape)
      : Data(std::move(shape), DataKind::kPlaceholder) {}
};

inline DataPtr MakePlaceholder(Shape shape) {
  return std::make_shared<PlaceholderData>(std::move(shape));
}

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_IR_DATA_H_
