"""Staging a traced loop body out into one XLA While: the machinery that
scan, scan_layers and gradient_accumulation share.

High level design
-----------------
A body is traced once, abstractly, on placeholder tensors (shape and dtype,
no data: nothing is allocated or transferred). Its results are lazy IR over
those placeholders, the *variables*, and over whatever else the body used
(weights it closes over, tensors it creates). `Loop` turns such a trace into
the cond and body sub-graphs of a While:

  for i in range(n):                  # reversed: i = n-1 ... 0
    carry = carry_out(carry, xs[i])   # carried values
    ys[i] = y_out(carry, xs[i])       # stacked outputs

Values the body uses that depend on no variable (`_XLAC._loop_invariants`)
are loop-invariant inputs: computed once outside the loop and passed
through it, by reference (device data is never copied or fetched). Host
scalars and fills in the body become constants, so running the loop uploads
nothing. The loop counter is a constant-initialised carried value.

Random numbers: while a body is traced, random ops take their seed from
`IterationSeeds`, which derives one per (iteration, op) in the graph from
the loop index and a base seed that is drawn once per call.
"""

import contextlib
import functools
import types

import torch

from torch_xla import _XLAC, _ir
from torch_xla._ops import random_ops
from torch_xla._tensor import wrap

# Odd multipliers below 2^63 (constants are int64 attributes).
_INDEX_MIX = 0x1E3779B97F4A7C15
_OP_MIX = 0x3F58476D1CE4E5B9
_FINAL_MIX = 0x14D049BB133111EB


class Variable:
  """A placeholder handle and the data id it had when created (an in-place
  op inside the body may later give the handle another value)."""

  __slots__ = ("handle", "id", "dims", "code")

  def __init__(self, dims, code: int, device: int):
    self.handle = _XLAC._tensor_placeholder(list(dims), code, device)
    self.id = self.handle.data_id
    self.dims = list(dims)
    self.code = code

  def tensor(self, requires_grad=False) -> torch.Tensor:
    """A torch tensor over the placeholder, for tracing user code."""
    t = wrap(self.handle)
    if requires_grad:
      t.requires_grad_(True)
    return t


def const(value, code: int, device: int, dims=()):
  return _ir.constant(value, code, dims, device)


def zeros(dims, code: int, device: int):
  return const(0, code, device, dims)


def _index_start(index, rank: int, device: int):
  return [index] + [const(0, _ir.S64, device)] * (rank - 1)


def slice_at(stacked, index, device: int):
  """stacked[index] for a traced s64 index."""
  dims = stacked.dims
  piece = _ir.dynamic_slice(stacked, _index_start(index, len(dims), device),
                            [1] + dims[1:])
  return _ir.reshape(piece, dims[1:])


def update_at(stacked, value, index, device: int):
  """stacked with stacked[index] = value, for a traced s64 index."""
  dims = stacked.dims
  value = _ir.reshape(value, [1] + dims[1:])
  return _ir.dynamic_update_slice(stacked, value,
                                  _index_start(index, len(dims), device))


class IterationSeeds:
  """Seeds for random ops traced inside a loop body: the k-th random op of
  iteration i gets mix(base ^ (i+1)*A ^ (k+1)*B), computed in the graph from
  the variables `index` (s64) and `base` (u64)."""

  def __init__(self, device: int):
    self.index = Variable((), _ir.S64, device)
    self.base = Variable((), _ir.U64, device)
    self.count = 0

  def seed(self, device: int):
    u64 = _ir.U64
    z = _ir.binary("xor", self.base.handle,
                   _ir.binary(
                       "multiply",
                       _ir.convert(
                           _ir.binary("add", self.index.handle,
                                      const(1, _ir.S64, device)), u64),
                       const(_INDEX_MIX, u64, device)))
    z = _ir.binary("xor", z, const((self.count + 1) * _OP_MIX % (1 << 63),
                                   u64, device))
    z = _ir.binary("xor", z,
                   _ir.binary("shift_right_logical", z, const(31, u64, device)))
    z = _ir.binary("multiply", z, const(_FINAL_MIX, u64, device))
    self.count += 1
    return z

  @contextlib.contextmanager
  def active(self):
    previous = random_ops.seed_source
    random_ops.seed_source = self.seed
    try:
      yield self
    finally:
      random_ops.seed_source = previous

  @staticmethod
  def draw_base(device: int):
    """A fresh base seed from PyTorch's CPU generator (one per loop run)."""
    return _XLAC._tensor_scalar(random_ops.draw_seed(), _ir.U64, device)


