"""The `torch.compile(..., backend='openxla')` backend: each graph dynamo
captures is staged once and replayed as one graph node per call (and one
for its backward).

High level design
-----------------
Dynamo hands the backend its FX graph of torch-level calls, before any
autograd split. `openxla` runs that graph through the staging of
`torch_xla.experimental.assume_pure`: the first call of each signature
traces it once on placeholders, forward and backward together (autograd
runs on our lazy tensors, as in eager), and every call adds one `call`
node for the forward and one for the backward to the lazy graph. The
values the backward needs (residuals) stay C++ handles inside that
autograd node. A steady step therefore runs dynamo's guards and one
staged call per graph: no per-op Python, and no torch tensor per saved
activation.

PyTorch registers the name 'openxla' itself as AOTAutograd around
`extract_compiled_graph` (torch/_dynamo/backends/torchxla.py), upstream's
plug point, which this module still provides. AOTAutograd, however,
splits the graph itself and makes the forward return every activation
the backward saves as a torch tensor: 277 of them for the reference
decoder, each a wrapper object made and read back on every step, and an
optimizer step's in-place updates come back as outputs that its runtime
copies into each parameter with one `copy_` per parameter. That was most
of the host time of a compiled step, so `torch_xla._dynamo.install()`
points the name at `openxla` instead.

In-place writes: a graph may update its inputs in place (an optimizer
step writing parameters, BatchNorm its running statistics). The staged
call returns the new values and writes them into those inputs, each a new
version for autograd as an in-place op makes (`writes_inputs` of the
staged target). Functions given to `assume_pure` by users may not do so.

Our 'xla' tensor is a `torch.Tensor` wrapper subclass with
`__torch_dispatch__` and no `__torch_function__`, so dynamo traces it as a
plain tensor on device 'xla': it makes fake tensors with the same shape,
dtype and device, and runs PyTorch's meta kernels on them. Nothing in our
tensor type needs to change for dynamo (see docs/assume_pure.md).

Guards: dynamo recompiles on Python-level changes (its guards); a graph
called with another signature (shapes, dtypes, requires_grad, shardings)
traces again inside assume_pure, cached per signature.
"""

import torch


def extract_compiled_graph(graph_module: torch.fx.GraphModule, example_args):
  """Upstream's entry point: a function that runs `graph_module` as one
  staged call per invocation.

  Args:
    graph_module: an FX graph over 'xla' tensors (its parameters, if any,
      are read on every call).
    example_args: the arguments of the first call (unused: the graph is
      traced on placeholders of each call's signature).

  Returns:
    A function of the graph's flat arguments returning its results.
  """
  del example_args
  return _staged_runner(graph_module, writes_inputs=False)


def openxla(graph_module: torch.fx.GraphModule, example_inputs):
  """The 'openxla' backend (see the module docstring).

  Args:
    graph_module: dynamo's FX graph; its inputs are the tensors (and
      parameters) it reads, its results a tuple.
    example_inputs: the fake inputs of the first call (unused: the graph
      is traced on placeholders of each call's signature).

  Returns:
    A function of the graph's flat inputs returning its results.
  """
  del example_inputs
  return _staged_runner(graph_module, writes_inputs=True)


def _staged_runner(graph_module, writes_inputs):
  """A function running `graph_module` as one staged call per invocation
  (assume_pure's staging; with `writes_inputs`, its in-place writes to its
  inputs are replayed)."""
  from torch_xla.experimental._pure_target import _target_of
  from torch_xla.experimental.assume_pure import _apply
  _skip_our_frames()
  _lift_constants(graph_module)
  target = _target_of(graph_module)
  target.writes_inputs = writes_inputs

  # Dynamo must not trace our op rules when the graph is traced on
  # placeholders (the first call of each signature).
  @torch._dynamo.disable
  def run(*args):
    return _apply(target, args, {}, None)

  return run


_skipping = False


def _skip_our_frames():
  """Dynamo must never trace torch_xla's own Python (the op rules that run
  when AOTAutograd's runtime wrapper touches our tensors): those frames
  run as plain Python, as numpy's do."""
  global _skipping
  if not _skipping:
    torch._dynamo.trace_rules.add("torch_xla")
    _skipping = True


def _lift_constants(graph_module):
  """Tensor attributes the graph reads with get_attr (constants AOTAutograd
  or dynamo lifted out of the program) become buffers, so that they are
  inputs of the staged call, not outside values."""
  for node in graph_module.graph.nodes:
    if node.op != "get_attr":
      continue
    owner = graph_module
    *path, leaf = node.target.split(".")
    for part in path:
      owner = getattr(owner, part)
    value = getattr(owner, leaf, None)
    if (isinstance(value, torch.Tensor) and
        not isinstance(value, torch.nn.Parameter) and
        leaf not in owner._buffers):
      delattr(owner, leaf)
      owner.register_buffer(leaf, value, persistent=False)
