"""`assume_pure(fn)`: trace a pure function once per signature; every later
call adds one node for its forward and one for its backward to the graph.

High level design
-----------------
This is scan's staging (torch_xla/experimental/_staging.py) applied to one
call instead of a loop. On the first call with a given *signature*, `fn`
runs once on placeholder tensors (shape and dtype, no data). PyTorch's
autograd runs on those lazy tensors, so `torch.autograd.grad` of the
traced outputs with placeholder incoming gradients gives the backward as
lazy IR too. The graph is partitioned as scan's is (`_saved_for_backward`,
rewrites/loop_partition.h): the forward values the backward reads become the
forward's extra results (*residuals*). The forward and the backward are
closed into two sub-graphs and cached.

Each call then makes one `call` node (ir/call_shape_rules.cc) applying the
forward sub-graph to the call's tensors, inside an autograd.Function
whose backward makes one `call` node of the backward sub-graph. The
lowering emits the sub-graph inline (lowering/call_lowering.cc), so XLA
optimizes across it as if the ops had been traced in place, and a sync's
graph walk and hash see one node per call.

Signature: the structure of `(args, kwargs)`, each tensor's shape, dtype,
requires_grad and (under SPMD) sharding, the values of the non-tensor
arguments (which must be hashable), grad mode, and which function: a
module's identity (its parameters and buffers are inputs, read on every
call), or a function's code and the identities of what it closes over.
Tensors and modules a function closes over are inputs too.

Randomness: random ops inside `fn` take their seed from a seed input
drawn on every call (`_staging.IterationSeeds`), so dropout draws fresh
bits each call; the backward reuses the forward's mask (a residual).
Inside a scan body the seed comes from the loop's per-iteration seeds.

What is checked while tracing (each raises ImpureFunctionError naming
`fn`): reading a tensor's value on the host (`.item()`, `if t.sum() > 0`),
in-place writes to tensors `fn` did not receive or to its inputs, and
tensors read from outside that are not inputs (globals, attributes of
non-module objects). See docs/assume_pure.md for the contract.
"""

import collections
import functools

import torch
from torch.utils._pytree import tree_flatten, tree_unflatten

from torch_xla import _XLAC, _ir
from torch_xla._dtypes import to_code
from torch_xla._ops import random_ops
from torch_xla._tensor import XlaTensor, wrap, xt_of
from torch_xla.experimental import _staging
from torch_xla.experimental._pure_target import _Target, _target_of
from torch_xla.experimental._staging import IterationSeeds, Variable

_CACHE_SIZE = 256
_cache = collections.OrderedDict()  # signature -> _Staged


class ImpureFunctionError(RuntimeError):
  """`fn` given to assume_pure does something a trace cannot replay.

  Example:
    @assume_pure
    def f(x):
      if x.sum() > 0:   # reads a value: ImpureFunctionError
        return x
      return -x
  """


def assume_pure(fn, *, add_rng_seed_argument=False):
  """Wraps `fn` so that it is traced once per signature and later calls
  add one graph node for the forward and one for the backward.

  `fn` must be pure: its tensor results depend only on its tensor
  arguments (and a module's parameters and buffers), and it writes to no
  tensor. Random ops are allowed: each call draws fresh numbers.

  Args:
    fn: a function of tensors (PyTrees of tensors and hashable non-tensor
      values, as positional and keyword arguments), or an `nn.Module`
      (its parameters and buffers become inputs).
    add_rng_seed_argument: upstream's option: the wrapped function takes a
      keyword `rng_seed` (an int) and random ops inside draw from it, so
      equal seeds give equal numbers.

  Returns:
    A function with `fn`'s signature and results.

  Example:
    layer = DecoderLayer(cfg).to('xla')
    y = assume_pure(layer)(x)          # traced on the first call only
    y.sum().backward()
  """
  if not callable(fn):
    raise TypeError(f"assume_pure: `fn` must be callable, got {fn!r}")
  # One target per module (the layout cache outlives the wrapper: code
  # that wraps a layer on every step pays for it once).
  target = _target_of(fn) if isinstance(fn, torch.nn.Module) else _Target(fn)

  if add_rng_seed_argument:

    def seeded(*args, rng_seed=None, **kwargs):
      if rng_seed is None:
        raise AssertionError(
            f"assume_pure({target.name}, add_rng_seed_argument=True): pass "
            f"the keyword argument rng_seed (an int)")
      return _apply(target, args, kwargs, int(rng_seed))

    return functools.wraps(target.wrapped)(seeded)

  def pure(*args, **kwargs):
    return _apply(target, args, kwargs, None)

  return functools.wraps(target.wrapped)(pure)


