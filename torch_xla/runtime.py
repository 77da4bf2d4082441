"""Runtime queries (upstream name: torch_xla.runtime, imported as xr)."""

import os

from torch_xla import _XLAC, _replica_threads


def device_type() -> str:
  """The PJRT device type in use: 'CPU', 'CUDA' or 'TPU'."""
  return _XLAC._runtime.device_type()


def _joined():
  """Joins the multi-process job the environment describes (once); see
  torch_xla/distributed/_world.py."""
  from torch_xla.distributed import _world

  _world.join()
  return _XLAC._distributed


def global_runtime_device_count() -> int:
  """Number of runtime devices of the whole job, all processes together."""
  return len(_joined().global_devices())


def addressable_runtime_device_count() -> int:
  """Number of runtime devices this process drives (under SPMD they all back
  the one virtual device)."""
  _joined()
  return len(_XLAC._runtime.devices())


def addressable_device_count() -> int:
  """Number of devices this process can use."""
  return len(_XLAC._runtime.devices())


def process_index() -> int:
  """This process's index in the job, in [0, process_count())."""
  return _joined().process_index()


def process_count() -> int:
  """Number of processes in the job (1 unless started as a multi-process
  job: torch_xla.launch, xmp.spawn, or RANK/WORLD_SIZE in the
  environment)."""
  return _joined().process_count()


def local_process_count() -> int:
  """Number of processes of the job on this host (PJRT_LOCAL_PROCESS_COUNT,
  set by the launcher; 1 by default)."""
  return int(os.environ.get("PJRT_LOCAL_PROCESS_COUNT") or 1)


def local_device_count() -> int:
  """Devices on this host: local_process_count() * addressable_device_count()
  (every process of a host drives as many)."""
  return local_process_count() * addressable_device_count()


def global_device_count() -> int:
  """Number of devices of the whole job, all processes together."""
  return global_runtime_device_count()


def world_size() -> int:
  """Number of replicas taking part in the job: 1 for a single process (its
  other devices are not replicas; SPMD uses them), else every device of
  every process."""
  replica = _replica_threads.ordinal()
  if replica is not None:
    return replica[1]
  if process_count() == 1:
    return 1
  return global_device_count()


def global_ordinal() -> int:
  """This process's replica index in [0, world_size()): the position of its
  default device (xla:0) in the job's global device list (ordered by
  process). 0 for a single process; in a replica thread
  (torch_xla._internal.pjrt.spawn_threads) its device's position in that
  list."""
  replica = _replica_threads.ordinal()
  if replica is not None:
    return replica[0]
  if process_count() == 1:
    return 0
  devices = _XLAC._distributed.global_devices()
  me = process_index()
  for i, device in enumerate(devices):
    if device["process_index"] == me:
      return i
  raise RuntimeError(
      f"global_ordinal: process {me} has no device in the job's device list")


def local_ordinal() -> int:
  """This process's replica index on its host: the local process rank
  (PJRT_LOCAL_PROCESS_RANK) times the devices per process."""
  rank = int(os.environ.get("PJRT_LOCAL_PROCESS_RANK") or 0)
  replica = _replica_threads.replica()
  if replica is not None:
    return rank * replica[1] + replica[0]
  if process_count() == 1:
    return 0
  return rank * addressable_device_count()


def host_index() -> int:
  """This host's index in the job (the process index of its first local
  process; one host per job here unless RANK says otherwise)."""
  return process_index() // local_process_count()


def plugin_path() -> str:
  """The PJRT plugin library in use (see PJRT_PLUGIN_LIBRARY_PATH)."""
  return _XLAC._runtime.plugin_path()


def plugin_api_version() -> str:
  """The PJRT C API version the plugin implements, e.g. '0.90'."""
  return _XLAC._runtime.plugin_api_version()


def use_spmd() -> None:
  """Switches to SPMD mode (same as XLA_USE_SPMD=1): every tensor lives on
  the virtual device xla:0, backed by all devices (CPU_NUM_DEVICES on CPU;
  in a job of several processes every process's devices, each process
  holding its own devices' shards: docs/pods.md).
  Call it before moving tensors to XLA. Sets XLA_USE_SPMD=1 in the
  environment, as upstream does, so that code (and child processes) reading
  it see the mode."""
  _XLAC._xla_use_spmd()
  os.environ["XLA_USE_SPMD"] = "1"


def is_spmd() -> bool:
  return _XLAC._xla_is_spmd()
