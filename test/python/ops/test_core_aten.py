"""The core ATen ops upstream's test_core_aten_ops.py found falling back or
wrong here: inverse trigonometric and hyperbolic functions (near their
domain edges), log2/log10, logical ops on integers, adaptive 3-d average
pooling, cdist/pdist, group norm, the *_copy view variants, histc on
integers, resize_; compared with eager, no CPU fallback.
"""

import math

import pytest
import torch
import torch.nn.functional as F

from op_test_utils import XLA, check_error, check_op

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


def _edge_values(name):
  if name in ("acos", "asin", "atanh"):
    edges = [1.0, -1.0, 0.9999999, -0.9999999, 1e-8, 0.0, -0.0, 1.5, -2.0]
    return torch.tensor(edges + (torch.rand(100) * 2 - 1).tolist())
  if name == "acosh":
    edges = [1.0, 1.0000001, 1.001, 1e30, 0.5, math.inf]
    return torch.tensor(edges + (1 + torch.rand(100) * 20).tolist())
  edges = [0.0, -0.0, 1e-8, 1e-30, 30.0, -30.0, 1e30, math.inf, -math.inf,
           math.nan]
  if name in ("cosh", "sinh"):  # eager's f32 kernel overflows early (~89)
    edges = edges[:6] + [math.nan]
  return torch.tensor(edges + (torch.randn(100) * 5).tolist())


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("name", [
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "sinh",
    "log2", "log10"
])
def test_unary_math_near_domain_edges(name, dtype):
  x = _edge_values(name)
  if name in ("log2", "log10"):
    x = torch.cat([x.abs(), torch.tensor([1.0, 2.0, 8.0, 10.0, 1000.0])])
  fn = getattr(torch, name)
  check_op(fn, x.to(dtype), grad=False)
  # integer inputs compute in the default float type
  check_op(fn, torch.randint(-1, 3, (8,), dtype=torch.int32), grad=False)


def test_unary_math_gradients():
  for name in ("acos", "asin", "atan", "asinh", "cosh", "sinh", "log2"):
    x = torch.rand(20) * 0.9 + 0.05
    check_op(getattr(torch, name), x)
  check_op(torch.acosh, torch.rand(20) + 1.5)
  check_op(torch.atanh, torch.rand(20) * 1.8 - 0.9)


def test_atan_of_many_elements():
  # atan2(x, 1) is miscomputed by XLA's CPU compiler from 64 elements on.
  check_op(torch.atan, torch.randn(1000) * 10, grad=False)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.uint8,
                                   torch.float32, torch.bool], ids=str)
@pytest.mark.parametrize("fn", [torch.logical_and, torch.logical_or,
                                torch.logical_xor], ids=lambda f: f.__name__)
def test_logical_ops_give_bool(fn, dtype):
  a = torch.tensor([2, 0, 3, 0, 1, 7]).to(dtype)
  b = torch.tensor([5, 0, 0, 7, 1, 0]).to(dtype)
  out = check_op(fn, a, b, grad=False)
  assert out.dtype == torch.bool
  check_op(lambda x, y: x.clone().logical_xor_(y), a, b, grad=False)


def test_bitwise_on_floats_is_an_error():
  check_error(RuntimeError, "bitwise_and_cpu\" not implemented for 'Float'",
              torch.bitwise_and, torch.ones(2), torch.ones(2))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=str)
def test_adaptive_avg_pool3d(dtype):
  grad = dtype == torch.float32
  check_op(lambda x: F.adaptive_avg_pool3d(x, (5, 5, 5)),
           torch.randn(1, 3, 10, 10, 10).to(dtype), grad=grad)
  check_op(lambda x: F.adaptive_avg_pool3d(x, (3, 4, None)),
           torch.randn(2, 7, 9, 5).to(dtype), grad=grad, atol=1e-2,
           rtol=1e-2)


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, 0.5, math.inf])
def test_cdist_and_pdist(p):
  check_op(lambda a, b: torch.cdist(a, b, p=p), torch.randn(2, 5, 4),
           torch.randn(2, 6, 4), atol=1e-4)
  check_op(lambda a: F.pdist(a, p=p), torch.randn(6, 4), atol=1e-4)
  # Equal rows: distance 0, gradient 0 (eager's convention).
  a = torch.randn(4, 3)
  check_op(lambda a, b: torch.cdist(a, b, p=p), a, torch.cat([a[:2], a[:2]]),
           atol=1e-4)


