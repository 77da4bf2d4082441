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
(rewrites/loop_partition.h): the forward values the backward reads are the
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
the staged loops live in `_SCAN_COMPUTATION_CACHE` (upstream's name: fn ->
{argument key: (forward, alias_input, backward)}); when nothing is
captured, later calls skip the trace. The promise is checked once: the
first call traces twice and compares.
"""

import collections
import itertools
import weakref

import torch
from torch.utils._pytree import tree_flatten

from torch_xla import _XLAC, _ir
from torch_xla._tensor import is_xla, wrap, xt_of
from torch_xla.experimental import _staging
from torch_xla.experimental._scan_graphs import (Staged, Trace, leaves_of,
                                                 tree_flatten_none)
from torch_xla.experimental._staging import IterationSeeds

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
  trace = Trace(fn, flat_init, unflatten_init, flat_xs, unflatten_xs, device,
                 True)
  staged = Staged(trace, flat_xs[0].shape[0], device,
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


# Staged bodies of functions not declared pure, re-validated by a trace on
# every call: (_fn_key(fn), argument key) -> (fn, Staged), least recently
# used first.
_cache = collections.OrderedDict()

# Upstream's name and layout: fn -> {argument key: _Computation} for the
# functions scanned with is_fn_pure=True (they are not re-traced). Weak in
# fn; `_SCAN_COMPUTATION_CACHE.clear()` makes the next call stage afresh.
_SCAN_COMPUTATION_CACHE = weakref.WeakKeyDictionary()


class _Computation(tuple):
  """A staged pure body as `(forward, alias_input, backward)`:
  forward(init, xs, invariants, seed) -> (carry, ys, saved stacks) runs the
  forward While; alias_input(saved stacks, xs) -> the residuals the
  backward reads (slices of xs are read from xs, not saved);
  backward(grad outputs, saved stacks, xs, invariants) runs the reversed
  While. All on C++ handles; `.staged` is the Staged object."""

  def __new__(cls, staged):
    self = super().__new__(cls, (staged.run_forward, staged.alias_input,
                                 staged.run_backward))
    self.staged = staged
    return self


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


def _pure_cache(fn, create):
  """fn's second-level dict in _SCAN_COMPUTATION_CACHE (None when fn cannot
  be a weak key, or when absent and not `create`)."""
  try:
    level = _SCAN_COMPUTATION_CACHE.get(fn)
    if level is None and create:
      level = _SCAN_COMPUTATION_CACHE[fn] = {}
    return level
  except TypeError:  # not weakly referenceable or not hashable
    return None


def _reuses(staged, trace) -> bool:
  """Whether a new trace of the body matches what `staged` was built from."""
  return (staged.reusable and trace.key == staged.key and
          trace.uses_rng == staged.uses_rng and
          [(c.shape, c.dtype) for c in trace.closures] == staged.closure_shapes
          and _diff_pattern(trace) == (staged.out_diff, staged.carry_diff,
                                       staged.x_diff))


def _staged_for(fn, flat_init, unflatten_init, flat_xs, unflatten_xs, n,
                device, rematerialize, is_fn_pure):
  """-> (Staged, invariant handles, closure tensors) for this call."""
  with_grad = torch.is_grad_enabled()
  key = (_spec_of(flat_init, unflatten_init), _spec_of(flat_xs, unflatten_xs),
         with_grad, rematerialize, device, n,
         tuple((tuple(t.shape), t.dtype, t.requires_grad) for t in flat_init),
         tuple((tuple(t.shape), t.dtype, t.requires_grad) for t in flat_xs))
  pure = _pure_cache(fn, False) if is_fn_pure else None
  staged = None
  if pure is not None and key in pure:
    staged = pure[key].staged
    if not staged.num_inputs and not staged.closure_shapes:
      return staged, [], []
  elif (_fn_key(fn), key) in _cache:
    staged = _cache[(_fn_key(fn), key)][1]
    _cache.move_to_end((_fn_key(fn), key))
  trace = Trace(fn, flat_init, unflatten_init, flat_xs, unflatten_xs, device,
                with_grad)
  if staged is not None:
    _XLAC._xla_increment_counter("ScanRetrace", 1)
    if _reuses(staged, trace):
      # Staged for a call that did not declare fn pure: the match of two
      # traces is the purity check.
      level = _pure_cache(fn, True) if is_fn_pure else None
      if level is not None and key not in level:
        level[key] = _Computation(staged)
      return staged, trace.invariants, trace.closures
  if is_fn_pure:
    # The promise is checked once, when the body is staged: a second trace
    # must give the same graph, since later calls will not trace at all.
    again = Trace(fn, flat_init, unflatten_init, flat_xs, unflatten_xs,
                  device, with_grad)
    if again.key != trace.key or again.uses_rng != trace.uses_rng:
      raise ValueError(
          f"scan: `fn` {getattr(fn, '__name__', fn)!r} was declared pure "
          f"(is_fn_pure=True) but two traces of it built different graphs "
          f"(it depends on Python state that changes between calls); pass "
          f"is_fn_pure=False")
  _XLAC._xla_increment_counter("ScanStage", 1)
  staged = Staged(trace, n, device, rematerialize)
  invariants = staged.first_invariants
  staged.first_invariants = staged.graphs = None  # no traced values cached
  pure = _pure_cache(fn, True) if is_fn_pure else None
  if pure is not None:
    pure[key] = _Computation(staged)
  else:
    _cache[(_fn_key(fn), key)] = (fn, staged)
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


_shard_groups = itertools.count(1)


def _shard_alike(staged, handles, first, present=None):
  """Under SPMD, ties the sharding of each input of the loops to that of
  its gradient (XLA's shard-as groups, one per input leaf, numbered per
  staged body so the graph stays the same from step to step): the
  partitioner then gives a gradient the layout of its input instead of
  choosing one for the backward loop's outputs alone. `present`: which
  leaves `handles` has (the differentiable ones)."""
  if staged.backward is None or not _XLAC._xla_is_spmd():
    return list(handles)
  if getattr(staged, "shard_group", None) is None:
    staged.shard_group = next(_shard_groups) * 4096
  if present is None:
    present = [True] * len(handles)
  positions = [first + k for k, p in enumerate(present) if p]
  return [
      _XLAC._xla_sharding_annotation(
          h, "{unknown shard_as %d}" % (staged.shard_group + k))
      for h, k in zip(handles, positions)
  ]


class Scan(torch.autograd.Function):
  """The scan as one autograd op: forward While, backward reversed While.
  Inputs after the staging arguments: init leaves, xs leaves, closures."""

  @staticmethod
  def forward(ctx, staged, invariants, seed, num_init, num_xs, *inputs):
    ctx.set_materialize_grads(False)
    init = _shard_alike(staged, [xt_of(t) for t in inputs[:num_init]], 0)
    xs = _shard_alike(
        staged, [xt_of(t) for t in inputs[num_init:num_init + num_xs]],
        num_init)
    carry, ys, saved = staged.run_forward(init, xs, invariants, seed)
    # Saved as tensors so that autograd frees them after the backward. The
    # xs residuals are read from are saved as themselves (no copy); autograd's
    # version check rejects a backward after they were updated in place.
    aliased = [inputs[num_init + j] for j in staged.aliased_xs]
    ctx.save_for_backward(*([wrap(h) for h in saved] + aliased +
                            [wrap(h) for h in invariants]))
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
    d_init = iter(_shard_alike(staged, d_init, 0, staged.carry_diff))
    d_xs = iter(_shard_alike(staged, d_xs, num_init, staged.x_diff))
    out = [None] * 5
    out += [wrap(next(d_init)) if d else None for d in staged.carry_diff]
    out += [wrap(next(d_xs)) if d else None for d in staged.x_diff]
    out += [wrap(h) for h in d_closures]
    return tuple(out)
