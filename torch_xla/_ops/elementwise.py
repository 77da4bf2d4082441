"""Elementwise math of two tensors: arithmetic, division modes, comparisons,
logical and bitwise ops, where (functions of one tensor: unary_math.py).

Type promotion and broadcasting follow eager PyTorch: operands are converted
to the promoted dtype and broadcast with broadcast_in_dim before the
primitive op; Python scalars become scalar parameters (see _common.scalar);
constants inside a formula are literals.
"""

import math

import torch

from torch_xla import _XLAC, _dtypes, _ir
from torch_xla._ops._common import (binary_operands, broadcast_shapes,
                                    check_same_device,
                                    code_of, device_of, elementwise, literal,
                                    result_type, scalar)
from torch_xla._ops.reductions import acc_code
from torch_xla._ops.registry import aten, inplace_rule, op
from torch_xla._tensor import XlaTensor, wrap, xt_of


def _float_type(dtype: torch.dtype) -> torch.dtype:
  return dtype if dtype.is_floating_point else torch.get_default_dtype()


# Codes of ops/arithmetic_ops.h's ArithmeticOp: add/sub/mul/div are built
# there, for these rules and for the C++ fast rules alike.
_ADD, _SUB, _MUL, _DIV = 0, 1, 2, 3
_arithmetic = _XLAC._arithmetic
_CODES = _dtypes._CODES


def _inplace_binary(op, name):
  """x.op_(y) for a plain binary op: computed in the promoted dtype after
  eager's promotion check, rounded to x's dtype and committed into x, in
  one C++ call (ops/arithmetic_ops.h)."""

  def rule(x, y, alpha=1):
    dtype = result_type(x, y)
    if dtype is not x.dtype and (dtype.is_floating_point and
                                 not x.dtype.is_floating_point):
      raise RuntimeError(
          f"result type {_dtypes.scalar_type_name(dtype)} can't be cast "
          f"to the desired output type "
          f"{_dtypes.scalar_type_name(x.dtype)}")
    return _XLAC._arithmetic_(op, x, _scaled(y, alpha, dtype),
                              _CODES[dtype])

  rule.__name__ = name + "_"
  return rule


def _binary(name, a, b, compute_dtype):
  return wrap(elementwise(_ir.K[name], (a, b), compute_dtype))


def _scaled(b, alpha, dtype):
  """b * alpha for add/sub's alpha argument, which eager checks against
  the result dtype first."""
  if isinstance(alpha, bool) and dtype != torch.bool:
    raise RuntimeError("Boolean alpha only supported for Boolean results.")
  if isinstance(alpha, float) and not (dtype.is_floating_point or
                                       dtype.is_complex):
    raise RuntimeError("For integral input tensors, argument alpha must not "
                       "be a floating point number.")
  if isinstance(alpha, complex) and not dtype.is_complex:
    raise RuntimeError("For non-complex input tensors, argument alpha must "
                       "not be a complex number.")
  if alpha == 1:
    return b
  if isinstance(b, XlaTensor):
    return mul(b, alpha)
  return b * alpha


@op(aten.add.Tensor, aten.add.Scalar)
def add(a, b, alpha=1):
  dtype = result_type(a, b)
  return _arithmetic(_ADD, a, _scaled(b, alpha, dtype), _CODES[dtype])


@op(aten.sub.Tensor, aten.sub.Scalar)
def sub(a, b, alpha=1):
  if isinstance(a, torch.Tensor) and a.dtype == torch.bool:
    raise RuntimeError(
        "Subtraction, the `-` operator, with two bool tensors is not "
        "supported. Use the `^` or `logical_xor()` operator instead.")
  dtype = result_type(a, b)
  return _arithmetic(_SUB, a, _scaled(b, alpha, dtype), _CODES[dtype])


@op(aten.rsub.Tensor, aten.rsub.Scalar)
def rsub(a, b, alpha=1):
  dtype = result_type(a, b)
  return _arithmetic(_SUB, b, _scaled(a, alpha, dtype), _CODES[dtype])


