"""PyTorch on XLA devices through PJRT (fork module of PyTorch/XLA).

Importing torch_xla loads the C++ core (_XLAC), points it at the PJRT
plugins installed in this Python environment and registers the 'xla'
device type with PyTorch.
"""

import sys

import torch

from torch_xla import _XLAC

_XLAC._runtime.set_plugin_search_path([p for p in sys.path if p])
_XLAC._runtime.register_device_guard()

from torch_xla import _ops  # noqa: E402,F401  (registers the ATen rules)
from torch_xla._tensor import XlaTensor  # noqa: E402


def device(index: int = 0) -> torch.device:
  """The XLA device with that index (default 0)."""
  return torch.device("xla", index)


def sync(wait: bool = False) -> None:
  """Runs the pending computation of every live 'xla' tensor.

  Args:
    wait: also wait for the device to finish (execution is synchronous in
      this runtime, so this only matters for API compatibility).
  """
  _XLAC._xla_sync_live_tensors()


__all__ = ["device", "sync", "XlaTensor"]
