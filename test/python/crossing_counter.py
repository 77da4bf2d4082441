"""Counts the calls into C++ (`torch_xla._XLAC`) that tracing one op makes.

Issue 28 asks each op rule to cross into C++ once: its one `_XLAC` call
builds the op and returns the wrapped result. The test_*_crossings.py files
assert that with `crossings`, which lists the `_XLAC` functions called
(sys.setprofile's c_call events) while `fn` runs.
"""

import sys

from torch_xla import _XLAC


def crossings(fn, warm=True):
  """(result of fn(), names of the _XLAC functions it called, in order).

  With `warm`, `fn` runs once first, unprofiled: first calls fill caches
  (scalar leaves, rule tables) that later calls only read."""
  if warm:
    fn()
  names = []

  def profile(frame, event, arg):
    if event == "c_call" and (getattr(arg, "__self__", None) is _XLAC or
                              "torch_xla" in (getattr(arg, "__module__", None)
                                              or "")):
      names.append(arg.__name__)

  sys.setprofile(profile)
  try:
    result = fn()
  finally:
    sys.setprofile(None)
  return result, names


def assert_crosses_once(name, fn):
  """fn()'s result, after checking that it made exactly one `_XLAC` call
  and that its tensors (a tuple's too; None allowed) are 'xla' tensors."""
  result, names = crossings(fn)
  assert len(names) == 1, f"{name}: {len(names)} crossings: {names}"
  results = result if isinstance(result, tuple) else (result,)
  assert all(r is None or r.device.type == "xla" for r in results), name
  return result
