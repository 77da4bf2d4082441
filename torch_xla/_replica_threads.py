"""Replicas as threads of one process (upstream's thread per device:
torch_xla._internal.pjrt.spawn_threads).

Design. `spawn_threads(fn)` runs fn(ordinal, *args) in one thread per
device of this process; thread i's default device (torch_xla.device()) is
xla:i and it is replica i of a world of that many (xr.world_size(),
xr.global_ordinal() = ordinal, what fn receives, as upstream passes). The collectives a replica traces are IR ops with
replica groups over the threads' devices; the C++ runtime compiles a
program holding them replicated over those devices and runs each replica's
part on its own device (runtime/replication.h).

A step ends for all replicas together: torch_xla.sync() in a replica thread
waits until every replica thread has reached it, then one of them syncs the
live tensors of every device (launching each device's program without
awaiting any, which the replicated collectives need), and all go on.
rendezvous and mesh_reduce exchange through a thread barrier.

In a job of several processes (2 processes x 2 devices), each process
runs a replica thread per device and the replicas are global: thread i of
the process whose first device is the job's k-th is replica k + i of all
the job's devices (ordinal()). Their collectives cannot share one program
across processes on CPU, so they take the host route of
torch_xla/core/_cpu_hierarchy.py, whose local half is `combine` below: the
local replicas meet, one of them runs the gloo exchange between processes
for all of them, and each takes its own result.

Each replica thread has a torch.distributed world of its own (its default
process group, rank = its global ordinal) and runs its backward itself:
torch_xla/distributed/_thread_worlds.py.

A thread that raises breaks the barrier, so the others stop at their next
meeting point instead of waiting forever; spawn_threads re-raises the first
error (the error of a thread that failed by itself, not of one that
stopped because another failed).
"""

import threading

_local = threading.local()


class PeerFailedError(RuntimeError):
  """Raised in a replica thread that stops because another one failed;
  spawn_threads reports the other's error instead."""


class _Replicas:

  def __init__(self, count, base=0, world=None):
    self.count = count
    self.base = base  # global ordinal of this process's first replica
    self.world = count if world is None else world
    self.barrier = threading.Barrier(count)
    self.slots = [None] * count
    self.error = None
    self.failed = False
    self.meetings = {}  # key -> _Meeting (combine)
    self.cond = threading.Condition()


class _Meeting:

  def __init__(self, participants):
    self.participants = participants
    self.payloads = {}
    self.results = None
    self.error = None
    self.taken = 0


def replica():
  """(index, count) of the calling replica thread among this process's
  replica threads (its device is xla:index), or None outside one."""
  state = getattr(_local, "replicas", None)
  if state is None:
    return None
  return _local.index, state.count


def ordinal():
  """(global ordinal, world size) of the calling replica thread, or None
  outside one: the index among every device of the job, as xr reports it."""
  state = getattr(_local, "replicas", None)
  if state is None:
    return None
  return state.base + _local.index, state.world


def is_multiprocess():
  """True in a replica thread of a job of several processes."""
  state = getattr(_local, "replicas", None)
  return state is not None and state.world != state.count


def _meet():
  state = _local.replicas
  try:
    return state.barrier.wait()
  except threading.BrokenBarrierError:
    raise PeerFailedError(
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


def combine(key, participants, payload, run, timeout_s):
  """Meets the local replica threads `participants` (local indices) at
  `key`: each brings `payload`; the last to arrive calls
  run({index: payload}) -> {index: result}, and each thread gets its own
  result. `key` must be the same in every participant and new for each
  meeting (the caller counts its calls). An error in `run`, a failed
  replica thread or `timeout_s` without the others raises in every
  participant."""
  import time

  state = _local.replicas
  me = _local.index
  deadline = time.monotonic() + timeout_s
  with state.cond:
    meeting = state.meetings.get(key)
    if meeting is None:
      meeting = state.meetings[key] = _Meeting(tuple(participants))
    meeting.payloads[me] = payload
    if len(meeting.payloads) == len(meeting.participants):
      state.cond.release()  # others may queue up meanwhile; they wait
      try:
        meeting.results = run(dict(meeting.payloads))
      except BaseException as e:
        meeting.error = e
      finally:
        state.cond.acquire()
      if meeting.results is None and meeting.error is None:
        meeting.error = RuntimeError(f"{key}: no result")
      state.cond.notify_all()
    while meeting.results is None and meeting.error is None:
      if state.failed:
        raise PeerFailedError(f"{key[0]}: another replica thread failed, so "
                           f"this one cannot meet it")
      left = deadline - time.monotonic()
      if left <= 0 and len(meeting.payloads) < len(meeting.participants):
        missing = sorted(set(meeting.participants) - set(meeting.payloads))
        raise RuntimeError(
            f"{key[0]}: replica threads {missing} of this process did not "
            f"reach the collective within {timeout_s:g} s "
            f"(TORCH_XLA_DISTRIBUTED_TIMEOUT); every replica must call the "
            f"same collectives in the same order")
      state.cond.wait(min(max(left, 0.1), 1.0))
    meeting.taken += 1
    if meeting.taken == len(meeting.participants):
      del state.meetings[key]
  if meeting.error is not None:
    raise meeting.error
  return meeting.results[me]


def _fail(state):
  state.failed = True
  state.barrier.abort()
  with state.cond:
    state.cond.notify_all()


def spawn_threads(fn, args=(), on_error=None):
  """Runs fn(ordinal, *args) in one thread per device of this process, each
  a replica on its own device (see the module docstring); `ordinal` is the
  replica's global ordinal (xr.global_ordinal(): its local index when the
  job has one process).

  Args:
    fn, args: what each replica thread runs.
    on_error: called as on_error(exception) in a replica thread that raises
      by itself (not one stopped by another's failure), before the others
      stop; the launcher's workers exit there at once, so a raising replica
      ends the launch even while its partners compute.

  Returns:
    {ordinal: what fn returned}.

  Raises:
    The first exception a replica thread raised.
  """
  from torch_xla import _XLAC
  from torch_xla.distributed import _thread_worlds, _world

  import torch_xla.runtime as xr

  _world.join()
  count = len(_XLAC._runtime.devices())
  if xr.process_count() > 1:
    state = _Replicas(count, xr.global_ordinal(), xr.world_size())
  else:
    state = _Replicas(count)
  results, errors = {}, {}

  def run(index):
    _local.replicas, _local.index = state, index
    try:
      with _thread_worlds.replica_thread():
        results[state.base + index] = fn(state.base + index, *args)
    except BaseException as e:
      errors[index] = e
      if on_error is not None and not isinstance(e, PeerFailedError):
        on_error(e)
      _fail(state)
    finally:
      _local.replicas = None

  _XLAC._distributed.set_replica_devices(list(range(count)))
  try:
    with _thread_worlds.replica_threads_running():
      threads = [threading.Thread(target=run, args=(i,), name=f"replica-{i}")
                 for i in range(count)]
      for t in threads:
        t.start()
      for t in threads:
        t.join()
  finally:
    _XLAC._distributed.set_replica_devices([])
  if errors:
    first = [i for i in sorted(errors)
             if not isinstance(errors[i], PeerFailedError)]
    raise errors[first[0] if first else min(errors)]
  return results
