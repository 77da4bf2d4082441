"""torch.distributed in replica threads: each replica thread of a process
(torch_xla._internal.pjrt.spawn_threads, or torch_xla.launch with several
devices per process) has a torch.distributed world of its own.

Design. torch.distributed keeps one world per process: one default group,
one table of groups (`distributed_c10d._world`) and one registry of group
names (C++). A process whose replica threads each drive a device holds
several replicas, and each must be a rank of its own: rank =
xr.global_ordinal(), world size = xr.world_size(), as with one replica per
process. So while replica threads run:

* `distributed_c10d._world` is a `_PerThreadWorld`: in a replica thread it
  stands for that thread's own `_ReplicaWorld` (default group, group
  tables, group counter), made on first use; anywhere else it stands for
  the process's own world, unchanged. Each replica thread thus calls
  `init_process_group('xla', init_method='xla://')` itself, as upstream's
  scripts do in every replica, and gets its own 'xla' process group whose
  collectives are the xm collectives of that replica (so a 2 x 2 CPU job
  takes the hierarchical host route of torch_xla/core/_cpu_hierarchy.py).
* torch's C++ group registry is per thread (torch's thread isolation mode,
  the switch its own threaded test groups use), so every replica registers
  the same group names.
* autograd runs a replica thread's backward on that thread
  (`torch.autograd.set_multithreading_enabled(False)`, a thread-local
  setting), so the hooks that DistributedDataParallel runs during backward
  (its bucket all-reduces) run in the replica thread that knows its
  replica, not in autograd's shared per-device worker thread.

Outside replica threads nothing changes: the process's world is the one
torch.distributed made.
"""

import contextlib
import threading

_lock = threading.Lock()
_local = threading.local()
_active = 0  # spawn_threads runs in progress


class _ReplicaWorld:
  """The state torch.distributed's `_World` holds, for one replica thread:
  every table its own (torch's `_World` keeps them process-wide)."""

  def __init__(self):
    self.default_pg = None
    self.pg_map = {}
    self.pg_names = {}
    self.pg_group_ranks = {}
    self.pg_backend_config = {}
    self.group_count = 0
    self.tags_to_pg = {}
    self.pg_to_tag = {}
    self.pg_coalesce_state = {}
    self.comms = []

  def __getattr__(self, name):
    # Derived properties of torch's _World (pg_config_info, ...) computed
    # from this world's tables.
    from torch.distributed import distributed_c10d as c10d

    prop = getattr(type(_PerThreadWorld.process_world(c10d)), name, None)
    if isinstance(prop, property):
      return prop.fget(self)
    raise AttributeError(name)


class _PerThreadWorld:
  """Stands in for `distributed_c10d._world`: the calling replica thread's
  own world, or the process's world outside replica threads."""

  def __init__(self, process_world):
    object.__setattr__(self, "_process_world", process_world)

  @staticmethod
  def process_world(c10d):
    world = c10d._world
    if isinstance(world, _PerThreadWorld):
      return object.__getattribute__(world, "_process_world")
    return world

  def _target(self):
    world = getattr(_local, "world", None)
    return world if world is not None else \
        object.__getattribute__(self, "_process_world")

  def __getattr__(self, name):
    return getattr(self._target(), name)

  def __setattr__(self, name, value):
    setattr(self._target(), name, value)


def _install():
  from torch.distributed import distributed_c10d as c10d

  if not isinstance(c10d._world, _PerThreadWorld):
    c10d._world = _PerThreadWorld(c10d._world)


@contextlib.contextmanager
def replica_threads_running():
  """Around spawn_threads in the launching thread: the per-thread worlds
  and the per-thread group registry are on while replica threads run."""
  global _active
  import torch

  c10d_module = torch._C._distributed_c10d
  with _lock:
    _install()
    if _active == 0:
      c10d_module._set_thread_isolation_mode(True)
    _active += 1
  try:
    yield
  finally:
    with _lock:
      _active -= 1
      if _active == 0:
        c10d_module._set_thread_isolation_mode(False)


@contextlib.contextmanager
def replica_thread():
  """Around a replica thread's body: its own torch.distributed world, and
  its backward run on it. A process group it left behind is destroyed when
  it ends (its world goes away with it)."""
  import torch

  _local.world = _ReplicaWorld()
  try:
    with torch.autograd.set_multithreading_enabled(False):
      yield
  finally:
    world = _local.world
    try:
      if world.default_pg is not None:
        import torch.distributed as dist

        dist.destroy_process_group()
    except Exception:  # the thread's own error, if any, matters more
      pass
    _local.world = None
