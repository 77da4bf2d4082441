"""The elementwise core builders (csrc/ops: logical_ops, select_ops,
division_ops, activation_ops, float_math_ops) against eager CPU PyTorch, through their
one-call Python rules: values, dtypes, gradients (the backward rules are
builders too), in-place forms and eager's errors. The crossing counts are
test/python/test_op_crossings.py's."""

import pytest
import torch
import torch.nn.functional as F
import torch_xla
from op_test_utils import XLA, check_error, check_op

HALF = (torch.float32, torch.bfloat16)


def _ints(*shape, low=-7, high=8, dtype=torch.int64, seed=0):
  g = torch.Generator().manual_seed(seed)
  return torch.randint(low, high, shape, generator=g).to(dtype)


def _floats(*shape, dtype=torch.float32, seed=0, scale=3.0):
  g = torch.Generator().manual_seed(seed)
  return (torch.randn(*shape, generator=g) * scale).to(dtype)


# Division with rounding, remainder, fmod.


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.float32,
                                   torch.bfloat16, torch.float16])
def test_rounding_division_family(dtype):
  a = _floats(5, 6, dtype=dtype) if dtype.is_floating_point else _ints(5, 6,
                                                                      dtype=dtype)
  b = _floats(6, dtype=dtype, seed=1) if dtype.is_floating_point else \
      _ints(6, low=1, high=5, dtype=dtype, seed=1) * torch.tensor([1, -1] * 3,
                                                                  dtype=dtype)
  for fn in (lambda a, b: torch.div(a, b, rounding_mode="floor"),
             lambda a, b: torch.div(a, b, rounding_mode="trunc"),
             lambda a, b: a // b, lambda a, b: a % b,
             lambda a, b: torch.fmod(a, b), lambda a, b: a // 3,
             lambda a, b: torch.remainder(a, -2.5),
             lambda a, b: torch.remainder(7, b)):
    check_op(fn, a, b, grad=False)


def test_integer_division_by_zero_gives_zero():
  """docs/integer_division.md: x // 0, x % 0 and fmod(x, 0) are 0 (CUDA's
  answer; eager CPU raises), in-place forms too."""
  a = torch.tensor([7, -7, 0, 5], device=XLA)
  b = torch.tensor([0, 0, 0, 2], device=XLA)
  for out in (a // b, a % b, torch.fmod(a, b),
              torch.div(a, b, rounding_mode="trunc"),
              torch.div(a, b, rounding_mode="floor"),
              a.clone().floor_divide_(b), a.clone().remainder_(b),
              a.clone().fmod_(b)):
    assert out.dtype == torch.int64
    assert out.cpu()[:3].tolist() == [0, 0, 0], out.cpu()


def test_float_floor_division_edges():
  nan, inf = float("nan"), float("inf")
  a = torch.tensor([1.0, -1.0, 0.0, -0.0, 5.0, inf, -3.0, 0.3])
  b = torch.tensor([0.0, 0.0, -2.0, 3.0, inf, 2.0, nan, 0.1])
  check_op(lambda a, b: torch.div(a, b, rounding_mode="floor"), a, b,
           grad=False)
  check_op(lambda a, b: a % b, a, b, grad=False)
  check_op(lambda a, b: torch.div(a, b, rounding_mode="trunc"), a, b,
           grad=False)


@pytest.mark.parametrize("mode", ["floor", "trunc", None])
def test_inplace_division(mode):
  check_op(lambda a, b: a.clone().div_(b, rounding_mode=mode),
           _floats(4, 5), _floats(5, seed=2), grad=False)
  check_op(lambda a, b: a.clone().remainder_(b), _floats(4, 5),
           _floats(5, seed=2), grad=False)
  check_op(lambda a: a.clone().floor_divide_(-2), _ints(4, 5), grad=False)
  check_op(lambda a: a.clone().fmod_(3), _ints(4, 5), grad=False)


def test_inplace_division_errors():
  # A float result cannot go into an int tensor; a result that broadcasts
  # x up cannot go into x.
  check_error(RuntimeError, "result type Float can't be cast to the desired "
              "output type Long", lambda a: a.div_(2), _ints(3))
  check_error(RuntimeError, "result type Float can't be cast",
              lambda a: a.remainder_(1.5), _ints(3))
  check_error(RuntimeError, "result type Float can't be cast",
              lambda a: a.div_(1.5, rounding_mode="floor"), _ints(3))
  check_error(RuntimeError, r"output with shape \[3\] doesn't match the "
              r"broadcast shape \[2, 3\]",
              lambda a, b: a.fmod_(b), _floats(3), _floats(2, 3))
  check_error(RuntimeError, "rounding_mode to be one of None",
              lambda a: torch.div(a, 2, rounding_mode="round"), _floats(3))


# Comparisons, logical and bitwise ops.


