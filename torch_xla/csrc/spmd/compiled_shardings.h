#ifndef TORCH_XLA_CSRC_SPMD_COMPILED_SHARDINGS_H_
#define TORCH_XLA_CSRC_SPMD_COMPILED_SHARDINGS_H_

// The shardings the SPMD partitioner gave a compiled program's outputs, read
// from its optimized HloModuleProto (Client::OptimizedProgram): the PJRT C
// API has no call for them. We decode the few protobuf fields involved by
// hand (no protobuf dependency): HloModuleProto.spmd_output_sharding and
// OpSharding's type, tile assignment (explicit or iota form) and
// replicate-on-last-tile-dim.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "torch_xla/csrc/ir/sharding.h"

namespace torch_xla::spmd {

// One sharding per output (a tuple sharding is split; a single sharding
// applies to the one output). `format` is the program's: "hlo" or
// "hlo_with_config". Fails on shardings we cannot represent (maximal,
// manual).
absl::StatusOr<std::vector<Sharding>> OutputShardingsFromProgram(
    absl::string_view format, absl::string_view program, size_t num_outputs);

// One serialized OpSharding message.
absl::StatusOr<Sharding> ShardingFromOpShardingProto(absl::string_view proto);

}  // namespace torch_xla::spmd

#endif  // TORCH_XLA_CSRC_SPMD_COMPILED_SHARDINGS_H_
