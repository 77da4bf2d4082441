#ifndef TORCH_XLA_CSRC_SPMD_SPMD_EXECUTION_H_
#define TORCH_XLA_CSRC_SPMD_SPMD_EXECUTION_H_

// The SPMD half of the graph executor. An SPMD program states a sharding on
// every parameter and on the results the user fixed, compiles once for all
// devices with SPMD partitioning, takes one argument list per device and
// returns one buffer per device for each output, split the way the
// partitioner chose (read back from the compiled program). It works on
// data leaves (DeviceData, HostData), never on tensors, so the tensor layer
// can call it.

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "torch_xla/csrc/ir/sharding.h"
#include "torch_xla/csrc/lowering/lowering_context.h"
#include "torch_xla/csrc/runtime/client.h"
#include "torch_xla/csrc/tensor/device_data.h"

namespace torch_xla {

// The sharding each result must have: `tensor_shardings[t]`, that of the
// tensor computing result `result_of_tensor[t]` (mark_sharding, or an
// in-place update of sharded data), else for a result that reuses a
// parameter's buffers (`aliases`: parameter, result) the parameter's,
// replicated when it has none. Null: the partitioner chooses.
std::vector<ShardingPtr> ResultShardings(
    const LoweringContext& context,
    absl::Span<const ShardingPtr> tensor_shardings,
    absl::Span<const int64_t> result_of_tensor,
    absl::Span<const std::pair<int64_t, int64_t>> aliases);

// Parameters without a sharding (host values, scalars) arrive replicated;
// results get `result_shardings[r]` where it is not null.
absl::Status StateShardings(LoweringContext& context,
                            absl::Span<const ShardingPtr> result_shardings);

// All devices of the client, one partition each, in ordinal order; outputs
// without a stated sharding get the one the partitioner propagates.
runtime::CompileSpec SpmdCompileSpec(const runtime::Client& client,
                                     const LoweringContext& context);

// The shape of each parameter on one device (its shard).
std::vector<Shape> SpmdParameterShapes(const LoweringContext& context);

// The sharding of each output of a compiled SPMD program.
absl::StatusOr<std::vector<ShardingPtr>> CompiledOutputShardings(
    runtime::Client* client, const runtime::Executable& executable);

// One argument list per device. Sharded data gives each device its buffer.
// Packed scalars come from the upload cache; other host data (a tensor
// moved to the virtual device and used unsharded) is uploaded replicated,
// and `placed` maps its data id to that replicated data, which the executor
// then gives the tensors holding it so it is transferred once. `taken_over`: parameters
// the program may donate (they get fresh buffers).
absl::StatusOr<std::vector<std::vector<runtime::BufferPtr>>> SpmdArguments(
    runtime::Client* client, const LoweringContext& context,
    const std::unordered_set<int64_t>& taken_over,
    std::unordered_map<int64_t, std::shared_ptr<DeviceData>>* placed);

// Copies sharded data's global value to `dst` (its byte size). Gathering a
// split value counts ReplicateShardedData.
absl::Status ShardedDataToHost(const DeviceData& data, void* dst,
                               int64_t dst_size);

// Moves a dense host array to the devices split by `sharding`: each device
// receives only its shard.
absl::StatusOr<std::shared_ptr<DeviceData>> ShardHostArray(
    const uint8_t* dense, const Shape& shape, ShardingPtr sharding);

// Under SPMD, host data an op reads goes to the devices when the op is
// traced, replicated (later steps read the buffers; a sync would have sent
// it anyway): the device data to hold instead, or nullptr to keep `data`
// (not SPMD, not host data, or a fill or scalar, which travel packed).
absl::StatusOr<DataPtr> UploadTracedHostData(const DataPtr& data);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_SPMD_SPMD_EXECUTION_H_
