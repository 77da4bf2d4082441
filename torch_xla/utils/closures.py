"""Step closures: work that runs once a step's values exist (upstream name:
torch_xla.utils.closures; the API is xm.add_step_closure).

High level design
-----------------
A training loop that prints its loss every step would read the loss in the
middle of tracing the next step, splitting it into extra graphs.
`xm.add_step_closure(fn, args)` instead queues `fn(*args)`; the next
`torch_xla.sync()` (the step boundary: xm.mark_step, the end of a
`torch_xla.compile`d function, the next batch of an MpDeviceLoader) first
enqueues the step's graph, then runs the queued closures in the order
they were added. Their tensor arguments then hold the step's results, so
reading them (loss.item()) waits for the step and traces nothing.

Closures with run_async=True run in order on one worker thread, so the
training loop goes on tracing while they wait for values. A closure that
raises: a synchronous one raises out of the sync with its own traceback
(the closures queued after it in that step are dropped); an asynchronous
one stops the worker and its exception is raised (as the cause of a
RuntimeError) by the next sync or `xm.wait_device_ops()`.
"""

import collections
import threading

__all__ = ["add_step_closure", "run_step_closures", "AsyncClosureHandler"]

_lock = threading.Lock()
_step_closures = []
_async_step_closures = []


class AsyncClosureHandler:
  """Runs closures in order on one daemon worker thread.

  The queue is unbounded here: closures hold at most a step's outputs.
  """

  def __init__(self):
    self._cond = threading.Condition()
    self._queue = collections.deque()
    self._error = None
    self._busy = False
    self._thread = None

  def run_all(self, closures) -> None:
    self.raise_error()
    with self._cond:
      self._queue.extend(closures)
      if self._thread is None or not self._thread.is_alive():
        self._thread = threading.Thread(target=self._loop, daemon=True,
                                         name="xla-step-closures")
        self._thread.start()
      self._cond.notify_all()

  def _loop(self) -> None:
    while True:
      with self._cond:
        while not self._queue:
          self._busy = False
          self._cond.notify_all()
          self._cond.wait()
        closure = self._queue.popleft()
        self._busy = True
      try:
        closure()
      except BaseException as error:  # reported to the training thread
        with self._cond:
          self._error = error
          self._queue.clear()
          self._busy = False
          self._thread = None
          self._cond.notify_all()
        return

  def wait(self) -> None:
    """Waits until every queued closure ran; raises a closure's failure."""
    with self._cond:
      while (self._queue or self._busy) and self._error is None:
        self._cond.wait()
    self.raise_error()

  def raise_error(self) -> None:
    with self._cond:
      error, self._error = self._error, None
    if error is not None:
      raise RuntimeError(
          f"an asynchronous step closure raised {type(error).__name__}: "
          f"{error} (its traceback is above)") from error


_async_handler = AsyncClosureHandler()


def add_step_closure(closure, args=(), run_async: bool = False) -> None:
  """Queues `closure(*args)` to run after the next sync (see module doc)."""
  if not callable(closure):
    raise TypeError(f"add_step_closure: closure must be callable, got "
                    f"{type(closure).__name__}")
  if not isinstance(args, tuple):
    raise TypeError(f"add_step_closure: args must be a tuple, got "
                    f"{type(args).__name__} (write args=(x,) for one)")
  with _lock:
    (_async_step_closures if run_async else _step_closures).append(
        (closure, args))


def run_step_closures() -> None:
  """Runs the closures queued so far (called by torch_xla.sync after it
  enqueued the step)."""
  with _lock:
    if not _step_closures and not _async_step_closures:
      _async_handler.raise_error()
      return
    closures = _step_closures[:]
    async_closures = _async_step_closures[:]
    _step_closures.clear()
    _async_step_closures.clear()
  if async_closures:
    _async_handler.run_all(
        [lambda c=c, a=a: c(*a) for c, a in async_closures])
  else:
    _async_handler.raise_error()
  for closure, args in closures:
    closure(*args)


def wait_async_closures() -> None:
  """Waits for the asynchronous closures queued so far; raises a failure."""
  _async_handler.wait()
