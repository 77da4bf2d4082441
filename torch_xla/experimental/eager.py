"""Eager mode: every op runs when it is called (upstream names:
torch_xla.experimental.eager_mode, eager_mode_context, is_eager_mode).

High level design
-----------------
By default 'xla' tensors are lazy: ops build IR and a sync runs the step
as one graph. In eager mode each ATen op that reaches an 'xla' tensor's
`__torch_dispatch__` is traced as usual (its rule builds IR) and then its
outputs, and any argument it updated in place, are synced at once: the
op's small graph is looked up in the compile cache by its hash (so a
program is compiled once per op and signature: shapes, dtypes, attributes)
and executed. Ops that a rule builds from other ops run as one graph (only
the outermost dispatch syncs). Those graphs are timed under upstream's
metric names EagerOpCompileTime and EagerOpExecuteTime.

Cost model: an eager op costs its tracing, a graph hash and cache lookup,
and one execution; the execution is enqueued and not awaited, so the
Python side goes on while the device computes (benchmarks/
eager_mode_bench.py measures it). A training step in eager mode runs
hundreds of tiny programs instead of one fused one: use it to debug, and
`torch_xla.compile` the step function for speed. Inside a compiled
function eager mode is suspended on that thread, so the function is still
traced into one graph.

The switch is process-wide, as upstream's: turning it on swaps the
dispatch entry of the 'xla' tensor class for one that syncs after each op;
turning it off restores the plain entry, so lazy mode pays nothing.
"""

import contextlib
import threading

from torch_xla import _XLAC
from torch_xla._tensor import XlaTensor, xt_of

__all__ = ["eager_mode", "is_eager_mode", "eager_mode_context"]

_lazy_dispatch = XlaTensor.__dict__["__torch_dispatch__"]
_cpp_dispatch = _XLAC._torch_dispatch
_enabled = False
_local = threading.local()


def _collect(value, out) -> None:
  if type(value) is XlaTensor:
    out.append(xt_of(value))
    view = value._view
    if view is not None:
      out.append(view.root)  # an in-place write through a view lands there
  elif isinstance(value, (list, tuple)):
    for v in value:
      _collect(v, out)
  elif isinstance(value, dict):
    for v in value.values():
      _collect(v, out)


def _eager_dispatch(cls, func, types, args=(), kwargs=None):
  if getattr(_local, "busy", False):  # inside an op, or suspended
    return _cpp_dispatch(cls, func, types, args, kwargs)
  _local.busy = True
  try:
    out = _cpp_dispatch(cls, func, types, args, kwargs)
  finally:
    _local.busy = False
  tensors = []
  _collect(out, tensors)
  _collect(args, tensors)
  if kwargs:
    _collect(kwargs, tensors)
  if tensors:
    _XLAC._xla_eager_sync(tensors)
  return out


def run_if_eager(handles) -> None:
  """In eager mode (and not inside an op or a compiled function), runs the
  pending values of these C++ handles now: for ops that build IR without
  going through dispatch (xm.optimization_barrier_)."""
  if _enabled and not getattr(_local, "busy", False):
    _XLAC._xla_eager_sync(list(handles))


def eager_mode(enable: bool) -> None:
  """Turns eager mode on or off for the process (see the module doc).

  Args:
    enable: True: each op runs when called. False: ops are traced lazily
      until a sync (the default).
  """
  global _enabled
  _enabled = bool(enable)
  XlaTensor.__torch_dispatch__ = (classmethod(_eager_dispatch)
                                  if _enabled else _lazy_dispatch)


def is_eager_mode() -> bool:
  """Whether eager mode is on."""
  return _enabled


@contextlib.contextmanager
def eager_mode_context(enable: bool):
  """Eager mode on (or off) inside the block; the previous setting after.

  Yields the previous setting.
  """
  saved = _enabled
  eager_mode(enable)
  try:
    yield saved
  finally:
    eager_mode(saved)


def _suspend():
  """Suspends eager mode on this thread (torch_xla.compile traces its
  function lazily); returns what _resume needs."""
  saved = getattr(_local, "busy", False)
  _local.busy = True
  return saved


def _resume(saved) -> None:
  _local.busy = saved
