#ifndef TORCH_XLA_CSRC_TENSOR_DEVICE_DATA_H_
#define TORCH_XLA_CSRC_TENSOR_DEVICE_DATA_H_

// The two Data kinds that have values: DeviceData holds runtime buffers (one
// per device; several when sharded), HostData holds host bytes that are
// transferred only when a graph using them executes (Python scalars, so a
// new learning rate never recompiles and tracing never transfers).

#include <cstdint>
#include <vector>

#include "torch_xla/csrc/ir/data.h"
#include "torch_xla/csrc/runtime/client.h"

namespace torch_xla {

class DeviceData final : public Data {
 public:
  DeviceData(Shape shape, std::vector<runtime::BufferPtr> buffers);

  const std::vector<runtime::BufferPtr>& buffers() const { return buffers_; }
  // The single-device buffer.
  const runtime::BufferPtr& buffer() const { return buffers_.front(); }
  int device_ordinal() const { return buffers_.front()->device_ordinal(); }
  bool IsDeleted() const;

  // Alias ID of the tensor this data was last assigned to: at sync an output
  // with the same alias ID may take this buffer over (donation).
  int64_t owner_alias_id() const { return owner_alias_id_; }
  void set_owner_alias_id(int64_t id) { owner_alias_id_ = id; }

 private:
  std::vector<runtime::BufferPtr> buffers_;
  int64_t owner_alias_id_ = -1;
};

class HostData final : public Data {
 public:
  HostData(Shape shape, std::vector<uint8_t> bytes);

  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

// A scalar of `dtype` holding `value` converted to that type (bf16/f16 by
// round-to-nearest-even).
std::shared_ptr<HostData> MakeHostScalar(double value, DType dtype);
// Exact for every int64 (a double is not beyond 2^53).
std::shared_ptr<HostData> MakeHostScalarInt(int64_t value, DType dtype);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_TENSOR_DEVICE_DATA_H_