@op(aten.mul.Tensor, aten.mul.Scalar)
def mul(a, b):
  return _arithmetic(_MUL, a, b, _CODES[result_type(a, b)])  # bool: and


@op(aten.div.Tensor, aten.div.Scalar)
def div(a, b):
  return _arithmetic(_DIV, a, b, _CODES[_float_type(result_type(a, b))])


@op(aten.div.Tensor_mode, aten.div.Scalar_mode)
def div_mode(a, b, rounding_mode=None):
  dtype = result_type(a, b)
  if rounding_mode is None:
    return div(a, b)
  if dtype.is_floating_point:
    xa, xb = binary_operands(a, b, dtype)
    if rounding_mode == "trunc":  # eager truncates the rounded quotient
      return wrap(_trunc(_ir.binary("divide", xa, xb)))
    # Eager floors bf16/f16 in f32 and rounds once.
    code = code_of(dtype)
    acc = acc_code(code)
    return wrap(_ir.convert(
        _floor_divide(_ir.convert(xa, acc), _ir.convert(xb, acc)), code))
  xa, xb = binary_operands(a, b, dtype)
  q = _ir.binary("divide", xa, xb)  # integer division truncates
  if rounding_mode == "floor":
    # Round towards -inf when the signs differ and there is a remainder.
    code = code_of(dtype)
    zero = literal(0, code, xa.dims, device_of(a, b))
    r = _ir.binary("remainder", xa, xb)
    fix = _ir.binary(
        "and", _ir.compare(r, zero, "NE"),
        _ir.compare(
            _ir.compare(xa, zero, "LT"), _ir.compare(xb, zero, "LT"), "NE"))
    one = literal(1, code, xa.dims, device_of(a, b))
    q = _ir.select(fix, _ir.binary("subtract", q, one), q)
  return wrap(_zero_where_divisor_zero(q, xb))


def _zero_where_divisor_zero(result, divisor):
  """Integer x // 0, x % 0 and fmod(x, 0) are 0, as eager CUDA gives
  (docs/integer_division.md); XLA alone would give -1 and x."""
  zero = literal(0, divisor.dtype, divisor.dims, divisor.device)
  return _ir.select(_ir.compare(divisor, zero, "EQ"), zero, result)


def _floor_divide(a, b):
  """Eager's floor division of floats: from the exact remainder, not
  floor(a / b), which can round up to the next integer."""
  like = a.dims, a.device

  def lit(value):
    return literal(value, a.dtype, *like)

  mod = _ir.binary("remainder", a, b)  # fmod: the sign of a
  div = _ir.binary("divide", _ir.binary("subtract", a, mod), b)
  zero = lit(0)
  signs_differ = _ir.compare(_ir.compare(b, zero, "LT"),
                             _ir.compare(mod, zero, "LT"), "NE")
  div = _ir.select(
      _ir.binary("and", _ir.compare(mod, zero, "NE"), signs_differ),
      _ir.binary("subtract", div, lit(1)), div)
  floor = _ir.unary("floor", div)
  floor = _ir.select(
      _ir.compare(_ir.binary("subtract", div, floor), lit(0.5), "GT"),
      _ir.binary("add", floor, lit(1)), floor)
  # A zero result takes the sign of a / b (0 * sign(q) keeps -0.0);
  # b == 0 gives a / b itself (inf or nan), as IEEE division.
  quotient = _ir.binary("divide", a, b)
  signed_zero = _ir.binary("multiply", zero, _ir.unary("sign", quotient))
  floor = _ir.select(_ir.compare(div, zero, "EQ"), signed_zero, floor)
  return _ir.select(_ir.compare(b, zero, "EQ"), quotient, floor)


def _trunc(x):
  # trunc(x) = sign(x) * floor(|x|)
  return _ir.binary("multiply", _ir.unary("sign", x),
                    _ir.unary("floor", _ir.unary("abs", x)))


