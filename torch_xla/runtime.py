"""Runtime queries (upstream name: torch_xla.runtime, imported as xr)."""

import os

from torch_xla import _XLAC


def device_type() -> str:
  """The PJRT device type in use: 'CPU', 'CUDA' or 'TPU'."""
  return _XLAC._runtime.device_type()


def global_runtime_device_count() -> int:
  """Number of devices of the runtime (all processes; one process here)."""
  return len(_XLAC._runtime.devices())


def addressable_runtime_device_count() -> int:
  """Number of runtime devices this process drives (under SPMD they all back
  the one virtual device)."""
  return len(_XLAC._runtime.devices())


def addressable_device_count() -> int:
  """Number of devices this process can use."""
  return len(_XLAC._runtime.devices())


def plugin_path() -> str:
  """The PJRT plugin library in use (see PJRT_PLUGIN_LIBRARY_PATH)."""
  return _XLAC._runtime.plugin_path()


def plugin_api_version() -> str:
  """The PJRT C API version the plugin implements, e.g. '0.90'."""
  return _XLAC._runtime.plugin_api_version()


def use_spmd() -> None:
  """Switches to SPMD mode (same as XLA_USE_SPMD=1): every tensor lives on
  the virtual device xla:0, backed by all devices (CPU_NUM_DEVICES on CPU).
  Call it before moving tensors to XLA."""
  _XLAC._xla_use_spmd()


def is_spmd() -> bool:
  return _XLAC._xla_is_spmd()
