"""A process joining a multi-process job (a pod): where it stands and how it
meets the others.

Design. A job is `process_count` processes running the same script; each
drives its own devices (one per process in CPU tests, one host's chips on a
TPU pod). Before a process first uses its XLA runtime it joins:

1. It reads its place from the environment, under upstream's names:
   `RANK` (else `PJRT_LOCAL_PROCESS_RANK`, `LOCAL_RANK`) and `WORLD_SIZE`
   (else `PJRT_LOCAL_PROCESS_COUNT`, `LOCAL_WORLD_SIZE`); the coordinator at
   `MASTER_ADDR` (default localhost) : `XLA_COORDINATOR_PORT` (default 8547).
2. Process 0 serves a `torch.distributed.TCPStore` there; every process
   connects to it (an unreachable coordinator is an error after
   `TORCH_XLA_DISTRIBUTED_TIMEOUT` seconds, default 300).
3. The store becomes the key-value store of the C++ runtime
   (`_XLAC._distributed`): PJRT_Client_Create receives it as its KV
   callbacks, and the processes publish their devices under it to agree on
   one global device list with global ids.

The CPU PJRT plugin cannot run a program across processes (measured:
docs/pods.md), so on CPU the collectives travel between processes through a
gloo process group built on the same store (`cpu_transport_group`). It is a
private group (not torch.distributed's default group), made on first use,
and nothing outside the CPU path reaches it.

Joining runs once, just before the runtime creates its client, however
the runtime is first used (a tensor moved to 'xla', an xr query, the
launcher): the C++ runtime calls the join hook registered below. A job of
one process (no RANK/WORLD_SIZE, or WORLD_SIZE=1) joins nothing.
"""

import datetime
import os
import socket
import threading

from torch_xla import _XLAC

DEFAULT_COORDINATOR_PORT = 8547  # upstream's XlaCoordinator default
DEFAULT_TIMEOUT_S = 300.0

_lock = threading.RLock()
_store = None
_gloo_group = None


def _env_int(*names, default):
  for name in names:
    value = os.environ.get(name)
    if value not in (None, ""):
      try:
        return int(value)
      except ValueError:
        raise ValueError(f"environment variable {name}={value!r} is not "
                         f"an integer") from None
  return default


def timeout_s() -> float:
  """Seconds a process waits for another (TORCH_XLA_DISTRIBUTED_TIMEOUT)."""
  value = os.environ.get("TORCH_XLA_DISTRIBUTED_TIMEOUT")
  return float(value) if value else DEFAULT_TIMEOUT_S


def place_from_env():
  """(process_index, process_count) as the environment states them."""
  count = _env_int("WORLD_SIZE", "PJRT_LOCAL_PROCESS_COUNT", "LOCAL_WORLD_SIZE",
                   default=1)
  index = _env_int("RANK", "PJRT_LOCAL_PROCESS_RANK", "LOCAL_RANK", default=0)
  if count < 1 or not 0 <= index < count:
    raise ValueError(
        f"this process's place in the job is out of range: rank {index} of "
        f"world size {count} (RANK / WORLD_SIZE in the environment)")
  return index, count


def coordinator_address():
  """(host, port) of the coordinator (MASTER_ADDR, XLA_COORDINATOR_PORT)."""
  host = os.environ.get("MASTER_ADDR") or "localhost"
  port = _env_int("XLA_COORDINATOR_PORT", default=DEFAULT_COORDINATOR_PORT)
  return host, port


def is_multiprocess() -> bool:
  return place_from_env()[1] > 1


def join() -> None:
  """Joins the job the environment describes and starts the runtime.

  Idempotent. Single-process jobs only start the runtime. Raises
  RuntimeError naming the coordinator when it cannot be reached in time, or
  the process whose devices never arrived.
  """
  with _lock:
    if _XLAC._distributed.is_initialized():
      return
    _XLAC._distributed.initialize_client()  # runs _prepare first


def _prepare() -> None:
  """Connects to the coordinator and gives the C++ runtime this process's
  place and the store. The runtime calls it once, just before it creates
  its client, however the runtime is first used (the join hook)."""
  global _store
  with _lock:
    if _store is not None:
      return
    index, count = place_from_env()
    if count == 1:
      return
    timeout = timeout_s()
    _store = _connect(index, count, timeout)
    # Who is who, so a failed collective can name a lost process.
    _store.set(f"torch_xla/pid/{index}",
               f"{socket.gethostname()} {os.getpid()}")
    _XLAC._distributed.set_process_topology(index, count, int(timeout * 1000))
    _XLAC._distributed.set_key_value_store(_kv_get, _kv_put)


def _connect(index, count, timeout):
  import torch.distributed as dist

  host, port = coordinator_address()
  try:
    return dist.TCPStore(
        host, port, world_size=count, is_master=(index == 0),
        timeout=datetime.timedelta(seconds=timeout), wait_for_workers=False)
  except Exception as e:  # torch raises several kinds (DistNetworkError, ...)
    role = "serve" if index == 0 else "reach"
    raise RuntimeError(
        f"process {index} of {count} could not {role} the coordinator at "
        f"{host}:{port} within {timeout:g} s (MASTER_ADDR, "
        f"XLA_COORDINATOR_PORT; TORCH_XLA_DISTRIBUTED_TIMEOUT sets the wait): "
        f"{type(e).__name__}: {e}") from e


def _kv_get(key, timeout_ms):
  _store.wait([key], datetime.timedelta(milliseconds=timeout_ms))
  return _store.get(key)


def _kv_put(key, value):
  _store.set(key, value)


def store():
  """The job's key-value store (a torch.distributed Store); None when the
  job has one process."""
  join()
  return _store


def store_client():
  """A new connection to the job's store (a torch.distributed TCPStore
  client), for a caller that may block in the store while other threads of
  this process use it: one client connection serves one call at a time,
  so a thread waiting in it would hold up another thread's set. Made
  after join(); multi-process jobs only."""
  import torch.distributed as dist

  join()
  host, port = coordinator_address()
  return dist.TCPStore(host, port, is_master=False,
                       timeout=datetime.timedelta(seconds=timeout_s()))


def cpu_transport_group():
  """The gloo process group that carries collectives between processes on
  CPU; made on first use over the job's store. Multi-process CPU jobs only.
  """
  global _gloo_group
  with _lock:
    if _gloo_group is None:
      import torch.distributed as dist

      join()
      index, count = place_from_env()
      prefixed = dist.PrefixStore("torch_xla/cpu_transport", _store)
      _gloo_group = dist.ProcessGroupGloo(
          prefixed, index, count, datetime.timedelta(seconds=timeout_s()))
    return _gloo_group


_XLAC._distributed.set_join_hook(_prepare)
