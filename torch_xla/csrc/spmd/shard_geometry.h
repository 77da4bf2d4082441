#ifndef TORCH_XLA_CSRC_SPMD_SHARD_GEOMETRY_H_
#define TORCH_XLA_CSRC_SPMD_SHARD_GEOMETRY_H_

// Where a sharding puts a tensor's elements: the shape each device holds,
// the box of the global array it covers, and copying a box out of a dense
// host array and back. The transfers and the executor use these; the
// Sharding value itself is the IR's (ir/sharding.h).

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "torch_xla/csrc/ir/shape.h"
#include "torch_xla/csrc/ir/sharding.h"

namespace torch_xla {

// The part of a tensor one device holds: start and size per dimension.
struct ShardBox {
  std::vector<int64_t> start;
  std::vector<int64_t> size;
};

// Checks that `sharding` fits `shape` on `num_devices` devices: rank and
// device ordinals in range. A dimension need not divide by its tile count:
// as in XLA, every device holds ceil(dim / tiles) and the last tiles are
// padded.
absl::Status CheckShardingFits(const Sharding& sharding, const Shape& shape,
                               int64_t num_devices);

// The shape each device holds (padded: ceil(dim / tiles) per dimension).
Shape ShardShape(const Sharding& sharding, const Shape& shape);

// The box of `shape` held by each of `num_devices` devices (by ordinal):
// its real elements, which may be fewer than ShardShape (even none) when a
// dimension does not divide; they sit at the start of the device's buffer.
std::vector<ShardBox> ShardBoxes(const Sharding& sharding, const Shape& shape,
                                 int64_t num_devices);

// Copies the box out of a dense row-major array / into one.
std::vector<uint8_t> ExtractBox(const uint8_t* dense, const Shape& shape,
                                const ShardBox& box);
void InsertBox(uint8_t* dense, const Shape& shape, const ShardBox& box,
               const uint8_t* shard);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_SPMD_SHARD_GEOMETRY_H_
