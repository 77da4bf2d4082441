"""`scan`: a loop over the leading dimension of tensors, traced once into one
XLA While, forward and backward.

High level design
-----------------
`fn(carry, x) -> (new_carry, y)` is traced once, abstractly, on placeholder
tensors (torch_xla/experimental/_staging.py): the carry leaves and one slice
of each `xs` leaf. Nothing is allocated or transferred. PyTorch's autograd
runs on those lazy tensors, so `torch.autograd.grad` of the traced outputs,
with placeholder incoming gradients, gives the backward body as lazy IR too.

The two graphs share nodes. Partitioning is an IR analysis in C++
(ir/loop_partition.h): the forward values the backward reads are the
*residuals* the forward loop stacks per iteration (`default_partition`:
all of them; `min_cut_rematerialization_partition`: only outputs of
expensive ops, with elementwise and shape ops recomputed in the backward
body). Residuals that are slices of `xs` are read from `xs`, never copied.
Tensors `fn` closes over are loop-invariant inputs, passed by reference;
leaf tensors among them that require grad get their gradients (summed over
iterations) like any input.

`Scan` (an autograd.Function) runs the forward While; its backward runs a
second While from the last iteration to the first.

Caching: a traced body is kept per (fn, argument structure, shapes,
dtypes). With `is_fn_pure=False` (the default), each call re-traces only
the forward on placeholders (milliseconds: lazy tracing, no AOTAutograd)
and compares its structural key; equal keys reuse the staged loops, the
compiled program hits the compile cache, and only the invariants are taken
from the new trace. A changed body (new code, a new constant, another
captured tensor shape) is detected and re-staged. With `is_fn_pure=True`
and nothing captured, even that re-trace is skipped.
"""

import collections

import torch
from torch.utils._pytree import tree_flatten, tree_unflatten

from torch_xla import _XLAC, _ir
from torch_xla._tensor import XlaTensor, is_xla, wrap, xt_of
from torch_xla._dtypes import to_code
from torch_xla.experimental import _staging
from torch_xla.experimental._staging import IterationSeeds, Loop, Variable

_CACHE_SIZE = 64


def default_partition(*args, **kwargs):
  """Stand-in for `functorch.compile.default_partition` (same name, so
  either may be passed): save every activation the backward reads."""
  from functorch.compile import default_partition as partition
  return partition(*args, **kwargs)


def _rematerializes(partition_fn) -> bool:
  name = getattr(partition_fn, "__name__", None)
  if name is None:  # functools.partial
    name = getattr(getattr(partition_fn, "func", None), "__name__", None)
  if name == "default_partition":
    return False
  if name == "min_cut_rematerialization_partition":
    return True
  raise ValueError(
      f"partition_fn {partition_fn!r} is not supported: pass "
      f"functorch.compile.default_partition (save activations) or "
      f"functorch.compile.min_cut_rematerialization_partition (recompute "
      f"cheap activations in the backward loop)")


