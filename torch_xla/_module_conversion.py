"""Module conversion (`.to('xla')`, `.to(dtype)`, `.cpu()`, ...) keeps shared
parameters shared.

High level design
-----------------
`nn.Module._apply`, behind every module conversion, converts each module's
own parameters one by one. It changes a parameter in place
(`param.data = new`) only when PyTorch calls the old and new tensor
"shallow-copy compatible", which it decides from the kind of TensorImpl: a
CPU tensor and an 'xla' tensor (a Python wrapper subclass) never are.
Otherwise `_apply` stores a new `Parameter` in each module. A parameter that
two modules share (tied input and output embeddings) then becomes two
parameters with two buffers and two gradients, and training silently
diverges from eager, where `.cuda()` converts it in place.

PyTorch has the in-place conversion we need behind a setting:
`torch.__future__.set_swap_module_params_on_conversion(True)` makes `_apply`
swap the converted contents into the existing Parameter object
(`torch.utils.swap_tensors`): its identity stays, so every module that holds
it still holds the one converted parameter (the second module finds it
already converted, and its conversion is a no-op), and its gradient is
converted once and stays attached.

We wrap `nn.Module._apply` and turn that setting on for the outermost call
when the conversion moves a tensor between 'xla' and another kind (to or
from the device). We convert the first parameter to find out where the
conversion goes, and hand `_apply` that result instead of converting it
twice. The setting is restored after the call, also on error. Conversions
that keep every tensor's kind take PyTorch's own path:
- on the CPU: unchanged;
- on the device (`.to(dtype)`, `.half()`, ...): two 'xla' tensors are
  shallow-copy compatible, so `_apply` sets `param.data = new`, and
  `XlaTensor.data = value` (torch_xla/_tensor.py) takes the new tensor's
  C++ handle too: every later read and view of the parameter sees the new
  dtype, not just its metadata. This path also works with a forward graph
  still alive.

Swapping needs each parameter held by its Python object alone. When a
live autograd graph (a forward whose backward has not run) also holds one,
the conversion takes PyTorch's path instead (a new Parameter per module)
and then gives every module that shared a parameter the same new one: the
parameters stay tied, but are new objects, as PyTorch's conversions of
other tensor kinds make. Either way the conversion function runs once per
tensor, so a shared parameter gets one device buffer.
"""

import threading

import torch

from torch_xla import _tensor

_state = threading.local()
_original_apply = torch.nn.Module._apply


def _tensors(module):
  for m in module.modules():
    for p in m._parameters.values():
      if p is not None:
        yield p
    for b in m._buffers.values():
      if b is not None:
        yield b


def _first_parameter(module):
  for m in module.modules():
    for p in m._parameters.values():
      if p is not None:
        return p
  return None


def _swappable(module) -> bool:
  """Whether torch.utils.swap_tensors can swap every parameter and
  gradient: nothing but its Python object holds it (a live autograd graph
  that saved a parameter holds it too)."""
  for m in module.modules():
    for p in m._parameters.values():
      if p is None:
        continue
      if p._use_count() != 1 or (p.grad is not None and
                                 p.grad._use_count() != 1):
        return False
  return True


def _apply(self, fn, recurse=True):
  """nn.Module._apply that keeps shared parameters shared (module docstring).
  """
  if (getattr(_state, "active", False) or
      torch.__future__.get_swap_module_params_on_conversion()):
    return _original_apply(self, fn, recurse)
  probe = _first_parameter(self) if recurse else None
  if probe is None:
    return _original_apply(self, fn, recurse)
  # Convert the first parameter now to see where the conversion goes; the
  # real pass gets this result instead of converting it again. The
  # submodules' _apply calls (inside PyTorch's) take PyTorch's path.
  _state.active = True
  try:
    with torch.no_grad():
      converted = fn(probe)
    to_xla = _tensor.is_xla(converted)
    if all(_tensor.is_xla(t) == to_xla for t in _tensors(self)):
      # No tensor changes kind: PyTorch converts in place (`param.data =`);
      # off the device exactly as PyTorch does (the probe's result aside).
      return _original_apply(
          self, _memoized(fn, probe, converted, only_probe=not to_xla))
    fn = _memoized(fn, probe, converted)
    if not _swappable(self):
      return _apply_and_retie(self, fn)
    return _apply_swapping(self, fn)
  finally:
    _state.active = False


def _apply_swapping(module, fn):
  """PyTorch's conversion with its swap setting on (module docstring)."""
  torch.__future__.set_swap_module_params_on_conversion(True)
  try:
    return _original_apply(module, fn)
  finally:
    torch.__future__.set_swap_module_params_on_conversion(False)


def _apply_and_retie(module, fn):
  """PyTorch's conversion (a new Parameter per module), then every module
  that held one parameter gets the same new one. `fn` is memoized, so the
  shared parameter and its gradient were converted once."""
  owners = {}
  for m in module.modules():
    for name, p in m._parameters.items():
      if p is not None:
        owners.setdefault(id(p), (p, []))[1].append((m, name))
  _original_apply(module, fn)
  for _, holders in owners.values():
    first_module, first_name = holders[0]
    shared = first_module._parameters[first_name]
    for m, name in holders[1:]:
      m._parameters[name] = shared
  return module


def _memoized(fn, probe, converted, only_probe=False):
  """fn, returning one result per input tensor (`converted` for `probe`):
  a tensor that several modules hold is converted once. With only_probe,
  just the probe's result is reused."""
  results = {id(probe): (probe, converted)}

  def once(t):
    entry = results.get(id(t))
    if entry is None or entry[0] is not t:
      entry = (t, fn(t))
      if not only_probe:
        results[id(t)] = entry
    return entry[1]

  return once


def install() -> None:
  """Installs the wrapper (once; importing this module does)."""
  if torch.nn.Module._apply is not _apply:
    torch.nn.Module._apply = _apply


install()