class PureModule(torch.nn.Module):
  """Upstream's wrapper: a module whose forward is `assume_pure`d.

  Example:
    layer = PureModule(DecoderLayer(cfg)).to('xla')
  """

  def __init__(self, module: torch.nn.Module) -> None:
    super().__init__()
    self._module = module

  def forward(self, *args, **kwargs):
    return _apply(_target_of(self._module), args, kwargs, None)


def _is_tensor(x):
  return isinstance(x, torch.Tensor)


def _signature(target, args, kwargs, tensors, seeded):
  """The cache key of a call (see the module docstring)."""
  if not kwargs and all(type(a) is XlaTensor for a in args):
    structure = len(args)
    flat = list(args)
  else:
    flat, spec = tree_flatten((args, kwargs))
    constants = []
    for i, leaf in enumerate(flat):
      if _is_tensor(leaf):
        continue
      try:
        hash(leaf)
      except TypeError:
        raise TypeError(
            f"assume_pure({target.name}): argument leaf {i} is a "
            f"{type(leaf).__name__}, which is not hashable; non-tensor "
            f"arguments are part of the signature (a new value traces "
            f"again), so they must be hashable. Pass it as a tensor, or "
            f"bind it with functools.partial") from None
      constants.append((i, type(leaf), leaf))
    structure = (str(spec), tuple(constants), spec)
  arguments = [leaf for leaf in flat if _is_tensor(leaf)]
  tensors.extend(arguments)
  return flat, structure


def _raise_bad_tensors(target, tensors):
  """The error for tensors _XLAC._call_signature refused: one that is not
  an 'xla' tensor, or tensors on several devices."""
  device = None
  for t in tensors:
    if type(t) is not XlaTensor:
      raise ValueError(
          f"assume_pure({target.name}): tensor inputs must be 'xla' "
          f"tensors, got one on {t.device} ({list(t.shape)}); move it with "
          f".to('xla')")
    if device is None:
      device = t.device.index
    elif t.device.index != device:
      raise ValueError(f"assume_pure({target.name}): all tensor inputs must "
                       f"be on one device; got xla:{device} and {t.device}")
  raise ValueError(f"assume_pure({target.name}): its tensor inputs could "
                   f"not be read")


def _apply(target, args, kwargs, rng_seed):
  if target.alive is not None and target.alive() is None:
    raise RuntimeError(f"assume_pure: the module {target.name} was freed")
  extra = target.extra_inputs()
  tensors = list(extra)
  flat, structure = _signature(target, args, kwargs, tensors, rng_seed)
  signature = _XLAC._call_signature(tensors)
  if signature is None:
    _raise_bad_tensors(target, tensors)
  device, metas = signature
  with_grad = torch.is_grad_enabled()
  shared = target.shared_key()
  key = (shared or target.key, structure if isinstance(structure, int) else
         structure[:2], target.state(), len(extra), metas, with_grad, device,
         rng_seed is not None, _shardings(tensors))
  staged = _cache.get(key)
  if staged is None:
    staged = _trace(target, flat, structure, tensors, len(extra), device,
                    with_grad)
    _cache[key] = staged
    _XLAC._xla_increment_counter("AssumePureTrace", 1)
    while len(_cache) > _CACHE_SIZE:
      _cache.popitem(last=False)
    _sync_cache_counter()
  else:
    _cache.move_to_end(key)
  seed = None
  if staged.uses_rng:
    seed = _seed_for_call(device, rng_seed)
  if not staged.num_outputs and not staged.writes:
    return staged.rebuild([])
  if staged.backward is None:
    # One crossing: the call node, its in-place writes, fn's results.
    outputs = _XLAC._staged_call(staged.forward,
                                 tensors if seed is None else tensors + seed,
                                 staged.num_outputs, staged.writes, False,
                                 ())[0]
    if staged.writes:
      torch._C._increment_version([tensors[i] for i in staged.writes])
  else:
    outputs = _PureCall.apply(staged, seed, *tensors)
  return staged.rebuild(outputs)


