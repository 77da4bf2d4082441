"""kthvalue, median and nanmedian (with and without dim) against eager CPU PyTorch:
values, indices and gradients on random inputs with distinct values (so
the index of the answer is unique), keepdim, negative dims, 0-d inputs,
and rows holding NaN (median propagates NaN, at the first NaN's index).
The builders are torch_xla/csrc/ops/order_ops.h; sort/topk are covered in
test_reductions.py."""

import math

import pytest
import torch

from op_test_utils import XLA, check_op

NAN = math.nan
DTYPES = [torch.float32, torch.bfloat16, torch.int64]


def _distinct(shape, dtype):
  """A random permutation of distinct values (no ties) of `shape`."""
  n = max(math.prod(shape), 1)
  return (torch.randperm(n) - n // 2).reshape(shape).to(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim,k,keepdim", [((7,), -1, 7, False),
                                                 ((4, 9), 1, 5, True),
                                                 ((4, 9), 0, 1, False),
                                                 ((3, 5, 6), -2, 3, True)])
def test_kthvalue(dtype, shape, dim, k, keepdim):
  x = _distinct(shape, dtype)
  check_op(lambda a: a.kthvalue(k, dim, keepdim), x)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim,keepdim", [((7,), 0, False),
                                               ((4, 8), 1, True),
                                               ((4, 9), 0, False),
                                               ((3, 5, 6), -1, True)])
def test_median_dim(dtype, shape, dim, keepdim):
  x = _distinct(shape, dtype)
  check_op(lambda a: a.median(dim, keepdim), x)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(7,), (2, 3, 5)])
def test_median_of_all(dtype, shape):
  check_op(lambda a: a.median(), _distinct(shape, dtype))


def test_median_nan_rows_take_the_first_nan():
  x = torch.tensor([[3.0, NAN, 1.0, NAN, 2.0],
                    [5.0, 4.0, 1.0, 2.0, 3.0],
                    [NAN, 1.0, 2.0, 3.0, 4.0]])
  values, indices = check_op(lambda a: a.median(1), x, grad=False)
  assert indices.cpu().tolist() == [1, 4, 0]
  check_op(lambda a: a.median(), x, grad=False)
  # kthvalue sorts NaN as the largest value.
  check_op(lambda a: a.kthvalue(5, 1), x, grad=False)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16,
                                   torch.int64])
def test_nanmedian(dtype):
  x = _distinct((4, 7), dtype)
  check_op(lambda a: a.nanmedian(1), x)
  check_op(lambda a: a.nanmedian(0, True), x)
  check_op(lambda a: a.nanmedian(), x)


def test_nanmedian_skips_nan():
  x = torch.tensor([[3.0, NAN, 1.0, NAN, 2.0],
                    [NAN, NAN, NAN, NAN, NAN],
                    [NAN, 1.0, 2.0, 3.0, 4.0],
                    [4.0, 3.0, 2.0, 1.0, 0.0]])
  check_op(lambda a: a.nanmedian(1), x, grad=False)
  check_op(lambda a: a.nanmedian(), x, grad=False)
  check_op(lambda a: a.nanmedian(), torch.tensor([NAN, NAN]), grad=False)


def test_0d_inputs():
  x = torch.tensor(2.5)
  check_op(lambda a: a.kthvalue(1), x)
  check_op(lambda a: a.median(0), x)
  check_op(lambda a: a.median(), x)
  check_op(lambda a: a.nanmedian(0), x)


def test_results_keep_no_alias_of_the_input():
  x = torch.tensor(2.5, device=XLA)
  value, _ = x.median(0)
  value.add_(1)
  assert x.item() == 2.5