@op(aten.remainder.Tensor, aten.remainder.Scalar)
def remainder(a, b):
  # Python-style modulo: the result takes the divisor's sign.
  dtype = result_type(a, b)
  xa, xb = binary_operands(a, b, dtype)
  r = _ir.binary("remainder", xa, xb)
  zero = literal(0, code_of(dtype), xa.dims, device_of(a, b))
  fix = _ir.binary(
      "and", _ir.compare(r, zero, "NE"),
      _ir.compare(_ir.compare(r, zero, "LT"), _ir.compare(xb, zero, "LT"),
                  "NE"))
  r = _ir.select(fix, _ir.binary("add", r, xb), r)
  if not dtype.is_floating_point:
    r = _zero_where_divisor_zero(r, xb)
  return wrap(r)


def _floor_div(a, b):  # floor_divide_'s functional form
  return div_mode(a, b, rounding_mode="floor")


@op(aten.fmod.Tensor, aten.fmod.Scalar)
def fmod(a, b):
  dtype = result_type(a, b)
  if dtype.is_floating_point:
    return _binary("remainder", a, b, dtype)
  xa, xb = binary_operands(a, b, dtype)
  return wrap(_zero_where_divisor_zero(_ir.binary("remainder", xa, xb), xb))


@op(aten.pow.Tensor_Scalar)
def pow_tensor_scalar(x, exponent):
  dtype = result_type(x, exponent)
  if exponent == 2:
    return _XLAC._square(x, _CODES[dtype])
  if exponent == 1:
    return wrap(_XLAC._clone(_ir.convert(xt_of(x), code_of(dtype))))
  if exponent == 0.5 and dtype.is_floating_point:
    return wrap(_ir.unary("sqrt", _ir.convert(xt_of(x), code_of(dtype))))
  return _binary("power", x, exponent, dtype)


@op(aten.pow.Tensor_Tensor, aten.pow.Scalar)
def pow_(a, b):
  return _binary("power", a, b, result_type(a, b))


@op(aten.maximum.default)
def maximum(a, b):
  return _binary("maximum", a, b, result_type(a, b))


@op(aten.minimum.default)
def minimum(a, b):
  return _binary("minimum", a, b, result_type(a, b))


@op(aten.atan2.default)
def atan2(a, b):
  return _binary("atan2", a, b, _float_type(result_type(a, b)))


@op(aten.bitwise_and.Tensor, aten.bitwise_and.Scalar)
def bitwise_and(a, b):
  return _bitwise("and", a, b)


@op(aten.bitwise_or.Tensor, aten.bitwise_or.Scalar)
def bitwise_or(a, b):
  return _bitwise("or", a, b)


@op(aten.bitwise_xor.Tensor, aten.bitwise_xor.Scalar)
def bitwise_xor(a, b):
  return _bitwise("xor", a, b)


def _bitwise(name, a, b):
  dtype = result_type(a, b)
  if dtype.is_floating_point or dtype.is_complex:
    raise RuntimeError(
        f"\"bitwise_{name}_cpu\" not implemented for "
        f"'{_dtypes.scalar_type_name(dtype)}'")
  return _binary(name, a, b, dtype)


def _truth(x):
  """x != 0 as a pred handle (x a tensor or a number)."""
  if isinstance(x, XlaTensor):
    if x.dtype is torch.bool:
      return xt_of(x)
    return xt_of(ne(x, 0))
  return bool(x)


def _logical(name):
  """logical_and/or/xor: the truth values of both operands combined; the
  result is bool whatever the operands' dtype (eager's)."""

  def rule(a, b):
    return _binary(name, _truth(a), _truth(b), torch.bool)

  rule.__name__ = "logical_" + name
  return rule


logical_and = op(aten.logical_and.default)(_logical("and"))
logical_or = op(aten.logical_or.default)(_logical("or"))
logical_xor = op(aten.logical_xor.default)(_logical("xor"))


_COMPARE = _ir.K["compare"]


def _comparison(direction):

  def rule(a, b):
    return wrap(elementwise(_COMPARE, (a, b), result_type(a, b), direction))

  rule.__name__ = direction.lower()
  return rule


