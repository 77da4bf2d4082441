"""Elementwise math of two tensors: arithmetic, division modes, comparisons,
logical and bitwise ops, where (functions of one tensor: unary_math.py).

Type promotion and broadcasting follow eager PyTorch: each rule picks the
promoted dtype and raises eager's errors, then makes one C++ call that
converts and broadcasts the operands (Python scalars become scalar
parameters, see _common.scalar), builds the op (csrc/ops: arithmetic_ops,
logical_ops, division_ops, select_ops) and returns the result tensor; an
in-place form passes `_inplace` and the same call commits the result into
x (eager's error for a result of another shape).
"""

import math

import torch

from torch_xla import _XLAC, _dtypes, _ir
from torch_xla._ops._common import check_same_device, result_type
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import XlaTensor


def _float_type(dtype: torch.dtype) -> torch.dtype:
  return dtype if dtype.is_floating_point else torch.get_default_dtype()


# Codes of ops/arithmetic_ops.h's ArithmeticOp: add/sub/mul/div are built
# there, for these rules and for the C++ fast rules alike.
_ADD, _SUB, _MUL, _DIV = 0, 1, 2, 3
_arithmetic = _XLAC._arithmetic
_CODES = _dtypes._CODES


def _inplace_binary(op, name, float_result=False):
  """x.op_(y) for a plain binary op: computed in the promoted dtype (a
  float type for div), rounded to x's dtype and committed into x, in one
  C++ call (ops/arithmetic_ops.h; ops::InPlaceResult raises eager's error
  for a result x's dtype cannot hold)."""

  def rule(x, y, alpha=1):
    if op == _SUB:
      _check_bool_sub(x, y)
    dtype = result_type(x, y)
    if float_result:
      dtype = _float_type(dtype)
    y, alpha = _scaled(y, alpha, dtype)
    return _XLAC._arithmetic_(op, x, y, _CODES[dtype], alpha)

  rule.__name__ = name + "_"
  return rule


_inplace_true_div = _inplace_binary(_DIV, "div", float_result=True)
_elementwise_op = _XLAC._elementwise_op


def _binary(name, a, b, compute_dtype, inplace=False):
  """One elementwise op of a and b in `compute_dtype`, in one C++ call;
  with `inplace`, a updated to it."""
  return _elementwise_op(_ir.K[name], (a, b), _CODES[compute_dtype], None,
                         inplace)


def _check_alpha(alpha, dtype):
  """Eager's checks of add/sub's alpha against the result dtype."""
  if isinstance(alpha, bool) and dtype != torch.bool:
    raise RuntimeError("Boolean alpha only supported for Boolean results.")
  if isinstance(alpha, float) and not (dtype.is_floating_point or
                                       dtype.is_complex):
    raise RuntimeError("For integral input tensors, argument alpha must not "
                       "be a floating point number.")
  if isinstance(alpha, complex) and not dtype.is_complex:
    raise RuntimeError("For non-complex input tensors, argument alpha must "
                       "not be a complex number.")


def _scaled(b, alpha, dtype):
  """(b, alpha) for the arithmetic bindings, which compute a op (b * alpha)
  in `dtype` in one call: a number (or cpu) b is scaled here, alpha 1 is
  None."""
  _check_alpha(alpha, dtype)
  if alpha == 1:
    return b, None
  if not isinstance(b, XlaTensor):
    return b * alpha, None
  return b, alpha


@op(aten.add.Tensor, aten.add.Scalar)
def add(a, b, alpha=1):
  dtype = result_type(a, b)
  b, alpha = _scaled(b, alpha, dtype)
  return _arithmetic(_ADD, a, b, _CODES[dtype], alpha)


def _is_bool(t):
  return isinstance(t, torch.Tensor) and t.dtype == torch.bool