def test_comparisons_and_inplace_forms():
  a, b = _floats(4, 5), _floats(5, seed=3)
  for fn in (torch.eq, torch.ne, torch.lt, torch.le, torch.gt, torch.ge):
    check_op(fn, a, b, grad=False)
    check_op(lambda x: fn(x, 0.5), _ints(4, 5), grad=False)
  check_op(lambda a, b: a.clone().le_(b), a, b, grad=False)
  check_op(lambda a: a.clone().ge_(1.5), _ints(4, 5), grad=False)
  check_op(lambda a: a.clone().eq_(2), _ints(4, 5), grad=False)


def test_logical_ops():
  a, i = _floats(4, 5), _ints(4, 5)
  b = _ints(5, low=0, high=2, seed=4).bool()
  nan = torch.tensor([float("nan"), 0.0, -0.0, 1.0])
  for fn in (torch.logical_and, torch.logical_or, torch.logical_xor):
    check_op(fn, a, i, grad=False)
    check_op(fn, i, b, grad=False)  # broadcast
    check_op(fn, nan, nan.flip(0), grad=False)
    check_op(lambda x, y: getattr(x.clone(), fn.__name__ + "_")(y), a, b,
             grad=False)  # in place: the result in x's dtype
  check_op(torch.logical_not, a, grad=False)
  check_op(torch.logical_not, nan, grad=False)
  check_op(torch.logical_not, i.to(torch.uint8), grad=False)


def test_bitwise_ops_and_shifts():
  i, j = _ints(4, 5, dtype=torch.int32), _ints(5, low=0, high=4, seed=5,
                                               dtype=torch.int32)
  u = _ints(4, 5, low=0, high=255, dtype=torch.uint8)
  for fn in (torch.bitwise_and, torch.bitwise_or, torch.bitwise_xor,
             torch.bitwise_left_shift, torch.bitwise_right_shift):
    check_op(fn, i, j, grad=False)
    check_op(lambda x: fn(x, 2), u, grad=False)
  check_op(lambda x, y: x.clone().bitwise_or_(y), i, j, grad=False)
  check_op(lambda x: x.clone().bitwise_right_shift_(1), u, grad=False)
  check_op(torch.bitwise_not, i, grad=False)
  check_error(RuntimeError, "result type Long can't be cast to the desired "
              "output type Bool", lambda x: x.bitwise_and_(3),
              torch.tensor([True, False]))


# where and clamp.


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16,
                                   torch.float16, torch.int32])
def test_where(dtype):
  x, y = _floats(4, 5).to(dtype), _floats(5, seed=6).to(dtype)
  cond = _floats(4, 1, seed=7) > 0
  check_op(torch.where, cond, x, y)
  check_op(lambda c, x: torch.where(c, x, 2), cond, x)
  check_op(lambda c, y: torch.where(c, 1.5, y), cond, y)
  check_op(lambda c, x: torch.where(c, x, 1e10), cond, x)  # inf in halves
  check_op(lambda c: torch.where(c, 1, 0.5), cond)
  check_op(lambda x, y: torch.where(torch.tensor(True), x, y), x, y)


def test_where_errors():
  check_error(RuntimeError, "where expected condition to be a boolean tensor",
              torch.where, _ints(3), _floats(3), _floats(3))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16,
                                   torch.int64, torch.uint8])
def test_clamp(dtype):
  x = _floats(4, 5).to(dtype)
  check_op(lambda x: x.clamp(-1, 2), x)
  check_op(lambda x: x.clamp(min=0.5), x)  # an int tensor gives floats
  check_op(lambda x: x.clamp(max=1), x)
  check_op(lambda x: torch.clamp_min(x, 1), x)
  check_op(lambda x: torch.clamp_max(x, 1), x)
  check_op(lambda x, lo, hi: torch.clamp(x, lo, hi), x, _floats(5).to(dtype),
           _floats(4, 1, seed=8).to(dtype))
  check_op(lambda x, lo: torch.clamp(x, min=lo), x[0], _floats(3, 5).to(dtype))
  check_op(lambda x: x.clone().clamp_(-1, 1), x)
  check_op(lambda x: x.clone().clamp_min_(0), x)
  check_op(lambda x, hi: x.clone().clamp_max_(hi), x, _floats(5).to(dtype))


def test_clamp_errors():
  check_error(RuntimeError, "At least one of 'min' or 'max' must not be None",
              torch.clamp, _floats(3))
  check_error(RuntimeError, "value cannot be converted to type uint8",
              lambda x: x.clamp(-1, 300),
              _ints(3, low=0, high=5, dtype=torch.uint8))
  check_error(RuntimeError, "result type Float can't be cast to the desired "
              "output type long int", lambda x: x.clamp_(0.5), _ints(3))
  check_error(RuntimeError, r"output with shape \[3\] doesn't match the "
              r"broadcast shape \[2, 3\]",
              lambda x, lo: x.clamp_(min=lo), _floats(3), _floats(2, 3))


