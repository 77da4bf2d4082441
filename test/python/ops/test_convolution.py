"""Convolutions on 'xla' against eager CPU PyTorch: conv1d/2d/3d with
stride, padding, dilation, groups and bias, transposed convolutions, and
their gradients (aten.convolution_backward), plus eager's error messages.
"""

import re

import pytest
import torch
import torch.nn.functional as F

import torch_xla
import torch_xla.debug.metrics as met
from op_test_utils import XLA, check_op


CONV2D_CASES = [
    # (in_channels, out_channels, kernel, stride, padding, dilation, groups)
    (3, 4, 3, 1, 0, 1, 1),
    (3, 4, 3, 1, 1, 1, 1),
    (3, 4, (3, 2), 2, (1, 0), 1, 1),
    (3, 4, 3, (2, 3), 2, (2, 1), 1),
    (4, 6, 3, 1, 1, 1, 2),
    (6, 4, (2, 3), 2, 1, 2, 2),
    (4, 4, 3, 1, 1, 1, 4),  # depthwise
    (4, 8, 3, 2, 1, 1, 4),  # depthwise with a channel multiplier
    (3, 5, 1, 1, 0, 1, 1),  # 1x1
    (2, 3, 5, 3, 2, 1, 1),  # stride larger than the remaining rows
]


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("case", CONV2D_CASES, ids=str)
def test_conv2d(case, bias):
  cin, cout, k, stride, padding, dilation, groups = case
  kh, kw = (k, k) if isinstance(k, int) else k
  x = torch.randn(2, cin, 9, 8)
  w = torch.randn(cout, cin // groups, kh, kw)
  b = torch.randn(cout) if bias else None
  check_op(
      lambda x, w, b: F.conv2d(x, w, b, stride, padding, dilation, groups),
      x, w, b)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float64])
def test_conv2d_dtypes(dtype):
  x = torch.randn(2, 4, 8, 8, dtype=dtype)
  w = torch.randn(6, 2, 3, 3, dtype=dtype)
  b = torch.randn(6, dtype=dtype)
  if dtype != torch.bfloat16:
    check_op(lambda x, w, b: F.conv2d(x, w, b, 1, 1, 1, 2), x, w, b)
    return
  # Eager's bf16 CPU backward rounds partial sums (up to 0.125 off the exact
  # gradient for these inputs); ours accumulates in f32 and rounds once, so
  # gradients are compared with the f32 computation rounded to bf16.
  check_op(lambda x, w, b: F.conv2d(x, w, b, 1, 1, 1, 2), x, w, b, grad=False)
  g = torch.randn(2, 6, 8, 8, dtype=dtype)

  def grads(x, w, b, g):
    x, w, b = (t.detach().requires_grad_() for t in (x, w, b))
    return torch.autograd.grad(F.conv2d(x, w, b, 1, 1, 1, 2), (x, w, b), g)

  exact = grads(x.float(), w.float(), b.float(), g.float())
  actual = grads(x.to(XLA), w.to(XLA), b.to(XLA), g.to(XLA))
  for a, e in zip(actual, exact):
    torch.testing.assert_close(a.cpu(), e.to(dtype), atol=1e-2, rtol=1.6e-2)


def test_conv2d_int64_forward():
  x = torch.randint(-3, 4, (2, 3, 6, 6))
  w = torch.randint(-3, 4, (4, 3, 3, 3))
  check_op(lambda x, w: F.conv2d(x, w, padding=1), x, w)


def test_conv2d_unbatched_input():
  check_op(lambda x, w, b: F.conv2d(x, w, b, padding=1),
           torch.randn(3, 7, 7), torch.randn(4, 3, 3, 3), torch.randn(4))


def test_conv2d_padding_same():
  check_op(lambda x, w: F.conv2d(x, w, padding="same", dilation=2),
           torch.randn(1, 2, 8, 8), torch.randn(3, 2, 3, 3))


