"""Elementwise functions of one tensor: math functions, rounding, tests
(isnan, isinf) and activations (relu, silu, gelu, mish, the hard and
parameterized ones, threshold) with their gradients. Binary arithmetic, comparisons and where are in elementwise.py.
Math functions and activations are one C++ call each (csrc/ops:
unary_ops, activation_ops); an activation's in-place form passes
`_inplace` to the same call.

Integer inputs of math functions compute in the default float type, as
eager's do; constants inside a formula (0 in relu, 0.5 in gelu) are
literals.
"""

import torch

from torch_xla import _XLAC, _dtypes, _ir
from torch_xla._dtypes import _CODES
from torch_xla._ops.elementwise import _float_type, inplace_of
from torch_xla._ops.registry import aten, op


def _unary_float(name, opmath=False):
  """A math function: integer inputs compute in the default float type.
  With `opmath`, bf16/f16 compute in f32 and round once, as eager's kernels
  do (for the CHLO expansions, which would otherwise round every step in
  the half type). Built by ops/unary_ops.h, as the C++ fast rules build
  it."""
  kind = _ir.K[name]

  def rule(x, _inplace=False):
    return _XLAC._unary(kind, x, _CODES[_float_type(x.dtype)], opmath,
                        _inplace)

  rule.__name__ = name
  # What the rule's one call is for a dtype, (kind, dtype code, opmath): the
  # _foreach_ rule's one call over a list (optim_ops.py).
  rule.unary_plan = lambda dtype: (kind, _CODES[_float_type(dtype)], opmath)
  return rule


def _unary_opmath(name):
  return _unary_float(name, opmath=True)


_UNSIGNED = (torch.uint8, torch.uint16, torch.uint32, torch.uint64)


_MINIMUM = _ir.K["minimum"]
_NEGATE_BOOL = (
    "Negation, the `-` operator, on a bool tensor is not supported. If you "
    "are trying to invert a mask, use the `~` or `logical_not()` operator "
    "instead.")


def _unary_same(name):
  """neg, abs, sign in x's dtype, one C++ call each; eager refuses
  -bool and abs(bool)."""
  kind = _ir.K[name]

  def rule(x, _inplace=False):
    if x.dtype is torch.bool and name == "negate":
      raise RuntimeError(_NEGATE_BOOL)
    if x.dtype is torch.bool and name == "abs":
      raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    if x.dtype in _UNSIGNED or x.dtype is torch.bool:
      if name == "abs":  # |x| = x
        return x if _inplace else _XLAC._copy_of(x)
      if name == "sign":  # 0 or 1 = min(x, 1) (bool: x itself)
        return _XLAC._elementwise_op(_MINIMUM, (x, 1), _CODES[x.dtype],
                                     None, _inplace)
    return _XLAC._unary(kind, x, _CODES[x.dtype], False, _inplace)

  rule.__name__ = name
  # As _unary_float's; None where the rule is not that one call.
  rule.unary_plan = lambda dtype: (
      None if dtype in _UNSIGNED or dtype is torch.bool else
      (kind, _CODES[dtype], False))
  return rule


_UNARY = (
    (_unary_float("exponential"), aten.exp.default, aten.exp_.default),
    (_unary_float("exponential_minus_one"), aten.expm1.default,
     aten.expm1_.default),
    (_unary_float("log"), aten.log.default, aten.log_.default),
    (_unary_float("log_plus_one"), aten.log1p.default, aten.log1p_.default),
    (_unary_float("sqrt"), aten.sqrt.default, aten.sqrt_.default),
    (_unary_float("rsqrt"), aten.rsqrt.default, aten.rsqrt_.default),
    (_unary_float("sine"), aten.sin.default, aten.sin_.default),
    (_unary_float("cosine"), aten.cos.default, aten.cos_.default),
    (_unary_float("tan"), aten.tan.default, aten.tan_.default),
    (_unary_float("tanh"), aten.tanh.default, aten.tanh_.default),
    (_unary_float("logistic"), aten.sigmoid.default, aten.sigmoid_.default),
    (_unary_float("erf"), aten.erf.default, aten.erf_.default),
    (_unary_opmath("acos"), aten.acos.default, aten.acos_.default),
    (_unary_opmath("acosh"), aten.acosh.default, aten.acosh_.default),
    (_unary_opmath("asin"), aten.asin.default, aten.asin_.default),
    (_unary_opmath("asinh"), aten.asinh.default, aten.asinh_.default),
    (_unary_opmath("atanh"), aten.atanh.default, aten.atanh_.default),
    (_unary_opmath("cosh"), aten.cosh.default, aten.cosh_.default),
    (_unary_opmath("sinh"), aten.sinh.default, aten.sinh_.default),
    (_unary_same("negate"), aten.neg.default, aten.neg_.default),
    (_unary_same("abs"), aten.abs.default, aten.abs_.default),
    (_unary_same("sign"), aten.sign.default, aten.sign_.default),
)
for _rule, _functional_overload, _inplace_overload in _UNARY:
  op(_functional_overload)(_rule)
  op(_inplace_overload)(inplace_of(_rule))