# Activations and their gradients.


@pytest.mark.parametrize("dtype", HALF)
def test_activations_and_gradients(dtype):
  x = _floats(4, 7, dtype=dtype)
  tol = {} if dtype == torch.float32 else dict(atol=2e-2, rtol=2e-2)
  for fn in (F.relu, F.silu, F.gelu, lambda t: F.gelu(t, approximate="tanh"),
             torch.sigmoid, torch.tanh, F.hardswish, F.hardsigmoid, F.mish,
             lambda t: F.leaky_relu(t, 0.2), F.elu, F.selu, F.celu,
             lambda t: F.elu(t, alpha=0.5), F.softplus,
             lambda t: F.softplus(t, beta=2.0, threshold=3.0), F.hardtanh,
             F.relu6, lambda t: F.hardtanh(t, -0.5, 2.0),
             lambda t: F.threshold(t, 0.1, 20.0)):
    check_op(fn, x, **tol)


def test_activation_edges():
  """Kinks and thresholds exactly at their points, and infinities (not for
  gelu: eager's CPU kernel gives NaN at +inf, we give inf)."""
  inf = float("inf")
  x = torch.tensor([-inf, -3.0, -1.0, 0.0, 1.0, 3.0, 20.0, inf])
  for fn in (F.hardswish, F.hardsigmoid, F.relu6, F.hardtanh, F.softplus,
             F.leaky_relu, F.elu, F.mish, F.relu, F.silu):
    check_op(fn, x, grad=False)
  xs = torch.tensor([-3.0, -1.0, 0.0, 1.0, 3.0, 20.0])
  for fn in (F.hardswish, F.hardsigmoid, F.relu6, F.hardtanh, F.softplus,
             F.leaky_relu, F.elu):
    check_op(fn, xs)


def test_inplace_activations_and_their_gradients():
  x = _floats(4, 5)
  for fn in (lambda t: F.relu(t.clone(), inplace=True),
             lambda t: F.silu(t.clone(), inplace=True),
             lambda t: F.hardswish(t.clone(), inplace=True),
             lambda t: F.hardsigmoid(t.clone(), inplace=True),
             lambda t: F.mish(t.clone(), inplace=True),
             lambda t: F.leaky_relu(t.clone(), 0.1, inplace=True),
             lambda t: F.elu(t.clone(), inplace=True),  # elu_backward(y)
             lambda t: F.relu6(t.clone(), inplace=True),
             lambda t: torch.ops.aten.gelu_(t.clone())):
    check_op(fn, x)


def test_activation_errors():
  check_error(NotImplementedError, "\"elu_cpu\" not implemented for 'Long'",
              F.elu, _ints(3))
  check_error(NotImplementedError, "\"GeluKernelImpl\" not implemented for "
              "'Long'", F.gelu, _ints(3))
  check_error(RuntimeError, "approximate argument must be either none or "
              "tanh", lambda t: F.gelu(t, approximate="erf"), _floats(3))
  x = _floats(4).requires_grad_()
  with pytest.raises(RuntimeError, match="In-place leakyReLu backward"):
    F.leaky_relu(x.to(XLA) * 1, -0.1, inplace=True).sum().backward()


@pytest.mark.parametrize("eps", [None, 0.1])
@pytest.mark.parametrize("dtype", HALF)
def test_logit(eps, dtype):
  x = torch.tensor([-0.5, 0.0, 0.05, 0.3, 0.5, 0.95, 1.0, 1.5]).to(dtype)
  tol = {} if dtype == torch.float32 else dict(atol=2e-2, rtol=2e-2)
  check_op(lambda t: torch.logit(t, eps), x, **tol)
  check_op(lambda t: t.clone().logit_(eps), x, **tol)
  check_op(lambda t: torch.logit(t, eps), torch.tensor([0, 1, 2]))


def test_threshold_keeps_the_input_dtype():
  check_op(lambda t: F.threshold(t, 1, 9), _ints(4, 5), grad=False)
  check_op(lambda t: F.threshold(t, 0.5, -2.0),
           _floats(4, 5, dtype=torch.bfloat16), grad=False)


# ops/float_math_ops.h: trunc, atan, log2/log10, isinf, round(decimals),
# exp2, signbit, copysign, hypot; values near the edges (+-0, +-inf, NaN,
# halves for rounding, huge values for atan's doubling and hypot's
# overflow).

_EDGES = [0.0, -0.0, 0.5, -0.5, 1.5, -2.5, 2.0, -7.25, 1e-3, 3e38, -3e38,
          float("inf"), float("-inf"), float("nan")]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16,
                                   torch.float16, torch.float64])