def scan(fn, init, xs, partition_fn=default_partition, is_fn_pure=False):
  """Apply `fn` over the leading dimension of `xs`, carrying state, as one
  XLA While loop (like `jax.lax.scan`).

  Equivalent to:

    carry = init
    for i in range(len(xs)):
      carry, y = fn(carry, xs[i])
      ys.append(y)
    return carry, torch.stack(ys)

  Args:
    fn: `fn(carry, x) -> (new_carry, y)`; `carry`, `x`, `y` are PyTrees of
      tensors (`None` leaves allowed). `new_carry` must have the structure,
      shapes and dtypes of `carry`.
    init: the initial carry (PyTree of 'xla' tensors).
    xs: PyTree of 'xla' tensors with equal leading dimension, sliced along
      it.
    partition_fn: `functorch.compile.default_partition` (save activations
      for the backward) or `min_cut_rematerialization_partition` (recompute
      cheap ones in the backward loop).
    is_fn_pure: promise that `fn` computes the same thing on every call;
      then a cached trace is reused without re-tracing when `fn` captures
      no tensors.

  Returns:
    `(carry, ys)`: the last carry, and the `y` leaves stacked along dim 0.
    Gradients flow to `init`, `xs` and leaf tensors `fn` closes over.

  Example:
    def step(carry, x):
      carry = carry + x
      return carry, carry
    total, running = scan(step, torch.zeros(3, device='xla'), xs)
  """
  if not callable(fn):
    raise ValueError(f"`fn` {fn} must be callable.")
  flat_xs, unflatten_xs = tree_flatten_none(xs)
  if not flat_xs:
    raise ValueError(f"`xs` {xs} is an empty PyTree.")
  length = None
  for leaf in flat_xs:
    _check_tensor(leaf, "xs")
    if leaf.dim() == 0:
      raise ValueError("the leaves of `xs` must have a leading dimension to "
                       "scan over; got a 0-dim tensor")
    if length is None:
      length = leaf.shape[0]
    elif leaf.shape[0] != length:
      raise ValueError(
          f"The leaves of the `xs` input PyTree must have the same leading "
          f"dimension size. Got {length} and {leaf.shape[0]}")
  if length == 0:
    raise ValueError("`xs` has length 0: scan needs at least one iteration")
  flat_init, unflatten_init = tree_flatten_none(init)
  for leaf in flat_init:
    _check_tensor(leaf, "init")
  device = flat_xs[0].device.index
  for leaf in flat_init + flat_xs:
    if leaf.device.index != device:
      raise ValueError(f"scan: all of `init` and `xs` must be on one device; "
                       f"got xla:{device} and {leaf.device}")
  staged, invariants, closures = _staged_for(
      fn, flat_init, unflatten_init, flat_xs, unflatten_xs, length, device,
      _rematerializes(partition_fn), is_fn_pure)
  seed = IterationSeeds.draw_base(device) if staged.uses_rng else None
  init_handles = [xt_of(t) for t in flat_init]
  xs_handles = [xt_of(t) for t in flat_xs]
  if staged.backward is None:
    carry, ys, _ = staged.run_forward(init_handles, xs_handles, invariants,
                                      seed)
    outputs = [wrap(h) for h in carry + ys]
  else:
    outputs = Scan.apply(staged, invariants, seed, len(flat_init),
                         len(flat_xs), *flat_init, *flat_xs, *closures)
  carry = unflatten_init(list(outputs[:len(flat_init)]))
  ys = staged.unflatten_y(list(outputs[len(flat_init):]))
  return carry, ys


def _check_tensor(leaf, what):
  if not isinstance(leaf, torch.Tensor):
    raise ValueError(f"scan: the leaves of `{what}` must be tensors, got "
                     f"{type(leaf).__name__}")
  if not is_xla(leaf):
    raise ValueError(f"scan: the leaves of `{what}` must be 'xla' tensors, "
                     f"got one on {leaf.device}; move it with .to('xla')")


