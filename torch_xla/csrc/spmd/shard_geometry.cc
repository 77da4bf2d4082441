#include "torch_xla/csrc/spmd/shard_geometry.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "absl/strings/str_cat.h"

namespace torch_xla {

absl::Status CheckShardingFits(const Sharding& sharding, const Shape& shape,
                               int64_t num_devices) {
  if (sharding.is_replicated()) return absl::OkStatus();
  std::vector<int64_t> tiles = sharding.TensorTileDims();
  if (static_cast<int64_t>(tiles.size()) != shape.rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sharding ", sharding.ToString(), " has ", tiles.size(),
        " tiled dimensions but the tensor ", shape.ToString(), " has rank ",
        shape.rank()));
  }
  if (static_cast<int64_t>(sharding.devices.size()) != num_devices) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sharding ", sharding.ToString(), " uses ", sharding.devices.size(),
        " devices but the SPMD program runs on ", num_devices,
        "; use a mesh of all devices"));
  }
  for (int64_t d : sharding.devices) {
    if (d >= num_devices) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sharding ", sharding.ToString(), " names device ", d, " but there ",
          "are only ", num_devices, " devices"));
    }
  }
  return absl::OkStatus();
}

Shape ShardShape(const Sharding& sharding, const Shape& shape) {
  if (sharding.is_replicated()) return shape;
  std::vector<int64_t> tiles = sharding.TensorTileDims();
  Shape shard = shape;
  // XLA's tiling: ceil(dim / tiles) per device, the last tiles padded.
  for (size_t i = 0; i < shard.dims.size(); ++i) {
    shard.dims[i] = (shard.dims[i] + tiles[i] - 1) / tiles[i];
  }
  return shard;
}

std::vector<ShardBox> ShardBoxes(const Sharding& sharding, const Shape& shape,
                                 int64_t num_devices) {
  std::vector<ShardBox> boxes(num_devices);
  Shape shard = ShardShape(sharding, shape);
  for (ShardBox& box : boxes) {
    box.start.assign(shape.dims.size(), 0);
    box.size = shard.dims;
  }
  if (sharding.is_replicated()) return boxes;
  // Tile index of each device: the row-major position of the device in the
  // tile assignment, split into one coordinate per tile dimension.
  const std::vector<int64_t>& tile_dims = sharding.tile_dims;
  for (size_t t = 0; t < sharding.devices.size(); ++t) {
    int64_t rest = static_cast<int64_t>(t);
    std::vector<int64_t> coordinate(tile_dims.size());
    for (int64_t i = static_cast<int64_t>(tile_dims.size()) - 1; i >= 0; --i) {
      coordinate[i] = rest % tile_dims[i];
      rest /= tile_dims[i];
    }
    ShardBox& box = boxes[sharding.devices[t]];
    for (size_t i = 0; i < shape.dims.size(); ++i) {
      // Uneven tiling: the box stops at the array's end (possibly empty);
      // the device's buffer is padded to the shard shape.
      const int64_t start =
          std::min(coordinate[i] * shard.dims[i], shape.dims[i]);
      box.start[i] = start;
      box.size[i] = std::min(shard.dims[i], shape.dims[i] - start);
    }
  }
  return boxes;
}

namespace {

// Calls copy(dense_offset, box_offset, bytes) for each contiguous row of the
// box (the innermost dimension), in row-major order.
void ForEachBoxRow(const Shape& shape, const ShardBox& box,
                   const std::function<void(int64_t, int64_t, int64_t)>& copy) {
  const int64_t element = DTypeByteSize(shape.dtype);
  const int64_t rank = shape.rank();
  if (rank == 0) {
    copy(0, 0, element);
    return;
  }
  for (int64_t s : box.size) {
    if (s == 0) return;
  }
  std::vector<int64_t> stride(rank, 1);
  for (int64_t i = rank - 2; i >= 0; --i) {
    stride[i] = stride[i + 1] * shape.dims[i + 1];
  }
  const int64_t row_bytes = box.size[rank - 1] * element;
  std::vector<int64_t> index(rank, 0);  // position within the box
  int64_t box_offset = 0;
  while (true) {
    int64_t dense = 0;
    for (int64_t i = 0; i < rank; ++i) {
      dense += (box.start[i] + index[i]) * stride[i];
    }
    copy(dense * element, box_offset, row_bytes);
    box_offset += row_bytes;
    int64_t i = rank - 2;
    for (; i >= 0; --i) {
      if (++index[i] < box.size[i]) break;
      index[i] = 0;
    }
    if (i < 0) return;
  }
}

}  // namespace

std::vector<uint8_t> ExtractBox(const uint8_t* dense, const Shape& shape,
                                const ShardBox& box) {
  int64_t count = DTypeByteSize(shape.dtype);
  for (int64_t s : box.size) count *= s;
  std::vector<uint8_t> shard(count);
  ForEachBoxRow(shape, box, [&](int64_t from, int64_t to, int64_t bytes) {
    std::memcpy(shard.data() + to, dense + from, bytes);
  });
  return shard;
}

void InsertBox(uint8_t* dense, const Shape& shape, const ShardBox& box,
               const uint8_t* shard) {
  ForEachBoxRow(shape, box, [&](int64_t to, int64_t from, int64_t bytes) {
    std::memcpy(dense + to, shard + from, bytes);
  });
}

}  // namespace torch_xla
