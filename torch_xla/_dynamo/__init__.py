"""torch.compile(backend='openxla') support (dynamo_bridge.py is the
backend's entry point).

Our 'xla' tensor is a `torch.Tensor` wrapper subclass whose state is a C++
lazy-tensor handle, with `__torch_dispatch__`. Dynamo wraps a tensor
subclass as a tensor only when it has no `__torch_dispatch__` of its own or
is a *traceable* wrapper subclass (`__tensor_flatten__`: inner torch
tensors that AOTAutograd would trace instead of the subclass). Ours has no
inner torch tensors, so it would be seen as an opaque Python object and
every op would be a graph break. It is, for tracing, exactly a dense tensor
on device 'xla': PyTorch's FakeTensorMode already converts it to a
FakeTensor of the same shape, dtype, strides and device, and meta kernels
trace through it. So we register `XlaTensor` with dynamo's builder as a
plain tensor type (`install()`), as upstream's C++ XLA tensors are.

`install()` also points the backend name 'openxla' at our backend
(dynamo_bridge.openxla), which stages dynamo's own graph, forward and
backward together, instead of PyTorch's default for the name (AOTAutograd
splitting the graph and handing us each half): see dynamo_bridge.py for
why.

`install()` runs when torch._dynamo is first imported (an import hook set
up by torch_xla's import; importing dynamo eagerly would add seconds to
`import torch_xla`).
"""

import importlib.abc
import sys

_installed = False


def install():
  """Makes dynamo trace 'xla' tensors as tensors, and never trace
  torch_xla's own Python (its op rules run when compiled code touches our
  tensors: they are plain Python to dynamo, as numpy is)."""
  global _installed
  if _installed:
    return
  _installed = True
  from torch._dynamo import trace_rules
  from torch._dynamo.variables.builder import VariableBuilder
  from torch_xla._tensor import XlaTensor
  # AOTAutograd traced our tensors as plain tensors, so it expects plain
  # tangents in the backward; an XlaTensor is one for it.
  XlaTensor.__coerce_same_metadata_as_tangent__ = _as_tangent
  for trace_numpy in (False, True):
    table = VariableBuilder._type_dispatch_impl(trace_numpy)
    table[XlaTensor] = VariableBuilder.wrap_tensor
  trace_rules.add("torch_xla")
  _after_import(_PYTORCH_BACKEND, _register_backend)


# PyTorch's module that registers the name 'openxla'. Dynamo imports it
# when a backend is first looked up by name; importing it here instead
# would close an import cycle while dynamo itself is still loading.
_PYTORCH_BACKEND = "torch._dynamo.backends.torchxla"


def _register_backend():
  """'openxla' names our backend: the entry PyTorch's module registered is
  replaced, right after that module is imported (so it is never
  registered again)."""
  from torch._dynamo.backends import registry
  from torch_xla._dynamo import dynamo_bridge
  dynamo_bridge.openxla._tags = ()
  registry._COMPILER_FNS["openxla"] = dynamo_bridge.openxla


def _as_tangent(tensor, expected_metadata=None, expected_type=None):
  del expected_metadata, expected_type
  return tensor


class _ImportHook(importlib.abc.MetaPathFinder):
  """Runs `then()` right after the module `name` has been imported."""

  def __init__(self, name, then):
    self.name, self.then = name, then

  def find_spec(self, name, path=None, target=None):
    if name != self.name:
      return None
    sys.meta_path.remove(self)
    try:
      import importlib.util
      spec = importlib.util.find_spec(name)
    finally:
      sys.meta_path.insert(0, self)
    if spec is None or spec.loader is None:
      return spec
    loader = spec.loader
    original = loader.exec_module

    def exec_module(module):
      original(module)
      if self in sys.meta_path:
        sys.meta_path.remove(self)
      self.then()

    loader.exec_module = exec_module
    return spec


def _after_import(name, then):
  """then() now if the module `name` is loaded, else right after it is."""
  if name in sys.modules:
    then()
  elif not any(
      isinstance(f, _ImportHook) and f.name == name for f in sys.meta_path):
    sys.meta_path.insert(0, _ImportHook(name, then))


def install_when_dynamo_loads():
  """install() now if torch._dynamo is loaded, else right after it is."""
  _after_import("torch._dynamo", install)
