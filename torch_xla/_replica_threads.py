"""Replicas as threads of one process (upstream's thread per device:
torch_xla._internal.pjrt.spawn_threads).

Design. `spawn_threads(fn)` runs fn(index, *args) in one thread per device
of this process; thread i's default device (torch_xla.device()) is xla:i
and it is replica i of a world of that many (xr.world_size(),
xr.global_ordinal()). The collectives a replica traces are IR ops with
replica groups over the threads' devices; the C++ runtime compiles a
program holding them replicated over those devices and runs each replica's
part on its own device (runtime/replication.h).

A step ends for all replicas together: torch_xla.sync() in a replica thread
waits until every replica thread has reached it, then one of them syncs the
live tensors of every device (launching each device's program without
awaiting any, which the replicated collectives need), and all go on.
rendezvous and mesh_reduce exchange through a thread barrier.

A thread that raises breaks the barrier, so the others stop at their next
meeting point instead of waiting forever; spawn_threads re-raises the first
error.
"""

import threading

_local = threading.local()


class _Replicas:

  def __init__(self, count):
    self.count = count
    self.barrier = threading.Barrier(count)
    self.slots = [None] * count
    self.error = None


def replica():
  """(index, count) of the calling replica thread, or None outside one."""
  state = getattr(_local, "replicas", None)
  if state is None:
    return None
  return _local.index, state.count


def _meet():
  state = _local.replicas
  try:
    return state.barrier.wait()
  except threading.BrokenBarrierError:
    raise RuntimeError(
        "another replica thread failed, so this one cannot meet it") from None


def sync(wait):
  """torch_xla.sync() inside a replica thread: all replicas' step ends
  together; one thread runs every device's program."""
  import torch_xla
  from torch_xla import _XLAC

  state = _local.replicas
  if _meet() == 0:
    try:
      with torch_xla._live_tensors_lock:
        _XLAC._xla_sync_live_tensors(wait)
    except BaseException as e:  # every replica reports it
      state.error = e
  _meet()
  if state.error is not None:
    raise RuntimeError(f"the replicated step failed: {state.error}") from \
        state.error


def exchange(payload):
  """Every replica's payload, in replica order."""
  state = _local.replicas
  state.slots[_local.index] = payload
  _meet()
  out = list(state.slots)
  _meet()
  return out


def spawn_threads(fn, args=()):
  """Runs fn(index, *args) in one thread per device of this process, each
  a replica on its own device (see the module docstring).

  Returns:
    {index: what fn returned}.

  Raises:
    The first exception a replica thread raised.
  """
  from torch_xla import _XLAC
  from torch_xla.distributed import _world

  _world.join()
  count = len(_XLAC._runtime.devices())
  state = _Replicas(count)
  results, errors = {}, {}

  def run(index):
    _local.replicas, _local.index = state, index
    try:
      results[index] = fn(index, *args)
    except BaseException as e:
      errors[index] = e
      state.barrier.abort()
    finally:
      _local.replicas = None

  _XLAC._distributed.set_replica_devices(list(range(count)))
  try:
    threads = [threading.Thread(target=run, args=(i,), name=f"replica-{i}")
               for i in range(count)]
    for t in threads:
      t.start()
    for t in threads:
      t.join()
  finally:
    _XLAC._distributed.set_replica_devices([])
  if errors:
    index = min(errors)
    raise errors[index]
  return results
