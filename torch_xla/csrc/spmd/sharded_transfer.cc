#include "torch_xla/csrc/spmd/sharded_transfer.h"

#include <cstring>
#include <set>

#include "absl/strings/str_cat.h"

namespace torch_xla::spmd {
namespace {

// The byte offset of `box` in the dense array when the box is one
// contiguous run (it cuts only the outermost dimension it does not take
// whole); -1 otherwise.
int64_t ContiguousBoxOffset(const Shape& shape, const ShardBox& box) {
  int64_t first_cut = -1;  // outermost dimension the box does not span
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (box.size[i] != shape.dims[i]) {
      first_cut = i;
      break;
    }
  }
  if (first_cut < 0) return 0;
  for (int64_t i = 0; i < first_cut; ++i) {
    if (box.size[i] != 1) return -1;
  }
  for (int64_t i = first_cut + 1; i < shape.rank(); ++i) {
    if (box.size[i] != shape.dims[i]) return -1;
  }
  int64_t offset = 0;
  for (int64_t i = 0; i < shape.rank(); ++i) {
    offset = offset * shape.dims[i] + box.start[i];
  }
  return offset * DTypeByteSize(shape.dtype);
}

// Whether the box fills the whole shard (no padding).
bool FillsShard(const ShardBox& box, const Shape& shard_shape) {
  return box.size == shard_shape.dims;
}

// The box at the start of a shard-shaped buffer (where its elements go).
ShardBox AtShardStart(const ShardBox& box) {
  return ShardBox{std::vector<int64_t>(box.size.size(), 0), box.size};
}

}  // namespace

// Device d (0-based in `boxes`, a buffer per box) receives box d's shard.
static absl::StatusOr<std::vector<runtime::BufferPtr>> TransferBoxes(
    runtime::Client* client, const uint8_t* dense, const Shape& shape,
    const Sharding& sharding, const std::vector<ShardBox>& boxes);
// The global array from buffer d holding box d.
static absl::Status GatherBoxes(runtime::Client* client,
                         const std::vector<runtime::BufferPtr>& buffers,
                         const Shape& shape, const Sharding& sharding,
                         const std::vector<ShardBox>& boxes, uint8_t* dst);

absl::StatusOr<std::vector<runtime::BufferPtr>> TransferShards(
    runtime::Client* client, const uint8_t* dense, const Shape& shape,
    const Sharding& sharding, int64_t num_devices) {
  std::vector<ShardBox> boxes = ShardBoxes(sharding, shape, num_devices);
  return TransferBoxes(client, dense, shape, sharding, boxes);
}

absl::StatusOr<std::vector<runtime::BufferPtr>> TransferLocalShards(
    runtime::Client* client, const uint8_t* dense, const Shape& shape,
    const Sharding& sharding, int64_t total_devices, int64_t first) {
  const int64_t count = static_cast<int64_t>(client->devices().size());
  if (first < 0 || first + count > total_devices) {
    return absl::InternalError(absl::StrCat(
        "this process's ", count, " devices from SPMD device ", first,
        " do not fit in ", total_devices));
  }
  std::vector<ShardBox> all = ShardBoxes(sharding, shape, total_devices);
  std::vector<ShardBox> boxes(all.begin() + first,
                              all.begin() + first + count);
  return TransferBoxes(client, dense, shape, sharding, boxes);
}

bool LocalShardsCover(const Shape& shape, const Sharding& sharding,
                      int64_t total_devices, int64_t first, int64_t count) {
  if (sharding.is_replicated() || count >= total_devices) return true;
  std::vector<ShardBox> all = ShardBoxes(sharding, shape, total_devices);
  std::set<std::vector<int64_t>> seen;
  int64_t elements = 0;
  for (int64_t d = first; d < first + count; ++d) {
    if (!seen.insert(all[d].start).second) continue;
    int64_t n = 1;
    for (int64_t size : all[d].size) n *= size;
    elements += n;
  }
  int64_t want = 1;
  for (int64_t dim : shape.dims) want *= dim;
  return elements == want;
}

