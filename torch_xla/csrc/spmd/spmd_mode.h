#ifndef TORCH_XLA_CSRC_SPMD_SPMD_MODE_H_
#define TORCH_XLA_CSRC_SPMD_SPMD_MODE_H_

// SPMD mode (xr.use_spmd(), XLA_USE_SPMD=1): every tensor lives on one
// virtual device, xla:0, backed by all the client's devices. Data moved there
// stays on the host until its sharding is known; programs compile for all
// devices with SPMD partitioning. Chosen once per process, before tensors
// exist.

#include <cstdint>

#include "absl/status/status.h"

namespace torch_xla::spmd {

bool IsSpmd();
// Fails once tensors hold device data (their buffers live on one device).
absl::Status EnableSpmd();
// Devices behind the virtual device: the client's device count, or in a
// multi-process job every process's devices (the mesh covers them all).
int64_t SpmdDeviceCount();

// Where this process's devices sit among the SPMD devices. One process: all
// of them. In a job of several processes (xr.use_spmd() in each) the SPMD
// devices are the job's global device list, ordered by process, and this
// process drives `local_count` of them from `first` on: it holds and
// transfers only those devices' shards (docs/pods.md, multi-process SPMD).
struct SpmdPlacement {
  int64_t global_count = 1;
  int64_t first = 0;
  int64_t local_count = 1;
  int process_count = 1;
};
SpmdPlacement GetSpmdPlacement();

}  // namespace torch_xla::spmd

#endif  // TORCH_XLA_CSRC_SPMD_SPMD_MODE_H_