def value_and_grad_partitioned(fn, init, xs,
                               partition_fn=default_partition):
  """Traces `fn` once and returns its forward and backward per iteration,
  partitioned as `scan` runs them:

    forward(carry, x) -> (new_carry, (y, partial_activations))
    alias_input(stacked partial_activations, xs) -> stacked activations
    backward(grad_new_carry, (grad_y, activations)) -> (grad_carry, grad_x)

  `partial_activations` are what the forward saves per iteration, except
  slices of `xs`, which `alias_input` adds back from `xs` itself.
  `activations` is a flat tuple (one iteration's slice when passed to
  `backward`). `grad_carry`/`grad_x` have the structure of `init` and of a
  slice of `xs`, with None where there is no gradient.

  Args:
    fn, init, xs, partition_fn: as for `scan`.

  Returns:
    `(forward, alias_input, backward)`.

  Example:
    forward, alias_input, backward = value_and_grad_partitioned(fn, c, xs)
    c1, (y, partial) = forward(c, xs[0])
  """
  flat_init, unflatten_init = tree_flatten_none(init)
  flat_xs, unflatten_xs = tree_flatten_none(xs)
  if not flat_xs:
    raise ValueError(f"`xs` {xs} is an empty PyTree.")
  device = flat_xs[0].device.index
  trace = _Trace(fn, flat_init, unflatten_init, flat_xs, unflatten_xs, device,
                 True)
  staged = _Staged(trace, flat_xs[0].shape[0], device,
                   _rematerializes(partition_fn))
  graphs, invariants = staged.graphs, staged.first_invariants
  inputs = graphs["inputs"]
  seeds = trace.seeds
  nc = staged.num_carry

  def bind(values, variables, tensors):
    handles = [xt_of(t) for t in tensors] + list(invariants) + [
        _staging.const(0, _ir.S64, device),
        IterationSeeds.draw_base(device)
    ]
    ids = [v.id for v in variables] + [v.id for v in inputs] + [
        seeds.index.id, seeds.base.id
    ]
    return [wrap(h) for h in _XLAC._replace(values, ids, handles)]

  def forward(carry, x):
    flat = leaves_of(carry) + leaves_of(x)
    out = bind(graphs["forward"] + graphs["stacked"],
               trace.carry + trace.xs, flat)
    ny = len(staged.output_meta) - nc
    return (unflatten_init(out[:nc]),
            (staged.unflatten_y(out[nc:nc + ny]), tuple(out[nc + ny:])))

  def alias_input(partial_activations, xs):
    flat = leaves_of(xs)
    return tuple(partial_activations[k] if kind == "stack" else flat[k]
                 for kind, k in staged.saved)

  def backward(grad_new_carry, grad_y_and_activations):
    if staged.backward is None:
      raise ValueError("value_and_grad_partitioned: nothing in `fn` needs "
                       "a gradient (no float input or output requires grad)")
    grad_y, activations = grad_y_and_activations
    grads = leaves_of(grad_new_carry) + leaves_of(grad_y)
    grads = [g for g, d in zip(grads, staged.out_diff) if d]
    stacked = [a for a, (kind, _) in zip(activations, staged.saved)
               if kind == "stack"]
    aliased = [a for a, (kind, _) in zip(activations, staged.saved)
               if kind == "xs"]
    x_vars = [trace.xs[j] for kind, j in staged.saved if kind == "xs"]
    out = iter(bind(graphs["backward"],
                    graphs["tangents"] + graphs["residual_vars"] + x_vars,
                    grads + stacked + aliased))
    grad_carry = [next(out) if d else None for d in staged.carry_diff]
    grad_x = [next(out) if d else None for d in staged.x_diff]
    return unflatten_init(grad_carry), unflatten_xs(grad_x)

  return forward, alias_input, backward


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


class _Trace:
  """One abstract trace of `fn` on placeholders (see the module docstring).
  `outputs`: the torch tensors of new carry then y (flat, no Nones)."""

  def __init__(self, fn, flat_init, unflatten_init, flat_xs, unflatten_xs,
               device, with_grad):
    self.carry = [Variable(t.shape, to_code(t.dtype), device) for t in flat_init]
    self.xs = [Variable(t.shape[1:], to_code(t.dtype), device) for t in flat_xs]
    self.seeds = IterationSeeds(device)
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
      result = fn(unflatten_init(self.carry_in), unflatten_xs(self.x_in))
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


class _Staged:
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
          ], tangent_ids, rematerialize)
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


_cache = collections.OrderedDict()


def _fn_key(fn):
  code = getattr(fn, "__code__", None)
  if code is None:
    return ("object", id(fn))
  cells = []
  for cell in getattr(fn, "__closure__", None) or ():
    try:
      cells.append(id(cell.cell_contents))
    except ValueError:  # an empty cell
      cells.append(None)
  return (code, tuple(cells), id(getattr(fn, "__self__", None)))


