"""Pooling on 'xla' against eager CPU PyTorch: max pooling (values, indices,
gradients), average pooling (padding, ceil_mode, count_include_pad,
divisor_override), adaptive average/max pooling, and error messages.
"""

import re

import pytest
import torch
import torch.nn.functional as F

import torch_xla
from op_test_utils import XLA, check_op


MAX_CASES = [
    # kernel, stride, padding, dilation, ceil_mode
    (2, None, 0, 1, False),
    (3, 2, 1, 1, False),
    (3, 2, 1, 1, True),
    ((3, 2), (2, 3), (1, 1), 1, True),
    (3, 1, 1, 2, False),
    (3, 2, 1, 2, True),
    (2, 3, 0, 1, True),
    (1, 1, 0, 1, False),
]


@pytest.mark.parametrize("shape", [(2, 3, 9, 7), (3, 8, 8)], ids=str)
@pytest.mark.parametrize("case", MAX_CASES, ids=str)
def test_max_pool2d_with_indices(case, shape):
  kernel, stride, padding, dilation, ceil_mode = case
  check_op(
      lambda x: F.max_pool2d(x, kernel, stride, padding, dilation, ceil_mode,
                             return_indices=True), torch.randn(shape))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float64,
                                   torch.int64, torch.int32])
def test_max_pool2d_dtypes(dtype):
  x = (torch.randn(2, 3, 8, 8) * 10).to(dtype)
  check_op(lambda x: F.max_pool2d(x, 3, 2, 1, return_indices=True), x)


def test_max_pool2d_nan_and_negative_infinity_like_eager():
  x = torch.randn(1, 1, 5, 5)
  x[0, 0, 1, 1] = float("nan")
  x[0, 0, 2, 2] = float("nan")
  check_op(lambda x: F.max_pool2d(x, 3, 1, 1, return_indices=True), x,
           grad=False)
  # Windows of -inf report their first in-bounds element, not padding.
  check_op(lambda x: F.max_pool2d(x, 3, 2, 1, return_indices=True),
           torch.full((1, 1, 5, 5), -float("inf")), grad=False)


def test_max_pool1d():
  check_op(lambda x: F.max_pool1d(x, 3, 2, 1, return_indices=True),
           torch.randn(2, 3, 10))


AVG_CASES = [
    # kernel, stride, padding, ceil_mode, count_include_pad, divisor_override
    (2, None, 0, False, True, None),
    (3, 2, 1, False, True, None),
    (3, 2, 1, False, False, None),
    (3, 2, 1, True, True, None),
    (3, 2, 1, True, False, None),
    ((3, 2), (2, 1), (1, 0), True, True, 5),
    (2, 3, 1, True, False, None),
]


@pytest.mark.parametrize("shape", [(2, 3, 9, 7), (3, 8, 8)], ids=str)
@pytest.mark.parametrize("case", AVG_CASES, ids=str)
def test_avg_pool2d(case, shape):
  kernel, stride, padding, ceil_mode, include_pad, divisor = case
  check_op(
      lambda x: F.avg_pool2d(x, kernel, stride, padding, ceil_mode,
                             include_pad, divisor), torch.randn(shape))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float64])
def test_avg_pool2d_float_dtypes(dtype):
  check_op(lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True),
           torch.randn(2, 3, 8, 8, dtype=dtype))


def test_avg_pool2d_int64_truncates_like_eager():
  check_op(lambda x: F.avg_pool2d(x, 3, 2, 1),
           torch.randint(-50, 50, (2, 3, 7, 7)))


def test_avg_pool1d():
  check_op(lambda x: F.avg_pool1d(x, 3, 2, 1, count_include_pad=False),
           torch.randn(2, 3, 10))


@pytest.mark.parametrize("shape,out", [
    ((2, 3, 8, 8), (2, 4)),
    ((2, 3, 8, 8), (8, 8)),
    ((2, 3, 9, 7), (4, 3)),
    ((2, 3, 9, 7), (5, 6)),
    ((3, 9, 7), (5, None)),
    ((2, 3, 5, 5), 1),
], ids=str)
def test_adaptive_avg_pool2d(shape, out):
  check_op(lambda x: F.adaptive_avg_pool2d(x, out), torch.randn(shape))


def test_adaptive_avg_pool2d_bf16():
  check_op(lambda x: F.adaptive_avg_pool2d(x, (3, 3)),
           torch.randn(2, 3, 8, 8, dtype=torch.bfloat16))
  check_op(lambda x: F.adaptive_avg_pool2d(x, (2, 4)),
           torch.randn(2, 3, 8, 8, dtype=torch.bfloat16))