def test_float_math_values(dtype):
  x = torch.cat([torch.tensor(_EDGES), _floats(70, seed=3)]).to(dtype)
  y = torch.cat([torch.tensor(_EDGES[::-1]), _floats(70, seed=4)]).to(dtype)
  tol = {} if dtype in (torch.float32, torch.float64) else dict(atol=1e-2,
                                                                rtol=1e-2)
  for fn in (torch.trunc, torch.atan, torch.isinf, torch.signbit,
             torch.exp2, lambda t: torch.round(t, decimals=2),
             lambda t: torch.round(t, decimals=-1),
             lambda t: torch.log2(t.abs()), lambda t: torch.log10(t.abs())):
    check_op(fn, x, grad=False, **tol)
  for fn in (torch.copysign, torch.hypot, lambda a, b: torch.copysign(a, -0.0),
             lambda a, b: torch.hypot(a, b.abs().clamp(max=3))):
    check_op(fn, x, y, grad=False, **tol)


def test_float_math_integer_and_bool_inputs():
  i, u = _ints(3, 5), _ints(3, 5, low=0, high=9, dtype=torch.uint8)
  b = i > 0
  for t in (i, u, b, _ints(3, 5, dtype=torch.int32)):
    for fn in (torch.isinf, torch.signbit, torch.sign, torch.atan,
               torch.log2, torch.exp2, lambda t: torch.copysign(t, -1),
               lambda t: t ** 1):
      check_op(fn, t, grad=False)
    if t.dtype != torch.bool:
      check_op(torch.trunc, t, grad=False)
  for fn in (torch.trunc, torch.floor, torch.ceil, torch.round,
             lambda t: t.trunc_()):
    check_error(NotImplementedError, "_vml_cpu\" not implemented for "
                "'Bool'", fn, b)
  check_op(lambda t: torch.log10(t), u.to(torch.int16), grad=False)


@pytest.mark.parametrize("dtype", HALF)
def test_float_math_gradients_and_inplace(dtype):
  x, y = _floats(4, 5, dtype=dtype), _floats(4, 5, dtype=dtype, seed=1)
  tol = {} if dtype == torch.float32 else dict(atol=2e-2, rtol=2e-2)
  for fn in (torch.atan, torch.exp2, lambda t: torch.log2(t.abs() + 1),
             torch.trunc):
    check_op(fn, x, **tol)
  check_op(torch.hypot, x, y, **tol)
  check_op(torch.copysign, x, y, **tol)
  for fn in (lambda a, b: a.clone().trunc_(), lambda a, b: a.clone().atan_(),
             lambda a, b: a.clone().abs().log10_(),
             lambda a, b: a.clone().round_(decimals=1),
             lambda a, b: a.clone().exp2_(),
             lambda a, b: a.clone().copysign_(b),
             lambda a, b: a.clone().hypot_(b)):
    check_op(fn, x, y, grad=False, **tol)


def test_float_math_inplace_errors():
  cast = "result type Float can't be cast to the desired output type Long"
  for fn in (lambda t: t.atan_(), lambda t: t.log2_(), lambda t: t.exp2_(),
             lambda t: t.copysign_(-1), lambda t: t.exp_(),
             lambda t: t.pow_(0.5), lambda t: t.reciprocal_()):
    check_error(RuntimeError, cast, fn, _ints(3))
  check_error(NotImplementedError, "\"round_cpu\" not implemented for "
              "'Long'", lambda t: torch.round(t, decimals=1), _ints(3))


# x ** scalar: the exponents eager's CPU kernel takes apart.

_PRODUCT_EXPONENTS = (1, 3, -2, -1, -0.5, 0.5, 2, 1.0, 3.0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64,
                                   torch.bfloat16])
@pytest.mark.parametrize("exponent", _PRODUCT_EXPONENTS)
def test_pow_by_a_special_exponent_like_eager(dtype, exponent):
  x = _floats(4, 5, dtype=dtype).abs() + 0.25  # in every exponent's domain
  check_op(lambda t: t ** exponent, x)


@pytest.mark.parametrize("exponent", [1.0, 3.0, -2.0, -1.0, 0.5])
def test_pow_of_ints_by_a_float_exponent_like_eager(exponent):
  check_op(lambda t: t ** exponent, _ints(4, 5, low=1), grad=False)


@pytest.mark.parametrize("exponent", [3, -2, -1, -0.5, 1])
def test_pow_by_a_special_exponent_lowers_without_a_power_op(exponent):
  # A power op would run libm's powf per element on XLA:CPU: its exponent
  # is a scalar parameter that XLA cannot simplify.
  x = torch.rand(3, 4).add(0.5).to(XLA)
  text = torch_xla._XLAC._get_xla_tensors_hlo([x ** exponent])
  assert " power(" not in text
  assert " power(" in torch_xla._XLAC._get_xla_tensors_hlo([x ** 2.5])
