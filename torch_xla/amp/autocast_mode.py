"""`torch_xla.amp.autocast`: torch.autocast for the 'xla' device.

Upstream turns it on for TPU only and prints a warning elsewhere; here the
XLA autocast policy (torch_xla/_autocast.py) runs on every PJRT device, so
it is on wherever the device is 'xla'. As upstream, on TPU only bfloat16 is
supported: another dtype warns and leaves autocast off.
"""

import warnings
from typing import Optional

import torch

import torch_xla.core.xla_model as xm


class autocast(torch.amp.autocast_mode.autocast):  # noqa: N801 (upstream name)
  """`torch.autocast('xla', ...)`, bfloat16 unless told otherwise.

  Args:
    device: an 'xla' device (or its name).
    enabled: whether autocasting is on in the region.
    dtype: the low-precision dtype: torch.bfloat16 (default) or
      torch.float16.
    cache_enabled: passed to torch.autocast.

  Example:
    with torch_xla.amp.autocast(torch_xla.device()):
      loss = model(x)
  """

  def __init__(self, device, enabled: bool = True,
               dtype: Optional[torch.dtype] = None,
               cache_enabled: bool = True):
    if torch.device(device).type != "xla":
      raise ValueError(
          f"torch_xla.amp.autocast is for 'xla' devices, got {device!r}; use "
          "torch.autocast for other devices.")
    dtype = dtype or torch.bfloat16
    if xm.xla_device_hw(device) in ("TPU", "NEURON") and dtype != (
        torch.bfloat16):
      warnings.warn(f"torch_xla.amp.autocast on TPU supports only "
                    f"torch.bfloat16, got {dtype}: autocast is off in this "
                    f"region")
      enabled = False
    super().__init__("xla", enabled=enabled, dtype=dtype,
                     cache_enabled=cache_enabled)
