#ifndef TORCH_XLA_CSRC_TENSOR_HOST_UPLOADS_H_
#define TORCH_XLA_CSRC_TENSOR_HOST_UPLOADS_H_

// Host data (scalars, fills, host values) travels when a graph that reads it
// executes. Small values come from a cache of device copies keyed by their
// bytes and device, so a step whose scalars did not change uploads nothing.

#include "absl/status/statusor.h"
#include "torch_xla/csrc/runtime/client.h"
#include "torch_xla/csrc/tensor/device_data.h"

namespace torch_xla {

// A device copy of `host` on `device` for one execution. `fresh`: the
// execution may take the buffer over (an aliased or donated parameter), so it
// must be a new buffer that no cache holds.
absl::StatusOr<runtime::BufferPtr> UploadHostData(runtime::Client* client,
                                                  const HostData& host,
                                                  int device, bool fresh);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_TENSOR_HOST_UPLOADS_H_