def _shardings(tensors):
  if not _spmd_on():
    return None
  # No sharding yet is replicated (what a sync gives it).
  return tuple(_XLAC._get_xla_sharding_spec(t) or "{replicated}"
               for t in tensors)


def _spmd_on():
  import torch_xla.runtime as xr
  return xr.is_spmd()


def _sync_cache_counter():
  """Sets the AssumePureCacheSize counter to the number of cached traces
  (counters only add: add the difference)."""
  name = "AssumePureCacheSize"
  import torch_xla.debug.metrics as met
  current = met.counter_value(name) or 0
  if current != len(_cache):
    _XLAC._xla_increment_counter(name, len(_cache) - current)


def cache_size() -> int:
  """The number of traces cached (one per signature seen)."""
  return len(_cache)


def clear_cache():
  """Drops every cached trace (the next call of each signature traces)."""
  _cache.clear()
  _sync_cache_counter()


def _seed_for_call(device, rng_seed):
  """Operands for the trace's seed variables (base u64, index s64)."""
  index = _staging.const(0, _ir.S64, device)
  if rng_seed is not None:
    return [_XLAC._tensor_scalar(rng_seed, _ir.U64, device), index]
  if random_ops.seed_source is not None:  # inside a traced loop body
    return [random_ops.seed_source(device), index]
  return [IterationSeeds.draw_base(device), index]


class _PureCall(torch.autograd.Function):
  """One staged call: forward call node; backward call node."""

  @staticmethod
  def forward(ctx, staged, seed, *inputs):
    ctx.set_materialize_grads(False)
    # One crossing (_XLAC._staged_call): the call node, its in-place
    # writes, fn's results as tensors. Residuals stay C++ handles in one
    # _HandleList (no Python object per residual); backward drops them, so
    # a sync after it does not compute them. With writes, the backward
    # reads the inputs' values from before them: clones taken first, also
    # one _HandleList.
    operands = inputs if seed is None else list(inputs) + seed
    outputs, ctx.residuals, ctx.input_values = _XLAC._staged_call(
        staged.forward, operands, staged.num_outputs, staged.writes, True,
        staged.backward_reads if staged.writes else ())
    if staged.writes:
      torch._C._increment_version([inputs[i] for i in staged.writes])
    else:
      ctx.save_for_backward(*[inputs[i] for i in staged.backward_reads])
    ctx.staged = staged
    ctx.mark_non_differentiable(
        *[o for o, d in zip(outputs, staged.out_diff) if not d])
    return tuple(outputs)

  @staticmethod
  def backward(ctx, *grads):
    staged = ctx.staged
    if all(g is None for g in grads):
      return (None, None) + (None,) * len(staged.in_diff)
    tangents = []
    for g, d, (dims, code) in zip(grads, staged.out_diff, staged.out_meta):
      if d:
        tangents.append(
            _staging.zeros(dims, code, staged.device) if g is None else
            g)
    residuals, ctx.residuals = ctx.residuals, None
    if residuals is None:
      raise RuntimeError(
          "assume_pure: backward through the same call ran twice; its "
          "saved values were freed after the first (retain_graph=True is "
          "not supported through assume_pure)")
    inputs = ctx.input_values  # a _HandleList, or saved tensors
    if inputs is None:
      operands = tangents + [residuals] + list(ctx.saved_tensors)
    else:
      operands = tangents + [residuals, inputs]
    d_inputs = iter(
        _XLAC._staged_call(staged.backward, operands, staged.num_in_diff, (),
                           False, ())[0])
    out = [None, None]
    out += [next(d_inputs) if d else None for d in staged.in_diff]
    return tuple(out)


_SLOT = object()  # a tensor's place in an output template


class _Staged:
  """A traced call: forward and backward sub-graphs and how to rebuild
  fn's results. Holds no tensors."""

  def __init__(self, **fields):
    self.__dict__.update(fields)

  def rebuild(self, outputs):
    outputs = iter(outputs)
    leaves = [next(outputs) if leaf is _SLOT else leaf
              for leaf in self.template]
    return tree_unflatten(leaves, self.out_spec)


