"""ATen op -> IR rules: registry, dispatch, decompositions (the CPU
fallback, the last resort, is cpu_fallback.py).

Adding an op: write a rule in the family's file under torch_xla/_ops and
decorate it with `@op(aten.foo.default, aten.foo.Tensor, ...)`, then add a
row to the op coverage test. A rule takes the ATen op's arguments (torch
tensors, 'xla' ones being torch_xla._tensor.XlaTensor) and returns what the
ATen op returns. Registering an overload twice is an error.

Dispatch order for an op reaching an 'xla' tensor:
  1. the exact overload's rule;
  2. for an out= overload, the functional overload's, written into `out`;
  3. PyTorch's decomposition of it (its ops come back here);
  4. CPU fallback: inputs are copied to the host, the op runs in eager
     PyTorch, results come back; the `aten::<op>` counter records it.
"""

import os

import torch

from torch_xla import _XLAC

aten = torch.ops.aten

RULES = {}


def op(*overloads):
  """Registers the decorated function as the rule for these ATen overloads."""

  def register(fn):
    for overload in overloads:
      if not isinstance(overload, torch._ops.OpOverload):
        raise TypeError(f"{fn.__name__}: {overload} is not an ATen overload "
                        f"(use e.g. aten.add.Tensor)")
      if overload in RULES:
        raise ValueError(
            f"duplicate rule for {overload}: {RULES[overload].__module__}."
            f"{RULES[overload].__name__} and {fn.__module__}.{fn.__name__}")
      RULES[overload] = fn
    return fn

  return register


def inplace_rule(functional):
  """The in-place rule derived from an op's functional rule, the one way to
  write one: x.op_(*args) commits op(x, *args), converted back to x's dtype
  as eager does, into x (a view writes back into its root; x keeps its
  tensor and alias IDs) and returns x. The result must have x's shape, as in
  eager. Register it like any rule: `op(aten.tril_.default)(inplace_rule(
  tril))`."""
  from torch_xla import _ir
  from torch_xla._dtypes import to_code
  from torch_xla._tensor import commit

  def rule(x, *args, **kwargs):
    value = functional(x, *args, **kwargs)._xt
    if value.dims != list(x.shape):
      raise RuntimeError(
          f"output with shape {list(x.shape)} doesn't match the broadcast "
          f"shape {value.dims}")
    return commit(x, _ir.convert(value, to_code(x.dtype)))

  rule.__name__ = functional.__name__ + "_"
  rule.__qualname__ = rule.__name__
  return rule


_decompositions = None


def _decomposition(func):
  global _decompositions
  if _decompositions is None:
    from torch._decomp import decomposition_table
    _decompositions = decomposition_table
  return _decompositions.get(func)


# Ops whose decomposition is running: some decompositions come back to the
# op they decompose (arange -> prims.iota -> arange); those fall back.
_decomposing = set()


def dispatch(func, args, kwargs):
  rule = RULES.get(func)
  if rule is not None:
    return rule(*args, **kwargs)
  # Before decompositions: those of out= overloads are prims-based refs.
  functional = _functional_of_out(func)
  if functional is not None:
    return _run_out_variant(func, functional, args, kwargs)
  decomposition = _decomposition(func)
  if decomposition is not None and func not in _decomposing:
    _decomposing.add(func)
    try:
      return decomposition(*args, **kwargs)
    finally:
      _decomposing.discard(func)
  # CompositeImplicit ops normally decompose before reaching us; some come
  # through (e.g. under autograd's no-grad paths).
  with torch._C._AutoDispatchBelowAutograd():
    decomposed = func.decompose(*args, **kwargs)
  if decomposed is not NotImplemented:
    return decomposed
  return _fallback(func, args, kwargs)


_FUNCTIONAL = {}  # out= overload -> its functional overload (or None)