def _staged_for(fn, flat_init, unflatten_init, flat_xs, unflatten_xs, n,
                device, rematerialize, is_fn_pure):
  """-> (_Staged, invariant handles, closure tensors) for this call."""
  with_grad = torch.is_grad_enabled()
  key = (_fn_key(fn), _spec_of(flat_init, unflatten_init),
         _spec_of(flat_xs, unflatten_xs), with_grad, rematerialize, device, n,
         tuple((tuple(t.shape), t.dtype, t.requires_grad) for t in flat_init),
         tuple((tuple(t.shape), t.dtype, t.requires_grad) for t in flat_xs))
  entry = _cache.get(key)
  if entry is not None:
    _cache.move_to_end(key)
    staged = entry[1]
    if is_fn_pure and not staged.num_inputs and not staged.closure_shapes:
      return staged, [], []
  trace = _Trace(fn, flat_init, unflatten_init, flat_xs, unflatten_xs, device,
                 with_grad)
  if entry is not None:
    _XLAC._xla_increment_counter("ScanRetrace", 1)
    if (staged.reusable and trace.key == staged.key and
        trace.uses_rng == staged.uses_rng and
        [(c.shape, c.dtype) for c in trace.closures] == staged.closure_shapes
        and _diff_pattern(trace) == (staged.out_diff, staged.carry_diff,
                                     staged.x_diff)):
      return staged, trace.invariants, trace.closures
  _XLAC._xla_increment_counter("ScanStage", 1)
  staged = _Staged(trace, n, device, rematerialize)
  invariants = staged.first_invariants
  staged.first_invariants = staged.graphs = None  # no traced values cached
  _cache[key] = (fn, staged)
  while len(_cache) > _CACHE_SIZE:
    _cache.popitem(last=False)
  return staged, invariants, trace.closures


def _diff_pattern(trace):
  return ([t.requires_grad for t in trace.outputs],
          [t.requires_grad for t in trace.carry_in],
          [t.requires_grad for t in trace.x_in])


def _spec_of(flat, unflatten):
  """A hashable structure of a PyTree flattened by tree_flatten_none."""
  marker = object()
  rebuilt = unflatten([marker] * len(flat))
  _, spec = tree_flatten(rebuilt)
  return str(spec)


class Scan(torch.autograd.Function):
  """The scan as one autograd op: forward While, backward reversed While.
  Inputs after the staging arguments: init leaves, xs leaves, closures."""

  @staticmethod
  def forward(ctx, staged, invariants, seed, num_init, num_xs, *inputs):
    ctx.set_materialize_grads(False)
    init = [xt_of(t) for t in inputs[:num_init]]
    xs = [xt_of(t) for t in inputs[num_init:num_init + num_xs]]
    carry, ys, saved = staged.run_forward(init, xs, invariants, seed)
    # Saved as tensors so that autograd frees them after the backward. The
    # xs are the values as of now (a later in-place update must not change
    # what the backward reads).
    aliased = [_XLAC._clone(xs[j]) for j in staged.aliased_xs]
    ctx.save_for_backward(*[wrap(h) for h in saved + aliased + invariants])
    ctx.staged = staged
    ctx.counts = (num_init, num_xs, len(inputs) - num_init - num_xs)
    ctx.num_saved = (len(saved), len(aliased))
    outputs = [wrap(h) for h in carry + ys]
    ctx.mark_non_differentiable(
        *[o for o, d in zip(outputs, staged.out_diff) if not d])
    return tuple(outputs)

  @staticmethod
  def backward(ctx, *grad_outputs):
    staged = ctx.staged
    grads = [None if g is None else xt_of(g) for g in grad_outputs]
    if all(g is None for g in grads):
      return (None,) * (5 + sum(ctx.counts))
    tensors = [xt_of(t) for t in ctx.saved_tensors]
    num_saved, num_aliased = ctx.num_saved
    saved = tensors[:num_saved]
    xs = [None] * ctx.counts[1]
    for j, h in zip(staged.aliased_xs, tensors[num_saved:]):
      xs[j] = h
    invariants = tensors[num_saved + num_aliased:]
    d_init, d_xs, d_closures = staged.run_backward(grads, saved, xs,
                                                   invariants)
    num_init, num_xs, _ = ctx.counts
    d_init, d_xs = iter(d_init), iter(d_xs)
    out = [None] * 5
    out += [wrap(next(d_init)) if d else None for d in staged.carry_diff]
    out += [wrap(next(d_xs)) if d else None for d in staged.x_diff]
    out += [wrap(h) for h in d_closures]
    return tuple(out)
