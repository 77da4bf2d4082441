"""Shifts, sign-bit ops and the float helpers built on them: bitwise
shifts, signbit, copysign, exp2, hypot.

Shifts follow eager's integer semantics, which StableHLO's shifts already
have: an amount of the bit width or more (or negative, seen as a huge
unsigned amount) gives 0 to the left and the sign fill to the right;
right shifts are arithmetic for signed types, logical for unsigned ones.
signbit reads the float's sign bit (bitcast to the same-width integer), so
-0.0 and -NaN count as negative, as in eager.
"""

import torch

from torch_xla import _XLAC, _dtypes, _ir
from torch_xla._ops._common import code_of, result_type
from torch_xla._ops.elementwise import _check_inplace_cast, inplace_of
from torch_xla._ops.registry import aten, op

_UNSIGNED = (torch.uint8, torch.uint16, torch.uint32, torch.uint64)


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


# Codes of ops/float_math_ops.h's FloatMathOp (unary_math.py has the rest).
_EXP2, _SIGNBIT, _COPYSIGN, _HYPOT = 6, 7, 8, 9
_float_math = _XLAC._float_math


@op(aten.signbit.default)
def signbit(x):
  """The sign bit (a float's through its same-width integer bits, so -0.0
  and -NaN count); false for unsigned and bool. One C++ call."""
  return _float_math(_SIGNBIT, (x,), code_of(x.dtype))


def _float_of(*operands):
  dtype = result_type(*operands)
  return dtype if dtype.is_floating_point else torch.get_default_dtype()


@op(aten.copysign.Tensor, aten.copysign.Scalar)
def copysign(a, b, _inplace=False):
  """|a| with b's sign bit (in the promoted float type)."""
  return _float_math(_COPYSIGN, (a, b), code_of(_float_of(a, b)), 0,
                     _inplace)


op(aten.copysign_.Tensor, aten.copysign_.Scalar)(inplace_of(copysign))


@op(aten.exp2.default)
def exp2(x, _inplace=False):
  """2 ** x: exact at integers (a power, not exp(x ln 2))."""
  return _float_math(_EXP2, (x,), code_of(_float_of(x, x)), 0, _inplace)


op(aten.exp2_.default)(inplace_of(exp2))


@op(aten.hypot.default)
def hypot(a, b, _inplace=False):
  """sqrt(a^2 + b^2) without overflow: max * sqrt(1 + (min/max)^2); inf if
  either is inf (even with a NaN), as std::hypot; in f32 for the half
  types."""
  dtype = result_type(a, b)
  if not dtype.is_floating_point:
    raise RuntimeError(
        f"\"hypot_cpu\" not implemented for "
        f"'{_dtypes.scalar_type_name(dtype)}'")
  return _float_math(_HYPOT, (a, b), code_of(dtype), 0, _inplace)


op(aten.hypot_.default)(inplace_of(hypot))
