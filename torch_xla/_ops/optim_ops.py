"""Optimizer math: lerp, addcmul, addcdiv and the `_foreach_*` list ops.

torch.optim's foreach=True paths (SGD, Adam, AdamW, ...) and
clip_grad_norm_ call `_foreach_*` ops on lists of parameters, gradients and
state. On 'xla' a list op is the single-tensor op traced once per element
(they all land in one graph anyway), but in ONE call into C++ per list
(csrc/python/foreach_bindings.cc): the rule here checks eager's errors and
picks each element's dtype as the single-tensor rule does, and the binding
builds each element with that rule's builder (ops/arithmetic_ops.h,
unary_ops.h, select_ops.h, optim_ops.h), committing in-place results in
list order. Scalars (lr, betas, bias corrections) become scalar parameters
as in the single-tensor rules: a new learning rate or step count never
recompiles. List ops whose single-tensor rule picks among several builders
(pow with scalar exponents, rounding of integers, copy) call that rule
per element.

lerp/addcmul/addcdiv follow eager's formulas (and its f32 "opmath" for
bf16/f16) so results match eager PyTorch closely; they are built in C++
(torch_xla/csrc/ops/optim_ops.h) by the builders the C++ fast rules of
lerp_/addcmul_/addcdiv_ call too. This module checks eager's errors.
"""

import torch

from torch_xla import _XLAC, _dtypes, _ir
from torch_xla._dtypes import _CODES
from torch_xla._ops import registry
from torch_xla._ops._common import (check_same_device, code_of, literal,
                                    result_type)
from torch_xla._ops.clamp import clamp_code
from torch_xla._ops.elementwise import _check_bool_sub, _float_type, _scaled
from torch_xla._ops.reductions import acc_code
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import XlaTensor, wrap, xt_of

_opmath = acc_code
op_ = op  # the registration decorator where `op` names an arithmetic code


def _dtype_name(dtype):
  """dtype names as eager's C++ messages print them."""
  return {torch.float32: "float", torch.float64: "double",
          torch.bfloat16: "c10::BFloat16", torch.float16: "c10::Half",
          torch.int64: "long int", torch.int32: "int"}.get(
              dtype, str(dtype).replace("torch.", ""))


# lerp ------------------------------------------------------------------------


def _check_lerp(x, end, weight):
  """Eager's errors; the formula (|w| < 0.5 ? x + w (end - x) :
  end - (end - x)(1 - w), in opmath) is ops/optim_ops.h's."""
  check_same_device("lerp", x, end, weight)
  is_tensor = isinstance(weight, torch.Tensor)
  if not (x.dtype.is_floating_point or x.dtype.is_complex):
    kernel = "lerp_kernel_tensor" if is_tensor else "lerp_kernel_scalar"
    raise NotImplementedError(
        f'"{kernel}" not implemented for '
        f"'{_dtypes.scalar_type_name(x.dtype)}'")
  if end.dtype != x.dtype:
    raise RuntimeError(f"expected dtype {_dtype_name(x.dtype)} for `end` but "
                       f"got dtype {_dtype_name(end.dtype)}")
  if is_tensor and weight.dtype != x.dtype:
    raise RuntimeError(f"expected dtype {_dtype_name(x.dtype)} for `weight` "
                       f"but got dtype {_dtype_name(weight.dtype)}")

@op(aten.lerp.Scalar, aten.lerp.Tensor)
def lerp(x, end, weight):
  _check_lerp(x, end, weight)
  return _XLAC._lerp(x, end, weight, False)


@op(aten.lerp_.Scalar, aten.lerp_.Tensor)
def lerp_(x, end, weight):
  _check_lerp(x, end, weight)
  return _XLAC._lerp(x, end, weight, True)


# addcmul / addcdiv -----------------------------------------------------------