def test_adaptive_avg_pool1d():
  check_op(lambda x: F.adaptive_avg_pool1d(x, 4), torch.randn(2, 3, 10))


@pytest.mark.parametrize("shape,out", [
    ((2, 3, 8, 10), (2, 2)),
    ((2, 3, 8, 10), (3, 5)),
    ((3, 7, 9), (4, 4)),
    ((1, 2, 5, 5), (5, 5)),
], ids=str)
def test_adaptive_max_pool2d(shape, out):
  check_op(lambda x: F.adaptive_max_pool2d(x, out, return_indices=True),
           torch.randn(shape))


def test_adaptive_max_pool2d_nan_and_integer_error():
  x = torch.randn(1, 1, 7, 7)
  x[0, 0, 2, 3] = float("nan")
  check_op(lambda x: F.adaptive_max_pool2d(x, 3, return_indices=True), x,
           grad=False)
  ints = torch.randint(-3, 3, (2, 7, 7))
  message = "\"adaptive_max_pool2d\" not implemented for 'Long'"
  with pytest.raises(NotImplementedError, match=message):
    F.adaptive_max_pool2d(ints, 3)
  with pytest.raises(NotImplementedError, match=message):
    F.adaptive_max_pool2d(ints.to(XLA), 3)


def test_max_pool_backward_accumulates_overlapping_windows():
  # Overlapping windows that share a maximum send it every window's grad.
  x = torch.zeros(1, 1, 4, 4)
  x[0, 0, 1, 1] = 5.0
  check_op(lambda x: F.max_pool2d(x, 3, 1, 1), x)


def test_cnn_block_grads():
  conv = torch.nn.Conv2d(3, 4, 3, padding=1)
  check_op(
      lambda x, w, b: F.adaptive_avg_pool2d(
          F.avg_pool2d(F.max_pool2d(F.conv2d(x, w, b, padding=1), 2),
                       2, ceil_mode=True), 1),
      torch.randn(2, 3, 9, 9), conv.weight.detach(), conv.bias.detach(),
      atol=1e-4)


@pytest.mark.parametrize("fn,message", [
    (lambda x: F.max_pool2d(x, 2, padding=2),
     "pad should be at most half of effective kernel size, but got pad=2, "
     "kernel_size=2 and dilation=1"),
    (lambda x: F.avg_pool2d(x, 2, padding=2),
     "pad should be at most half of effective kernel size, but got pad=2, "
     "kernel_size=2 and dilation=1"),
    (lambda x: F.max_pool2d(x[:, :, :2, :2], 3),
     "Output size is too small"),
    (lambda x: F.max_pool2d(x[0, 0], 2),
     "non-empty 3D or 4D (batch mode) tensor expected for input"),
])
def test_errors_match_eager(fn, message):
  x = torch.randn(1, 1, 8, 8)
  with pytest.raises(RuntimeError, match=re.escape(message)):
    fn(x)
  with pytest.raises(RuntimeError, match=re.escape(message)):
    fn(x.to(XLA))


# ---------------------------------------------------------------------------
# Native windows: reduce_window (pools) and select_and_scatter (max pool
# backward); 3-d pools.


@pytest.mark.parametrize("case", [
    # kernel, stride, padding, dilation, ceil_mode
    (2, None, 0, 1, False),
    ((3, 2, 2), (2, 1, 2), (1, 0, 1), 1, True),
    (3, 2, 1, 2, False),
], ids=str)
def test_max_pool3d_with_indices(case):
  kernel, stride, padding, dilation, ceil_mode = case
  check_op(
      lambda x: F.max_pool3d(x, kernel, stride, padding, dilation, ceil_mode,
                             return_indices=True), torch.randn(2, 3, 7, 8, 6))


@pytest.mark.parametrize("case", [
    # kernel, stride, padding, ceil_mode, count_include_pad, divisor_override
    (2, None, 0, False, True, None),
    (3, 2, 1, True, True, None),
    ((3, 2, 3), (2, 1, 2), (1, 1, 0), True, False, None),
    (2, 3, 1, True, False, 3),
], ids=str)
def test_avg_pool3d(case):
  kernel, stride, padding, ceil_mode, include_pad, divisor = case
  check_op(
      lambda x: F.avg_pool3d(x, kernel, stride, padding, ceil_mode,
                             include_pad, divisor), torch.randn(2, 3, 7, 8, 6))