def _trace(target, flat, structure, tensors, num_extra, device, with_grad):
  """Runs fn once on placeholders and stages it (module docstring)."""
  name = target.name
  # Tensors that exist before the placeholders: a write to one of them is
  # a write to a tensor fn did not receive.
  before = dict(_XLAC._live_tensor_tokens())
  variables = [Variable(t.shape, to_code(t.dtype), device) for t in tensors]
  placeholders = [
      _placeholder(v, with_grad and t.requires_grad and t.is_floating_point(),
                   target.writes_inputs)
      for v, t in zip(variables, tensors)
  ]
  arguments = iter(placeholders[num_extra:])
  new_flat = [next(arguments) if _is_tensor(leaf) else leaf for leaf in flat]
  if isinstance(structure, int):
    args, kwargs = tuple(new_flat), {}
  else:
    args, kwargs = tree_unflatten(new_flat, structure[2])
  seeds = IterationSeeds(device)
  reads = _host_reads()
  try:
    with seeds.active(), torch.set_grad_enabled(with_grad), \
        _InputShardings(variables) as marked:
      result = target.call(placeholders[:num_extra], args, kwargs)
  except RuntimeError as e:
    # NotImplementedError is a RuntimeError too: an op without a rule.
    if "placeholder" in str(e) and not isinstance(e, NotImplementedError):
      raise ImpureFunctionError(
          f"assume_pure: {name} reads the value of a tensor it computes "
          f"(.item(), bool(t), `if t.sum() > 0`, t.tolist(), .cpu()); a "
          f"trace cannot replay a decision made on a value. Compute it "
          f"with tensor ops (torch.where), or do not assume_pure this "
          f"function") from e
    raise
  if _host_reads() != reads:
    raise ImpureFunctionError(
        f"assume_pure: {name} read a tensor's value on the host while it "
        f"was traced (.item(), .cpu(), printing); the value would be "
        f"frozen into every later call. Pass the value as an argument")
  flat_out, out_spec = tree_flatten(result)
  outputs, template = [], []
  for leaf in flat_out:
    leaf = getattr(leaf, "global_tensor", leaf)  # XLAShardedTensor
    if _is_tensor(leaf):
      if type(leaf) is not XlaTensor:
        raise ValueError(f"assume_pure: {name} returned a tensor on "
                         f"{leaf.device}; results must be 'xla' tensors")
      outputs.append(leaf)
      template.append(_SLOT)
    else:
      template.append(leaf)
  writes = _check_writes(name, before, variables, placeholders, num_extra,
                         target.writes_inputs)
  # An input the trace wrote in place: its new value is a result, which
  # every call writes into that input.
  raw = [xt_of(o) for o in outputs] + [xt_of(placeholders[i]) for i in writes]
  if marked.found:  # mark_sharding of an input: annotate its uses
    ids, annotated = [], []
    for v, sharding in marked.found.items():
      ids.append(v.id)
      annotated.append(
          _ir._op(_ir.K["sharding"], [v.handle], {"sharding": str(sharding)}))
    raw = _XLAC._replace(raw, ids, annotated)
  variable_ids = [v.id for v in variables] + [seeds.base.id, seeds.index.id]
  outside = _XLAC._loop_invariants(raw, variable_ids)
  if outside:
    shapes = ", ".join(str(h) for h in outside[:4])
    raise ImpureFunctionError(
        f"assume_pure: {name} reads {len(outside)} tensor value(s) it did "
        f"not receive ({shapes}): a global, or an attribute of an object "
        f"that is not a module. Pass them as arguments, or make them "
        f"parameters or buffers of the module")

  out_diff = [o.requires_grad for o in outputs]
  in_diff = [p.requires_grad for p in placeholders]
  tangents, backward = [], []
  if with_grad and any(out_diff) and any(in_diff):
    tangents = [
        Variable(o.shape, to_code(o.dtype), device)
        for o, d in zip(outputs, out_diff) if d
    ]
    wrt = [p for p, d in zip(placeholders, in_diff) if d]
    with torch.enable_grad():
      grads = torch.autograd.grad(
          [o for o, d in zip(outputs, out_diff) if d], wrt,
          [v.tensor() for v in tangents], allow_unused=True)
    backward = [
        xt_of(g) if g is not None else _staging.zeros(
            list(x.shape), to_code(x.dtype), device)
        for g, x in zip(grads, wrt)
    ]
  else:
    in_diff = [False] * len(placeholders)
  # One rewrite for both, so that they keep sharing the forward's nodes.
  inlined = _XLAC._inline_host_data(raw + backward)
  forward, backward = inlined[:len(raw)], inlined[len(raw):]
  uses_rng = seeds.count > 0
  seed_vars = [seeds.base, seeds.index] if uses_rng else []
  params = [v.handle for v in variables + seed_vars]
  staged = _Staged(
      device=device, uses_rng=uses_rng, num_outputs=len(outputs),
      out_diff=out_diff, in_diff=in_diff, template=template, writes=writes,
      out_spec=out_spec, backward=None, backward_reads=(),
      out_meta=[(list(o.shape), to_code(o.dtype)) for o in outputs],
      num_in_diff=sum(in_diff))
  if not forward:
    return staged
  if not backward:
    staged.forward = _XLAC._subgraph(params, forward)
    return staged
  tangent_ids = [v.id for v in tangents]
  residuals = _XLAC._saved_for_backward(backward, variable_ids,
                                        [v.id for v in variables],
                                        tangent_ids, False,
                                        forward_roots=forward)
  residual_vars = [Variable(h.dims, h.dtype, device) for h in residuals]
  backward = _XLAC._replace(backward, residuals,
                            [v.handle for v in residual_vars])
  staged.forward = _XLAC._subgraph(params, forward + residuals)
  staged.backward = _XLAC._subgraph(
      [v.handle for v in tangents + residual_vars + variables], backward)
  staged.backward_reads = tuple(range(len(variables)))
  return staged


