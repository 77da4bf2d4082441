#include "torch_xla/csrc/runtime/compile_options.h"

namespace torch_xla::runtime {
namespace {

// Protobuf wire format, just enough for varint and nested-message fields.
void PutVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

void PutVarintField(int field, uint64_t value, std::string* out) {
  PutVarint(static_cast<uint64_t>(field) << 3, out);  // wire type 0
  PutVarint(value, out);
}

void PutMessageField(int field, const std::string& message, std::string* out) {
  PutVarint((static_cast<uint64_t>(field) << 3) | 2, out);  // wire type 2
  PutVarint(message.size(), out);
  out->append(message);
}

// Field numbers from xla/pjrt/proto/compile_options.proto and
// xla/xla_data.proto (DeviceAssignmentProto).
constexpr int kCompileOptionsBuildOptions = 3;
constexpr int kBuildOptionsNumReplicas = 4;
constexpr int kBuildOptionsNumPartitions = 5;
constexpr int kBuildOptionsUseSpmdPartitioning = 6;
constexpr int kBuildOptionsDeviceAssignment = 9;
// repeated bool, one per output.
constexpr int kBuildOptionsShardingPropagationToOutput = 12;
constexpr int kDeviceAssignmentReplicaCount = 1;
constexpr int kDeviceAssignmentComputationCount = 2;
constexpr int kDeviceAssignmentComputationDevices = 3;
constexpr int kComputationDeviceReplicaDeviceIds = 1;

std::string SerializeDeviceAssignment(const CompileSpec& spec) {
  std::string out;
  PutVarintField(kDeviceAssignmentReplicaCount, spec.num_replicas, &out);
  PutVarintField(kDeviceAssignmentComputationCount, spec.num_partitions, &out);
  // One ComputationDevice per partition listing its device for each replica.
  for (int partition = 0; partition < spec.num_partitions; ++partition) {
    std::string computation;
    for (int replica = 0; replica < spec.num_replicas; ++replica) {
      int id = spec.device_ids[replica * spec.num_partitions + partition];
      PutVarintField(kComputationDeviceReplicaDeviceIds, id, &computation);
    }
    PutMessageField(kDeviceAssignmentComputationDevices, computation, &out);
  }
  return out;
}

}  // namespace

std::string SerializeCompileOptions(const CompileSpec& spec) {
  std::string build;
  PutVarintField(kBuildOptionsNumReplicas, spec.num_replicas, &build);
  PutVarintField(kBuildOptionsNumPartitions, spec.num_partitions, &build);
  if (spec.use_spmd_partitioning) {
    PutVarintField(kBuildOptionsUseSpmdPartitioning, 1, &build);
  }
  if (!spec.propagate_sharding_to_output.empty()) {
    std::string flags;  // packed repeated bool
    for (bool propagate : spec.propagate_sharding_to_output) {
      flags.push_back(propagate ? '\x01' : '\x00');
    }
    PutMessageField(kBuildOptionsShardingPropagationToOutput, flags, &build);
  }
  if (!spec.device_ids.empty()) {
    PutMessageField(kBuildOptionsDeviceAssignment,
                    SerializeDeviceAssignment(spec), &build);
  }
  std::string options;
  PutMessageField(kCompileOptionsBuildOptions, build, &options);
  return options;
}

}  // namespace torch_xla::runtime