def test_max_pool_backward_ties_nan_and_dilation():
  # Ties and NaN: select_and_scatter must pick eager's element.
  x = torch.randint(0, 3, (2, 2, 9, 8)).float()
  x[0, 0, 2, 3] = float("nan")
  x[0, 1, 4, 4] = float("nan")
  x[0, 1, 4, 5] = float("nan")
  check_op(lambda a: F.max_pool2d(a, 3, 2, 1, ceil_mode=True), x)
  # Dilated windows: the gradient follows the saved indices.
  check_op(lambda a: F.max_pool2d(a, 3, 1, 1, dilation=2), x)


def _window_slices(hlo):
  """Slices in a module other than reads of one packed scalar (a graph's
  scalars travel as one vector per dtype, each read with a 1-element slice)."""
  return [line for line in hlo.splitlines() if '"stablehlo.slice"' in line and
          not re.search(r"-> tensor<1x[a-z0-9]+>$", line)]


def test_pools_lower_to_window_ops():
  x = torch.randn(2, 3, 12, 12).to(XLA).requires_grad_()
  y = F.max_pool2d(x, 3, 2, 1)
  z = F.avg_pool2d(x, 3, 2, 1, ceil_mode=True)
  hlo = torch_xla._XLAC._get_stablehlo([y, z]).decode()
  assert hlo.count("stablehlo.reduce_window") >= 2
  assert not _window_slices(hlo)
  (gx,) = torch.autograd.grad(y.sum() + z.sum(), (x,))
  hlo = torch_xla._XLAC._get_stablehlo([gx]).decode()
  assert "stablehlo.select_and_scatter" in hlo
  assert "stablehlo.scatter" not in hlo.replace("select_and_scatter", "")
  assert not _window_slices(hlo)


# ---------------------------------------------------------------------------
# Adaptive max pooling over non-uniform windows (separable: one argmax per
# spatial dim over gathered windows) and 3-d adaptive pools.


@pytest.mark.parametrize("shape,out", [
    ((2, 3, 7, 9, 8), (3, 4, 5)),
    ((3, 6, 5, 7), (3, 2, 4)),
    ((1, 2, 4, 6, 8), (2, 3, 4)),
    ((1, 2, 5, 5, 5), (3, None, 1)),
], ids=str)
def test_adaptive_max_pool3d(shape, out):
  check_op(lambda x: F.adaptive_max_pool3d(x, out, return_indices=True),
           torch.randn(shape))


def test_adaptive_max_pool_ties_nan_and_infinity_like_eager():
  # Ties across rows and columns: the first maximum in row-major order;
  # NaNs in several rows of a window: the last one; all -inf: the first.
  torch.manual_seed(1)
  x = torch.randint(0, 3, (2, 2, 9, 10)).float()
  x[0, 0, 1, 4] = float("nan")
  x[0, 0, 2, 1] = float("nan")
  x[0, 1, 5:9, 6:10] = -float("inf")
  for out in [(4, 3), (2, 7), (5, 5)]:
    check_op(lambda a: F.adaptive_max_pool2d(a, out, return_indices=True),
             x, grad=False)
  check_op(lambda a: F.adaptive_max_pool2d(a, (4, 3)), x.nan_to_num(0.0))
  v = torch.randint(0, 2, (1, 2, 5, 7, 6)).float()
  v[0, 1, 3, 2, 4] = float("nan")
  v[0, 1, 4, 0, 0] = float("nan")
  check_op(lambda a: F.adaptive_max_pool3d(a, (3, 4, 4),
                                           return_indices=True), v,
           grad=False)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16,
                                   torch.float64])
def test_adaptive_max_pool_float_dtypes(dtype):
  check_op(lambda x: F.adaptive_max_pool2d(x, (3, 4), return_indices=True),
           torch.randn(2, 3, 7, 9).to(dtype))


def test_adaptive_max_pool1d():
  check_op(lambda x: F.adaptive_max_pool1d(x, 4, return_indices=True),
           torch.randn(2, 3, 11))


@pytest.mark.parametrize("shape,out", [
    ((2, 3, 7, 9, 8), (3, 4, 5)),
    ((2, 3, 4, 6, 8), (2, 3, 4)),
    ((3, 5, 6, 7), (5, 2, None)),
], ids=str)
def test_adaptive_avg_pool3d(shape, out):
  check_op(lambda x: F.adaptive_avg_pool3d(x, out), torch.randn(shape))


