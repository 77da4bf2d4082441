"""`gradient_accumulation`: micro-batches in one XLA While whose gradient
accumulators are updated in place.

High level design
-----------------
`train_step` is traced once per call, on placeholder slices of the
iterable tensors and placeholder carried tensors (torch_xla/experimental/
_staging.py). On that trace, PyTorch's autograd gives the gradient of
`loss / steps` with respect to the model's parameters as lazy IR. The loop
body is that forward and backward. Its carried values are the carried
tensors, the loss sum and one accumulator per parameter: XLA updates
loop-carried buffers in place. The parameters are loop-invariant inputs,
read by reference and never copied. The accumulators start from the
existing `.grad` (as `backward()` would add to it), and the result is
written back into that same `.grad` tensor in place. Its alias ID is kept,
so at the sync its old buffer is donated to the new value.

Everything stays lazy: the loop, then the user's optimizer step, run as one
execution at the next sync. The loop body's structure depends only on
shapes, so later steps hit the compile cache.
"""

import dataclasses

import torch

from torch_xla import _XLAC, _ir
from torch_xla._dtypes import to_code
from torch_xla._tensor import commit, is_xla, wrap, xt_of
from torch_xla.experimental import _staging
from torch_xla.experimental._staging import IterationSeeds, Loop, Variable


@dataclasses.dataclass(frozen=True)
class GradientAccumulationContext:
  """Sizes of one accumulation (upstream's record of them).

  Attributes:
    num_gradient_steps: micro-batches (the iterable tensors' leading size).
    num_iterable_tensors: tensors sliced per micro-batch.
    num_carried_tensors: tensors carried from one micro-batch to the next.
    num_model_params: parameters that receive gradients.
    num_internal_tensors: values the loop adds (loop counter, loss sum).
  """
  num_gradient_steps: int
  num_iterable_tensors: int
  num_carried_tensors: int
  num_model_params: int
  num_internal_tensors: int = 2


def gradient_accumulation(train_step, iterable_tensors, model,
                          *carried_tensors):
  """Runs `train_step` over micro-batches as one loop and accumulates the
  gradients of the mean loss into the parameters' `.grad`.

  Args:
    train_step: `train_step(*slices, *carried) -> loss` or
      `(loss, *new_carried)`, where `slices` are the iterable tensors at
      one index of their leading dimension. It computes the loss only;
      gradients are taken here (do not call backward() in it).
    iterable_tensors: a tuple of 'xla' tensors with the same leading
      dimension: the number of micro-batches.
    model: the nn.Module whose parameters (those requiring grad) get the
      accumulated gradients.
    *carried_tensors: tensors passed from one micro-batch to the next (a
      single tuple of them is accepted too, as upstream takes it). They
      keep their dtype.

  Returns:
    The mean loss over the micro-batches (0-dim), or `(loss, *carried)`
    when there are carried tensors. Each parameter's `.grad` holds its
    previous value plus the gradient of the mean loss.

  Example:
    def train_step(x, y):
      return loss_fn(model(x), y)
    loss = gradient_accumulation(train_step, (xs, ys), model)
    optimizer.step()
    torch_xla.sync()
  """
  if (len(carried_tensors) == 1 and
      isinstance(carried_tensors[0], (tuple, list))):
    carried_tensors = tuple(carried_tensors[0])
  if not isinstance(iterable_tensors, (tuple, list)) or not iterable_tensors:
    raise ValueError("iterable_tensors must be a non-empty tuple of tensors")
  steps = None
  for i, t in enumerate(iterable_tensors):
    if not isinstance(t, torch.Tensor):
      raise ValueError(f"Element {i} of iterable_tensors is not a tensor "
                       f"(got {type(t).__name__})")
    if t.dim() == 0:
      raise ValueError(f"Element {i} of iterable_tensors is 0-dim; it needs "
                       f"a leading dimension of micro-batches")
    if steps is None:
      steps = t.shape[0]
    elif t.shape[0] != steps:
      raise ValueError(
          f"Element {i} of iterable_tensors has inconsistent first dimension "
          f"{t.shape[0]}; element 0 has {steps}")
  if steps == 0:
    raise ValueError("iterable_tensors have no micro-batches (leading "
                     "dimension 0)")
  for i, t in enumerate(carried_tensors):
    if not isinstance(t, torch.Tensor):
      raise ValueError(f"carried tensor {i} is not a tensor (got "
                       f"{type(t).__name__})")
  for what, tensors in (("iterable tensor", iterable_tensors),
                        ("carried tensor", carried_tensors)):
    for i, t in enumerate(tensors):
      if not is_xla(t):
        raise ValueError(f"{what} {i} is on {t.device}; move it to the xla "
                         f"device first")
  params = [p for p in model.parameters() if p.requires_grad]
  device = iterable_tensors[0].device.index
  loop, invariants, loss_code, uses_rng = _stage(train_step,
                                                 iterable_tensors,
                                                 carried_tensors, params, steps,
                                                 device)
  init = [xt_of(t) for t in carried_tensors]
  init.append(_staging.zeros([], loss_code, device))
  for p in params:
    init.append(xt_of(p.grad) if p.grad is not None else _staging.zeros(
        list(p.shape), to_code(p.dtype), device))
  if uses_rng:
    init.append(IterationSeeds.draw_base(device))
  carry, _ = loop(init, [xt_of(t) for t in iterable_tensors], invariants)
  nc = len(carried_tensors)
  for p, grad in zip(params, carry[nc + 1:nc + 1 + len(params)]):
    if p.grad is None:
      p.grad = wrap(grad)
    else:
      commit(p.grad, grad)  # in place: the old buffer is donated
  loss = wrap(carry[nc])
  if not carried_tensors:
    return loss
  return (loss, *[wrap(h) for h in carry[:nc]])


