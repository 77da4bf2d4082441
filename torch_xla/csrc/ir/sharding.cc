#include "torch_xla/csrc/ir/sharding.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace torch_xla {

absl::StatusOr<Sharding> Sharding::Tiled(std::vector<int64_t> tile_dims,
                                         std::vector<int64_t> devices,
                                         bool replicate_last_dim) {
  int64_t tiles = 1;
  for (int64_t t : tile_dims) {
    if (t < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sharding: tile counts must be >= 1, got [",
          absl::StrJoin(tile_dims, ","), "]"));
    }
    tiles *= t;
  }
  if (tiles != static_cast<int64_t>(devices.size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sharding: the tile assignment [", absl::StrJoin(tile_dims, ","),
        "] has ", tiles, " tiles but ", devices.size(), " devices were given"));
  }
  std::set<int64_t> seen;
  for (int64_t d : devices) {
    if (d < 0 || !seen.insert(d).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sharding: device ", d, " is negative or appears twice in [",
          absl::StrJoin(devices, ","), "]"));
    }
  }
  if (replicate_last_dim && !tile_dims.empty() && tile_dims.back() == 1) {
    tile_dims.pop_back();
    replicate_last_dim = false;
  }
  Sharding sharding;
  int64_t cut = replicate_last_dim ? tiles / tile_dims.back() : tiles;
  if (cut == 1) return Replicated();
  sharding.type =
      replicate_last_dim ? ShardingType::kPartial : ShardingType::kTiled;
  sharding.tile_dims = std::move(tile_dims);
  sharding.devices = std::move(devices);
  return sharding;
}

std::string Sharding::ToString() const {
  if (is_replicated()) return "{replicated}";
  std::string text = absl::StrCat("{devices=[", absl::StrJoin(tile_dims, ","),
                                  "]", absl::StrJoin(devices, ","));
  if (type == ShardingType::kPartial) text += " last_tile_dim_replicate";
  return text + "}";
}

std::vector<int64_t> Sharding::TensorTileDims() const {
  std::vector<int64_t> dims = tile_dims;
  if (type == ShardingType::kPartial) dims.pop_back();
  return dims;
}

}  // namespace torch_xla
