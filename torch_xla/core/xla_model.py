"""Device, step and memory functions (upstream name: torch_xla.core.xla_model,
imported as xm)."""

import torch

import torch_xla
from torch_xla import _XLAC


def xla_device(n: int = None) -> torch.device:
  """The XLA device `n` (default: the first)."""
  return torch_xla.device(0 if n is None else n)


def mark_step(wait: bool = False) -> None:
  """Ends a training step: runs the pending computation of every live
  'xla' tensor (same as torch_xla.sync())."""
  torch_xla.sync(wait=wait)


def wait_device_ops(devices=None) -> None:
  """Waits for every computation enqueued so far to finish (syncs return
  once a computation is enqueued). Raises the first execution failure."""
  torch_xla._XLAC._xla_wait_device_ops(devices or [])


def optimizer_step(optimizer, barrier: bool = False, optimizer_args=None):
  """optimizer.step(**optimizer_args); with barrier=True also mark_step().

  Returns what optimizer.step returns (the loss for closures)."""
  loss = optimizer.step(**(optimizer_args or {}))
  if barrier:
    mark_step()
  return loss


def get_memory_info(device: torch.device = None) -> dict:
  """{'bytes_used', 'bytes_limit', 'peak_bytes_used'} for a device.

  On CPU (whose plugin reports no memory stats) these count the live
  buffers this process holds; bytes_limit is 0 when unknown."""
  index = 0 if device is None else (torch.device(device).index or 0)
  return _XLAC._runtime.memory_info(index)


def xla_device_hw(device) -> str:
  """The hardware type behind an XLA device: 'CPU', 'CUDA' or 'TPU'."""
  return _XLAC._runtime.device_type()