def _addc(kind, x, t1, t2, value, inplace):
  """x + value * t1 * t2 (kind "multiply") or x + value * t1 / t2
  ("divide"), evaluated left to right like eager, in opmath
  (ops/optim_ops.h); a new tensor, or x updated with `inplace`."""
  code, value = _addc_plan(kind, x, t1, t2, value)
  name = "addcmul_" if kind == "multiply" else "addcdiv_"
  return _XLAC._addc(_ir.K[kind], x, t1, t2, value, code, inplace, name)


def _addc_plan(kind, x, t1, t2, value):
  """(dtype code, value or None for 1) of addcmul/addcdiv after eager's
  checks (also the _foreach_ forms')."""
  name = "addcmul" if kind == "multiply" else "addcdiv"
  check_same_device(name, x, t1, t2)
  dtype = torch.promote_types(torch.promote_types(x.dtype, t1.dtype),
                              t2.dtype)
  if kind == "divide" and not dtype.is_floating_point:
    raise RuntimeError(
        "Integer division with addcdiv is no longer supported, and in a "
        "future  release addcdiv will perform a true division of tensor1 "
        "and tensor2. The historic addcdiv behavior can be implemented as "
        "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) "
        "for integer inputs and as (input + value * tensor1 / tensor2) for "
        "float inputs. The future addcdiv behavior is just the latter "
        "implementation: (input + value * tensor1 / tensor2), for all "
        "dtypes.")
  if isinstance(value, (int, float)) and value == 1:
    value = None  # no multiplication, as eager
  return code_of(dtype), value


@op(aten.addcmul.default)
def addcmul(x, t1, t2, value=1):
  return _addc("multiply", x, t1, t2, value, False)


@op(aten.addcmul_.default)
def addcmul_(x, t1, t2, value=1):
  return _addc("multiply", x, t1, t2, value, True)


@op(aten.addcdiv.default)
def addcdiv(x, t1, t2, value=1):
  return _addc("divide", x, t1, t2, value, False)


@op(aten.addcdiv_.default)
def addcdiv_(x, t1, t2, value=1):
  return _addc("divide", x, t1, t2, value, True)


# _foreach_* ------------------------------------------------------------------
#
# Each list op is one _XLAC call (csrc/python/foreach_bindings.cc): the rule
# checks eager's errors and picks each element's dtype as the single-tensor
# rule does, then the binding builds every element with that rule's builder
# and, in place, commits each result in list order.

_ADD, _SUB, _MUL, _DIV = 0, 1, 2, 3  # ops/arithmetic_ops.h's ArithmeticOp


def _check_lists(name, *lists):
  n = len(lists[0])
  for other in lists[1:]:
    if len(other) != n:
      raise RuntimeError(f"{name}: Tensor lists must have the same number of "
                         f"tensors, got {n} and {len(other)}")


def _scalars_of(name, scalars, n):
  """A ScalarList or a 1-d tensor of scalars as a list of n entries."""
  if isinstance(scalars, XlaTensor):
    # One 0-dim handle per entry: the values stay on the device.
    v = xt_of(scalars)
    values = [
        wrap(_ir.reshape(_ir.slice_(v, [i], [i + 1]), []))
        for i in range(scalars.shape[0])
    ]
  elif isinstance(scalars, torch.Tensor):
    values = scalars.tolist()
  else:
    values = list(scalars)
  if len(values) != n:
    raise RuntimeError(f"{name}: Tensor list must have same number of "
                       f"elements as scalar list, got {n} and {len(values)}")
  return values


def _others(name, overload, self, other):
  """The second operand per element for an overload: List (a list of n
  tensors), Scalar or Tensor (one, repeated), ScalarList."""
  n = len(self)
  if overload == "List":
    _check_lists(name, self, other)
    return list(other)
  if overload == "ScalarList":
    return _scalars_of(name, other, n)
  return [other] * n