def _check_bool_sub(a, b):
  """Eager refuses a subtraction with a bool tensor operand (either side,
  rsub's too)."""
  if _is_bool(a) and _is_bool(b):
    raise RuntimeError(
        "Subtraction, the `-` operator, with two bool tensors is not "
        "supported. Use the `^` or `logical_xor()` operator instead.")
  if _is_bool(a) or _is_bool(b):
    raise RuntimeError(
        "Subtraction, the `-` operator, with a bool tensor is not "
        "supported. If you are trying to invert a mask, use the `~` or "
        "`logical_not()` operator instead.")


@op(aten.sub.Tensor, aten.sub.Scalar)
def sub(a, b, alpha=1):
  _check_bool_sub(a, b)
  dtype = result_type(a, b)
  b, alpha = _scaled(b, alpha, dtype)
  return _arithmetic(_SUB, a, b, _CODES[dtype], alpha)


@op(aten.rsub.Tensor, aten.rsub.Scalar)
def rsub(a, b, alpha=1):
  _check_bool_sub(b, a)
  dtype = result_type(a, b)
  a, alpha = _scaled(a, alpha, dtype)
  return _arithmetic(_SUB, b, a, _CODES[dtype], alpha)


@op(aten.mul.Tensor, aten.mul.Scalar)
def mul(a, b):
  return _arithmetic(_MUL, a, b, _CODES[result_type(a, b)])  # bool: and


@op(aten.div.Tensor, aten.div.Scalar)
def div(a, b):
  return _arithmetic(_DIV, a, b, _CODES[_float_type(result_type(a, b))])


# Codes of ops/division_ops.h's DivisionOp (docs/integer_division.md).
_TRUNC, _FLOOR, _REMAINDER, _FMOD = 0, 1, 2, 3


def _check_inplace_cast(x, dtype):
  """Eager's refusal of an in-place result x's dtype cannot hold."""
  if not torch.can_cast(dtype, x.dtype):
    raise RuntimeError(
        f"result type {_dtypes.scalar_type_name(dtype)} can't be cast to "
        f"the desired output type {_dtypes.scalar_type_name(x.dtype)}")


_DIVISION_KERNELS = ("div_trunc_cpu", "div_floor_cpu", "remainder_cpu",
                     "fmod_cpu")


def _division(code, a, b, inplace):
  """Rounding division, remainder or fmod of a and b in their promoted
  dtype: one C++ call (ops/division_ops.h)."""
  dtype = result_type(a, b)
  if dtype == torch.bool:
    raise NotImplementedError(
        f"\"{_DIVISION_KERNELS[code]}\" not implemented for 'Bool'")
  if inplace:
    _check_inplace_cast(a, dtype)
  return _XLAC._division(code, a, b, _CODES[dtype], inplace)


@op(aten.div.Tensor_mode, aten.div.Scalar_mode)
def div_mode(a, b, rounding_mode=None, _inplace=False):
  if rounding_mode is None:
    if _inplace:
      return _inplace_true_div(a, b)
    return div(a, b)
  if rounding_mode not in ("trunc", "floor"):
    raise RuntimeError(
        f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
        f"but found '{rounding_mode}'")
  return _division(_TRUNC if rounding_mode == "trunc" else _FLOOR, a, b,
                   _inplace)


@op(aten.floor_divide.default, aten.floor_divide.Scalar)
def floor_divide(a, b, _inplace=False):
  return _division(_FLOOR, a, b, _inplace)


@op(aten.remainder.Tensor, aten.remainder.Scalar)
def remainder(a, b, _inplace=False):
  """Python-style modulo: the result takes the divisor's sign."""
  return _division(_REMAINDER, a, b, _inplace)


@op(aten.remainder.Scalar_Tensor)
def remainder_scalar_tensor(a, b):
  return _division(_REMAINDER, a, b, False)


@op(aten.fmod.Tensor, aten.fmod.Scalar)
def fmod(a, b, _inplace=False):
  """C's fmod: the result takes the dividend's sign."""
  return _division(_FMOD, a, b, _inplace)