# Codes of ops/float_math_ops.h's FloatMathOp: the math functions without
# a single primitive, one C++ call each (bit_math.py has exp2, signbit,
# copysign, hypot).
_TRUNC, _ATAN, _LOG2, _LOG10, _ISINF, _ROUND_DECIMALS = range(6)
_float_math = _XLAC._float_math


def _float_math_rule(code, name):
  """A math function of one tensor (integers in the default float type)."""

  def rule(x, _inplace=False):
    return _float_math(code, (x,), _CODES[_float_type(x.dtype)], 0, _inplace)

  rule.__name__ = name
  # What the rule's one call is for a dtype, (op code, dtype code): the
  # _foreach_ rule's one _float_math call over a list (optim_ops.py).
  rule.float_math_plan = lambda dtype: (code, _CODES[_float_type(dtype)])
  return rule


# atan(x) = atan2(2x, 2) (StableHLO has no atan); log2, log10: the natural
# log times 1/ln 2, 1/ln 10 in f32 for the half types.
for _code, _name, _functional_overload, _inplace_overload in (
    (_ATAN, "atan", aten.atan.default, aten.atan_.default),
    (_LOG2, "log2", aten.log2.default, aten.log2_.default),
    (_LOG10, "log10", aten.log10.default, aten.log10_.default),
):
  _rule = _float_math_rule(_code, _name)
  op(_functional_overload)(_rule)
  op(_inplace_overload)(inplace_of(_rule))


def _no_bool_rounding(kernel, x):
  """Eager has no rounding kernel for bool."""
  if x.dtype is torch.bool:
    raise NotImplementedError(
        f"\"{kernel}_vml_cpu\" not implemented for 'Bool'")


def _integer_identity_or(name):
  """Rounding: the identity (a copy) for integers, else one C++ call."""
  kind = _ir.K[name]
  kernel = {"round_nearest_even": "round"}.get(name, name)

  def rule(x):
    _no_bool_rounding(kernel, x)
    if not x.dtype.is_floating_point:
      return _XLAC._copy_of(x)
    return _XLAC._unary(kind, x, _CODES[x.dtype], False)

  rule.__name__ = name
  # As _unary_float's; None where the rule is not that one call.
  rule.unary_plan = lambda dtype: ((kind, _CODES[dtype], False)
                                   if dtype.is_floating_point else None)
  return rule


floor = op(aten.floor.default)(_integer_identity_or("floor"))
ceil = op(aten.ceil.default)(_integer_identity_or("ceil"))
round_ = op(aten.round.default)(_integer_identity_or("round_nearest_even"))


@op(aten.round.decimals)
def round_decimals(x, decimals=0, _inplace=False):
  """Eager's kernel: nearbyint(x * 10^d) / 10^d (d < 0: nearbyint(x /
  10^-d) * 10^-d), in f32 for the half types (ops/float_math_ops.h)."""
  if not x.dtype.is_floating_point:
    raise NotImplementedError(
        f"\"round_cpu\" not implemented for "
        f"'{_dtypes.scalar_type_name(x.dtype)}'")
  return _float_math(_ROUND_DECIMALS, (x,), _CODES[x.dtype], decimals,
                     _inplace)


op(aten.round_.decimals)(inplace_of(round_decimals))


@op(aten.trunc.default)
def trunc(x, _inplace=False):
  """sign(x) * floor(|x|); integers: a copy (ops/float_math_ops.h)."""
  _no_bool_rounding("trunc", x)
  return _float_math(_TRUNC, (x,), _CODES[x.dtype], 0, _inplace)


# As _float_math_rule's; integers (a copy) and bool (an error) excepted.
trunc.float_math_plan = lambda dtype: ((_TRUNC, _CODES[dtype])
                                       if dtype.is_floating_point else None)


op(aten.trunc_.default)(inplace_of(trunc))


