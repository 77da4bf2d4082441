#ifndef TORCH_XLA_CSRC_RUNTIME_REPLICATION_H_
#define TORCH_XLA_CSRC_RUNTIME_REPLICATION_H_

// Replicas as threads of one process (upstream's thread per device): each
// of this process's replica devices runs the same step, traced by its own
// thread. A step whose program holds collectives is compiled once with
// num_replicas = the replica count and a device assignment over all replica
// devices, and the sync launches all replicas in one Execute call, an
// argument list per device (tensor/graph_executor.cc). The plugin then
// starts every replica itself. Launching them one by one does not work on
// the CPU plugin: it may run a replica inline, on the calling thread, which
// then waits in the first collective for replicas it has not launched yet.

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "torch_xla/csrc/runtime/compile_options.h"

namespace torch_xla::runtime {

class Client;

// The ordinals of this process's replica devices, in replica order; empty
// (the default) or one device: no replication.
void SetReplicaDevices(std::vector<int> ordinals);
std::vector<int> GetReplicaDevices();

// If replication is on and `mlir_text` holds a collective, makes `spec`
// compile the program replicated over the replica devices (`ordinal`, the
// device that traced it, must be one of them). Otherwise leaves `spec`
// alone.
absl::Status ReplicateIfCollective(const Client& client,
                                   absl::string_view mlir_text, int ordinal,
                                   CompileSpec* spec);

}  // namespace torch_xla::runtime

#endif  // TORCH_XLA_CSRC_RUNTIME_REPLICATION_H_
