"""The CPU fallback, the dispatch's last resort for an op with no rule and
no decomposition: inputs are copied to the host, the op runs in eager
PyTorch, results (and mutated inputs) come back to 'xla', and the counter
`aten::<op>` records it (tests assert it stays untouched for covered ops).
A traced placeholder input has no data to copy: that raises
NotImplementedError naming the op. registry.register_dispatch receives it
from torch_xla/_ops/__init__.py, so the registry imports no op family."""

import torch
from torch.utils._pytree import tree_flatten, tree_map

from torch_xla import _XLAC
from torch_xla._ops import copy_ops
from torch_xla._tensor import XlaTensor, commit


def cpu_fallback(func, args, kwargs):
  """Runs `func` in eager CPU PyTorch and copies results back to 'xla'."""
  _XLAC._xla_increment_counter(f"aten::{func._schema.name.split('::')[-1]}",
                               1)
  device = None
  xla_inputs = []

  def to_cpu(x):
    nonlocal device
    if isinstance(x, XlaTensor):
      device = device or x.device
      cpu = copy_ops.to_host(x)
      xla_inputs.append((x, cpu))
      return cpu
    return x

  try:
    cpu_args = tree_map(to_cpu, args)
    cpu_kwargs = tree_map(to_cpu, kwargs)
  except RuntimeError as e:
    if "placeholder" not in str(e):
      raise
    # A traced value (scan bodies, torch.export) has no data to copy.
    dtypes = ", ".join(
        f"{str(x.dtype).replace('torch.', '')}{list(x.shape)}"
        for x in tree_flatten((args, kwargs))[0]
        if isinstance(x, torch.Tensor))
    raise NotImplementedError(
        f"{func} has no lowering for the XLA device (inputs: {dtypes}), "
        f"and it cannot fall back to the CPU here: its input is a traced "
        f"placeholder value without data. Add a rule for it "
        f"(docs/adding_an_op.md)") from e
  if device is None:
    device = kwargs.get("device") or torch.device("xla", 0)
  result = func(*cpu_args, **cpu_kwargs)

  # Mutated inputs (in-place and out= ops) get their new values back.
  for xla, cpu in xla_inputs:
    if func._schema.is_mutable:
      commit(xla, copy_ops.from_host(cpu, xla.device.index)._xt)

  def to_xla(x):
    if isinstance(x, torch.Tensor):
      for xla, cpu in xla_inputs:
        if x is cpu:  # the op returned a (mutated) input
          return xla
      return copy_ops.from_host(x, torch.device(device).index or 0)
    return x

  return tree_map(to_xla, result)