def _functional_of_out(func):
  """For an out= overload (torch.maximum(a, b, out=c)), the overload of
  the same op taking the same inputs without `out`, if we lower it."""
  if func in _FUNCTIONAL:
    return _FUNCTIONAL[func]
  found = None
  arguments = func._schema.arguments
  if any(a.is_out for a in arguments):
    inputs = [(a.name, str(a.type)) for a in arguments if not a.is_out]
    packet = func.overloadpacket
    for name in packet.overloads():
      candidate = getattr(packet, name)
      schema = candidate._schema
      if (candidate is not func and not schema.is_mutable and
          [(a.name, str(a.type)) for a in schema.arguments] == inputs and
          (candidate in RULES or _decomposition(candidate) is not None)):
        found = candidate
        break
  _FUNCTIONAL[func] = found
  return found


def _run_out_variant(func, functional, args, kwargs):
  """The functional op's results written into the out= tensors, converted
  to their dtypes where eager allows it."""
  from torch_xla import _ir
  from torch_xla._dtypes import scalar_type_name, to_code
  from torch_xla._tensor import commit, xt_of

  out_names = [a.name for a in func._schema.arguments if a.is_out]
  outs = [kwargs[name] for name in out_names]
  inputs = {k: v for k, v in kwargs.items() if k not in out_names}
  result = functional(*args, **inputs)
  results = list(result) if isinstance(result, (tuple, list)) else [result]
  for out, value in zip(outs, results):
    if not torch.can_cast(value.dtype, out.dtype):
      if func is torch.ops.aten.cat.out:  # eager's cat checks its inputs
        raise TypeError(f"torch.cat(): input types can't be cast to the "
                        f"desired output type {scalar_type_name(out.dtype)}")
      raise RuntimeError(
          f"result type {scalar_type_name(value.dtype)} can't be cast to "
          f"the desired output type {scalar_type_name(out.dtype)}")
    if out.numel() == 0 and out.shape != value.shape:
      out.resize_(value.shape)  # eager resizes an empty out= silently
    if out.shape != value.shape:
      raise RuntimeError(
          f"{func._schema.name}: the out= tensor has shape {list(out.shape)} "
          f"but the result has shape {list(value.shape)}; 'xla' tensors "
          f"cannot be resized, so pass an out tensor of the result's shape")
  for out, value in zip(outs, results):
    commit(out, _ir.convert(xt_of(value), to_code(out.dtype)))
  return outs[0] if len(outs) == 1 else tuple(outs)


def _overload(qualified_name):
  """aten::add.Tensor -> torch.ops.aten.add.Tensor (.default when bare)."""
  namespace, name = qualified_name.split("::")
  name, _, overload = name.partition(".")
  return getattr(getattr(getattr(torch.ops, namespace), name),
                 overload or "default")


def _no_fallback(func, args, kwargs):
  raise NotImplementedError(f"{func}: no rule, and no CPU fallback "
                            f"registered (import torch_xla first)")


_fallback = _no_fallback  # the last resort: cpu_fallback.py's, once set


def register_dispatch(fallback):
  """Hands this registry to the C++ dispatch entry (once, after every family
  registered its rules): _XLAC._torch_dispatch then runs a C++ fast rule
  where one applies, else the rule in RULES, else `dispatch`, whose last
  resort is `fallback(func, args, kwargs)` (cpu_fallback.py; passed in, so
  this module imports no op family). TORCH_XLA_FAST_RULES=0 registers no
  fast rule."""
  global _fallback
  _fallback = fallback
  fast_rules = {}
  if os.environ.get("TORCH_XLA_FAST_RULES", "1") != "0":
    # Each fast rule declines unusual cases to the op's Python rule, which
    # must exist (_register_dispatch checks).
    fast_rules = {
        name: _overload(name) for name in _XLAC._fast_rule_names()
    }
  _XLAC._register_dispatch(rules=RULES, dispatch=dispatch,
                           fast_rules=fast_rules)