@pytest.mark.parametrize("stride,padding,dilation,groups",
                         [(1, 0, 1, 1), (3, 2, 1, 1), (2, 1, 2, 2)])
def test_conv1d(stride, padding, dilation, groups):
  check_op(
      lambda x, w, b: F.conv1d(x, w, b, stride, padding, dilation, groups),
      torch.randn(2, 4, 11), torch.randn(6, 4 // groups, 3), torch.randn(6))


def test_conv3d():
  check_op(lambda x, w, b: F.conv3d(x, w, b, stride=(1, 2, 1), padding=1),
           torch.randn(1, 2, 5, 6, 4), torch.randn(3, 2, 2, 3, 3),
           torch.randn(3))


@pytest.mark.parametrize("stride,padding,output_padding,dilation,groups", [
    (1, 0, 0, 1, 1),
    (2, 1, 1, 1, 1),
    ((2, 1), (1, 0), (1, 0), (1, 2), 2),
    (3, 1, 2, 1, 1),
])
def test_conv_transpose2d(stride, padding, output_padding, dilation, groups):
  check_op(
      lambda x, w, b: F.conv_transpose2d(x, w, b, stride, padding,
                                         output_padding, groups, dilation),
      torch.randn(2, 4, 5, 6), torch.randn(4, 6 // groups, 3, 2),
      torch.randn(6))


def test_conv_transpose1d():
  check_op(
      lambda x, w: F.conv_transpose1d(x, w, stride=3, padding=1,
                                      output_padding=2),
      torch.randn(2, 4, 5), torch.randn(4, 3, 3))


def test_conv2d_module_and_partial_grads():
  conv = torch.nn.Conv2d(3, 4, 3, padding=1)
  xla_conv = torch.nn.Conv2d(3, 4, 3, padding=1).to(XLA)
  xla_conv.load_state_dict(conv.state_dict())
  x = torch.randn(2, 3, 6, 6)
  # Input without grad: convolution_backward only computes weight/bias.
  conv(x).square().sum().backward()
  xla_conv(x.to(XLA)).square().sum().backward()
  torch.testing.assert_close(xla_conv.weight.grad.cpu(), conv.weight.grad,
                             atol=1e-4, rtol=1e-5)
  torch.testing.assert_close(xla_conv.bias.grad.cpu(), conv.bias.grad,
                             atol=1e-4, rtol=1e-5)


def test_convolution_backward_output_mask():
  x, w = torch.randn(2, 3, 6, 6), torch.randn(4, 3, 3, 3)
  g = torch.randn(2, 4, 4, 4)
  args = ([0], [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
  for mask in ([True, False, False], [False, True, True],
               [True, True, False]):
    expected = torch.ops.aten.convolution_backward(g, x, w, *args, mask)
    actual = torch.ops.aten.convolution_backward(g.to(XLA), x.to(XLA),
                                                 w.to(XLA), *args, mask)
    for e, a, wanted in zip(expected, actual, mask):
      assert (a is not None) == wanted
      if wanted:
        torch.testing.assert_close(a.cpu(), e, atol=1e-5, rtol=1e-5)


def test_no_recompile_for_new_values():
  w = torch.randn(4, 3, 3, 3).to(XLA)
  torch_xla.sync()  # leave pending work of earlier tests out of step 0
  before = None
  for step in range(3):
    out = F.conv2d(torch.randn(2, 3, 6, 6).to(XLA), w, padding=1)
    torch_xla.sync()
    out.cpu()
    if step == 0:
      before = met.counter_value("UncachedCompile")
  assert met.counter_value("UncachedCompile") == before


@pytest.mark.parametrize("x_shape,w_shape,kwargs,message", [
    ((2, 5, 8, 8), (4, 3, 3, 3), {},
     "Given groups=1, weight of size [4, 3, 3, 3], expected input[2, 5, 8, 8] "
     "to have 3 channels, but got 5 channels instead"),
    ((2, 3, 2, 2), (4, 3, 3, 3), {},
     "Calculated padded input size per channel: (2 x 2). Kernel size: "
     "(3 x 3). Kernel size can't be greater than actual input size"),
    ((2, 6, 8, 8), (4, 2, 3, 3), {"groups": 3},
     "Given groups=3, expected weight to be divisible by 3 at dimension 0, "
     "but got weight of size [[4, 2, 3, 3]] instead"),
    ((2, 3, 8, 8), (4, 3, 3, 3), {"stride": 0},
     "non-positive stride is not supported"),
])
def test_errors_match_eager(x_shape, w_shape, kwargs, message):
  x, w = torch.randn(x_shape), torch.randn(w_shape)
  with pytest.raises(RuntimeError, match=re.escape(message)):
    F.conv2d(x, w, **kwargs)
  with pytest.raises(RuntimeError, match=re.escape(message)):
    F.conv2d(x.to(XLA), w.to(XLA), **kwargs)


def test_bias_size_error():
  message = ("Given weight of size [4, 3, 3, 3], expected bias to be "
             "1-dimensional with 4 elements, but got bias of size [5] instead")
  with pytest.raises(RuntimeError, match=re.escape(message)):
    F.conv2d(torch.randn(2, 3, 8, 8).to(XLA), torch.randn(4, 3, 3, 3).to(XLA),
             torch.randn(5).to(XLA))


def test_dtype_mismatch_error():
  with pytest.raises(RuntimeError, match="should be the same"):
    F.conv2d(torch.randn(2, 3, 8, 8).to(XLA),
             torch.randn(4, 3, 3, 3).double().to(XLA))


# ---------------------------------------------------------------------------
# Native convolution: every case above is one IR convolution (no im2col).


@pytest.mark.parametrize("stride,padding,dilation,groups", [
    (1, 0, 1, 1), ((2, 1, 3), (1, 2, 0), (1, 2, 1), 2), (2, 1, 2, 3)])
def test_conv3d_stride_padding_dilation_groups(stride, padding, dilation,
                                               groups):
  check_op(
      lambda x, w, b: F.conv3d(x, w, b, stride, padding, dilation, groups),
      torch.randn(2, 6, 7, 8, 6), torch.randn(3 * groups, 6 // groups, 3, 2,
                                              2), torch.randn(3 * groups))


def test_conv_transpose3d_grouped():
  check_op(
      lambda x, w, b: F.conv_transpose3d(x, w, b, stride=(2, 1, 2),
                                         padding=1, output_padding=(1, 0, 0),
                                         groups=2, dilation=(1, 2, 1)),
      torch.randn(1, 4, 3, 4, 3), torch.randn(4, 3, 3, 2, 3), torch.randn(6))


def test_conv_padding_larger_than_kernel():
  # The input gradient's padding d * (k - 1) - p is negative here.
  check_op(lambda x, w: F.conv2d(x, w, stride=2, padding=3),
           torch.randn(2, 3, 7, 6), torch.randn(4, 3, 2, 2))


def test_conv_lowers_to_one_native_convolution_per_direction():
  x = torch.randn(2, 3, 16, 16).to(XLA).requires_grad_()
  w = torch.randn(4, 3, 3, 3).to(XLA).requires_grad_()
  y = F.conv2d(x, w, padding=1)
  hlo = torch_xla._XLAC._get_stablehlo([y]).decode()
  assert hlo.count("stablehlo.convolution") == 1
  assert "stablehlo.concatenate" not in hlo
  gx, gw = torch.autograd.grad(y.sum(), (x, w))
  hlo = torch_xla._XLAC._get_stablehlo([gx, gw]).decode()
  assert hlo.count("stablehlo.convolution") == 2  # input and weight grads
  assert "stablehlo.concatenate" not in hlo