@pytest.mark.parametrize("fn,error,message", [
    (lambda x: F.adaptive_max_pool3d(x.long(), 2), NotImplementedError,
     "\"adaptive_max_pool3d_cpu\" not implemented for 'Long'"),
    (lambda x: F.adaptive_max_pool3d(x[0, 0, 0], 2), RuntimeError,
     "adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: [4, 4]"),
    (lambda x: F.adaptive_max_pool2d(x[0, 0, 0, 0], 2), RuntimeError,
     "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: [4]"),
    (lambda x: F.adaptive_max_pool3d(x, (2, -1, 2)), RuntimeError,
     "Trying to create tensor with negative dimension -1: [1, 2, 2, -1, 2]"),
    (lambda x: torch.ops.aten.adaptive_max_pool3d(x, [2, 2]), RuntimeError,
     "adaptive_max_pool3d(): internal error: output_size.size() must be 3"),
    (lambda x: torch.ops.aten.adaptive_max_pool3d_backward(
        x[:, :, :2], x, x[:, :, :3].long()), RuntimeError,
     "expected sizes [1, 2, 3, 4, 4] for `gradOutput` but got sizes "
     "[1, 2, 2, 4, 4]"),
    (lambda x: torch.ops.aten.avg_pool3d_backward(
        x[:, :, :, :1], x, [2, 2, 2], [2, 2, 2], [0, 0, 0], False, True,
        None), RuntimeError,
     "Expected a tensor of dimension 5 and tensor.size[2] == 2 but got: "
     "dimension 5 and tensor.size[2] = 4"),
    (lambda x: torch.ops.aten.max_pool3d_with_indices_backward(
        x[:, :1, :2, :2, :2], x, [2, 2, 2], [2, 2, 2], [0, 0, 0], [1, 1, 1],
        False, x[:, :1, :2, :2, :2].long()), RuntimeError,
     "Expected a tensor of dimension 5 and tensor.size[1] == 2 but got: "
     "dimension 5 and tensor.size[1] = 1"),
], ids=range(8))
def test_adaptive_and_backward_errors_match_eager(fn, error, message):
  x = torch.randn(1, 2, 4, 4, 4)
  with pytest.raises(error, match=re.escape(message)):
    fn(x)
  with pytest.raises(error, match=re.escape(message)):
    fn(x.to(XLA))


def _outcome(fn, x):
  """fn(x) and its gradient's shapes, or the error's class and text."""
  try:
    y = fn(x)
    y = y[0] if isinstance(y, tuple) else y
    (g,) = torch.autograd.grad(y.sum(), x)
    return tuple(y.shape), tuple(g.shape)
  except RuntimeError as e:
    return type(e), str(e)


@pytest.mark.parametrize("fn,shape", [
    (lambda x: F.adaptive_max_pool2d(x, (3, 5)), (0, 3, 8, 8)),
    (lambda x: F.adaptive_max_pool2d(x, 2), (0, 4, 4)),
    (lambda x: F.adaptive_max_pool2d(x, 2), (2, 0, 4, 4)),
    (lambda x: F.adaptive_avg_pool2d(x, (4, 4)), (0, 3, 8, 8)),
    (lambda x: F.adaptive_avg_pool2d(x, 3), (2, 0, 5, 4)),
    (lambda x: F.adaptive_avg_pool2d(x, 2), (0, 4, 4)),
    (lambda x: F.adaptive_avg_pool3d(x, (3, 3, 2)), (0, 5, 4, 3)),
    (lambda x: F.adaptive_avg_pool3d(x, 2), (2, 0, 3, 4, 4)),
    (lambda x: F.adaptive_max_pool3d(x, (3, 3, 2)), (0, 5, 4, 3)),
    (lambda x: F.avg_pool2d(x, 3, 2, 1, True, False), (0, 3, 8, 8)),
    (lambda x: F.max_pool2d(x, 3, 1, 1, dilation=2), (0, 3, 8, 8)),
], ids=range(11))
def test_empty_inputs_like_eager(fn, shape):
  # Eager's 2-d adaptive average pool checks only the spatial dims, the
  # other adaptive pools every dim after the first; empty batches pool to
  # empty results (no window op over them) and their gradients.
  x = torch.randn(shape, requires_grad=True)
  expected = _outcome(fn, x)
  assert _outcome(fn, x.detach().to(XLA).requires_grad_()) == expected
