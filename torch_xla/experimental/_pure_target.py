"""What assume_pure calls: the function or module, its cache key, and the
tensors it reads besides its arguments (torch_xla/experimental/
assume_pure.py).

A module's *layout* (a slot per parameter or buffer name, tied ones
included, each naming its unique tensor; its submodules; their plain
attributes) is computed once per module and checked on every call by a
cheap structure token, so a call reads the current tensors without walking
the module tree. Modules whose whole state is visible to the signature
share one trace per class (`_fully_described`).
"""

import functools
import weakref

import torch

_targets = weakref.WeakKeyDictionary()
_PLAIN = (bool, int, float, str, type(None))


def _target_of(module):
  target = _targets.get(module)
  if target is None:
    target = _targets[module] = _Target(module)
  return target


class _Target:
  """What is called: the function, its key, and how to find the tensors it
  reads besides its arguments (module parameters and buffers, closure
  tensors)."""

  def __init__(self, fn):
    self.wrapped = fn
    bound = []  # leading positional arguments (functools.partial)
    keywords = {}
    while isinstance(fn, functools.partial):
      bound = list(fn.args) + bound
      keywords = {**fn.keywords, **keywords}
      fn = fn.func
    self.fn = fn
    self.bound, self.keywords = tuple(bound), keywords
    self.module = None
    # Whether fn may write its tensor inputs in place (the staged graphs of
    # torch.compile: an optimizer step); user functions may not.
    self.writes_inputs = False
    self.closure_modules, self.closure_tensors = [], []
    self._cached, self._version = None, 0
    if isinstance(fn, torch.nn.Module):
      self.module = fn
      self.key = ("module", id(fn))
      self.name = f"{type(fn).__name__} (module)"
      self.alive = weakref.ref(fn)
    else:
      owner = getattr(fn, "__self__", None)
      if isinstance(owner, torch.nn.Module):
        self.closure_modules.append(owner)
      cells = []
      for cell in getattr(fn, "__closure__", None) or ():
        try:
          value = cell.cell_contents
        except ValueError:  # an empty cell
          cells.append(None)
          continue
        cells.append(id(value))
        if isinstance(value, torch.nn.Module):
          self.closure_modules.append(value)
        elif isinstance(value, torch.Tensor):
          self.closure_tensors.append(cell)
      code = getattr(fn, "__code__", None)
      self.key = (code if code is not None else id(fn), tuple(cells),
                  id(owner) if owner is not None else None)
      self.name = getattr(fn, "__qualname__", None) or repr(fn)
      self.alive = None
    if self.bound or self.keywords:
      self.key = (self.key, len(self.bound), tuple(sorted(self.keywords)))

  def _modules(self):
    return ([self.module] if self.module is not None else []) + \
        self.closure_modules

  def _layout(self):
    """The modules' tensor slots, cached and checked on every call: a
    slot per (module, parameter or buffer name), tied ones included, each
    naming its unique tensor; the submodules and their plain attributes
    (see state())."""
    layout = self._cached
    if layout is not None and _layout_token(layout[0]) == layout[1]:
      return layout
    modules, seen = [], set()
    for top in self._modules():
      for m in top.modules():
        if id(m) not in seen:
          seen.add(id(m))
          modules.append(m)
    slots, unique, index = [], [], {}
    for top in self._modules():
      named = (
          [("_parameters", n, t) for n, t in top.named_parameters(
              remove_duplicate=False)] +
          [("_buffers", n, t) for n, t in top.named_buffers(
              remove_duplicate=False)])
      for kind, name, tensor in named:
        owner, leaf = _owner_of(top, name)
        if id(tensor) not in index:
          index[id(tensor)] = len(unique)
          unique.append((getattr(owner, kind), leaf))
        slots.append((getattr(owner, kind), leaf, index[id(tensor)]))
    plain = [(m.__dict__, tuple(k for k, v in m.__dict__.items()
                                if type(v) in _PLAIN and k[0] != "_"))
             for m in modules]
    self._version += 1
    # Modules whose state is all visible to the signature (parameters,
    # buffers, submodules, plain attributes; no hooks) compute the same
    # function for the same signature: identical layers share one trace.
    shared = None
    if self.module is not None and not self.closure_modules and all(
        _fully_described(m) for m in modules):
      shared = ("shared", tuple(
          (type(m), tuple(m._parameters), tuple(m._buffers),
           tuple(m._modules)) for m in modules))
    layout = (modules, _layout_token(modules), slots, unique, plain,
              shared or self._version)
    self._cached = layout
    return layout

  def extra_inputs(self):
    """Tensors read on every call besides the arguments: parameters and
    buffers of the module(s) (each tied tensor once), then closure
    tensors."""
    out = []
    if self.module is not None or self.closure_modules:
      out = [table[leaf] for table, leaf in self._layout()[3]]
    if self.closure_tensors:
      out.extend(cell.cell_contents for cell in self.closure_tensors)
    return out

  def shared_key(self):
    """The key of the module's kind when instances can share a trace
    (see _layout), else None."""
    if self.module is None:
      return None
    version = (self._cached or self._layout())[5]
    return version if isinstance(version, tuple) else None

  def state(self):
    """The modules' Python state a trace bakes in: the layout's version,
    each submodule's `training` flag and its public attributes that are
    numbers, strings or None (a changed `eps` or `model.eval()` traces
    again)."""
    if self.module is None and not self.closure_modules:
      return None
    layout = self._cached or self._layout()  # extra_inputs() checked it
    return (layout[5],) + tuple(
        tuple([d.get(k) for k in names]) for d, names in layout[4])

  def call(self, extra, args, kwargs):
    """Runs fn with `extra` (tensors standing for extra_inputs()) in
    place of the module's/closure's own tensors."""
    if self.bound or self.keywords:
      args = self.bound + tuple(args)
      kwargs = {**self.keywords, **kwargs}
    if self.module is None and not self.closure_modules and \
        not self.closure_tensors:
      return self.fn(*args, **kwargs)
    saved = []
    try:
      if self.module is not None or self.closure_modules:
        for table, leaf, i in self._layout()[2]:
          saved.append((table, leaf, table[leaf]))
          table[leaf] = extra[i]
      start = len(self._layout()[3]) if saved else 0
      for cell, value in zip(self.closure_tensors, extra[start:]):
        saved.append((cell, None, cell.cell_contents))
        cell.cell_contents = value
      if self.module is not None:
        return self.module(*args, **kwargs)
      return self.fn(*args, **kwargs)
    finally:
      for table, leaf, value in reversed(saved):
        if leaf is None:
          table.cell_contents = value
        else:
          table[leaf] = value


_MODULE_INTERNALS = frozenset(torch.nn.Module().__dict__)


def _fully_described(m):
  """True when a module's behaviour can depend only on what the signature
  holds: no hooks, and every attribute a module internal, a number,
  string or None, or a parameter, buffer or submodule (in their tables)."""
  if (m._forward_hooks or m._forward_pre_hooks or m._backward_hooks or
      m._backward_pre_hooks):
    return False
  for k, v in m.__dict__.items():
    if k in _MODULE_INTERNALS or type(v) in _PLAIN:
      continue
    return False
  return True


def _layout_token(modules):
  """Changes when a module gains or loses a parameter, buffer or
  submodule, or a submodule is replaced."""
  return tuple((len(m._parameters), len(m._buffers),
                tuple(map(id, m._modules.values()))) for m in modules)


def _owner_of(module, dotted):
  *path, leaf = dotted.split(".")
  for part in path:
    module = getattr(module, part)
  return module, leaf
