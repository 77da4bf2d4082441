"""NaN through the min/max family, against eager CPU: eager propagates a
NaN operand (maximum, minimum, max/min reductions, clamp, pooling) except
in fmax/fmin, and orders NaN above every number (sort, topk, argmax). XLA
CPU's default fast min/max dropped a NaN second operand
(runtime/xla_flags.h turns it off)."""

import pytest
import torch

import torch_xla

XLA = torch_xla.device()
NAN, INF = float("nan"), float("inf")


def with_nans(*shape, seed=0):
  g = torch.Generator().manual_seed(seed)
  x = torch.randn(*shape, generator=g)
  x.view(-1)[torch.randperm(x.numel(), generator=g)[:x.numel() // 4]] = NAN
  x.view(-1)[1] = INF
  x.view(-1)[2] = -INF
  return x


def check(fn, *inputs):
  expected = fn(*inputs)
  got = fn(*[t.to(XLA) for t in inputs])
  if isinstance(expected, tuple):
    for e, g in zip(expected, got):
      torch.testing.assert_close(g.cpu(), e, equal_nan=True)
  else:
    torch.testing.assert_close(got.cpu(), expected, equal_nan=True)


@pytest.mark.parametrize("fn", [
    torch.maximum, torch.minimum, torch.fmax, torch.fmin,
    lambda a, b: torch.clamp(a, min=b),
    lambda a, b: torch.clamp(a, max=b),
    lambda a, b: torch.where(a > b, a, b),
], ids=["maximum", "minimum", "fmax", "fmin", "clamp_min_tensor",
        "clamp_max_tensor", "where"])
def test_binary(fn):
  # NaN in either operand, in both, and against infinities.
  check(fn, with_nans(6, 8, seed=1), with_nans(6, 8, seed=2))


@pytest.mark.parametrize("fn", [
    lambda x: x.amax(1), lambda x: x.amin(0), lambda x: x.max(1),
    lambda x: x.min(1), lambda x: x.max(), lambda x: x.argmax(1),
    lambda x: x.argmin(0), lambda x: x.clamp(-0.5, 0.5), torch.relu,
    torch.nn.functional.hardtanh, lambda x: torch.nn.functional.relu6(x),
    lambda x: x.sort(1), lambda x: x.cummax(1),
], ids=["amax", "amin", "max_dim", "min_dim", "max_all", "argmax",
        "argmin", "clamp", "relu", "hardtanh", "relu6", "sort", "cummax"])
def test_unary(fn):
  check(fn, with_nans(6, 8, seed=3))


def test_topk():
  # Among tied NaNs eager's index order is unspecified: the values match,
  # and each index points at its value.
  x = with_nans(6, 8, seed=3)
  expected = x.topk(3, 1)
  got = x.to(XLA).topk(3, 1)
  torch.testing.assert_close(got.values.cpu(), expected.values, equal_nan=True)
  torch.testing.assert_close(x.gather(1, got.indices.cpu()), expected.values,
                             equal_nan=True)


def test_max_pool():
  x = with_nans(2, 3, 8, 8, seed=4)
  check(lambda t: torch.nn.functional.max_pool2d(t, 2), x)
