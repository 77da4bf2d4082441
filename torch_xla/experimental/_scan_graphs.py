"""The graphs of one `scan` body: the abstract trace of `fn` on
placeholders (`Trace`) and its forward and backward loops (`Staged`).

See torch_xla/experimental/scan.py for the design; this module holds the
tracing and partitioning, scan.py the API, caching and autograd op.
"""

import torch
from torch.utils._pytree import tree_flatten, tree_unflatten

from torch_xla import _XLAC, _ir
from torch_xla._tensor import XlaTensor, xt_of
from torch_xla._dtypes import to_code
from torch_xla.experimental import _staging
from torch_xla.experimental._staging import IterationSeeds, Loop, Variable


def leaves_of(tree):
  return tree_flatten_none(tree)[0]


def tree_flatten_none(pytree):
  """Flattens `pytree` without its `None` leaves. Returns the tensors and a
  function that rebuilds the PyTree (with the `None`s) from such a list."""
  flat, spec = tree_flatten(pytree)
  present = [leaf is not None for leaf in flat]

  def unflatten(values):
    values = iter(values)
    return tree_unflatten([next(values) if p else None for p in present],
                          spec)

  return [leaf for leaf in flat if leaf is not None], unflatten


class Trace:
  """One abstract trace of `fn` on placeholders (see the module docstring).
  `outputs`: the torch tensors of new carry then y (flat, no Nones)."""

  def __init__(self, fn, flat_init, unflatten_init, flat_xs, unflatten_xs,
               device, with_grad):
    self.carry = [Variable(t.shape, to_code(t.dtype), device) for t in flat_init]
    self.xs = [Variable(t.shape[1:], to_code(t.dtype), device) for t in flat_xs]
    self.seeds = IterationSeeds(device)
    # Float carries always get gradients (the carry chains the iterations:
    # what a later one computes from xs or closures flows back through
    # it). A carry whose init requires grad is a leaf, so an in-place op on
    # it is PyTorch's leaf error, as in eager code; any other carry reaches
    # fn through a copy, which fn may update in place (`carry += x`).
    self.carry_in = [
        v.tensor(with_grad and t.is_floating_point())
        for v, t in zip(self.carry, flat_init)
    ]
    self.x_in = [
        v.tensor(with_grad and t.requires_grad and t.is_floating_point())
        for v, t in zip(self.xs, flat_xs)
    ]
    self.mark = _staging.autograd_mark() if with_grad else None
    with self.seeds.active(), torch.set_grad_enabled(with_grad):
      given = [
          c.clone() if c.requires_grad and not t.requires_grad else c
          for c, t in zip(self.carry_in, flat_init)
      ]
      with _staging.no_outside_writes(fn, "scan's `fn`"):
        result = fn(unflatten_init(given), unflatten_xs(self.x_in))
    if not isinstance(result, (tuple, list)) or len(result) != 2:
      raise ValueError(f"scan: `fn` must return a pair (new_carry, y), got "
                       f"{type(result).__name__}")
    new_carry = tree_flatten_none(result[0])[0]
    flat_y, self.unflatten_y = tree_flatten_none(result[1])
    if len(new_carry) != len(flat_init):
      raise ValueError(
          f"scan: `fn` must return a carry with the structure of `init` "
          f"({len(flat_init)} tensors), got {len(new_carry)}")
    for i, (new, old) in enumerate(zip(new_carry, flat_init)):
      if (not isinstance(new, XlaTensor) or new.shape != old.shape or
          new.dtype != old.dtype):
        got = (f"{new.dtype} {list(new.shape)}" if isinstance(
            new, torch.Tensor) else type(new).__name__)
        raise ValueError(
            f"scan: carry leaf {i} must keep the shape and dtype of `init` "
            f"({old.dtype} {list(old.shape)}), but `fn` returned {got}")
    for y in flat_y:
      if not isinstance(y, XlaTensor):
        raise ValueError(f"scan: the leaves of `y` returned by `fn` must be "
                         f"'xla' tensors, got {type(y).__name__}")
    self.outputs = list(new_carry) + list(flat_y)
    self.num_carry = len(new_carry)
    self.closures = []
    if with_grad:
      self.closures = _staging.outer_grad_leaves(
          self.outputs, self.carry_in + self.x_in, self.mark, "scan's `fn`")
    self.uses_rng = self.seeds.count > 0
    # What fn reads from outside (computed once per call, outside the
    # loop) is cut off at placeholders, so the key is independent of how
    # those tensors were computed.
    raw = [xt_of(t) for t in self.outputs]
    self.invariants = _XLAC._loop_invariants(raw, self.variable_ids())
    self.inputs = [Variable(h.dims, h.dtype, device) for h in self.invariants]
    self.forward = _XLAC._inline_host_data(
        _XLAC._replace(raw, self.invariants, [v.handle for v in self.inputs]))
    self.key = _XLAC._trace_key(
        self.forward, self.variable_ids() + [v.id for v in self.inputs])

  def variable_ids(self):
    return ([v.id for v in self.carry] + [v.id for v in self.xs] +
            [self.seeds.index.id, self.seeds.base.id])