def _reciprocal_code(dtype):
  """The dtype code reciprocal computes in: x's float type (div(1.0, x)'s
  dtype)."""
  return _CODES[_float_type(dtype)]


@op(aten.reciprocal.default)
def reciprocal(x, _inplace=False):
  """1 / x in x's float type: one C++ call, in place too (an integer x
  refuses the float result, as eager does)."""
  return _XLAC._reciprocal(x, _reciprocal_code(x.dtype), _inplace)


# The _foreach_ rule's one _foreach_reciprocal call: each dtype's code.
reciprocal.reciprocal_plan = _reciprocal_code
op(aten.reciprocal_.default)(inplace_of(reciprocal))


_NOT = _ir.K["not"]


@op(aten.logical_not.default)
def logical_not(x):
  return _XLAC._logical(_NOT, x, None)  # b None: ops::LogicalNot


@op(aten.bitwise_not.default)
def bitwise_not(x):
  return _XLAC._unary(_NOT, x, _CODES[x.dtype], False)


@op(aten.isnan.default)
def isnan(x):
  return _XLAC._elementwise_op(_COMPARE, (x, x), _CODES[x.dtype], "NE")


_COMPARE = _ir.K["compare"]


@op(aten.isinf.default)
def isinf(x):
  """|x| == inf; false for integers and bool (ops/float_math_ops.h)."""
  return _float_math(_ISINF, (x,), _CODES[x.dtype])


# Codes of ops/activation_ops.h's ActivationOp, ActivationBackwardOp and
# ParamActivationOp: each activation and gradient is one C++ call.
(_RELU, _SILU, _GELU, _GELU_TANH, _HARDSWISH, _HARDSIGMOID, _MISH,
 _LOGIT) = range(8)
(_SIGMOID_BACKWARD, _TANH_BACKWARD, _GELU_BACKWARD, _GELU_TANH_BACKWARD,
 _HARDSWISH_BACKWARD, _HARDSIGMOID_BACKWARD, _LOGIT_BACKWARD) = range(7)
_LEAKY_RELU, _ELU, _SOFTPLUS, _HARDTANH, _LOGIT_EPS = range(5)


def _float_only(kernel, x):
  """Eager's error for an activation of a non-float tensor."""
  if not x.dtype.is_floating_point:
    raise NotImplementedError(
        f"\"{kernel}\" not implemented for "
        f"'{_dtypes.scalar_type_name(x.dtype)}'")


def _gelu_code(approximate, forward):
  if approximate not in ("none", "tanh"):
    raise RuntimeError("approximate argument must be either none or tanh.")
  if approximate == "tanh":
    return _GELU_TANH if forward else _GELU_TANH_BACKWARD
  return _GELU if forward else _GELU_BACKWARD


@op(aten.relu.default)
def relu(x, _inplace=False):
  return _XLAC._activation(_RELU, x, _inplace)


def _activation(code, kernel):
  """An activation without parameters on floats (eager's error for other
  dtypes)."""

  def rule(x, _inplace=False):
    _float_only(kernel, x)
    return _XLAC._activation(code, x, _inplace)

  rule.__name__ = kernel.replace("_cpu", "")
  return rule


silu = op(aten.silu.default)(_activation(_SILU, "silu_cpu"))
hardswish = op(aten.hardswish.default)(_activation(_HARDSWISH,
                                                   "hardswish_cpu"))
hardsigmoid = op(aten.hardsigmoid.default)(_activation(_HARDSIGMOID,
                                                       "hardsigmoid_cpu"))
mish = op(aten.mish.default)(_activation(_MISH, "mish_cpu"))


@op(aten.gelu.default)
def gelu(x, approximate="none", _inplace=False):
  _float_only("GeluKernelImpl", x)
  return _XLAC._activation(_gelu_code(approximate, True), x, _inplace)


@op(aten.leaky_relu.default)
def leaky_relu(x, negative_slope=0.01, _inplace=False):
  _float_only("leaky_relu_cpu", x)
  return _XLAC._param_activation(_LEAKY_RELU, x, (negative_slope,),
                                 _inplace)


@op(aten.elu.default)
def elu(x, alpha=1, scale=1, input_scale=1, _inplace=False):
  _float_only("elu_cpu", x)
  return _XLAC._param_activation(_ELU, x, (alpha, scale, input_scale),
                                 _inplace)


@op(aten.softplus.default)
def softplus(x, beta=1, threshold=20):
  _float_only("softplus_cpu", x)
  return _XLAC._param_activation(_SOFTPLUS, x, (beta, threshold))


