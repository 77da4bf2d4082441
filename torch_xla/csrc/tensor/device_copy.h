#ifndef TORCH_XLA_CSRC_TENSOR_DEVICE_COPY_H_
#define TORCH_XLA_CSRC_TENSOR_DEVICE_COPY_H_

// Moving a tensor's value to another device of this process, device to
// device (PJRT CopyToDevice): no host round trip, so no TransferToDeviceTime
// or TransferFromDeviceTime samples. The source keeps its value; the result
// is a new tensor (new tensor ID and alias ID) that owns the copied buffer.

#include "absl/status/statusor.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla {

// The value of `tensor` as a new tensor on device `device`. Pending IR runs
// first (on the source's device, like a read). Host data (scalars, fills) is
// shared: it travels when a graph on the target device reads it. On the
// same device the result shares the data, like a clone. Fails for
// placeholders, donated tensors, sharded tensors and devices out of range.
absl::StatusOr<XlaTensorPtr> CopyTensorToDevice(const XlaTensorPtr& tensor,
                                                int device);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_TENSOR_DEVICE_COPY_H_
