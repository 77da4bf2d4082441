"""Each elementwise op's Python rule crosses into C++ once (issue 28 §1).

An op without a C++ fast rule reaches its Python rule, which normalizes the
arguments and makes one `_XLAC` call: the core builder (csrc/ops) builds the
IR and the binding returns the wrapped tensor, or commits an in-place
result. Several calls (an `_ir` composition, a separate `_wrap`) cost host
time per traced op. These tests count the calls into `_XLAC` while one op
is traced (sys.setprofile's c_call events) and fail when a rule goes back
to composing. Values are checked against eager in
test/python/ops/test_elementwise_builders.py.
"""

import pytest
import torch
import torch.nn.functional as F

import torch_xla
from crossing_counter import crossings

DEV = torch_xla.device()


def _crossings(fn):
  """The names of the _XLAC functions `fn()` calls, in order."""
  return crossings(fn, warm=False)[1]


def _inputs():
  torch.manual_seed(0)
  x = torch.randn(4, 6, device=DEV)
  y = torch.randn(4, 6, device=DEV)
  i = torch.randint(-5, 5, (4, 6), device=DEV)
  j = torch.randint(1, 4, (4, 6), device=DEV)
  h = torch.randn(4, 6, device=DEV, dtype=torch.bfloat16)
  b = x > 0
  u = torch.randint(0, 4, (4, 6), device=DEV, dtype=torch.uint8)
  return dict(x=x, y=y, i=i, j=j, h=h, b=b, u=u)


