"""Upstream's launch internals (torch_xla._internal.pjrt): spawn,
spawn_threads and run_processes, over torch_xla/_launch.py and
torch_xla/_replica_threads.py."""

from torch_xla._launch import run_processes, spawn  # noqa: F401
from torch_xla._replica_threads import spawn_threads as _spawn_threads


def spawn_threads(fn, args=()):
  """Runs fn(ordinal, *args) in one thread per device of this process, each
  a replica on its own device (upstream: one process, a thread per device);
  `ordinal` is the replica's global ordinal, as upstream passes it.

  Returns:
    {ordinal: what fn returned}.
  """
  return _spawn_threads(fn, args)
