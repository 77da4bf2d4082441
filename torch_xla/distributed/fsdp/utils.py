"""FSDP helpers (upstream name: torch_xla.distributed.fsdp.utils)."""

import torch

from torch_xla.utils.checkpoint import checkpoint


def checkpoint_module(module: torch.nn.Module) -> torch.nn.Module:
  """Makes `module`'s forward an activation-checkpointed one
  (torch_xla.utils.checkpoint.checkpoint): its activations are not kept;
  the backward pass recomputes them.

  The forward is checkpointed only when one of its tensor arguments
  requires grad (the checkpoint gets gradients through its inputs);
  otherwise it runs as before. Keyword arguments are passed through.

  Args:
    module: the module (e.g. a decoder layer) to checkpoint, in place.

  Returns:
    The same module.
  """
  if not isinstance(module, torch.nn.Module):
    raise TypeError(f"checkpoint_module needs an nn.Module, got "
                    f"{type(module).__name__}")
  original = module.forward

  def forward(*args, **kwargs):
    values = args + tuple(kwargs.values())
    if not any(isinstance(v, torch.Tensor) and v.requires_grad
               for v in values):
      return original(*args, **kwargs)
    names = tuple(kwargs)

    def run(*flat):
      positional = flat[:len(args)]
      return original(*positional, **dict(zip(names, flat[len(args):])))

    return checkpoint(run, *values)

  module._xla_checkpointed_forward_original = original
  module.forward = forward
  return module