@op(aten.hardtanh.default)
def hardtanh(x, min_val=-1, max_val=1, _inplace=False):
  """clamp(x, min_val, max_val) in x's dtype (ops/select_ops.h)."""
  return _XLAC._clamp(x, min_val, max_val, _CODES[x.dtype], _inplace)


for _functional, _overload in (
    (relu, aten.relu_.default), (silu, aten.silu_.default),
    (gelu, aten.gelu_.default), (hardswish, aten.hardswish_.default),
    (hardsigmoid, aten.hardsigmoid_.default), (mish, aten.mish_.default),
    (leaky_relu, aten.leaky_relu_.default), (elu, aten.elu_.default),
    (hardtanh, aten.hardtanh_.default)):
  op(_overload)(inplace_of(_functional))


@op(aten.gelu_backward.default)
def gelu_backward(grad, x, approximate="none"):
  return _XLAC._activation_backward(_gelu_code(approximate, False), grad, x)


@op(aten.sigmoid_backward.default)
def sigmoid_backward(grad, output):
  return _XLAC._activation_backward(_SIGMOID_BACKWARD, grad, output)


@op(aten.tanh_backward.default)
def tanh_backward(grad, output):
  return _XLAC._activation_backward(_TANH_BACKWARD, grad, output)


@op(aten.hardswish_backward.default)
def hardswish_backward(grad, x):
  return _XLAC._activation_backward(_HARDSWISH_BACKWARD, grad, x)


@op(aten.hardsigmoid_backward.default)
def hardsigmoid_backward(grad, x):
  return _XLAC._activation_backward(_HARDSIGMOID_BACKWARD, grad, x)


_NEGATIVE_SLOPE_INPLACE = (
    "In-place {} backward calculation is triggered with a negative slope "
    "which is not supported. This is caused by calling in-place forward "
    "function with a negative slope, please call out-of-place version "
    "instead.")


@op(aten.leaky_relu_backward.default)
def leaky_relu_backward(grad, x, negative_slope, self_is_result):
  if self_is_result and negative_slope < 0:
    raise RuntimeError(
        _NEGATIVE_SLOPE_INPLACE.format("leakyReLu") +
        " File an issue at https://github.com/pytorch/pytorch if you do "
        "require supporting in-place leakRelu backward calculation with "
        "negative slope")
  return _XLAC._param_activation_backward(_LEAKY_RELU, grad, x,
                                          (negative_slope,))


@op(aten.elu_backward.default)
def elu_backward(grad, alpha, scale, input_scale, is_result, self_or_result):
  if is_result and alpha < 0:
    raise RuntimeError(_NEGATIVE_SLOPE_INPLACE.format("elu"))
  return _XLAC._param_activation_backward(
      _ELU, grad, self_or_result, (alpha, scale, input_scale), is_result)


@op(aten.softplus_backward.default)
def softplus_backward(grad, x, beta, threshold):
  return _XLAC._param_activation_backward(_SOFTPLUS, grad, x,
                                          (beta, threshold))


@op(aten.hardtanh_backward.default)
def hardtanh_backward(grad, x, min_val, max_val):
  return _XLAC._param_activation_backward(_HARDTANH, grad, x,
                                          (min_val, max_val))


@op(aten.logit.default)
def logit(x, eps=None, _inplace=False):
  """log(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps is
  given; integers compute in the default float type."""
  if not x.dtype.is_floating_point:
    x = x.to(torch.get_default_dtype())
  if eps is None:
    return _XLAC._activation(_LOGIT, x, _inplace)
  return _XLAC._param_activation(_LOGIT_EPS, x, (eps,), _inplace)


op(aten.logit_.default)(inplace_of(logit))


@op(aten.logit_backward.default)
def logit_backward(grad, x, eps=None):
  if eps is None:
    return _XLAC._activation_backward(_LOGIT_BACKWARD, grad, x)
  return _XLAC._param_activation_backward(_LOGIT_EPS, grad, x, (eps,))


@op(aten.threshold.default)
def threshold(x, threshold, value):
  """`value` where x <= threshold, else x, in x's dtype (eager's)."""
  return _XLAC._threshold(x, threshold, value, x, _CODES[x.dtype])


@op(aten.threshold_backward.default)
def threshold_backward(grad, x, threshold):
  """ReLU's backward: the gradient where x > threshold, else 0."""
  dtype = torch.promote_types(grad.dtype, x.dtype)
  return _XLAC._threshold(x, threshold, 0, grad, _CODES[dtype])
