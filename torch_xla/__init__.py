"""PyTorch on XLA devices through PJRT (fork module of PyTorch/XLA).

Importing torch_xla loads the C++ core (_XLAC), points it at the PJRT
plugins installed in this Python environment and registers the 'xla'
device type with PyTorch.
"""

import contextlib
import sys
import threading

import torch

from torch_xla import _XLAC

_XLAC._runtime.set_plugin_search_path([p for p in sys.path if p])
_XLAC._runtime.register_device_guard()
# Backward ops only trace IR here, so autograd's per-device worker threads
# buy nothing and the hand-off to them costs more than the ops: run the
# backward pass on the calling thread (a thread-local autograd setting).
torch._C._set_multithreading_enabled(False)

from torch_xla import _ops  # noqa: E402,F401  (registers the ATen rules)
from torch_xla._tensor import XlaTensor  # noqa: E402
from torch_xla import _autocast  # noqa: E402,F401  (torch.autocast('xla'))
from torch_xla._launch import launch  # noqa: E402  (multi-process jobs)
from torch_xla import _replica_threads  # noqa: E402  (replicas as threads)
from torch_xla import _device_checks  # noqa: E402  (device-side index checks)
from torch_xla import _module_conversion  # noqa: E402,F401  (tied params stay tied)
from torch_xla.utils import closures as _closures  # noqa: E402
from torch_xla._compile import compile  # noqa: E402,A001
from torch_xla import _device_module  # noqa: E402

_device_module._register()  # torch.xla (torch.utils.checkpoint, fork_rng)


def device(index: int = None) -> torch.device:
  """The XLA device with that index (default: 0, or in a replica thread of
  torch_xla._internal.pjrt.spawn_threads its own device)."""
  if index is None:
    replica = _replica_threads.replica()
    index = 0 if replica is None else replica[0]
  return torch.device("xla", index)


# Held by a sync of all live tensors and by a data-loader thread changing a
# live tensor's state (sharding a batch): the C++ tensors are not locked, and
# a sync reads the state of every live tensor.
_live_tensors_lock = threading.Lock()


def sync(wait: bool = False, reset_scope: bool = True) -> None:
  """Runs the pending computation of every live 'xla' tensor, then the
  step closures queued with xm.add_step_closure (in the order added).

  Args:
    wait: also wait for the device to finish. Without it, sync returns once
      the computation is enqueued: Python traces the next step while the
      device runs this one, and reading a value waits for what it needs.
    reset_scope: upstream's IR-scope flag; IR here has no scopes to reset.
  """
  del reset_scope
  if _replica_threads.replica() is not None:
    _replica_threads.sync(wait)  # every replica thread's step ends together
  else:
    with _live_tensors_lock:
      _XLAC._xla_sync_live_tensors(wait)
  _device_checks.after_sync()
  _closures.run_step_closures()


def manual_seed(seed: int, device=None) -> None:
  """Seeds the random number generator of XLA devices.

  Args:
    seed: the seed.
    device: upstream's per-device argument; one generator serves all
      devices here.
  """
  from torch_xla.core import xla_model as xm
  set_rng_state = getattr(xm, "set_rng_state", None)
  if set_rng_state is None:  # 'xla' random ops draw from torch's generator
    torch.manual_seed(seed)
  else:
    set_rng_state(seed, device)


def step():
  """Upstream's experimental torch_xla.step(): torch_xla.compile() as a
  context manager (the block's work is one graph)."""
  return compile()


@contextlib.contextmanager
def alias_with_buffer_donor_config(should_alias: bool = True):
  """Within the block, tensors marked with _XLAC._set_buffer_donation(t,
  True) donate their buffers at the next sync; restores the setting after.

  Yields the previous setting.
  """
  saved = _XLAC._xla_get_enable_alias_with_buffer_donor_config()
  _XLAC._xla_set_enable_alias_with_buffer_donor_config(should_alias)
  try:
    yield saved
  finally:
    _XLAC._xla_set_enable_alias_with_buffer_donor_config(saved)


__all__ = ["device", "sync", "XlaTensor", "alias_with_buffer_donor_config",
           "compile", "manual_seed"]

import torch_xla.experimental  # noqa: E402,F401  (eager_mode & co.)
from torch_xla.core import xla_model as xm  # noqa: E402,F401  (torch_xla.xm, upstream alias)
# torch.compile(backend='openxla'): dynamo traces 'xla' tensors as tensors
# (set up when torch._dynamo is first imported; see torch_xla/_dynamo).
from torch_xla._dynamo import install_when_dynamo_loads as _dynamo_hook  # noqa: E402
_dynamo_hook()
