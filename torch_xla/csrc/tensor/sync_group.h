#ifndef TORCH_XLA_CSRC_TENSOR_SYNC_GROUP_H_
#define TORCH_XLA_CSRC_TENSOR_SYNC_GROUP_H_

// A sync group: the pending tensors of one device that a sync computes
// together, and how it becomes a compiled program with its arguments
// gathered (PrepareGroup). Running it and handing the outputs to the
// tensors is the graph executor's (graph_executor.cc).

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/sharding.h"
#include "torch_xla/csrc/lowering/lowering_context.h"
#include "torch_xla/csrc/runtime/client.h"
#include "torch_xla/csrc/tensor/device_data.h"
#include "torch_xla/csrc/tensor/donation.h"
#include "torch_xla/csrc/tensor/lru_cache.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla {

using runtime::BufferPtr;
using runtime::ExecutablePtr;

// A compiled sync graph and, for SPMD programs, how each output is split
// over the devices.
struct CompiledGraph {
  ExecutablePtr executable;
  std::vector<ShardingPtr> output_shardings;
};

// Compiled graphs by (graph hash, donation pattern, shardings, device).
LruCache<CompiledGraph>& GetCompileCache();

// Tensors of one sync, deduplicated: tensors sharing an IR value share one
// result.
struct SyncGroup {
  int device = 0;
  std::vector<XlaTensorPtr> tensors;
  std::vector<int64_t> result_of_tensor;  // index into `results`
  std::vector<Value> results;
};

// A zeros()/full() value of rank > 0 not yet on the device.
bool IsHostFill(const Data& data);

// Scalars, and fills (zeros, full) by their element, travel packed: one
// vector per dtype (LoweringContext::ScalarPacking). Host data that may be
// aliased to a result (an in-place update of a fill, e.g. optimizer state
// made in the first step) stays a full-size parameter of its own, so that
// step's graph equals the later steps', where the same tensor is device data.
LoweringContext::ScalarPacking PackScalars(
    absl::Span<const XlaTensorPtr> results,
    const std::unordered_set<int64_t>& materialized = {});

// One group lowered, compiled (or found) and its arguments gathered, ready
// to launch.
struct PreparedGroup {
  SyncGroup* group = nullptr;
  bool spmd = false;
  std::shared_ptr<CompiledGraph> compiled;
  Donation donation;
  std::vector<std::vector<BufferPtr>> arguments;  // one list per device
  std::unordered_map<int64_t, std::shared_ptr<DeviceData>> placed;

  // A program with collectives replicated over the replica threads' devices:
  // it runs only together with the other replicas' groups.
  bool replicated() const {
    return !spmd && compiled->executable->device_ordinals().size() > 1;
  }
};

// Lowers the group (with the donation `mode` allows, given the `live`
// tensors), compiles it or finds it compiled, and gathers its arguments.
// `materialized`: alias IDs of fills this step turns into buffers.
absl::StatusOr<PreparedGroup> PrepareGroup(
    SyncGroup& group, DonationMode mode, absl::Span<const XlaTensorPtr> live,
    const std::unordered_set<int64_t>& materialized);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_TENSOR_SYNC_GROUP_H_