def _stage(train_step, iterable_tensors, carried_tensors, params, steps,
           device):
  """Traces train_step once on placeholders and builds the loop."""
  slices = [Variable(t.shape[1:], to_code(t.dtype), device)
            for t in iterable_tensors]
  carried = [Variable(t.shape, to_code(t.dtype), device)
             for t in carried_tensors]
  slice_in = [v.tensor() for v in slices]
  carried_in = [v.tensor() for v in carried]
  seeds = IterationSeeds(device)
  with seeds.active(), torch.enable_grad():
    result = train_step(*slice_in, *carried_in)
    if isinstance(result, (tuple, list)):
      loss, *new_carried = result
    else:
      loss, new_carried = result, []
    if len(new_carried) != len(carried):
      raise ValueError(
          f"train_step returned {len(new_carried)} carried tensors for "
          f"{len(carried)} carried inputs; return (loss, *carried)")
    if not isinstance(loss, torch.Tensor) or loss.dim() != 0:
      raise ValueError(f"train_step must return a 0-dim loss tensor first, "
                       f"got {_describe(loss)}")
    if not loss.is_floating_point() or not loss.requires_grad:
      raise ValueError("train_step's loss does not depend on any parameter "
                       "of the model that requires grad")
    scaled = loss / steps
    grads = torch.autograd.grad(scaled, params, allow_unused=True)
  _check_not_mutated(slices, slice_in, "iterable tensor")
  _check_not_mutated(carried, carried_in, "carried tensor")
  for i, (new, old) in enumerate(zip(new_carried, carried_tensors)):
    if (not isinstance(new, torch.Tensor) or new.shape != old.shape or
        new.dtype != old.dtype):
      raise ValueError(
          f"train_step returned carried tensor {i} as {_describe(new)}; it "
          f"must keep {old.dtype} {list(old.shape)}")

  loss_code = to_code(scaled.dtype)
  sums = [Variable([], loss_code, device)]
  sums += [Variable(p.shape, to_code(p.dtype), device) for p in params]
  contributions = [xt_of(scaled)] + [
      xt_of(g) if g is not None else _staging.zeros(
          list(p.shape), to_code(p.dtype), device)
      for g, p in zip(grads, params)
  ]
  carry_out = [xt_of(t) for t in new_carried] + [
      _ir.binary("add", s.handle, c) for s, c in zip(sums, contributions)
  ]
  carry = carried + sums
  uses_rng = seeds.count > 0
  if uses_rng:
    carry.append(seeds.base)
    carry_out.append(seeds.base.handle)
  variables = [v.id for v in carry + slices] + [seeds.index.id]
  invariants = _XLAC._loop_invariants(carry_out, variables)
  inputs = [Variable(h.dims, h.dtype, device) for h in invariants]
  carry_out = _XLAC._inline_host_data(
      _XLAC._replace(carry_out, invariants, [v.handle for v in inputs]))
  loop = Loop(steps, device, carry, carry_out, slices, [], inputs,
              index=seeds.index)
  return loop, invariants, loss_code, uses_rng


def _check_not_mutated(variables, tensors, what):
  for i, (v, t) in enumerate(zip(variables, tensors)):
    if t._xt.data_id != v.id or t._version != 0:
      raise _staging.InPlaceInputError(
          f"train_step modified {what} {i} ({t.dtype} {list(t.shape)}) in "
          f"place; inputs are read-only inside gradient_accumulation: return "
          f"a new value instead (carried tensors: as part of the result)")


def _describe(value):
  if isinstance(value, torch.Tensor):
    return f"{value.dtype} {list(value.shape)}"
  return type(value).__name__