class _InputShardings:
  """While fn is traced: mark_sharding of an input placeholder would only
  set the placeholder's own sharding, which a sub-graph parameter drops.
  Records it instead, so the trace annotates the input's uses."""

  def __init__(self, variables):
    self.by_data = {v.id: v for v in variables}
    self.found = {}
    self.original = _XLAC._xla_mark_sharding

  def __enter__(self):

    def mark(tensor, sharding):
      v = self.by_data.get(_XLAC._leaf_data_id(xt_of(tensor)))
      if v is not None and _XLAC._is_placecholder(tensor):
        self.found[v] = sharding
        return None
      return self.original(tensor, sharding)

    _XLAC._xla_mark_sharding = mark
    return self

  def __exit__(self, *exc):
    _XLAC._xla_mark_sharding = self.original


def _host_reads():
  import torch_xla.debug.metrics as met
  data = met.metric_data("TransferFromDeviceTime")
  return 0 if data is None else data[0]


def _placeholder(variable, requires_grad, writable):
  """The tensor fn is traced on for one input. A writable one is a second
  handle over the placeholder's data, so that a write gives it a new value
  and leaves the variable's handle, the sub-graph's parameter, as it is."""
  if not writable:
    return variable.tensor(requires_grad)
  t = wrap(_XLAC._clone(variable.handle))
  if requires_grad:
    t.requires_grad_(True)
  return t


def _check_writes(name, before, variables, placeholders, num_extra,
                  writes_inputs):
  """ImpureFunctionError for in-place writes the trace made; with
  `writes_inputs`, the indices of the inputs it wrote instead."""
  written_inputs = []
  for i, (v, p) in enumerate(zip(variables, placeholders)):
    if _XLAC._leaf_data_id(xt_of(p)) != v.id:
      if writes_inputs:
        written_inputs.append(i)
        continue
      what = (f"argument tensor {i - num_extra}" if i >= num_extra else
              "one of its module's parameters or buffers")
      raise ImpureFunctionError(
          f"assume_pure: {name} writes in place to {what} "
          f"({p.dtype} {list(p.shape)}); a replayed call would not "
          f"write it. Return the new value instead")
  written = [
      tid for tid, token in _XLAC._live_tensor_tokens()
      if tid in before and before[tid] != token
  ]
  if written:
    raise ImpureFunctionError(
        f"assume_pure: {name} writes in place to {len(written)} tensor(s) "
        f"it did not receive (tensor ids {written[:4]}); a replayed call "
        f"would not write them. Return the new values instead")
  return tuple(written_inputs)

