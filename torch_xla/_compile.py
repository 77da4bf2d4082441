"""torch_xla.compile: a function's work as one traced graph.

High level design
-----------------
`torch_xla.compile(fn)` wraps `fn` so that a call
  1. runs `torch_xla.sync()` first, so the graph holds only fn's work (and
     the previous step's step closures run);
  2. traces fn lazily, with eager mode off on this thread (inside eager
     mode too: the function is still one graph);
  3. runs `torch_xla.sync()` after: one graph, looked up in the compile
     cache by its hash, then executed.

The checks live in the C++ execution scope of the calling thread
(torch_xla/csrc/tensor/execution_scope.h), which the graph executor asks
before it compiles or runs any graph:
  - full_graph=True refuses every execution while fn runs: a value read
    inside fn (`.item()`, `.cpu()`, `print(t)`, a Python `if` on a tensor)
    or a sync needs a graph of its own, and raises RuntimeError at that
    line, naming the function (the message contains upstream's
    "Unexpected execution happens inside the compiled function").
  - max_different_graphs=N: the compile-cache keys of fn's graphs are
    kept per wrapped function; a new key beyond N raises RuntimeError before
    that graph compiles, naming the function and the likely cause (which
    input shape or dtype changed, else which non-tensor argument, else the
    traced operations).
  - name= (default: fn's __name__) names the graph: the module name of
    the StableHLO it compiles, in TORCH_XLA_DUMP_HLO_DIR files
    (<name>_<n>.mlir), and the metrics CompileTime.<name> and
    ExecuteTime.<name>.

Without fn, `torch_xla.compile(...)` is a context manager (and decorator):
the block's work is the graph.
"""

import functools

import torch

from torch_xla import _XLAC


def _signature(args, kwargs):
  """What identifies a call's graph from outside: per argument, a tensor's
  (shape, dtype, device) or a plain value's repr."""

  def describe(value):
    if isinstance(value, torch.Tensor):
      return ("tensor", tuple(value.shape), str(value.dtype).replace(
          "torch.", ""), str(value.device))
    if isinstance(value, (list, tuple)):
      return tuple(describe(v) for v in value)
    if isinstance(value, dict):
      return tuple((k, describe(v)) for k, v in value.items())
    if isinstance(value, (int, float, bool, str, type(None))):
      return ("value", repr(value))
    return ("object", type(value).__name__)

  named = [(f"argument {i}", describe(a)) for i, a in enumerate(args)]
  named += [(f"argument {k!r}", describe(v)) for k, v in kwargs.items()]
  return named


def _explain(history, signature) -> str:
  """Why a call made a new graph, comparing its signature with the calls
  that made the known graphs."""
  if not history:
    return "the traced operations differ"
  last = history[-1]
  changes = []
  for (name, now), (_, before) in zip(signature, last):
    if now != before:
      changes.append(f"{name} was {_fmt(before)}, now {_fmt(now)}")
  if len(signature) != len(last):
    changes.append(f"{len(last)} arguments before, {len(signature)} now")
  if not changes:
    return ("the arguments look alike (same shapes and values), so the "
            "traced operations differ: Python control flow, or state that "
            "fn reads (e.g. a module attribute or optimizer state) changed")
  return "; ".join(changes)


def _fmt(described) -> str:
  if isinstance(described, tuple) and described and described[0] == "tensor":
    _, shape, dtype, _ = described
    return f"a {dtype} tensor of shape {list(shape)}"
  if isinstance(described, tuple) and described and described[0] == "value":
    return described[1]
  return str(described)


