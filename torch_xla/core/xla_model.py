"""Device, step and memory functions (upstream name: torch_xla.core.xla_model,
imported as xm)."""

import contextlib

import torch

import torch_xla
from torch_xla import _XLAC


def xla_device(n: int = None) -> torch.device:
  """The XLA device `n` (default: the first)."""
  return torch_xla.device(0 if n is None else n)


def mark_step(wait: bool = False) -> None:
  """Ends a training step: runs the pending computation of every live
  'xla' tensor (same as torch_xla.sync())."""
  torch_xla.sync(wait=wait)


def wait_device_ops(devices=None) -> None:
  """Waits for every computation enqueued so far to finish (syncs return
  once a computation is enqueued), and for the asynchronous step closures
  queued so far. Raises the first execution or closure failure."""
  torch_xla._XLAC._xla_wait_device_ops(devices or [])
  from torch_xla import _device_checks
  _device_checks.wait_all()
  from torch_xla.utils import closures
  closures.wait_async_closures()


def get_memory_info(device: torch.device = None) -> dict:
  """{'bytes_used', 'bytes_limit', 'peak_bytes_used'} for a device.

  On CPU (whose plugin reports no memory stats) these count the live
  buffers this process holds; bytes_limit is 0 when unknown."""
  index = 0 if device is None else (torch.device(device).index or 0)
  return _XLAC._runtime.memory_info(index)


def get_stablehlo(tensors=None) -> str:
  """The StableHLO module (MLIR text) a sync of `tensors` would compile.

  `_XLAC._get_xla_tensors_hlo` shows the same graph as XLA compiled it
  (HLO text); this is the module handed to the compiler, before any XLA
  optimization. Nothing runs and no data moves; placeholders appear as
  parameters.

  Args:
    tensors: 'xla' tensors (or one tensor) whose pending values are the
      module's results. None or empty: every live 'xla' tensor.

  Returns:
    The module's text.

  Example:
    >>> y = torch.sin(torch.randn(4, device='xla'))
    >>> 'stablehlo.sine' in xm.get_stablehlo([y])
    True
  """
  if isinstance(tensors, torch.Tensor):
    tensors = [tensors]
  return _XLAC._get_stablehlo(list(tensors or []), "", [],
                              False).decode("utf-8")


def xla_device_hw(device) -> str:
  """The hardware type behind an XLA device: 'CPU', 'CUDA' or 'TPU'."""
  return _XLAC._runtime.device_type()


def optimization_barrier_(tensors) -> None:
  """Puts an optimization barrier over `tensors`, in place.

  Each tensor takes the value of one output of a single
  `stablehlo.optimization_barrier` over all of them: the values do not
  change, but XLA may not move computation across the barrier (e.g. fuse a
  recomputation in the backward pass with the forward pass it repeats).

  Args:
    tensors: a list or tuple of 'xla' tensors, all on one device.
  """
  # Imported here: torch_xla._ops imports this module's package.
  from torch_xla import _ir
  from torch_xla._tensor import XlaTensor, commit, xt_of

  tensors = list(tensors)
  for i, t in enumerate(tensors):
    if not isinstance(t, XlaTensor):
      raise TypeError(
          f"optimization_barrier_: tensors[{i}] is a "
          f"{type(t).__name__} on {getattr(t, 'device', 'no device')}, "
          f"expected an 'xla' tensor (move it with .to('xla'))")
  if not tensors:
    return
  devices = {t.device for t in tensors}
  if len(devices) > 1:
    raise ValueError(
        f"optimization_barrier_: the tensors are on several devices "
        f"({', '.join(sorted(str(d) for d in devices))}); one barrier takes "
        f"tensors of one device")
  outputs = _ir.optimization_barrier([xt_of(t) for t in tensors])
  for t, value in zip(tensors, outputs):
    commit(t, value)
  from torch_xla.experimental import eager
  eager.run_if_eager([xt_of(t) for t in tensors])