_SQRT = _ir.K["sqrt"]
_RSQRT = _ir.K["rsqrt"]
# Where eager computes x ** 3 and x ** -2 as products (half types compute
# them in float and round once).
_POWER_BY_PRODUCTS = (torch.float32, torch.float64)


_NEGATIVE_INT_POWER = "Integers to negative integer powers are not allowed."


@op(aten.pow.Tensor_Scalar)
def pow_tensor_scalar(x, exponent, _inplace=False):
  dtype = result_type(x, exponent)
  if not (dtype.is_floating_point or dtype.is_complex) and type(
      exponent) is int and exponent < 0:
    raise RuntimeError(_NEGATIVE_INT_POWER)
  if _inplace:  # ops::InPlaceResult refuses a float result for an int x
    return _binary("power", x, exponent, dtype, True)
  code = _CODES[dtype]
  if exponent == 2:
    return _XLAC._square(x, code)
  if exponent == 1:  # eager copies x
    return _XLAC._to_dtype(x, code)
  # Eager's CPU kernel takes these exponents apart (PowKernel.cpp). A power
  # op would stay a libm powf per element: the exponent is a scalar
  # parameter, which XLA cannot simplify.
  if dtype.is_floating_point:
    if exponent == 0.5:
      return _XLAC._unary(_SQRT, x, code, False)
    if exponent == -0.5:
      return _XLAC._unary(_RSQRT, x, code, False)
    if exponent == -1:
      return _XLAC._reciprocal(x, code, False)
  if dtype in _POWER_BY_PRODUCTS:
    if exponent == 3:
      return _arithmetic(_MUL, _XLAC._square(x, code), x, code)
    if exponent == -2:
      return _XLAC._reciprocal(_XLAC._square(x, code), code, False)
  return _binary("power", x, exponent, dtype)


@op(aten.pow.Tensor_Tensor, aten.pow.Scalar)
def pow_(a, b, _inplace=False):
  return _binary("power", a, b, result_type(a, b), _inplace)


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
def bitwise_and(a, b, _inplace=False):
  return _bitwise("and", a, b, _inplace)


@op(aten.bitwise_or.Tensor, aten.bitwise_or.Scalar)
def bitwise_or(a, b, _inplace=False):
  return _bitwise("or", a, b, _inplace)


@op(aten.bitwise_xor.Tensor, aten.bitwise_xor.Scalar)
def bitwise_xor(a, b, _inplace=False):
  return _bitwise("xor", a, b, _inplace)


def _bitwise(name, a, b, inplace):
  dtype = result_type(a, b)
  if inplace:  # eager checks the cast first
    _check_inplace_cast(a, dtype)
  if dtype.is_floating_point or dtype.is_complex:
    raise NotImplementedError(
        f"\"bitwise_{name}_cpu\" not implemented for "
        f"'{_dtypes.scalar_type_name(dtype)}'")
  return _binary(name, a, b, dtype, inplace)


def _logical(name):
  """logical_and/or/xor: the truth values of both operands combined; the
  result is bool whatever the operands' dtype (eager's). One C++ call
  (ops/logical_ops.h)."""
  kind = _ir.K[name]

  def rule(a, b, _inplace=False):
    return _XLAC._logical(kind, a, b, _inplace)

  rule.__name__ = "logical_" + name
  return rule


logical_and = op(aten.logical_and.default)(_logical("and"))
logical_or = op(aten.logical_or.default)(_logical("or"))
logical_xor = op(aten.logical_xor.default)(_logical("xor"))


_COMPARE = _ir.K["compare"]


def _comparison(direction):

  def rule(a, b, _inplace=False):
    return _elementwise_op(_COMPARE, (a, b), _CODES[result_type(a, b)],
                           direction, _inplace)

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
op(aten.div_.Tensor, aten.div_.Scalar)(_inplace_true_div)