def _arithmetic_lists(op, name, self, others, alpha, inplace):
  """_foreach_add/sub/mul/div: each element's dtype and alpha as
  elementwise.py's add/sub/mul/div (and their in-place forms) pick them."""
  codes, scaled, alphas = [], [], []
  for a, b in zip(self, others):
    if op == _SUB:
      _check_bool_sub(a, b)
    dtype = result_type(a, b)
    if op == _DIV:
      dtype = _float_type(dtype)
    if op in (_ADD, _SUB):
      b, a_ = _scaled(b, alpha, dtype)
    else:
      a_ = None
    codes.append(_CODES[dtype])
    scaled.append(b)
    alphas.append(a_)
  return _XLAC._foreach_arithmetic(op, list(self), scaled, codes, alphas,
                                   inplace, name)


def _register_arithmetic(base, op):
  for inplace in (False, True):
    name = f"_foreach_{base}{'_' if inplace else ''}"
    packet = getattr(aten, name)
    for overload in packet.overloads():
      if overload.endswith("_out"):
        continue

      def rule(self, other, alpha=1, _inplace=inplace, _name=name,
               _overload=overload):
        others = _others(_name, _overload, self, other)
        return _arithmetic_lists(op, _name, self, others, alpha, _inplace)

      op_(getattr(packet, overload))(rule)


def _clamp_lists(name, self, lows, highs, inplace):
  """clamp(self[i], lows[i], highs[i]) per element, as clamp.py's rules."""
  codes = [clamp_code(x, lo, hi, inplace)
           for x, lo, hi in zip(self, lows, highs)]
  return _XLAC._foreach_clamp(list(self), lows, highs, codes, inplace, name)


def _register_extreme(base, low):
  """_foreach_maximum/minimum/clamp_min/clamp_max: with scalars a clamp
  (as eager's foreach kernels); with a tensor list, maximum/minimum as the
  binary op, clamp_min/max as clamp with tensor bounds."""
  for inplace in (False, True):
    name = f"_foreach_{base}{'_' if inplace else ''}"
    packet = getattr(aten, name)
    for overload in ("List", "Scalar", "ScalarList"):

      def rule(self, other, _inplace=inplace, _name=name, _overload=overload):
        others = _others(_name, _overload, self, other)
        if _overload == "List" and base in ("maximum", "minimum"):
          codes = [_CODES[result_type(a, b)] for a, b in zip(self, others)]
          return _XLAC._foreach_binary(_ir.K[base], list(self), others, codes,
                                       _inplace, _name)
        nones = [None] * len(self)
        lows, highs = (others, nones) if low else (nones, others)
        return _clamp_lists(_name, self, lows, highs, _inplace)

      op_(getattr(packet, overload))(rule)


_register_arithmetic("add", _ADD)
_register_arithmetic("sub", _SUB)
_register_arithmetic("mul", _MUL)
_register_arithmetic("div", _DIV)
_register_extreme("maximum", low=True)
_register_extreme("minimum", low=False)
_register_extreme("clamp_min", low=True)
_register_extreme("clamp_max", low=False)


def _single(overload):
  """Calls the registry for one single-tensor ATen overload."""
  dispatch = registry.dispatch

  def call(*args, **kwargs):
    return dispatch(overload, args, kwargs)

  return call


def _apply(fn, inplace, name, tensors, *per_item):
  """fn(tensor, *items) for each tensor, one rule call each (the list ops
  without a list binding); commits for in-place ops."""
  results = []
  for t, *items in zip(tensors, *per_item):
    out = fn(t, *items)
    if inplace:
      _XLAC._commit_inplace(t, out, name)
    else:
      results.append(out)
  return None if inplace else results


