"""Checks of values only the device knows, reported as eager CUDA reports
its device-side asserts: asynchronously, at a later sync or read.

Design. The registry is C++ (torch_xla/csrc/python/device_checks.h): an
op's binding registers the check of an index computed on the device inside
the op's one call into C++ (the rule passes the check that
_ops/index_util.py describes; host-known indices are checked at once).
Each device keeps one pending s32 code per step (0, or the number of the
first failed check), an ordinary pending tensor that the step's sync
computes with everything else, so a step with many checks computes one
scalar and moves 4 bytes. It is read later, so that the host never waits
for the step it has just launched:

- `after_sync()`: a sync moves this step's code to `launched` and reads the
  codes of earlier steps (their programs ran before this one was queued,
  so reading them waits for no more than the device already had to do);
- a read (`.cpu()`, `.item()`; `_XLAC._read_host`) computes this step's
  codes in the read's own execution, then reads them and every launched
  code before the value itself, all in the read's one call;
- `xm.wait_device_ops()` reads them all, this step's included.

A failed check raises the class eager raises (IndexError for an index,
RuntimeError for a value check such as multinomial's probabilities),
naming the op and what eager says; the checks of that step are then
forgotten. Each function here is one call into C++.
"""

from torch_xla import _XLAC


def add(bad, message: str, error=IndexError) -> None:
  """Records a check on device `bad.device`: `bad` (pred scalar handle)
  is true when it failed; `message` says what, naming the op; `error` is
  the exception class it raises (IndexError or RuntimeError)."""
  _XLAC._add_device_check(bad, message, error)


def after_sync() -> None:
  """Called once a sync has enqueued the step: this step's codes become
  launched, and those of earlier steps are read."""
  _XLAC._device_checks_after_sync()


def wait_all() -> None:
  """xm.wait_device_ops: every check, this step's pending ones computed by
  their own small sync."""
  _XLAC._device_checks_before_read(None)