def _to_cpu_tree(data):
  """`data` with every 'xla' tensor replaced by a CPU copy of its value;
  dicts, lists, tuples (named ones too) and sets are rebuilt, the rest is
  returned as is."""
  from torch_xla._tensor import XlaTensor

  # One execution for all pending values instead of one per tensor. It is
  # a read, not a step: nothing is donated (only a step, torch_xla.sync(),
  # donates), so the saved tensors stay usable on the device.
  pending = []
  _collect(data, XlaTensor, pending)
  if pending:
    _XLAC._sync_for_read(pending)

  def convert(value):
    if isinstance(value, XlaTensor):
      cpu = value.detach().cpu()
      if isinstance(value, torch.nn.Parameter):
        return torch.nn.Parameter(cpu, requires_grad=value.requires_grad)
      return cpu.requires_grad_(value.requires_grad)
    if isinstance(value, dict):
      items = [(k, convert(v)) for k, v in value.items()]
      try:
        return type(value)(items)
      except TypeError:  # e.g. defaultdict: keep its factory
        out = value.copy()
        out.update(items)
        return out
    if isinstance(value, tuple) and hasattr(value, "_fields"):
      return type(value)(*(convert(v) for v in value))
    if isinstance(value, (list, tuple, set, frozenset)):
      return type(value)(convert(v) for v in value)
    return value

  return convert(data)


def _collect(value, cls, out) -> None:
  if isinstance(value, cls):
    out.append(value)
  elif isinstance(value, dict):
    for v in value.values():
      _collect(v, cls, out)
  elif isinstance(value, (list, tuple, set, frozenset)):
    for v in value:
      _collect(v, cls, out)


def save(data, file_or_path, master_only: bool = True,
         global_master: bool = False, sync: bool = True) -> None:
  """Saves `data` with torch.save after moving its 'xla' tensors to the CPU.

  Nested dicts, lists and tuples (a state_dict, a checkpoint dict) are
  walked; the file holds CPU tensors, so torch.load needs no XLA device.
  Saving reads the values only: the tensors stay readable on the device and
  are not donated by a later sync because of the save.

  Args:
    data: what to save.
    file_or_path: a path or a writable binary file object.
    master_only, global_master: which process writes. This runtime has one
      process, the master, so it always writes.
    sync: wait until the file is written (always true here: one process,
      nothing to rendezvous with).
  """
  del master_only, global_master, sync  # one process: it is the master
  torch.save(_to_cpu_tree(data), file_or_path)


def send_cpu_data_to_device(datas, device, input_sharding=None):
  """Moves the CPU tensors in `datas` (a tensor or a pytree of them) to
  `device`. Under SPMD, `input_sharding` (an xs.ShardingSpec) shards each
  tensor as it arrives, so each device receives only its shard.

  Returns the moved data in the same structure (a list for a lone tensor,
  as upstream).
  """
  from torch.utils._pytree import tree_map

  def move(value):
    if not isinstance(value, torch.Tensor):
      return value
    moved = value.to(device)
    if input_sharding is not None:
      input_sharding.apply(moved)
    return moved

  if isinstance(datas, torch.Tensor):
    return [move(datas)]
  return tree_map(move, datas)


# --- Random state and tensor kinds (upstream names) --------------------------

# 'xla' random ops draw their seeds from PyTorch's default CPU generator
# (torch_xla/_ops/random_ops.py), so that generator is the XLA generator
# too: these functions seed, read and fork it. Its state is exposed as one 64-bit seed, as
# upstream's is: reading it re-seeds the generator with a seed drawn from
# it, so the value read is exactly the state, and set_rng_state(value)
# returns the generator to that point.


def set_rng_state(seed: int, device=None) -> None:
  """Seeds the generator 'xla' random ops draw from (PyTorch's default CPU
  generator, so CPU randomness is seeded too).

  Args:
    seed: a non-negative integer below 2**64.
    device: upstream's per-device argument; one generator serves every
      device here.
  """
  del device
  seed = int(seed)
  if not 0 <= seed < 2**64:
    raise ValueError(f"set_rng_state: the seed must be in [0, 2**64), got "
                     f"{seed}")
  torch.manual_seed(seed)


def get_rng_state(device=None) -> int:
  """The generator's state as a seed: set_rng_state(get_rng_state())
  later replays the same random numbers from this point."""
  del device
  seed = int(torch.randint(0, 2**62, (), dtype=torch.int64))
  torch.manual_seed(seed)
  return seed


