#ifndef TORCH_XLA_CSRC_DEVICE_GUARD_XLA_DEVICE_GUARD_H_
#define TORCH_XLA_CSRC_DEVICE_GUARD_XLA_DEVICE_GUARD_H_

// Registers the 'xla' device type with c10: PyTorch refuses to create or
// move tensors to a device type that has no DeviceGuardImpl. This is the
// only translation unit in the project that includes libtorch headers.

namespace torch_xla {

// Idempotent. `device_count` reports how many XLA devices exist.
void RegisterXlaDeviceGuard(int (*device_count)());

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_DEVICE_GUARD_XLA_DEVICE_GUARD_H_