class Loop:
  """The While for a traced body (see the module docstring).

  Args (all traced values are C++ handles):
    n: the number of iterations.
    carry: the carried Variables; carry_out: their values after one
      iteration, in the same order.
    xs: per-iteration Variables, each a slice of a stacked input.
    y_out: per-iteration values stacked into outputs.
    invariants: Variables standing for values the body receives from
      outside (see _XLAC._loop_invariants); passed to every call.
    index: a Variable standing for the iteration index inside the body.
    reverse: iterate from n-1 down to 0.
  """

  def __init__(self, n, device, carry, carry_out, xs, y_out, invariants,
               index=None, reverse=False):
    carry, xs, invariants = list(carry), list(xs), list(invariants)
    self.n = n
    self.device = device
    self.num_carry = len(carry)
    self.num_xs = len(xs)
    self.y_dims = [(y.dims, y.dtype) for y in y_out]
    counter = Variable((), _ir.S64, device)
    carried = [Variable(v.dims, v.code, device) for v in carry]
    stacked = [Variable([n] + v.dims, v.code, device) for v in xs]
    outputs = [Variable([n] + y.dims, y.dtype, device) for y in y_out]
    passed = [Variable(v.dims, v.code, device) for v in invariants]

    i = counter.handle
    if reverse:
      i = _ir.binary("subtract", const(n - 1, _ir.S64, device), i)
    sources = [v.id for v in carry + xs + invariants]
    targets = ([v.handle for v in carried] +
               [slice_at(s.handle, i, device) for s in stacked] +
               [p.handle for p in passed])
    if index is not None:
      sources.append(index.id)
      targets.append(i)
    values = _XLAC._replace(list(carry_out) + list(y_out), sources, targets)
    new_carry, ys = values[:len(carry)], values[len(carry):]
    for v, new in zip(carry, new_carry):
      if new.dims != v.dims or new.dtype != v.code:
        raise ValueError(
            f"the loop body changes a carried value from "
            f"{_shape_text(v.dims, v.code)} to {new.shape}; carried values "
            f"must keep their shape and dtype")
    parameters = ([counter] + carried + stacked + outputs + passed)
    results = ([_ir.binary("add", counter.handle, const(1, _ir.S64, device))] +
               new_carry + [s.handle for s in stacked] +
               [update_at(o.handle, y, i, device)
                for o, y in zip(outputs, ys)] + [p.handle for p in passed])
    handles = [p.handle for p in parameters]
    self.body = _XLAC._subgraph(handles, results)
    self.cond = _XLAC._subgraph(
        handles,
        [_ir.compare(counter.handle, const(n, _ir.S64, device), "LT")])

  def __call__(self, init, xs, invariants):
    """Runs (lazily) the loop: handles in, (final carry, stacked ys) out."""
    operands = ([const(0, _ir.S64, self.device)] + list(init) + list(xs) +
                [zeros([self.n] + dims, code, self.device)
                 for dims, code in self.y_dims] + list(invariants))
    out = _XLAC._while(self.cond, self.body, operands)
    start = 1 + self.num_carry + self.num_xs
    return (out[1:1 + self.num_carry], out[start:start + len(self.y_dims)])


def _shape_text(dims, code):
  return f"{_XLAC.DType(code).name}[{','.join(str(d) for d in dims)}]"


def autograd_mark() -> int:
  """A sequence number below every autograd node created from now on."""
  probe = torch.empty(0, requires_grad=True).view(0)
  return probe.grad_fn._sequence_nr()


