#ifndef TORCH_XLA_CSRC_TENSOR_DEVICE_DATA_H_
#define TORCH_XLA_CSRC_TENSOR_DEVICE_DATA_H_

// The two Data kinds that have values: DeviceData holds runtime buffers (one
// per device; several when sharded), HostData holds host bytes that are
// transferred only when a graph using them executes (Python scalars, so a
// new learning rate never recompiles and tracing never transfers).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

#include "torch_xla/csrc/ir/data.h"
#include "torch_xla/csrc/runtime/client.h"

namespace torch_xla {

class DeviceData final : public Data {
 public:
  DeviceData(Shape shape, std::vector<runtime::BufferPtr> buffers);
  // SPMD data: `buffers[d]` is device d's part of the global `shape`, split
  // by `sharding` (replicated: each holds all of it).
  DeviceData(Shape shape, std::vector<runtime::BufferPtr> buffers,
             ShardingPtr sharding);

  const std::vector<runtime::BufferPtr>& buffers() const { return buffers_; }
  // The single-device buffer (device 0's for SPMD data).
  const runtime::BufferPtr& buffer() const { return buffers_.front(); }
  // The device holding single-device data; 0, the virtual device, for SPMD.
  int device_ordinal() const {
    return sharding() != nullptr ? 0 : buffers_.front()->device_ordinal();
  }
  bool IsDeleted() const;
  // FailedPrecondition naming the data when an execution took it over
  // (donation): it cannot be an input any more.
  absl::Status CheckNotDeleted() const;

 private:
  std::vector<runtime::BufferPtr> buffers_;
};

// Host values: either all the bytes, or one element repeated (a fill: what
// torch.zeros/ones/full and empty make, so creating them costs nothing and
// they travel, like scalars, only when a graph that reads them runs).
class HostData final : public Data {
 public:
  HostData(Shape shape, std::vector<uint8_t> bytes);
  static std::shared_ptr<HostData> Fill(Shape shape,
                                        std::vector<uint8_t> element);

  bool is_fill() const { return is_fill_; }
  bool is_uniform() const override {
    return is_fill_ || shape().num_elements() == 1;
  }
  // The dense row-major bytes (built on demand for a fill).
  std::vector<uint8_t> DenseBytes() const;
  // The first element as a scalar of the dtype (a fill's value).
  std::shared_ptr<HostData> Element() const;
  // Exact bytes when not a fill (no copy).
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;  // all of them, or one element for a fill
  bool is_fill_ = false;
};

// A number as Python passes it: an integer in [-2^63, 2^64) (eager's Scalar
// holds ints past int64 as uint64) or a double.
struct HostNumber {
  enum class Kind { kInt64, kUint64, kDouble };
  Kind kind = Kind::kInt64;
  int64_t i = 0;   // kInt64
  uint64_t u = 0;  // kUint64
  double d = 0;    // kDouble

  static HostNumber Int(int64_t value);
  static HostNumber Uint(uint64_t value);
  static HostNumber Double(double value);
  std::string ToString() const;
};

// Scalars as arithmetic with a Python number sees them: never fails, no
// undefined behaviour. Floating types round to nearest even (infinity
// beyond their range); integer types wrap (two's complement) and take a
// double truncated toward zero (NaN -> 0, saturating at the int64 range);
// bool is value != 0.
std::shared_ptr<HostData> MakeHostScalar(double value, DType dtype);
std::shared_ptr<HostData> MakeHostScalarInt(int64_t value, DType dtype);
std::shared_ptr<HostData> MakeHostScalarNumber(const HostNumber& number,
                                               DType dtype);

// Scalars as eager's fill_ / full / scalar_tensor convert a number
// (c10::checked_convert): a value the dtype cannot hold fails, raised as
// RuntimeError like eager, naming the value and the dtype's range. As in
// eager, NaN and infinities fit floating types, anything fits bool, and a
// negative integer fits an unsigned type (it wraps) unless it is below -max.
absl::StatusOr<std::shared_ptr<HostData>> MakeCheckedHostScalar(
    const HostNumber& number, DType dtype);

// The dtype as torch spells it ("int32", "bfloat16", ...).
absl::string_view TorchDTypeName(DType dtype);

// `shape` filled with one scalar's bytes (as MakeHostScalar/Int encode it).
std::shared_ptr<HostData> MakeHostFill(const HostData& scalar, Shape shape);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_TENSOR_DEVICE_DATA_H_
