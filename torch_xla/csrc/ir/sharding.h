#ifndef TORCH_XLA_CSRC_IR_SHARDING_H_
#define TORCH_XLA_CSRC_IR_SHARDING_H_

// How an array is split over the devices of an SPMD program (XLA's
// HloSharding, the subset PyTorch/XLA users write): replicated on every
// device, or tiled, each tensor dimension cut into `tile_dims[i]` equal
// pieces, the tiles assigned to devices in row-major order of `devices`. A
// partially replicated sharding has one more tile dimension, last, whose
// devices hold the same tile. A plain value; the text form is what the
// compiler reads (mhlo.sharding) and what _get_xla_sharding_spec prints.
// The IR carries it (a Data leaf's sharding, a kSharding node's attribute),
// so it lives here beside Shape; what it means for the elements each device
// holds is SPMD logic, in spmd/shard_geometry.h.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

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

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_IR_SHARDING_H_