def outer_grad_leaves(outputs, own, mark: int, what: str):
  """The leaf tensors requiring grad that `outputs` reach in the autograd
  graph without going through `own` (the body's placeholders): the
  tensors a traced body closed over that need gradients. A non-leaf
  tensor from outside the body (its autograd node is older than `mark`)
  cannot be given its gradient: ValueError naming it."""
  own_ids = {id(t) for t in own}
  leaves, seen_leaves, seen = [], set(), set()
  stack = [o.grad_fn for o in outputs if o.grad_fn is not None]
  while stack:
    node = stack.pop()
    if node is None or node in seen:
      continue
    seen.add(node)
    if type(node).__name__ == "AccumulateGrad":
      leaf = node.variable
      if id(leaf) not in own_ids and id(leaf) not in seen_leaves:
        seen_leaves.add(id(leaf))
        leaves.append(leaf)
      continue
    if node._sequence_nr() < mark:
      raise ValueError(
          f"{what} uses a tensor that requires grad and was computed outside "
          f"it (by {node.name()}); its gradient cannot flow through the "
          f"loop. Pass that tensor in as an input (carry or xs), compute it "
          f"inside the body from leaf tensors, or detach() it")
    stack.extend(next_node for next_node, _ in node.next_functions)
  return leaves


class InPlaceInputError(ValueError, AssertionError):
  """A traced body wrote in place to a tensor it may only read: one it
  closes over, or (gradient_accumulation) one of its inputs. The body is
  traced once and replayed per iteration, so such a write cannot happen
  per iteration. A ValueError; also an AssertionError, the class upstream
  torch_xla raises here."""


def _watched_tensors(fn):
  """{id: (name, tensor)} of the 'xla' tensors `fn` can reach by name: its
  closure cells, the globals its code (and nested code) names, defaults,
  partial arguments, and the tensors of a module it is bound to."""
  found = {}

  def add(name, value):
    if isinstance(value, torch.Tensor) and value.device.type == "xla":
      found.setdefault(id(value), (name, value))
    elif isinstance(value, torch.nn.Module):
      for sub, t in list(value.named_parameters()) + list(
          value.named_buffers()):
        add(f"{name}.{sub}", t)
      for attr, t in vars(value).items():
        add(f"{name}.{attr}", t)
    elif isinstance(value, (list, tuple)):
      for i, v in enumerate(value):
        add(f"{name}[{i}]", v)
    elif isinstance(value, dict):
      for k, v in value.items():
        add(f"{name}[{k!r}]", v)

  def visit(f, depth=0):
    if depth > 3 or f is None:
      return
    if isinstance(f, functools.partial):
      for i, a in enumerate(f.args):
        add(f"partial argument {i}", a)
      for k, a in f.keywords.items():
        add(k, a)
      visit(f.func, depth + 1)
      return
    if isinstance(f, types.MethodType):
      add("self", f.__self__)
      visit(f.__func__, depth + 1)
      return
    if isinstance(f, torch.nn.Module):
      add(type(f).__name__, f)
      return
    code = getattr(f, "__code__", None)
    if code is None:
      return
    for name, cell in zip(code.co_freevars, getattr(f, "__closure__", None) or
                          ()):
      try:
        value = cell.cell_contents
      except ValueError:  # an empty cell
        continue
      add(name, value)
      if isinstance(value, types.FunctionType):
        visit(value, depth + 1)
    for default in getattr(f, "__defaults__", None) or ():
      add("a default argument", default)
    scope = getattr(f, "__globals__", {})
    codes = [code]
    while codes:
      c = codes.pop()
      for name in c.co_names:
        if name in scope:
          add(name, scope[name])
      codes.extend(k for k in c.co_consts if isinstance(k, types.CodeType))

  visit(fn)
  return found


@contextlib.contextmanager
def no_outside_writes(fn, what: str):
  """Raises InPlaceInputError, naming the tensor, when the block (a trace
  of `fn`) wrote in place to an 'xla' tensor `fn` reaches from outside
  (see _watched_tensors)."""
  watched = _watched_tensors(fn)
  versions = {key: t._version for key, (_, t) in watched.items()}
  yield
  for key, (name, t) in watched.items():
    if t._version != versions[key]:
      raise InPlaceInputError(
          f"{what} wrote in place to `{name}` ({t.dtype} {list(t.shape)}), "
          f"a tensor from outside the body. The body is traced once, on "
          f"placeholder (FakeTensor-like) inputs, and replayed per "
          f"iteration, so a write to an outside tensor cannot happen per "
          f"iteration. Carry the value instead: pass it in `init` and "
          f"return its new value as part of the carry")
