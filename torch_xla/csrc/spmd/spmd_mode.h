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
// Devices behind the virtual device (the client's device count).
int64_t SpmdDeviceCount();

}  // namespace torch_xla::spmd

#endif  // TORCH_XLA_CSRC_SPMD_SPMD_MODE_H_
