#ifndef TORCH_XLA_CSRC_SPMD_SHARDED_TRANSFER_H_
#define TORCH_XLA_CSRC_SPMD_SHARDED_TRANSFER_H_

// Moving a dense host array to one buffer per device and back. Each device
// receives only its shard (a replicated sharding sends every device the
// whole array), padded with zeros to the shard shape when a dimension does
// not divide evenly (XLA's tiling); reading back copies each distinct shard
// once and drops the padding. Buffers are
// returned, and read, in device-ordinal order.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/shape.h"
#include "torch_xla/csrc/ir/sharding.h"
#include "torch_xla/csrc/runtime/client.h"
#include "torch_xla/csrc/spmd/shard_geometry.h"

namespace torch_xla::spmd {

// Transfers `dense` (shape.byte_size() bytes) split by `sharding` to the
// first `num_devices` devices (each transfer counts in OutboundData).
absl::StatusOr<std::vector<runtime::BufferPtr>> TransferShards(
    runtime::Client* client, const uint8_t* dense, const Shape& shape,
    const Sharding& sharding, int64_t num_devices);

// Assembles the global array from per-device `buffers` into `dst`
// (shape.byte_size() bytes).
absl::Status GatherShards(runtime::Client* client,
                          const std::vector<runtime::BufferPtr>& buffers,
                          const Shape& shape, const Sharding& sharding,
                          uint8_t* dst);

// The shards of the SPMD devices [first, first + local_devices) of
// `total_devices` (one process's devices in a multi-process job): local
// device d receives device first + d's shard; nothing else travels.
absl::StatusOr<std::vector<runtime::BufferPtr>> TransferLocalShards(
    runtime::Client* client, const uint8_t* dense, const Shape& shape,
    const Sharding& sharding, int64_t total_devices, int64_t first);

// Whether the shards of devices [first, first + count) of `total_devices`
// hold every element of `shape` (a replicated sharding always does).
bool LocalShardsCover(const Shape& shape, const Sharding& sharding,
                      int64_t total_devices, int64_t first, int64_t count);

// GatherShards from the `buffers` of devices [first, first + size) of
// `total_devices`; they must cover the array (LocalShardsCover).
absl::Status GatherLocalShards(runtime::Client* client,
                               const std::vector<runtime::BufferPtr>& buffers,
                               const Shape& shape, const Sharding& sharding,
                               int64_t total_devices, int64_t first,
                               uint8_t* dst);

}  // namespace torch_xla::spmd

#endif  // TORCH_XLA_CSRC_SPMD_SHARDED_TRANSFER_H_