class _Region:
  """One torch_xla.compile: the state kept across calls (known graphs)."""

  def __init__(self, fn, full_graph, name, max_different_graphs):
    if max_different_graphs is not None and (
        not isinstance(max_different_graphs, int) or
        max_different_graphs < 1):
      raise ValueError(f"torch_xla.compile: max_different_graphs must be a "
                       f"positive int, got {max_different_graphs!r}")
    self.fn = fn
    self.full_graph = bool(full_graph)
    self.label = (name or getattr(fn, "__name__", None) or
                  (type(fn).__name__ if fn is not None else None))
    self.name = name or getattr(fn, "__name__", None) or ""
    self.max_graphs = max_different_graphs
    self.seen = []        # compile-cache keys of fn's graphs so far
    self.signatures = []  # the call signature that made each of them

  def describe(self) -> str:
    if self.fn is None:
      return "the torch_xla.compile() block" + (
          f" {self.label!r}" if self.label else "")
    return f"torch_xla.compile of {self.label!r}"

  def enter(self):
    import torch_xla
    from torch_xla.experimental import eager

    saved = (eager._suspend(), _XLAC._get_allow_execution(),
             _XLAC._get_current_graph_name())
    if self.name:
      _XLAC._set_current_graph_name(self.name + "_clear_pending")
    try:
      torch_xla.sync()
    except BaseException:
      self.restore(saved)
      raise
    _XLAC._set_current_graph_name(self.name)
    if self.full_graph:
      _XLAC._set_allow_execution(
          False,
          f"{self.describe()} with full_graph=True needs more than one "
          f"graph (Unexpected execution happens inside the compiled "
          f"function, exiting): an execution was requested inside it (a "
          f"value read such "
          f"as .item(), .cpu(), .tolist(), print(tensor) or a Python `if` on "
          f"a tensor, or a sync). Move the read out of the function (e.g. "
          f"into xm.add_step_closure), or pass full_graph=False to allow "
          f"several graphs")
    return saved

  def exit(self, saved, signature):
    import torch_xla

    _XLAC._set_allow_execution(saved[1], "")
    if self.max_graphs is not None:
      _XLAC._set_graph_limit(self.max_graphs, self.seen)
    try:
      torch_xla.sync()
    except RuntimeError as error:
      if str(error).startswith("max_different_graphs"):
        raise RuntimeError(
            f"{self.describe()}: max_different_graphs={self.max_graphs} "
            f"exceeded: this call would make graph "
            f"{len(self.seen) + 1}, because "
            f"{_explain(self.signatures, signature or [])}. Keep the input "
            f"shapes fixed (pad or bucket them), or raise "
            f"max_different_graphs (Maximum number of different graphs "
            f"allowed per function exceeded: {self.max_graphs})") from None
      raise
    finally:
      if self.max_graphs is not None:
        seen = _XLAC._take_graph_limit()
        for key in seen:
          if key not in self.seen:
            self.seen.append(key)
            self.signatures.append(signature or [])
      self.restore(saved)

  @staticmethod
  def restore(saved):
    from torch_xla.experimental import eager

    _XLAC._set_allow_execution(saved[1], "")
    _XLAC._set_current_graph_name(saved[2])
    eager._resume(saved[0])

  def call(self, *args, **kwargs):
    signature = _signature(args, kwargs) if self.max_graphs else None
    saved = self.enter()
    try:
      result = self.fn(*args, **kwargs)
    except BaseException:
      self.restore(saved)
      raise
    self.exit(saved, signature)
    return result


class _Block:
  """torch_xla.compile() without a function: a context manager, and a
  decorator like contextlib's."""

  def __init__(self, region: _Region):
    self._region = region
    self._saved = []

  def __enter__(self):
    self._saved.append(self._region.enter())
    return self

  def __exit__(self, exc_type, exc, tb):
    saved = self._saved.pop()
    if exc_type is not None:
      self._region.restore(saved)
      return False
    self._region.exit(saved, None)
    return False

  def __call__(self, fn):
    return compile(fn, full_graph=self._region.full_graph,
                   name=self._region.name or None,
                   max_different_graphs=self._region.max_graphs)


def compile(f=None, full_graph: bool = False, name: str = None,
            max_different_graphs: int = None,
            custom_compile_options: dict = None):
  """Traces `f`'s work into one graph per call (see the module docstring).

  Args:
    f: the function (or module) to wrap. None: returns a context manager
      whose block is the graph (usable as a decorator too).
    full_graph: raise, naming f, when f's work needs more than one graph.
    name: the graph's name in metrics and dumps (default: f's name).
    max_different_graphs: raise, naming f and the cause, when f would
      produce more distinct graphs than this.
    custom_compile_options: XLA compiler options; not supported here
      (None or {} only).

  Returns:
    The wrapped function (or the context manager).

  Example:
    @torch_xla.compile(full_graph=True)
    def step(data, target):
      optimizer.zero_grad()
      loss = loss_fn(model(data), target)
      loss.backward()
      optimizer.step()
      return loss
  """
  if custom_compile_options:
    raise NotImplementedError(
        "torch_xla.compile: custom_compile_options are not supported by "
        "this runtime (pass XLA flags through XLA_FLAGS instead)")
  region = _Region(f, full_graph, name, max_different_graphs)
  if f is None:
    return _Block(region)

  @functools.wraps(f)
  def compiled(*args, **kwargs):
    return region.call(*args, **kwargs)

  return compiled
