#include "torch_xla/csrc/spmd/compiled_shardings.h"

#include <numeric>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/runtime/proto_reader.h"

namespace torch_xla::spmd {
namespace {

// Field numbers (xla/xla_data.proto, xla/service/hlo.proto).
constexpr int kWrappedModule = 1;
constexpr int kModuleSpmdOutputSharding = 12;
constexpr int kShardingType = 1;
constexpr int kShardingTileDims = 3;
constexpr int kShardingTileDevices = 4;
constexpr int kShardingTuple = 5;
constexpr int kShardingReplicateLast = 6;
constexpr int kShardingLastTileDims = 8;
constexpr int kShardingIotaReshapeDims = 9;
constexpr int kShardingIotaTransposePerm = 10;
// OpSharding.Type values.
constexpr int64_t kTypeReplicated = 0;
constexpr int64_t kTypeTuple = 2;
constexpr int64_t kTypeOther = 3;

using runtime::AppendProtoInts;
using Field = runtime::ProtoField;

// Reads the fields of the compiled program's messages.
class Reader : public runtime::ProtoReader {
 public:
  explicit Reader(absl::string_view data)
      : ProtoReader(data, "the compiled program's shardings") {}
};

struct OpSharding {
  int64_t type = kTypeReplicated;
  std::vector<int64_t> tile_dims, devices, iota_dims, iota_perm, last_dims;
  std::vector<absl::string_view> tuple;
  bool replicate_last = false;
};

absl::StatusOr<OpSharding> Parse(absl::string_view proto) {
  OpSharding s;
  Reader reader(proto);
  while (!reader.done()) {
    absl::StatusOr<Field> field = reader.Next();
    if (!field.ok()) return field.status();
    absl::Status status;
    switch (field->number) {
      case kShardingType: s.type = static_cast<int64_t>(field->varint); break;
      case kShardingTileDims:
        status = AppendProtoInts(*field, &s.tile_dims);
        break;
      case kShardingTileDevices:
        status = AppendProtoInts(*field, &s.devices);
        break;
      case kShardingTuple: s.tuple.push_back(field->bytes); break;
      case kShardingReplicateLast: s.replicate_last = field->varint != 0; break;
      case kShardingLastTileDims:
        status = AppendProtoInts(*field, &s.last_dims);
        break;
      case kShardingIotaReshapeDims:
        status = AppendProtoInts(*field, &s.iota_dims);
        break;
      case kShardingIotaTransposePerm:
        status = AppendProtoInts(*field, &s.iota_perm);
        break;
      default: break;
    }
    if (!status.ok()) return status;
  }
  return s;
}

// The device list of an iota tile assignment: iota(N) reshaped to
// `dims`, transposed by `perm`, flattened.
std::vector<int64_t> IotaDevices(const std::vector<int64_t>& dims,
                                 const std::vector<int64_t>& perm) {
  const int64_t n = std::accumulate(dims.begin(), dims.end(), int64_t{1},
                                    std::multiplies<int64_t>());
  const size_t rank = dims.size();
  std::vector<int64_t> strides(rank, 1);
  for (int64_t i = static_cast<int64_t>(rank) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  std::vector<int64_t> out_dims(rank);
  for (size_t i = 0; i < rank; ++i) out_dims[i] = dims[perm[i]];
  std::vector<int64_t> devices(n);
  std::vector<int64_t> index(rank, 0);  // position in the transposed array
  for (int64_t k = 0; k < n; ++k) {
    int64_t source = 0;
    for (size_t i = 0; i < rank; ++i) source += index[i] * strides[perm[i]];
    devices[k] = source;
    for (int64_t i = static_cast<int64_t>(rank) - 1; i >= 0; --i) {
      if (++index[i] < out_dims[i]) break;
      index[i] = 0;
    }
  }
  return devices;
}

}  // namespace

absl::StatusOr<Sharding> ShardingFromOpShardingProto(absl::string_view proto) {
  absl::StatusOr<OpSharding> parsed = Parse(proto);
  if (!parsed.ok()) return parsed.status();
  const OpSharding& s = *parsed;
  if (s.type == kTypeReplicated) return Sharding::Replicated();
  if (s.type != kTypeOther) {
    return absl::UnimplementedError(absl::StrCat(
        "the compiled program gives an output a sharding of OpSharding type ",
        s.type, " (maximal, tuple or manual), which torch_xla cannot hold"));
  }
  bool replicate_last = s.replicate_last;
  if (!s.last_dims.empty()) {
    // Subgroups: only one trailing replicated group is representable.
    if (s.last_dims.size() != 1 || s.last_dims[0] != kTypeReplicated) {
      return absl::UnimplementedError(
          "the compiled program uses manual sharding subgroups");
    }
    replicate_last = true;
  }
  std::vector<int64_t> devices = s.devices;
  if (devices.empty()) {
    std::vector<int64_t> perm = s.iota_perm;
    if (perm.empty()) {
      perm.resize(s.iota_dims.size());
      std::iota(perm.begin(), perm.end(), 0);
    }
    devices = IotaDevices(s.iota_dims, perm);
  }
  return Sharding::Tiled(s.tile_dims, std::move(devices), replicate_last);
}

absl::StatusOr<std::vector<Sharding>> OutputShardingsFromProgram(
    absl::string_view format, absl::string_view program, size_t num_outputs) {
  absl::string_view hlo_module_proto = program;
  if (format == "hlo_with_config") {
    // HloModuleProtoWithConfig: the module is field 1.
    Reader wrapper(program);
    hlo_module_proto = absl::string_view();
    while (!wrapper.done()) {
      absl::StatusOr<Field> field = wrapper.Next();
      if (!field.ok()) return field.status();
      if (field->number == kWrappedModule && field->wire == 2) {
        hlo_module_proto = field->bytes;
      }
    }
  } else if (format != "hlo") {
    return absl::UnimplementedError(absl::StrCat(
        "cannot read output shardings from a compiled program in format '",
        format, "'"));
  }
  Reader reader(hlo_module_proto);
  absl::string_view output;
  bool found = false;
  while (!reader.done()) {
    absl::StatusOr<Field> field = reader.Next();
    if (!field.ok()) return field.status();
    if (field->number == kModuleSpmdOutputSharding && field->wire == 2) {
      output = field->bytes;
      found = true;
    }
  }
  // No recorded sharding: the outputs are replicated.
  if (!found) return std::vector<Sharding>(num_outputs);
  absl::StatusOr<OpSharding> parsed = Parse(output);
  if (!parsed.ok()) return parsed.status();
  std::vector<Sharding> shardings;
  if (parsed->type == kTypeTuple) {
    for (absl::string_view element : parsed->tuple) {
      absl::StatusOr<Sharding> sharding = ShardingFromOpShardingProto(element);
      if (!sharding.ok()) return sharding.status();
      shardings.push_back(*std::move(sharding));
    }
  } else {
    absl::StatusOr<Sharding> sharding = ShardingFromOpShardingProto(output);
    if (!sharding.ok()) return sharding.status();
    shardings.assign(num_outputs, *sharding);
  }
  if (shardings.size() != num_outputs) {
    return absl::InternalError(absl::StrCat(
        "the compiled program records ", shardings.size(),
        " output shardings for ", num_outputs, " outputs"));
  }
  return shardings;
}

}  // namespace torch_xla::spmd