class Staged:
  """A traced `fn` staged into a forward loop and, when gradients are
  needed, a backward loop."""

  def __init__(self, trace, n, device, rematerialize):
    self.key = trace.key
    self.uses_rng = trace.uses_rng
    self.unflatten_y = trace.unflatten_y
    self.num_carry = trace.num_carry
    self.closure_shapes = [(c.shape, c.dtype) for c in trace.closures]
    self.n, self.device = n, device
    outputs = trace.outputs
    # Which outputs and inputs are differentiable (float and in the
    # autograd graph).
    self.out_diff = [t.requires_grad for t in outputs]
    self.carry_diff = [t.requires_grad for t in trace.carry_in]
    self.x_diff = [t.requires_grad for t in trace.x_in]
    self.output_meta = [(list(t.shape), to_code(t.dtype)) for t in outputs]

    backward = []
    tangents = []
    if any(self.out_diff) and (any(self.carry_diff) or any(self.x_diff) or
                               trace.closures):
      tangents = [
          Variable(t.shape, to_code(t.dtype), device)
          for t, d in zip(outputs, self.out_diff) if d
      ]
      wrt = ([t for t, d in zip(trace.carry_in, self.carry_diff) if d] +
             [t for t, d in zip(trace.x_in, self.x_diff) if d] +
             trace.closures)
      with torch.enable_grad():
        grads = torch.autograd.grad(
            [t for t, d in zip(outputs, self.out_diff) if d],
            wrt, [v.tensor() for v in tangents],
            allow_unused=True)
      backward = [
          xt_of(g) if g is not None else _staging.zeros(
              list(x.shape), to_code(x.dtype), device)
          for g, x in zip(grads, wrt)
      ]
    # One graph for both: cut the forward's invariants off at the trace's
    # input placeholders, then make host values constants.
    inputs = list(trace.inputs)
    inlined = _XLAC._inline_host_data(
        _XLAC._replace([xt_of(t) for t in outputs] + backward,
                       trace.invariants, [v.handle for v in inputs]))
    forward, backward = inlined[:len(outputs)], inlined[len(outputs):]
    primal_ids = trace.variable_ids() + [v.id for v in inputs]
    tangent_ids = [v.id for v in tangents]
    # Outer tensors only the backward reads (rare): inputs too, but then
    # this staging serves only this call.
    extra = _XLAC._loop_invariants(backward, primal_ids + tangent_ids)
    self.reusable = not extra
    if extra:
      extra_inputs = [Variable(h.dims, h.dtype, device) for h in extra]
      backward = _XLAC._replace(backward, extra,
                                [v.handle for v in extra_inputs])
      inputs += extra_inputs
      primal_ids += [v.id for v in extra_inputs]
    self.first_invariants = list(trace.invariants) + list(extra)
    self.num_inputs = len(inputs)

    # Forward loop: carry (+ the base seed), xs -> ys (+ residuals).
    nc = self.num_carry
    seeds = trace.seeds
    carry_vars = list(trace.carry)
    carry_out = list(forward[:nc])
    if self.uses_rng:
      carry_vars.append(seeds.base)
      carry_out.append(seeds.base.handle)
    residuals = []
    if backward:
      residuals = _XLAC._saved_for_backward(
          backward, primal_ids, [v.id for v in trace.xs] + [
              v.id for v in inputs
          ], tangent_ids, rematerialize, forward_roots=forward)
    x_ids = {v.id: j for j, v in enumerate(trace.xs)}
    # Residuals that are slices of xs are read from xs in the backward.
    self.saved = []  # ("stack", k) | ("xs", j) per residual
    stacked = []
    for r in residuals:
      j = x_ids.get(_XLAC._leaf_data_id(r), None)
      if j is not None:
        self.saved.append(("xs", j))
      else:
        self.saved.append(("stack", len(stacked)))
        stacked.append(r)
    self.forward = Loop(n, device, carry_vars, carry_out, trace.xs,
                        list(forward[nc:]) + stacked, inputs,
                        index=seeds.index)
    self.backward = None
    # For value_and_grad_partitioned: the per-iteration graphs.
    self.graphs = dict(trace=trace, inputs=inputs, forward=forward,
                       stacked=stacked, tangents=tangents)
    if not backward:
      return

    # Backward loop, last iteration first: carry = incoming carry
    # gradients + closure gradient sums; xs = output gradients, residuals
    # (and the xs they alias); ys = gradients of the xs slices.
    residual_vars = [Variable(h.dims, h.dtype, device) for h in stacked]
    backward = _XLAC._replace(backward, stacked,
                              [v.handle for v in residual_vars])
    self.graphs.update(backward=backward, residual_vars=residual_vars)
    num_dc = sum(self.carry_diff)
    num_dx = sum(self.x_diff)
    dc, dx, dw = (backward[:num_dc], backward[num_dc:num_dc + num_dx],
                  backward[num_dc + num_dx:])
    sums = [Variable(h.dims, h.dtype, device) for h in dw]
    tangent_carry = tangents[:sum(self.out_diff[:nc])]
    tangent_y = tangents[len(tangent_carry):]
    self.aliased_xs = sorted({j for kind, j in self.saved if kind == "xs"})
    self.backward = Loop(
        n, device, tangent_carry + sums,
        dc + [_ir.binary("add", s.handle, d) for s, d in zip(sums, dw)],
        tangent_y + residual_vars + [trace.xs[j] for j in self.aliased_xs],
        dx, inputs, index=seeds.index, reverse=True)

  def run_forward(self, init, xs, invariants, seed):
    """-> (carry, ys, saved stacks) handles."""
    if self.uses_rng:
      init = list(init) + [seed]
    carry, ys = self.forward(init, xs, invariants)
    ny = len(self.output_meta) - self.num_carry
    return carry[:self.num_carry], ys[:ny], ys[ny:]

  def alias_input(self, saved, xs):
    """The residuals per iteration's backward, stacked: the saved stacks,
    and the xs a residual is a slice of (read from xs, never copied)."""
    return [saved[k] if kind == "stack" else xs[k] for kind, k in self.saved]

  def run_backward(self, grad_outputs, saved, xs, invariants):
    """Gradients (handles or None per output) -> (d init, d xs, d closures)
    for the differentiable ones."""
    nc = self.num_carry
    tangents = []
    for k, (g, d, (dims, code)) in enumerate(
        zip(grad_outputs, self.out_diff, self.output_meta)):
      if not d:
        continue
      if g is None:  # an output the loss did not use
        g = _staging.zeros(dims if k < nc else [self.n] + dims, code,
                           self.device)
      tangents.append(g)
    num_tc = sum(self.out_diff[:nc])
    tangent_carry, stacked_y = tangents[:num_tc], tangents[num_tc:]
    sums = [_staging.zeros(list(shape), to_code(dtype), self.device)
            for shape, dtype in self.closure_shapes]
    carry, ys = self.backward(
        tangent_carry + sums,
        stacked_y + list(saved) + [xs[j] for j in self.aliased_xs],
        invariants)
    num_dc = sum(self.carry_diff)
    return carry[:num_dc], ys, carry[num_dc:]
