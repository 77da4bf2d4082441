"""The `torch.compile(..., backend='openxla')` bridge: each FX graph dynamo
(and AOTAutograd) hands us is staged once and replayed as one graph node.

High level design
-----------------
PyTorch registers the backend name 'openxla' itself
(torch/_dynamo/backends/torchxla.py): AOTAutograd splits the captured
graph into a forward and a backward FX graph and calls
`torch_xla.core.dynamo_bridge.extract_compiled_graph(graph, args)` for
each. That is the plug point, as upstream: we return a function that runs
the graph through `torch_xla.experimental.assume_pure`, the same staging
as scan and assume_pure. Its first call traces the graph once on
placeholders into a cached sub-graph; every call adds one `call` node of
that sub-graph to the lazy graph, so a steady step runs no per-op Python:
dynamo's guards, AOTAutograd's runtime wrapper, and one node per graph.
The sync then compiles (once) and runs the whole step, optimizer
included, as one program.

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
  from torch_xla.experimental.assume_pure import assume_pure
  del example_args
  _skip_our_frames()
  _lift_constants(graph_module)
  staged = assume_pure(graph_module)

  # Dynamo must not trace our op rules when the graph is traced on
  # placeholders (the first call of each signature).
  @torch._dynamo.disable
  def run(*args):
    return staged(*args)

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
