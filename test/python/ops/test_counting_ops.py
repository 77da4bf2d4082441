"""heaviside, pdist (and its backward) and histc against eager CPU PyTorch
in the cases test_core_aten.py leaves out: heaviside's broadcasting, NaN
and in-place form; pdist in f64 and bf16 and with fewer than two rows;
histc of bf16, of constant data (the range widened by 1) and of integers
with a fractional bound. The builders are torch_xla/csrc/ops/select_ops.h
(Heaviside), distance_ops.h and histogram_ops.h."""

import math

import pytest
import torch
import torch.nn.functional as F

from op_test_utils import XLA, check_op


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16,
                                   torch.int64])
def test_heaviside(dtype):
  x = torch.tensor([[-2, 0, 3, 0], [1, -1, 0, 5]]).to(dtype)
  values = torch.tensor([7, 8, 9, 4]).to(dtype)
  check_op(torch.heaviside, x, values, grad=False)
  check_op(lambda a, b: a.clone().heaviside_(b), x, values[:1], grad=False)


def test_heaviside_nan_and_broadcast_up():
  x = torch.tensor([math.nan, 0.0, -0.0, 2.0])
  check_op(torch.heaviside, x.reshape(4, 1), torch.tensor([0.5, 0.25]),
           grad=False)


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 1.5, math.inf])
def test_pdist_f64(p):
  x = torch.randn(7, 5, dtype=torch.float64)
  x[3] = x[1]  # a zero distance: gradient 0 there (eager's convention)
  check_op(lambda a: F.pdist(a, p=p), x)


def test_pdist_bf16_and_few_rows():
  # Eager CPU has no bf16 pdist (CUDA has): compare with f32, rounded.
  x = torch.randn(5, 4).bfloat16()
  torch.testing.assert_close(F.pdist(x.to(XLA)).cpu(),
                             F.pdist(x.float()).bfloat16())
  check_op(lambda a: F.pdist(a), torch.randn(1, 4))
  # (eager's backward of 0 rows crashes: forward only)
  check_op(lambda a: F.pdist(a, p=3), torch.randn(0, 4), grad=False)


def test_histc_bf16_and_constant_data():
  check_op(lambda t: torch.histc(t, bins=6, min=-1, max=1),
           torch.randn(200).bfloat16(), grad=False)
  check_op(lambda t: torch.histc(t, bins=4), torch.full((9,), 2.5),
           grad=False)


def test_histc_integers_with_a_fractional_bound():
  x = torch.arange(12, dtype=torch.int32)
  got = torch.histc(x.to(XLA), bins=4, min=0, max=9.5).cpu()
  assert got.dtype == torch.int32
  torch.testing.assert_close(
      got, torch.histc(x.double(), bins=4, min=0, max=9.5).int())
