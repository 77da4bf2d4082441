"""Activation checkpointing for 'xla' tensors (upstream name:
torch_xla.utils.checkpoint).

High level design
-----------------
`checkpoint(fn, *args)` runs `fn` without keeping its activations and runs
it again in the backward pass to get them. On XLA the forward pass and the
backward pass usually land in one graph, where XLA's common-subexpression
elimination would merge the recomputation with the original forward and
keep the activations alive after all. So the recomputation starts from an
optimization barrier (`xm.optimization_barrier_`) over its inputs and the
incoming gradients: the values are the same, but XLA cannot see that they
are, and the forward's activations can be freed.

Randomness: 'xla' random ops draw their seeds from PyTorch's CPU
generator. The forward saves its state and the recomputation restores it
(inside fork_rng, so the generator continues as if nothing was replayed),
so dropout draws the same mask twice.

`use_reentrant=False` is PyTorch's non-reentrant checkpoint
(`torch.utils.checkpoint.checkpoint`), which works on 'xla' tensors too
(torch_xla registers `torch.xla`, the device module it asks for RNG
state); it saves no barrier, so XLA may merge the recomputation.
"""

import torch
import torch.utils.checkpoint as torch_checkpoint

__all__ = ["checkpoint", "CheckpointFunction"]


def _barrier_copies(values):
  """`values` with each tensor replaced by a detached copy; the 'xla'
  copies of one device pass through one optimization barrier (the callers'
  tensors are left as they are)."""
  from torch_xla.core import xla_model as xm
  out = []
  by_device = {}
  with torch.no_grad():
    for value in values:
      if isinstance(value, torch.Tensor):
        copy = value.detach().clone()
        if copy.device.type == "xla":
          by_device.setdefault(copy.device, []).append(copy)
        value = copy
      out.append(value)
    for group in by_device.values():
      xm.optimization_barrier_(group)
  return out


class CheckpointFunction(torch.autograd.Function):
  """The reentrant checkpoint: forward without saved activations, backward
  recomputes from a barrier over the inputs and gradients."""

  @staticmethod
  def forward(ctx, run_function, preserve_rng_state, *args):
    ctx.run_function = run_function
    ctx.preserve_rng_state = preserve_rng_state
    if preserve_rng_state:
      ctx.rng_state = torch.get_rng_state()
    ctx.tensor_indices = [i for i, a in enumerate(args)
                          if isinstance(a, torch.Tensor)]
    ctx.inputs = [None if isinstance(a, torch.Tensor) else a for a in args]
    ctx.save_for_backward(*[args[i] for i in ctx.tensor_indices])
    with torch.no_grad():
      return run_function(*args)

  @staticmethod
  def backward(ctx, *grad_outputs):
    if not torch.autograd._is_checkpoint_valid():
      raise RuntimeError(
          "torch_xla.utils.checkpoint: .grad() is not supported with the "
          "reentrant checkpoint; use .backward(), or use_reentrant=False")
    inputs = list(ctx.inputs)
    for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
      inputs[i] = t
    # Barrier copies: the values are unchanged, but XLA cannot merge the
    # recomputation below with the original forward.
    copies = _barrier_copies(inputs + list(grad_outputs))
    detached = copies[:len(inputs)]
    grad_outputs = copies[len(inputs):]
    for t, original in zip(detached, inputs):
      if isinstance(t, torch.Tensor):
        t.requires_grad_(original.requires_grad)
    with torch.random.fork_rng(devices=[], enabled=ctx.preserve_rng_state):
      if ctx.preserve_rng_state:
        torch.set_rng_state(ctx.rng_state)
      with torch.enable_grad():
        outputs = ctx.run_function(*detached)
    if isinstance(outputs, torch.Tensor):
      outputs = (outputs,)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs)
             if isinstance(o, torch.Tensor) and o.requires_grad]
    if not pairs:
      raise RuntimeError(
          "torch_xla.utils.checkpoint: none of the checkpointed function's "
          "outputs requires grad (do its inputs or parameters require grad?)")
    torch.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
    return (None, None) + tuple(
        t.grad if isinstance(t, torch.Tensor) else None for t in detached)


def checkpoint(function, *args, use_reentrant: bool = True,
               preserve_rng_state: bool = True, **kwargs):
  """Runs `function(*args)` without keeping its activations; the backward
  pass recomputes them (see the module docstring).

  Args:
    function: the function (e.g. a layer's forward) to checkpoint.
    *args: its arguments; tensors among them get gradients.
    use_reentrant: True (default, as upstream): the recomputation starts
      from an optimization barrier so XLA cannot merge it with the forward.
      False: PyTorch's non-reentrant checkpoint (keyword arguments allowed).
    preserve_rng_state: replay the forward's random numbers (dropout masks)
      in the recomputation.
    **kwargs: passed to torch.utils.checkpoint.checkpoint when
      use_reentrant=False; an error otherwise.

  Returns:
    What `function` returns.

  Example:
    out = checkpoint(layer, hidden_states)
  """
  if not use_reentrant:
    return torch_checkpoint.checkpoint(
        function, *args, use_reentrant=False,
        preserve_rng_state=preserve_rng_state, **kwargs)
  if kwargs:
    raise ValueError(
        f"torch_xla.utils.checkpoint: unexpected keyword arguments "
        f"{sorted(kwargs)} with use_reentrant=True (pass them with "
        f"use_reentrant=False, or bind them with functools.partial)")
  return CheckpointFunction.apply(function, preserve_rng_state, *args)