def inplace_of(rule):
  """The in-place form of a rule that takes `_inplace`: its one C++ call
  rounds the result to x's dtype and commits it into x (eager's error for
  a result of another shape)."""

  def inplace(x, *args, **kwargs):
    return rule(x, *args, _inplace=True, **kwargs)

  inplace.__name__ = rule.__name__ + "_"
  inplace.__qualname__ = inplace.__name__
  return inplace


for _functional, _overloads in (
    (div_mode, (aten.div_.Tensor_mode, aten.div_.Scalar_mode)),
    (remainder, (aten.remainder_.Tensor, aten.remainder_.Scalar)),
    (fmod, (aten.fmod_.Tensor, aten.fmod_.Scalar)),
    (floor_divide, (aten.floor_divide_.Tensor, aten.floor_divide_.Scalar)),
    (bitwise_and, (aten.bitwise_and_.Tensor, aten.bitwise_and_.Scalar)),
    (bitwise_or, (aten.bitwise_or_.Tensor, aten.bitwise_or_.Scalar)),
    (bitwise_xor, (aten.bitwise_xor_.Tensor, aten.bitwise_xor_.Scalar)),
    (logical_and, (aten.logical_and_.default,)),
    (logical_or, (aten.logical_or_.default,)),
    (logical_xor, (aten.logical_xor_.default,)),
    (eq, (aten.eq_.Tensor, aten.eq_.Scalar)),
    (ne, (aten.ne_.Tensor, aten.ne_.Scalar)),
    (lt, (aten.lt_.Tensor, aten.lt_.Scalar)),
    (le, (aten.le_.Tensor, aten.le_.Scalar)),
    (gt, (aten.gt_.Tensor, aten.gt_.Scalar)),
    (ge, (aten.ge_.Tensor, aten.ge_.Scalar)),
):
  op(*_overloads)(inplace_of(_functional))

for _functional, _overloads in (
    (pow_tensor_scalar, (aten.pow_.Scalar,)),
    (pow_, (aten.pow_.Tensor,)),
):
  op(*_overloads)(inplace_of(_functional))


@op(aten.heaviside.default)
def heaviside(x, values, _inplace=False):
  """0 where x < 0, `values` where x == 0, 1 where x > 0; eager refuses
  operands of two dtypes (no promotion)."""
  if x.dtype != values.dtype:
    raise RuntimeError(
        "heaviside is not yet implemented for tensors with different "
        "dtypes.")
  if x.dtype.is_complex:
    raise NotImplementedError(
        f"\"heaviside_cpu\" not implemented for "
        f"'{_dtypes.scalar_type_name(x.dtype)}'")
  return _XLAC._heaviside(x, values, _inplace)  # ops/select_ops.h


op(aten.heaviside_.default)(inplace_of(heaviside))


_REDUCED_FLOAT_MAX = {torch.float16: 65504.0, torch.bfloat16: 3.3895e38}


def _where_number(v, dtype):
  """where's number operand for a bf16/f16 result: eager rounds it to
  `dtype` through f32, unchecked (1e10 gives inf), unlike fill_."""
  if type(v) not in (int, float) or not math.isfinite(v) or \
      abs(v) <= _REDUCED_FLOAT_MAX[dtype]:
    return v
  return torch.tensor(v, dtype=torch.float32).to(dtype).item()


@op(aten.where.self, aten.where.ScalarSelf, aten.where.ScalarOther,
    aten.where.Scalar, torch.ops.prims.where.default)
def where(condition, a, b):
  """One C++ call (ops/select_ops.h) after eager's checks."""
  check_same_device("where", condition, a, b)
  if condition.dtype not in (torch.bool, torch.uint8):  # uint8: deprecated
    raise RuntimeError(
        f"where expected condition to be a boolean tensor, but got a tensor "
        f"with dtype {_dtypes.scalar_type_name(condition.dtype)}")
  dtype = result_type(a, b)
  if dtype in _REDUCED_FLOAT_MAX:
    a, b = _where_number(a, dtype), _where_number(b, dtype)
  return _XLAC._where(condition, a, b, _CODES[dtype])