absl::Status GatherLocalShards(runtime::Client* client,
                               const std::vector<runtime::BufferPtr>& buffers,
                               const Shape& shape, const Sharding& sharding,
                               int64_t total_devices, int64_t first,
                               uint8_t* dst) {
  const int64_t count = static_cast<int64_t>(buffers.size());
  if (!LocalShardsCover(shape, sharding, total_devices, first, count)) {
    return absl::InternalError("GatherLocalShards: shards do not cover");
  }
  std::vector<ShardBox> all = ShardBoxes(sharding, shape, total_devices);
  std::vector<ShardBox> boxes(all.begin() + first,
                              all.begin() + first + count);
  return GatherBoxes(client, buffers, shape, sharding, boxes, dst);
}

absl::StatusOr<std::vector<runtime::BufferPtr>> TransferBoxes(
    runtime::Client* client, const uint8_t* dense, const Shape& shape,
    const Sharding& sharding, const std::vector<ShardBox>& boxes) {
  const Shape shard_shape = ShardShape(sharding, shape);
  const int64_t num_devices = static_cast<int64_t>(boxes.size());
  std::vector<runtime::BufferPtr> buffers;
  buffers.reserve(num_devices);
  for (int64_t d = 0; d < num_devices; ++d) {
    std::vector<uint8_t> shard;
    const uint8_t* bytes = dense;
    if (!sharding.is_replicated() && !FillsShard(boxes[d], shard_shape)) {
      // Uneven tiling: the device's elements, then zeros up to the shard
      // shape.
      std::vector<uint8_t> real = ExtractBox(dense, shape, boxes[d]);
      shard.assign(shard_shape.byte_size(), 0);
      InsertBox(shard.data(), shard_shape, AtShardStart(boxes[d]),
                real.data());
      bytes = shard.data();
    } else if (!sharding.is_replicated()) {
      int64_t offset = ContiguousBoxOffset(shape, boxes[d]);
      if (offset >= 0) {
        bytes = dense + offset;  // a run of whole rows: no copy
      } else {
        shard = ExtractBox(dense, shape, boxes[d]);
        bytes = shard.data();
      }
    }
    absl::StatusOr<runtime::BufferPtr> buffer =
        client->TransferToDevice(bytes, shard_shape, static_cast<int>(d));
    if (!buffer.ok()) return buffer.status();
    buffers.push_back(*std::move(buffer));
  }
  return buffers;
}

absl::Status GatherShards(runtime::Client* client,
                          const std::vector<runtime::BufferPtr>& buffers,
                          const Shape& shape, const Sharding& sharding,
                          uint8_t* dst) {
  std::vector<ShardBox> boxes =
      ShardBoxes(sharding, shape, static_cast<int64_t>(buffers.size()));
  return GatherBoxes(client, buffers, shape, sharding, boxes, dst);
}

absl::Status GatherBoxes(runtime::Client* client,
                         const std::vector<runtime::BufferPtr>& buffers,
                         const Shape& shape, const Sharding& sharding,
                         const std::vector<ShardBox>& boxes, uint8_t* dst) {
  if (sharding.is_replicated()) {
    return client->TransferFromDevice(*buffers.front(), dst,
                                      shape.byte_size());
  }
  const Shape shard_shape = ShardShape(sharding, shape);
  std::set<std::vector<int64_t>> copied;  // replicas of a shard: read once
  std::vector<uint8_t> shard(shard_shape.byte_size());
  for (size_t d = 0; d < buffers.size(); ++d) {
    if (!copied.insert(boxes[d].start).second) continue;
    if (!FillsShard(boxes[d], shard_shape)) {  // padded: strip the padding
      absl::Status status = client->TransferFromDevice(
          *buffers[d], shard.data(), static_cast<int64_t>(shard.size()));
      if (!status.ok()) return status;
      std::vector<uint8_t> real =
          ExtractBox(shard.data(), shard_shape, AtShardStart(boxes[d]));
      InsertBox(dst, shape, boxes[d], real.data());
      continue;
    }
    const int64_t offset = ContiguousBoxOffset(shape, boxes[d]);
    if (offset >= 0) {  // whole rows: straight into place
      absl::Status status = client->TransferFromDevice(
          *buffers[d], dst + offset, shard_shape.byte_size());
      if (!status.ok()) return status;
      continue;
    }
    absl::Status status = client->TransferFromDevice(
        *buffers[d], shard.data(), static_cast<int64_t>(shard.size()));
    if (!status.ok()) return status;
    InsertBox(dst, shape, boxes[d], shard.data());
  }
  return absl::OkStatus();
}

}  // namespace torch_xla::spmd