@contextlib.contextmanager
def fork_rng(device=None, enabled: bool = True):
  """Within the block, random numbers are drawn as usual; on exit the
  generator is put back where it was when the block began.

  Args:
    device: upstream's per-device argument (one generator here).
    enabled: False makes the block a no-op.
  """
  if not enabled:
    yield
    return
  state = get_rng_state(device)
  try:
    yield
  finally:
    set_rng_state(state, device)


def is_xla_tensor(tensor) -> bool:
  """Whether `tensor` is a torch.Tensor on an 'xla' device."""
  return isinstance(tensor, torch.Tensor) and tensor.device.type == "xla"


# --- Step closures and logging (upstream names) ------------------------------


def add_step_closure(closure, args=(), run_async: bool = False) -> None:
  """Queues `closure(*args)` to run after the next sync (torch_xla.sync,
  mark_step, the end of a torch_xla.compile'd function, the next batch of
  an MpDeviceLoader), when the step's values are computed: reading them
  there adds no graph. Closures run in the order added.

  Args:
    closure: the function to call.
    args: a tuple of its arguments (e.g. the step's loss tensor).
    run_async: run it on a worker thread, in order with the other
      asynchronous closures; the training loop does not wait for it. Its
      exception is raised by the next sync or wait_device_ops().

  An exception in a synchronous closure is raised by the sync that runs
  it, with the closure's traceback.
  """
  from torch_xla.utils import closures
  closures.add_step_closure(closure, args=args, run_async=run_async)


def _run_step_closures() -> None:
  from torch_xla.utils import closures
  closures.run_step_closures()


def _ordinal(local: bool) -> int:
  import torch_xla.runtime as xr
  getter = getattr(xr, "local_ordinal" if local else "global_ordinal", None)
  return getter() if getter is not None else 0


def is_master_ordinal(local: bool = True) -> bool:
  """Whether this process is the master (ordinal 0): locally (per host) or
  globally (local=False)."""
  return _ordinal(local) == 0


def master_print(*args, fd=None, local: bool = False, flush: bool = False):
  """print(*args) on the master process only (local=True: on each host's
  master)."""
  import sys
  if is_master_ordinal(local=local):
    print(*args, file=fd if fd is not None else sys.stdout, flush=flush)


class RateTracker:
  """Counts samples and reports their rate per second.

  rate() is the rate since the previous rate() call, smoothed
  exponentially with the previous report; global_rate() the rate since
  the tracker was made.

  Args:
    smooth_factor: weight of the previous report in rate() (default: env
      RATE_TRACKER_SMOOTHING, else 0.4).
  """

  def __init__(self, smooth_factor: float = None):
    import time
    if smooth_factor is None:
      import os
      smooth_factor = float(os.environ.get("RATE_TRACKER_SMOOTHING", 0.4))
    self._smooth_factor = smooth_factor
    self._clock = time.time
    self._start_time = self._clock()
    self._partial_time = self._start_time
    self._partial_count = 0.0
    self._partial_rate = None
    self._count = 0.0

  def add(self, count: float) -> None:
    self._count += count

  def rate(self) -> float:
    now = self._clock()
    delta = now - self._partial_time
    if delta <= 0:
      return 0.0
    current = self._count / delta
    if self._partial_rate is not None:
      current = ((1 - self._smooth_factor) * current +
                 self._smooth_factor * self._partial_rate)
    self._partial_count += self._count
    self._count = 0.0
    self._partial_time = now
    self._partial_rate = current
    return current

  def global_rate(self) -> float:
    delta = self._clock() - self._start_time
    return (self._partial_count + self._count) / delta if delta > 0 else 0.0


# Collectives across replicas and the optimizer step that averages gradients
# over them (torch_xla/core/collectives.py).
from torch_xla.core.collectives import (  # noqa: E402,F401
    REDUCE_AND, REDUCE_MAX, REDUCE_MIN, REDUCE_MUL, REDUCE_OR, REDUCE_SUM,
    all_gather, all_reduce, all_to_all, collective_broadcast,
    collective_permute, get_local_ordinal, get_ordinal, is_master_ordinal,
    mesh_reduce, optimizer_step, reduce_gradients, reduce_scatter, rendezvous,
    xrt_world_size)