def _register_pow():
  """pow of two tensor lists is one call (the binary op, as pow's rule);
  with scalar exponents each element goes through pow's rule, which picks
  among several builders by exponent."""
  scalar_fn = _single(aten.pow.Tensor_Scalar)
  for inplace in (False, True):
    name = f"_foreach_pow{'_' if inplace else ''}"
    packet = getattr(aten, name)

    def on_list(self, other, _inplace=inplace, _name=name):
      _check_lists(_name, self, other)
      codes = [_CODES[result_type(a, b)] for a, b in zip(self, other)]
      return _XLAC._foreach_binary(_ir.K["power"], list(self), list(other),
                                   codes, _inplace, _name)

    def on_scalar(self, exponent, _inplace=inplace, _name=name):
      return _apply(lambda a: scalar_fn(a, exponent), _inplace, _name, self)

    def on_scalar_list(self, exponents, _inplace=inplace, _name=name):
      values = _scalars_of(_name, exponents, len(self))
      return _apply(scalar_fn, _inplace, _name, self, values)

    op_(packet.List)(on_list)
    op_(packet.Scalar)(on_scalar)
    op_(packet.ScalarList)(on_scalar_list)


_register_pow()


@op(aten._foreach_pow.ScalarAndTensor)
def _foreach_pow_scalar_and_tensor(base, exponents):
  pow_ = _single(aten.pow.Scalar)
  return [pow_(base, e) for e in exponents]


_UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc",
          "exp", "expm1", "floor", "frac", "lgamma", "log", "log10", "log1p",
          "log2", "neg", "reciprocal", "round", "rsqrt", "sigmoid", "sign",
          "sin", "sinh", "sqrt", "tan", "tanh", "trunc")


def _plans(rule, attribute, tensors):
  """The rule's plan for each tensor's dtype, or None unless all have one."""
  plan = getattr(rule, attribute, None)
  if plan is None or not tensors:
    return None
  plans = [plan(t.dtype) for t in tensors]
  return plans if all(p is not None for p in plans) else None


def _register_unary(base):
  """One call over the list where the single-tensor rule is one _unary
  call for every element's dtype (its `unary_plan(dtype)`: kind, dtype
  code, opmath; unary_math.py), one _float_math call (its
  `float_math_plan(dtype)`: atan, log2, log10, trunc) or one _reciprocal
  call (`reciprocal_plan`); the others (frac, ..., or an integer tensor's
  floor) call the rule per element."""
  overload = getattr(aten, base).default
  fn = _single(overload)

  def run(self, inplace, name):
    rule = registry.RULES.get(overload)
    plans = _plans(rule, "unary_plan", self)
    if plans is not None:
      kind, _, opmath = plans[0]
      return _XLAC._foreach_unary(kind, list(self), [p[1] for p in plans],
                                  opmath, inplace, name)
    plans = _plans(rule, "float_math_plan", self)
    if plans is not None:
      return _XLAC._foreach_float_math(plans[0][0], list(self),
                                       [p[1] for p in plans], inplace, name)
    plans = _plans(rule, "reciprocal_plan", self)
    if plans is not None:
      return _XLAC._foreach_reciprocal(list(self), plans, inplace, name)
    if inplace:
      return _apply(fn, True, name, self)
    return [fn(t) for t in self]

  op_(getattr(aten, f"_foreach_{base}").default)(
      lambda self: run(self, False, f"_foreach_{base}"))
  op_(getattr(aten, f"_foreach_{base}_").default)(
      lambda self: run(self, True, f"_foreach_{base}_"))


for _base in _UNARY:
  _register_unary(_base)


def _register_addc(base, kind):
  for inplace in (False, True):
    name = f"_foreach_{base}{'_' if inplace else ''}"
    packet = getattr(aten, name)

    def on_values(self, t1, t2, values, _inplace=inplace, _name=name):
      _check_lists(_name, self, t1, t2)
      codes, scales = [], []
      for x, a, b, v in zip(self, t1, t2, values):
        code, scale = _addc_plan(kind, x, a, b, v)
        codes.append(code)
        scales.append(scale)
      return _XLAC._foreach_addc(_ir.K[kind], list(self), list(t1), list(t2),
                                 scales, codes, _inplace, _name)

    def on_scalar(self, t1, t2, value=1, _on_values=on_values):
      return _on_values(self, t1, t2, [value] * len(self))

    def on_scalars(self, t1, t2, scalars, _name=name, _on_values=on_values):
      return _on_values(self, t1, t2, _scalars_of(_name, scalars, len(self)))

    op_(packet.Scalar)(on_scalar)
    op_(packet.ScalarList, packet.Tensor)(on_scalars)


