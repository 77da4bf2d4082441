"""Upstream's launch internals (torch_xla._internal.pjrt): spawn,
spawn_threads and run_multiprocess, over torch_xla/_launch.py and
torch_xla/_replica_threads.py."""

from torch_xla._launch import run_processes, spawn  # noqa: F401
from torch_xla._replica_threads import spawn_threads as _spawn_threads


def spawn_threads(fn, args=()):
  """Runs fn(index, *args) in one thread per device of this process, each a
  replica on its own device (upstream: one process, thread per device)."""
  _spawn_threads(fn, args)
