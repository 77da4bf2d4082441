#ifndef TORCH_XLA_CSRC_IR_SHARDING_H_
#define TORCH_XLA_CSRC_IR_SHARDING_H_

// How an array is split over the devices of an SPMD program (XLA's
// HloSharding, the subset PyTorch/XLA users write): replicated on every
// device, or tiled, each tensor dimension cut into `tile_dims[i]` equal
// pieces, the tiles assigned to devices in row-major order of `devices`. A
// partially replicated sharding has one more tile dimension, last, whose
// devices hold the same tile. A plain value; the text form is what the
// compiler reads (mhlo.sharding) and what _get_xla_sharding_spec prints.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/shape.h"

namespace torch_xla {

// Values are upstream's ShardingType (torch_xla.distributed.spmd).
enum class ShardingType : int {
  kReplicated = 0,
  kMaximal = 1,
  kTuple = 2,
  kTiled = 3,
  kManual = 4,
  kPartial = 5,
};

struct Sharding {
  ShardingType type = ShardingType::kReplicated;
  // Tiles per dimension (+ the replication factor last when kPartial);
  // empty when replicated.
  std::vector<int64_t> tile_dims;
  // Device ordinal of each tile, row-major over tile_dims.
  std::vector<int64_t> devices;

  static Sharding Replicated() { return Sharding(); }
  // Checks the tile assignment (sizes agree, no device twice) and folds
  // trivial cases: all tiles 1 is replicated, a replication factor of 1 is
  // plain tiling.
  static absl::StatusOr<Sharding> Tiled(std::vector<int64_t> tile_dims,
                                        std::vector<int64_t> devices,
                                        bool replicate_last_dim);

  // "{replicated}", "{devices=[4,1]0,1,2,3}",
  // "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}".
  std::string ToString() const;
  bool is_replicated() const { return type == ShardingType::kReplicated; }
  // Tile dimensions that cut the tensor (without the replication one).
  std::vector<int64_t> TensorTileDims() const;

  friend bool operator==(const Sharding& a, const Sharding& b) {
    return a.type == b.type && a.tile_dims == b.tile_dims &&
           a.devices == b.devices;
  }
  friend bool operator!=(const Sharding& a, const Sharding& b) {
    return !(a == b);
  }
};

using ShardingPtr = std::shared_ptr<const Sharding>;

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

#endif  // TORCH_XLA_CSRC_IR_SHARDING_H_