eq = op(aten.eq.Tensor, aten.eq.Scalar)(_comparison("EQ"))
ne = op(aten.ne.Tensor, aten.ne.Scalar)(_comparison("NE"))
lt = op(aten.lt.Tensor, aten.lt.Scalar)(_comparison("LT"))
le = op(aten.le.Tensor, aten.le.Scalar)(_comparison("LE"))
gt = op(aten.gt.Tensor, aten.gt.Scalar)(_comparison("GT"))
ge = op(aten.ge.Tensor, aten.ge.Scalar)(_comparison("GE"))

op(aten.add_.Tensor, aten.add_.Scalar)(_inplace_binary(_ADD, "add"))
op(aten.sub_.Tensor, aten.sub_.Scalar)(_inplace_binary(_SUB, "sub"))
op(aten.mul_.Tensor, aten.mul_.Scalar)(_inplace_binary(_MUL, "mul"))

for _functional, _overloads in (
    (div, (aten.div_.Tensor, aten.div_.Scalar)),
    (div_mode, (aten.div_.Tensor_mode, aten.div_.Scalar_mode)),
    (remainder, (aten.remainder_.Tensor, aten.remainder_.Scalar)),
    (fmod, (aten.fmod_.Tensor, aten.fmod_.Scalar)),
    (_floor_div, (aten.floor_divide_.Tensor, aten.floor_divide_.Scalar)),
    (pow_tensor_scalar, (aten.pow_.Scalar,)),
    (pow_, (aten.pow_.Tensor,)),
    (bitwise_and, (aten.bitwise_and_.Tensor, aten.bitwise_and_.Scalar)),
    (bitwise_or, (aten.bitwise_or_.Tensor, aten.bitwise_or_.Scalar)),
    (bitwise_xor, (aten.bitwise_xor_.Tensor, aten.bitwise_xor_.Scalar)),
    (logical_and, (aten.logical_and_.default,)),
    (logical_or, (aten.logical_or_.default,)),
    (logical_xor, (aten.logical_xor_.default,)),
    (eq, (aten.eq_.Tensor, aten.eq_.Scalar)),
    (ne, (aten.ne_.Tensor, aten.ne_.Scalar)),
    (lt, (aten.lt_.Tensor, aten.lt_.Scalar)),
    (gt, (aten.gt_.Tensor, aten.gt_.Scalar)),
):
  op(*_overloads)(inplace_rule(_functional))


_REDUCED_FLOAT_MAX = {torch.float16: 65504.0, torch.bfloat16: 3.3895e38}


def _where_number(v, dtype, device):
  """where's number operand for a bf16/f16 result: eager rounds it to
  `dtype` unchecked (1e10 gives inf), unlike fill_."""
  if type(v) not in (int, float) or not math.isfinite(v) or \
      abs(v) <= _REDUCED_FLOAT_MAX[dtype]:
    return v
  return literal(torch.tensor(v, dtype=torch.float32).to(dtype).item(),
                 code_of(dtype), (), device)


@op(aten.where.self, aten.where.ScalarSelf, aten.where.ScalarOther,
    aten.where.Scalar, torch.ops.prims.where.default)
def where(condition, a, b):
  check_same_device("where", condition, a, b)
  if condition.dtype not in (torch.bool, torch.uint8):  # uint8: deprecated
    raise RuntimeError(
        f"where expected condition to be a boolean tensor, but got a tensor "
        f"with dtype {_dtypes.scalar_type_name(condition.dtype)}")
  dtype = result_type(a, b)
  device = device_of(condition, a, b)
  cond = xt_of(condition) if isinstance(condition, XlaTensor) else \
      scalar(bool(condition.item()), _ir.PRED, device)
  cond = _ir.convert(cond, _ir.PRED)
  if dtype in _REDUCED_FLOAT_MAX:
    a, b = _where_number(a, dtype, device), _where_number(b, dtype, device)
  xa, xb = binary_operands(a, b, dtype)
  shape = broadcast_shapes(cond.dims, xa.dims)
  return wrap(
      _ir.select(
          _ir.broadcast_to(cond, shape), _ir.broadcast_to(xa, shape),
          _ir.broadcast_to(xb, shape)))
