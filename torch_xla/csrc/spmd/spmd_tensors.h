#ifndef TORCH_XLA_CSRC_SPMD_SPMD_TENSORS_H_
#define TORCH_XLA_CSRC_SPMD_SPMD_TENSORS_H_

// Tensors on the SPMD virtual device. Host data moved there stays on the
// host until its sharding is known; mark_sharding then sends each device
// only its shard. An op that reads it first sends it replicated, when the
// op is traced (UploadTracedHostData, spmd_execution.h). A pending value is
// annotated instead (the partitioner splits it), and a placeholder just
// records the sharding, so a sharded computation can be staged out with no
// data at all. These sit above the tensor layer (they sync and re-lay out
// tensors); the executor's half is spmd_execution.h, below it.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/sharding.h"
#include "torch_xla/csrc/spmd/shard_geometry.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla {

// A tensor holding a copy of `shape.byte_size()` bytes at `data`: host data
// on the virtual device under SPMD (counts VirtualDeviceUsage), else a
// buffer on `device`.
absl::StatusOr<XlaTensorPtr> TensorFromHost(const void* data, Shape shape,
                                            int device);

// Gives the tensor `sharding` (checked against its shape and the device
// count). Data is re-laid out over the devices (only shards travel); a
// pending value gets a sharding annotation.
absl::Status MarkSharding(const XlaTensorPtr& tensor, ShardingPtr sharding);

// Drops the sharding: sharded data returns to the host on the virtual
// device (sent replicated when next used); an annotation is removed.
absl::Status ClearSharding(const XlaTensorPtr& tensor);

// Device d's part of sharded data as a tensor on xla:d (no transfer), with
// the box of the global tensor it holds.
struct LocalShard {
  XlaTensorPtr tensor;
  ShardBox box;
  int device = 0;
};
absl::StatusOr<std::vector<LocalShard>> LocalShards(
    const XlaTensorPtr& tensor);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_SPMD_SPMD_TENSORS_H_