_register_addc("addcmul", "multiply")
_register_addc("addcdiv", "divide")


def _register_lerp():
  for inplace in (False, True):
    name = f"_foreach_lerp{'_' if inplace else ''}"
    packet = getattr(aten, name)

    def on_weights(self, ends, weights, _inplace=inplace, _name=name):
      _check_lists(_name, self, ends)
      for x, e, w in zip(self, ends, weights):
        _check_lerp(x, e, w)
      return _XLAC._foreach_lerp(list(self), list(ends), weights, _inplace,
                                 _name)

    def on_list(self, ends, weights, _name=name, _on_weights=on_weights):
      _check_lists(_name, self, weights)
      return _on_weights(self, ends, list(weights))

    def on_scalar(self, ends, weight, _on_weights=on_weights):
      return _on_weights(self, ends, [weight] * len(self))

    def on_scalars(self, ends, weights, _name=name, _on_weights=on_weights):
      return _on_weights(self, ends, _scalars_of(_name, weights, len(self)))

    op_(packet.List)(on_list)
    op_(packet.Scalar)(on_scalar)
    op_(packet.ScalarList)(on_scalars)


_register_lerp()


def _power_sum(v, ord_, acc, device):
  """sum(|v|^ord) over all elements of handle v (in `acc`)."""
  shape = v.dims
  a = _ir.unary("abs", _ir.convert(v, acc))
  if ord_ == 2:
    p = _ir.binary("multiply", a, a)
  elif ord_ == 1:
    p = a
  else:
    p = _ir.binary("power", a, literal(ord_, acc, shape, device))
  return _ir.reduce(p, list(range(len(shape))), "sum")


@op(aten._foreach_norm.Scalar)
def _foreach_norm(self, ord=2, dtype=None):
  """Each tensor's vector norm: one _XLAC call for the list
  (ops/reduction_ops.h VectorNorm, in opmath)."""
  for t in self:
    if not (dtype or t.dtype).is_floating_point:
      raise RuntimeError(f"_foreach_norm: expected a floating point tensor, "
                         f"got {t.dtype}")
  return _XLAC._foreach_vector_norm(
      list(self), float(ord), None if dtype is None else code_of(dtype))


@op(aten._foreach_powsum.Scalar)
def _foreach_powsum(self, ord=2, dtype=None):
  out = []
  for t in self:
    code = code_of(dtype or t.dtype)
    acc = _opmath(code)
    out.append(wrap(_ir.convert(
        _power_sum(xt_of(t), float(ord), acc, t.device.index), code)))
  return out


@op(aten._foreach_max.default)
def _foreach_max(self):
  for t in self:
    if t.numel() == 0:
      raise RuntimeError("_foreach_max: max(): Expected reduction dim to be "
                         "specified for input.numel() == 0.")
  return _XLAC._foreach_max(list(self))  # one call (ops/reduction_ops.h)


@op(aten._foreach_zero_.default)
def _foreach_zero_(self):
  _XLAC._foreach_zero(list(self), True)


@op(aten._foreach_zero.default)
def _foreach_zero(self):
  return _XLAC._foreach_zero(list(self), False)


@op(aten._foreach_copy_.default)
def _foreach_copy_(self, src, non_blocking=False):
  _check_lists("_foreach_copy_", self, src)
  copy = _single(aten.copy_.default)
  for dst, s in zip(self, src):
    copy(dst, s, non_blocking)


@op(aten._foreach_copy.default)
def _foreach_copy(self, src, non_blocking=False):
  _check_lists("_foreach_copy", self, src)
  clone = _single(aten.clone.default)
  copy = _single(aten.copy_.default)
  return [copy(clone(dst), s, non_blocking) for dst, s in zip(self, src)]


@op(aten._foreach_clone.default)
def _foreach_clone(self):
  clone = _single(aten.clone.default)
  return [clone(t) for t in self]