# (id, op on the inputs); in-place ops get a fresh clone of their target.
FUNCTIONAL = [
    ("eq", lambda t: t["x"] == t["y"]),
    ("ne_scalar", lambda t: t["x"] != 0.5),
    ("lt", lambda t: t["x"] < t["y"]),
    ("le_int_float", lambda t: t["i"] <= 1.5),
    ("gt", lambda t: t["x"] > t["y"]),
    ("ge", lambda t: t["i"] >= t["j"]),
    ("maximum", lambda t: torch.maximum(t["x"], t["y"])),
    ("minimum", lambda t: torch.minimum(t["i"], t["j"])),
    ("atan2", lambda t: torch.atan2(t["x"], t["y"])),
    ("pow_tensor", lambda t: torch.pow(t["x"], t["y"])),
    ("pow_half", lambda t: t["h"] ** 0.5),
    ("pow_three", lambda t: t["i"] ** 3),
    ("logical_and", lambda t: torch.logical_and(t["x"], t["i"])),
    ("logical_or", lambda t: torch.logical_or(t["b"], t["b"])),
    ("logical_xor", lambda t: torch.logical_xor(t["i"], t["b"])),
    ("logical_not", lambda t: torch.logical_not(t["x"])),
    ("bitwise_and", lambda t: t["i"] & 3),
    ("bitwise_or", lambda t: t["i"] | t["j"]),
    ("bitwise_xor", lambda t: t["b"] ^ t["b"]),
    ("bitwise_not", lambda t: ~t["i"]),
    ("lshift", lambda t: t["i"] << 2),
    ("rshift", lambda t: t["i"] >> t["j"]),
    ("where", lambda t: torch.where(t["b"], t["x"], t["y"])),
    ("where_promoted", lambda t: torch.where(t["b"], t["h"], t["i"])),
    ("clamp", lambda t: t["x"].clamp(-1, 1)),
    ("clamp_tensor", lambda t: torch.clamp(t["x"], min=t["y"])),
    ("clamp_min", lambda t: torch.clamp_min(t["i"], 0)),
    ("clamp_max_float", lambda t: torch.clamp_max(t["i"], 1.5)),
    ("div_trunc", lambda t: torch.div(t["x"], t["y"], rounding_mode="trunc")),
    ("div_floor", lambda t: torch.div(t["x"], t["y"], rounding_mode="floor")),
    ("div_floor_bf16", lambda t: torch.div(t["h"], 3, rounding_mode="floor")),
    ("floor_divide", lambda t: t["i"] // 3),
    ("floor_divide_tensor", lambda t: torch.floor_divide(t["i"], t["j"])),
    ("remainder", lambda t: t["i"] % 3),
    ("remainder_float", lambda t: torch.remainder(t["x"], t["y"])),
    ("remainder_scalar_tensor", lambda t: torch.remainder(5, t["j"])),
    ("fmod", lambda t: torch.fmod(t["i"], t["j"])),
    ("relu", lambda t: F.relu(t["x"])),
    ("silu", lambda t: F.silu(t["h"])),
    ("gelu", lambda t: F.gelu(t["x"])),
    ("gelu_tanh", lambda t: F.gelu(t["x"], approximate="tanh")),
    ("threshold", lambda t: F.threshold(t["x"], 0.1, 20.0)),
    ("threshold_backward",
     lambda t: torch.ops.aten.threshold_backward(t["y"], t["x"], 0.0)),
    ("gelu_backward", lambda t: torch.ops.aten.gelu_backward(t["y"], t["x"])),
    ("gelu_tanh_backward", lambda t: torch.ops.aten.gelu_backward(
        t["y"], t["x"], approximate="tanh")),
    ("sigmoid_backward",
     lambda t: torch.ops.aten.sigmoid_backward(t["y"], t["x"])),
    ("tanh_backward", lambda t: torch.ops.aten.tanh_backward(t["h"], t["h"])),
    ("floor", lambda t: torch.floor(t["x"])),
    ("round", lambda t: torch.round(t["h"])),
    ("isnan", lambda t: torch.isnan(t["x"])),
    ("logit", lambda t: torch.logit(t["x"])),
    ("logit_eps", lambda t: torch.logit(t["h"], eps=1e-3)),
    ("logit_backward",
     lambda t: torch.ops.aten.logit_backward(t["y"], t["x"])),
    ("logit_eps_backward",
     lambda t: torch.ops.aten.logit_backward(t["y"], t["x"], 0.1)),
    ("hardswish", lambda t: F.hardswish(t["x"])),
    ("hardsigmoid", lambda t: F.hardsigmoid(t["h"])),
    ("mish", lambda t: F.mish(t["x"])),
    ("leaky_relu", lambda t: F.leaky_relu(t["x"], 0.2)),
    ("elu", lambda t: F.elu(t["x"])),
    ("selu", lambda t: F.selu(t["x"])),
    ("softplus", lambda t: F.softplus(t["h"], beta=2.0)),
    ("hardtanh", lambda t: F.hardtanh(t["x"])),
    ("relu6", lambda t: F.relu6(t["x"])),
    ("hardswish_backward",
     lambda t: torch.ops.aten.hardswish_backward(t["y"], t["x"])),
    ("hardsigmoid_backward",
     lambda t: torch.ops.aten.hardsigmoid_backward(t["y"], t["x"])),
    ("leaky_relu_backward", lambda t: torch.ops.aten.leaky_relu_backward(
        t["y"], t["x"], 0.01, False)),
    ("elu_backward", lambda t: torch.ops.aten.elu_backward(
        t["y"], 1.0, 1.0, 1.0, False, t["x"])),
    ("softplus_backward", lambda t: torch.ops.aten.softplus_backward(
        t["y"], t["x"], 1.0, 20.0)),
    ("hardtanh_backward", lambda t: torch.ops.aten.hardtanh_backward(
        t["y"], t["x"], -1.0, 1.0)),
    # ops/float_math_ops.h: the math functions without one primitive.
    ("trunc", lambda t: torch.trunc(t["x"])),
    ("trunc_int", lambda t: torch.trunc(t["i"])),
    ("atan", lambda t: torch.atan(t["x"])),
    ("atan_int", lambda t: torch.atan(t["i"])),
    ("log2", lambda t: torch.log2(t["x"])),
    ("log10_bf16", lambda t: torch.log10(t["h"])),
    ("isinf", lambda t: torch.isinf(t["x"])),
    ("isinf_int", lambda t: torch.isinf(t["i"])),
    ("round_decimals", lambda t: torch.round(t["x"], decimals=2)),
    ("round_negative_decimals", lambda t: torch.round(t["h"], decimals=-1)),
    ("exp2", lambda t: torch.exp2(t["i"])),
    ("signbit", lambda t: torch.signbit(t["x"])),
    ("signbit_uint8", lambda t: torch.signbit(t["u"])),
    ("copysign", lambda t: torch.copysign(t["x"], t["y"])),
    ("copysign_scalar", lambda t: torch.copysign(t["i"], -1.0)),
    ("hypot", lambda t: torch.hypot(t["h"], t["h"])),
    ("sign_uint8", lambda t: torch.sign(t["u"])),
    ("pow_one", lambda t: t["i"] ** 1),
    ("pow_one_float", lambda t: t["i"] ** 1.0),
]

INPLACE = [
    ("eq_", "x", lambda x, t: x.eq_(t["y"])),
    ("le_", "i", lambda x, t: x.le_(2)),
    ("ge_", "x", lambda x, t: x.ge_(t["y"])),
    ("logical_and_", "x", lambda x, t: x.logical_and_(t["b"])),
    ("bitwise_or_", "i", lambda x, t: x.bitwise_or_(t["j"])),
    ("lshift_", "i", lambda x, t: x.bitwise_left_shift_(1)),
    ("clamp_", "x", lambda x, t: x.clamp_(-0.5, 0.5)),
    ("clamp_min_", "i", lambda x, t: x.clamp_min_(0)),
    ("clamp_max_tensor_", "x", lambda x, t: x.clamp_max_(t["y"])),
    ("div_floor_", "x", lambda x, t: x.div_(t["y"], rounding_mode="floor")),
    ("div_", "x", lambda x, t: x.div_(t["y"])),
    ("floor_divide_", "i", lambda x, t: x.floor_divide_(t["j"])),
    ("remainder_", "i", lambda x, t: x.remainder_(3)),
    ("fmod_", "x", lambda x, t: x.fmod_(0.7)),
    ("relu_", "x", lambda x, t: x.relu_()),
    ("silu_", "x", lambda x, t: F.silu(x, inplace=True)),
    ("gelu_", "x", lambda x, t: torch.ops.aten.gelu_(x)),
    ("leaky_relu_", "x", lambda x, t: F.leaky_relu_(x, 0.1)),
    ("elu_", "x", lambda x, t: F.elu_(x)),
    ("hardtanh_", "x", lambda x, t: F.hardtanh_(x)),
    ("hardswish_", "x", lambda x, t: F.hardswish(x, inplace=True)),
    ("mish_", "x", lambda x, t: F.mish(x, inplace=True)),
    ("logit_", "x", lambda x, t: x.logit_(0.01)),
    ("exp_", "x", lambda x, t: x.exp_()),
    ("acos_", "h", lambda x, t: x.acos_()),
    ("neg_", "i", lambda x, t: x.neg_()),
    ("sign_uint8_", "u", lambda x, t: x.sign_()),
    ("pow_scalar_", "x", lambda x, t: x.pow_(3)),
    ("pow_tensor_", "x", lambda x, t: x.pow_(t["y"])),
    ("trunc_", "x", lambda x, t: x.trunc_()),
    ("atan_", "x", lambda x, t: x.atan_()),
    ("log10_", "h", lambda x, t: x.log10_()),
    ("round_decimals_", "x", lambda x, t: x.round_(decimals=1)),
    ("exp2_", "x", lambda x, t: x.exp2_()),
    ("copysign_", "x", lambda x, t: x.copysign_(t["y"])),
    ("hypot_", "x", lambda x, t: x.hypot_(t["y"])),
]


@pytest.fixture(scope="module")
def inputs():
  return _inputs()


@pytest.mark.parametrize("fn", [c[1] for c in FUNCTIONAL],
                         ids=[c[0] for c in FUNCTIONAL])
def test_functional_op_crosses_once(inputs, fn):
  fn(inputs)  # the first trace may load rules or decompositions
  calls = _crossings(lambda: fn(inputs))
  assert len(calls) == 1, calls


@pytest.mark.parametrize("target,fn", [c[1:] for c in INPLACE],
                         ids=[c[0] for c in INPLACE])
def test_inplace_op_crosses_once(inputs, target, fn):
  fn(inputs[target].clone(), inputs)
  x = inputs[target].clone()
  calls = _crossings(lambda: fn(x, inputs))
  assert len(calls) == 1, calls


def test_counter_sees_a_composition():
  """The counter itself: a rule that calls C++ several times (a list op
  without a list binding, _foreach_pow by 2: pow's rule, a square, once
  per tensor) shows each crossing."""
  x = _inputs()["x"]
  assert _crossings(lambda: torch._foreach_pow([x, x, x], 2)) == [
      "_square"] * 3
