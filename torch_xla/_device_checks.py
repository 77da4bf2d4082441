"""Checks of values only the device knows, reported as eager CUDA reports
its device-side asserts: asynchronously, at a later sync or read.

Design. An op that indexes with indices computed on the device (their
range is unknown on the host; host-known ones are checked at once, see
_ops/index_util.py) calls `add(bad, message)` with `bad`, a pred scalar
handle that is true when some index is out of range. Each device keeps one
pending s32 code per step: 0, or the number of the first failed check
(`select(bad & code == 0, n, code)`), so a step with many checks still
computes one scalar and moves 4 bytes. The code is an ordinary pending
tensor: the step's sync computes it with everything else. It is read later,
so that the host never waits for the step it has just launched:

- `after_sync()`: a sync moves this step's code to `launched` and reads the
  codes of earlier steps (their programs ran before this one was queued,
  so reading them waits for no more than the device already had to do);
- `before_read(x)`: a read (`.cpu()`, `.item()`) computes this step's codes
  in the read's own execution, then reads them and every launched code
  before the value itself;
- `xm.wait_device_ops()` reads them all, this step's included.

A failed check raises the class eager raises (IndexError for an index,
RuntimeError for a value check such as multinomial's probabilities),
naming the op and what eager says; the checks of that step are then
forgotten.
"""

import threading

from torch_xla import _XLAC
from torch_xla._tensor import wrap

_lock = threading.Lock()
pending = {}  # device -> [code handle, [messages]]
launched = []  # [(code handle, [messages])], oldest first


def add(bad, message: str, error=IndexError) -> None:
  """Records a check on device `bad.device`: `bad` (pred scalar handle)
  is true when it failed; `message` says what, naming the op; `error` is
  the exception class it raises."""
  with _lock:
    entry = pending.setdefault(bad.device, [None, []])
    entry[1].append((message, error))
    # select(bad & code == 0, n, code), built in C++ (ops/index_ops.h).
    entry[0] = _XLAC._device_check_fold(entry[0], bad, len(entry[1]))


def after_sync() -> None:
  """Called once a sync has enqueued the step: this step's codes become
  launched, and those of earlier steps are read."""
  with _lock:
    earlier = list(launched)
    launched[:] = list(pending.values())
    pending.clear()
  _raise_first(earlier)


def before_read(x) -> None:
  """Called before a read of `x`: computes this step's codes with `x` (one
  execution, as the read needs anyway) and reads them and those of the
  steps already launched."""
  _read_all([x])


def wait_all() -> None:
  """xm.wait_device_ops: every check, this step's pending ones computed by
  their own small sync."""
  _read_all([])


def _read_all(with_tensors) -> None:
  with _lock:
    this_step = list(pending.values())
    pending.clear()
    earlier = list(launched) + this_step
    launched.clear()
  if this_step:
    _XLAC._xla_sync_multi(
        list(with_tensors) + [wrap(code) for code, _ in this_step], [],
        False, False)
  _raise_first(earlier)


def _raise_first(entries) -> None:
  failure = None
  for code, messages in entries:
    n = int(_XLAC._to_cpu_tensor(wrap(code))) if messages else 0
    if n and failure is None:
      failure = messages[n - 1]
  if failure is not None:
    message, error = failure
    kind = "index check" if error is IndexError else "check"
    raise error(f"{message} (a device-side {kind} of an earlier op; the "
                f"values computed with it are not valid)")