def test_group_norm():
  check_op(lambda x, w, b: F.group_norm(x, 3, w, b), torch.randn(2, 6, 4, 5),
           torch.randn(6), torch.randn(6), atol=1e-4)
  check_op(lambda x: F.group_norm(x, 2), torch.randn(3, 4, 7), atol=1e-4)
  check_op(lambda x: F.group_norm(x, 2), torch.randn(2, 4, 3, 3).bfloat16(),
           grad=False)


def test_view_copies_are_not_views():
  x = torch.randn(4, 6)
  check_op(lambda t: torch.ops.aten.select_copy.int(t, 1, 2), x)
  check_op(lambda t: torch.ops.aten.slice_copy.Tensor(t, 1, 1, 5, 2), x)
  check_op(lambda t: torch.ops.aten.split_copy.Tensor(t, 4, 1), x)
  xla = x.to(XLA)
  copy = torch.ops.aten.select_copy.int(xla, 0, 1)
  copy.add_(1)
  torch.testing.assert_close(xla.cpu(), x)


def test_fill_round_and_unsigned():
  x = torch.randn(3, 4)
  check_op(lambda t: torch.ops.aten.fill.Tensor(t, torch.tensor(2.5)), x,
           grad=False)
  for decimals in (0, 2, -1):
    check_op(lambda t: torch.round(t * 100, decimals=decimals), x,
             grad=False)
  u = torch.tensor([0, 3, 255], dtype=torch.uint8)
  check_op(torch.abs, u, grad=False)
  check_op(torch.sign, u, grad=False)
  check_op(torch.sign, torch.tensor([True, False]), grad=False)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.uint8],
                         ids=str)
def test_histc_on_integers(dtype):
  """Eager's CPU kernel rejects integers (CUDA counts them): compare with
  the float histogram, in the input's dtype."""
  x = torch.randint(0, 8, (64,), dtype=dtype)
  for kwargs in (dict(bins=8, min=0, max=7), dict(bins=5), dict(bins=3,
                                                                 min=2,
                                                                 max=5)):
    got = torch.histc(x.to(XLA), **kwargs).cpu()
    assert got.dtype == dtype
    torch.testing.assert_close(got, torch.histc(x.float(), **kwargs).to(dtype))


def test_histc_on_floats():
  for kwargs in (dict(bins=7), dict(bins=10, min=-1, max=1), dict(bins=3)):
    check_op(lambda t: torch.histc(t, **kwargs), torch.randn(100),
             grad=False)
  check_op(lambda t: torch.histc(t, bins=2, min=0, max=3),
           torch.tensor([math.nan, 1.0, 2.0, 3.0, 5.0]), grad=False)


def test_scatter_add_on_bool():
  x = torch.tensor([False, True, False, False])
  index = torch.tensor([0, 0, 2, 2])
  check_op(lambda t, s: t.scatter_add(0, index, s), x,
           torch.tensor([True, True, False, False]), grad=False)


def test_resize_to_another_shape_names_the_op():
  x = torch.randn(2, 5).to(XLA)
  assert x.resize_(2, 5) is x
  with pytest.raises(NotImplementedError,
                     match=r"aten::resize_ of an 'xla' tensor \(torch.float32"
                     r", shape \[2, 5\]\) to \[3, 4\]"):
    x.resize_(3, 4)


@torch.library.custom_op("core_aten_test::no_rule", mutates_args=())
def _no_rule(x: torch.Tensor) -> torch.Tensor:
  return x * 2


@_no_rule.register_fake
def _(x):
  return torch.empty_like(x)


def test_op_without_rule_falls_back_or_names_itself():
  import torch_xla.debug.metrics as met
  from torch_xla.core import xla_builder
  before = met.counter_value("aten::no_rule") or 0
  # Real data: the CPU fallback runs it and the counter records it.
  x = torch.randn(3)
  torch.testing.assert_close(
      torch.ops.core_aten_test.no_rule(x.to(XLA)).cpu(), x * 2)
  assert met.counter_value("aten::no_rule") == before + 1
  # A traced placeholder has no data to fall back with.
  p = xla_builder.create_placeholder_tensor([3, 4], torch.int32)
  with pytest.raises(NotImplementedError,
                     match=r"core_aten_test\.no_rule\.default has no lowering "
                     r"for the XLA device \(inputs: int32\[3, 4\]\)"):
    torch.ops.core_aten_test.no_rule(p)
