#ifndef TORCH_XLA_CSRC_RUNTIME_COMPILE_OPTIONS_H_
#define TORCH_XLA_CSRC_RUNTIME_COMPILE_OPTIONS_H_

// What to compile for, and its encoding as a serialized xla
// CompileOptionsProto (the PJRT C API takes proto bytes; we write the few
// fields we need by hand instead of depending on protobuf).

#include <cstdint>
#include <string>
#include <vector>

namespace torch_xla::runtime {

struct CompileSpec {
  int num_replicas = 1;
  int num_partitions = 1;
  bool use_spmd_partitioning = false;
  // SPMD, one flag per output: true lets the partitioner choose that
  // output's sharding (else it is the program's, replicated when unstated).
  // Empty: false for all.
  std::vector<bool> propagate_sharding_to_output;
  // Global device ids: one per partition (replica-major when replicas > 1).
  // Empty means "let the plugin choose" (device 0).
  std::vector<int> device_ids;
};

// Never empty: the CPU plugin aborts on empty options.
std::string SerializeCompileOptions(const CompileSpec& spec);

}  // namespace torch_xla::runtime

#endif  // TORCH_XLA_CSRC_RUNTIME_COMPILE_OPTIONS_H_
