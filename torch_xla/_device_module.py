"""`torch.xla`: the device module PyTorch looks up for the 'xla' device.

PyTorch code that is generic over devices reaches the runtime of a device
type through `getattr(torch, device_type)`: `torch.utils.checkpoint` saves
and restores the device's random state around a recomputation,
`torch.random.fork_rng(device_type=...)` forks it, `torch.amp` and
friends ask for device counts. `torch_xla` registers this module with
`torch._register_device_module('xla', ...)` at import, so those paths work
on 'xla' tensors the way they do on 'cuda' ones.

Random state: 'xla' random ops draw their seeds from PyTorch's default CPU
generator (torch_xla/_ops/random_ops.py), which also serves every 'xla'
device; `get_rng_state()` returns its state as a uint8 CPU tensor, as
`torch.cuda.get_rng_state()` does, without drawing from it, and
`set_rng_state` restores it. So a checkpointed function recomputed in the
backward pass draws the same dropout mask as its forward pass.
"""

import contextlib

import torch

# PyTorch's checkpoint saves the device's RNG state only when the device
# module says it is initialized.
_initialized = True


def is_available() -> bool:
  return device_count() > 0


def is_initialized() -> bool:
  return True


def device_count() -> int:
  from torch_xla import _XLAC
  return len(_XLAC._runtime.devices())


def current_device() -> int:
  return 0


def set_device(device) -> None:
  """Accepted for compatibility: every 'xla' device is addressed by its
  index in the tensor's device, there is no current-device state."""
  del device


@contextlib.contextmanager
def device(device):
  """No-op context (tensors carry their device here)."""
  del device
  yield


def synchronize(device=None) -> None:
  """Runs pending work and waits for the device (torch_xla.sync(wait=True))."""
  del device
  import torch_xla
  torch_xla.sync(wait=True)


def get_rng_state(device="xla") -> torch.Tensor:
  """The state 'xla' random ops draw their seeds from (a uint8 CPU tensor);
  reading it draws nothing."""
  del device
  return torch.get_rng_state()


def set_rng_state(new_state: torch.Tensor, device="xla") -> None:
  """Restores a state get_rng_state returned."""
  del device
  torch.set_rng_state(new_state)


def get_rng_state_all():
  return [get_rng_state(i) for i in range(device_count())]


def set_rng_state_all(new_states) -> None:
  for state in new_states[:1]:
    set_rng_state(state)


def manual_seed(seed: int) -> None:
  import torch_xla
  torch_xla.manual_seed(seed)


def manual_seed_all(seed: int) -> None:
  manual_seed(seed)


def seed() -> None:
  manual_seed(torch.seed())


def seed_all() -> None:
  seed()


def initial_seed() -> int:
  return torch.initial_seed()


def _register() -> None:
  import sys
  if getattr(torch, "xla", None) is None:
    torch._register_device_module("xla", sys.modules[__name__])
