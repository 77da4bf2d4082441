"""Shifts, sign-bit ops and the float helpers built on them: bitwise
shifts, signbit, copysign, exp2, hypot.

Shifts follow eager's integer semantics, which StableHLO's shifts already
have: an amount of the bit width or more (or negative, seen as a huge
unsigned amount) gives 0 to the left and the sign fill to the right;
right shifts are arithmetic for signed types, logical for unsigned ones.
signbit reads the float's sign bit (bitcast to the same-width integer), so
-0.0 and -NaN count as negative, as in eager.
"""

import math

import torch

from torch_xla import _XLAC, _dtypes, _ir
from torch_xla._ops._common import (binary_operands, code_of, device_of,
                                    literal, result_type)
from torch_xla._ops.elementwise import (_check_inplace_cast, inplace_commit,
                                        inplace_of)
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import wrap, xt_of

_UNSIGNED = (torch.uint8, torch.uint16, torch.uint32, torch.uint64)
_SAME_WIDTH_INT = {
    torch.float16: _ir.S16, torch.bfloat16: _ir.S16, torch.float32: _ir.S32,
    torch.float64: _ir.S64
}


def _shift(name, kind, a, b, inplace):
  """A shift of a by b in their promoted integer dtype: one C++ call; with
  `inplace`, a updated to it."""
  dtype = result_type(a, b)
  if inplace:  # eager checks the cast first
    _check_inplace_cast(a, dtype)
  if dtype.is_floating_point or dtype == torch.bool:
    raise NotImplementedError(
        f"\"{name}_cpu\" not implemented for "
        f"'{_dtypes.scalar_type_name(dtype)}'")
  if kind is None:
    kind = "shift_right_logical" if dtype in _UNSIGNED else \
        "shift_right_arithmetic"
  return _XLAC._elementwise_op(_ir.K[kind], (a, b), code_of(dtype), None,
                               inplace)


@op(aten.bitwise_left_shift.Tensor, aten.bitwise_left_shift.Tensor_Scalar,
    aten.bitwise_left_shift.Scalar_Tensor, aten.__lshift__.Tensor,
    aten.__lshift__.Scalar)
def bitwise_left_shift(a, b, _inplace=False):
  return _shift("lshift", "shift_left", a, b, _inplace)


@op(aten.bitwise_right_shift.Tensor, aten.bitwise_right_shift.Tensor_Scalar,
    aten.bitwise_right_shift.Scalar_Tensor, aten.__rshift__.Tensor,
    aten.__rshift__.Scalar)
def bitwise_right_shift(a, b, _inplace=False):
  return _shift("rshift", None, a, b, _inplace)


op(aten.bitwise_left_shift_.Tensor, aten.bitwise_left_shift_.Tensor_Scalar)(
    inplace_of(bitwise_left_shift))
op(aten.bitwise_right_shift_.Tensor,
   aten.bitwise_right_shift_.Tensor_Scalar)(inplace_of(bitwise_right_shift))


def _signbit(v, dtype, device):
  """Sign bit of handle v (of torch dtype `dtype`) as pred."""
  if dtype in _SAME_WIDTH_INT:
    code = _SAME_WIDTH_INT[dtype]
    bits = _ir._op(_ir.K["bitcast_convert"], [v], {"dtype": _ir.DT[code]})
    return _ir.compare(bits, literal(0, code, v.dims, device), "LT")
  if dtype in _UNSIGNED or dtype == torch.bool:
    return literal(False, _ir.PRED, v.dims, device)
  return _ir.compare(v, literal(0, v.dtype, v.dims, device), "LT")


@op(aten.signbit.default)
def signbit(x):
  return wrap(_signbit(xt_of(x), x.dtype, x.device.index))


def _float_of(*operands):
  dtype = result_type(*operands)
  return dtype if dtype.is_floating_point else torch.get_default_dtype()


@op(aten.copysign.Tensor, aten.copysign.Scalar)
def copysign(a, b):
  """|a| with b's sign bit (in the promoted float type)."""
  dtype = _float_of(a, b)
  va, vb = binary_operands(a, b, dtype)
  magnitude = _ir.unary("abs", va)
  return wrap(_ir.select(_signbit(vb, dtype, device_of(a, b)),
                         _ir.unary("negate", magnitude), magnitude))


op(aten.copysign_.Tensor, aten.copysign_.Scalar)(inplace_commit(copysign))


@op(aten.exp2.default)
def exp2(x):
  """2 ** x: exact at integers (a power, not exp(x ln 2))."""
  dtype = _float_of(x, x)
  v = _ir.convert(xt_of(x), code_of(dtype))
  return wrap(_ir.binary("power", literal(2, v.dtype, v.dims, x.device.index),
                         v))


op(aten.exp2_.default)(inplace_commit(exp2))


@op(aten.hypot.default)
def hypot(a, b):
  """sqrt(a^2 + b^2) without overflow: max * sqrt(1 + (min/max)^2); inf if
  either is inf (even with a NaN), as std::hypot."""
  dtype = result_type(a, b)
  if not dtype.is_floating_point:
    raise RuntimeError(
        f"\"hypot_cpu\" not implemented for "
        f"'{_dtypes.scalar_type_name(dtype)}'")
  code = code_of(dtype)
  acc = _ir.F32 if code in (_ir.BF16, _ir.F16) else code
  va, vb = binary_operands(a, b, dtype)
  va = _ir.unary("abs", _ir.convert(va, acc))
  vb = _ir.unary("abs", _ir.convert(vb, acc))
  shape, device = va.dims, device_of(a, b)

  def lit(value):
    return literal(value, acc, shape, device)

  big = _ir.binary("maximum", va, vb)
  small = _ir.binary("minimum", va, vb)
  ratio = _ir.binary("divide", small, big)
  scaled = _ir.binary("multiply", big, _ir.unary("sqrt", _ir.binary(
      "add", lit(1), _ir.binary("multiply", ratio, ratio))))
  scaled = _ir.select(_ir.compare(big, lit(0), "EQ"), lit(0), scaled)
  inf = lit(math.inf)
  either_inf = _ir.binary("or", _ir.compare(va, inf, "EQ"),
                          _ir.compare(vb, inf, "EQ"))
  return wrap(_ir.convert(_ir.select(either_inf, inf, scaled), code))


op(aten.hypot_.default)(inplace_commit(hypot))
