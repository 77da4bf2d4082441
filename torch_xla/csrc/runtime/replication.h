#ifndef TORCH_XLA_CSRC_RUNTIME_REPLICATION_H_
#define TORCH_XLA_CSRC_RUNTIME_REPLICATION_H_

// Replicas as threads of one process (upstream's thread per device): each
// of this process's replica devices runs the same step, traced by its own
// thread. A step whose program holds collectives is compiled once per
// replica with num_replicas = the replica count and a device assignment
// over all replica devices, and each replica's executable runs only its own
// device (execute_device). Launches of one program on the replicas meet in
// XLA's collectives by launch id: each device counts its replicated
// launches, and every replica makes the same sequence of them. Measured on
// the CPU plugin (docs/pods_probe.cc): the replicas may be launched one
// after another from one thread, as long as none is awaited in between.

#include <string>
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
// compile the program replicated over the replica devices, to run on
// `ordinal` (which must be one of them). Otherwise leaves `spec` alone.
absl::Status ReplicateIfCollective(const Client& client,
                                   absl::string_view mlir_text, int ordinal,
                                   CompileSpec* spec);

// The launch id of the next replicated launch on `ordinal` (1, 2, ...).
int NextReplicaLaunchId(int ordinal);

}  // namespace torch_xla::runtime

#endif  // TORCH_XLA_CSRC_RUNTIME_REPLICATION_H_
