"""The pooling rules (torch_xla/_ops/pooling.py) cross from Python into C++
once per op: each checks its arguments and makes ONE _XLAC call into its
builder (torch_xla/csrc/ops/pooling_ops.h) that returns the wrapped 'xla'
tensor(s), forward and backward alike. A rule that went back to composing
IR in Python (one _XLAC call per node, then a wrap; adaptive max pooling
took 311) fails here. Crossings are counted with sys.setprofile, as calls
of _XLAC functions while the op runs.

Values and gradients are compared with eager in test/python/ops/
test_pooling.py; here the non-uniform adaptive windows also check that
the graph stays small (one gather per spatial dim, whatever the window
length)."""

import pytest
import torch

import torch_xla
from torch_xla import _XLAC
from crossing_counter import assert_crosses_once

aten = torch.ops.aten
DEV = torch_xla.device()


def _cases():
  torch.manual_seed(0)
  im = torch.randn(2, 3, 8, 8).to(DEV)
  vol = torch.randn(2, 3, 5, 6, 7).to(DEV)
  empty = torch.randn(0, 3, 8, 8).to(DEV)
  k2, k3 = [2, 2], [2, 2, 2]
  out2, idx2 = aten.max_pool2d_with_indices(im, k2, k2)
  out3, idx3 = aten.max_pool3d_with_indices(vol, k3, k3)
  dil, dil_idx = aten.max_pool2d_with_indices(im, k2, [1, 1], [0, 0], [2, 2])
  avg2 = aten.avg_pool2d(im, [3, 3], [2, 2], [1, 1], True)
  avg3 = aten.avg_pool3d(vol, k3, k3)
  aa2 = aten._adaptive_avg_pool2d(im, [3, 5])
  aa3 = aten._adaptive_avg_pool3d(vol, [3, 4, 2])
  am2, am2_idx = aten.adaptive_max_pool2d(im, [3, 5])
  am3, am3_idx = aten.adaptive_max_pool3d(vol, [3, 4, 2])
  return {
      "max_pool2d_with_indices": lambda: aten.max_pool2d_with_indices(
          im, [3, 3], [2, 2], [1, 1], [1, 1], True),
      "max_pool2d_with_indices_dilated": lambda: aten.max_pool2d_with_indices(
          im, k2, [1, 1], [0, 0], [2, 2]),
      "max_pool2d_with_indices_empty_batch":
          lambda: aten.max_pool2d_with_indices(empty, k2, k2),
      "max_pool3d_with_indices": lambda: aten.max_pool3d_with_indices(
          vol, k3, k3),
      "max_pool2d_with_indices_backward":
          lambda: aten.max_pool2d_with_indices_backward(
              out2, im, k2, k2, [0, 0], [1, 1], False, idx2),
      "max_pool2d_with_indices_backward_dilated":
          lambda: aten.max_pool2d_with_indices_backward(
              dil, im, k2, [1, 1], [0, 0], [2, 2], False, dil_idx),
      "max_pool3d_with_indices_backward":
          lambda: aten.max_pool3d_with_indices_backward(
              out3, vol, k3, k3, [0, 0, 0], [1, 1, 1], False, idx3),
      "avg_pool2d": lambda: aten.avg_pool2d(im, [3, 3], [2, 2], [1, 1], True),
      "avg_pool2d_divisor": lambda: aten.avg_pool2d(
          im, k2, k2, [0, 0], False, True, 3),
      "avg_pool3d": lambda: aten.avg_pool3d(vol, k3, k3),
      "avg_pool2d_backward": lambda: aten.avg_pool2d_backward(
          avg2, im, [3, 3], [2, 2], [1, 1], True, True, None),
      "avg_pool3d_backward": lambda: aten.avg_pool3d_backward(
          avg3, vol, k3, k3, [0, 0, 0], False, False, None),
      "adaptive_avg_pool2d": lambda: aten._adaptive_avg_pool2d(im, [3, 5]),
      "adaptive_avg_pool2d_equal": lambda: aten._adaptive_avg_pool2d(
          im, [4, 2]),
      "adaptive_avg_pool3d": lambda: aten._adaptive_avg_pool3d(
          vol, [3, 4, 2]),
      "adaptive_avg_pool2d_backward":
          lambda: aten._adaptive_avg_pool2d_backward(aa2, im),
      "adaptive_avg_pool3d_backward":
          lambda: aten._adaptive_avg_pool3d_backward(aa3, vol),
      "adaptive_max_pool2d": lambda: aten.adaptive_max_pool2d(im, [3, 5]),
      "adaptive_max_pool2d_equal": lambda: aten.adaptive_max_pool2d(
          im, [4, 2]),
      "adaptive_max_pool3d": lambda: aten.adaptive_max_pool3d(vol, [3, 4, 2]),
      "adaptive_max_pool2d_backward": lambda: aten.adaptive_max_pool2d_backward(
          am2, im, am2_idx),
      "adaptive_max_pool3d_backward": lambda: aten.adaptive_max_pool3d_backward(
          am3, vol, am3_idx),
  }


NAMES = sorted(_cases())


@pytest.mark.parametrize("name", NAMES)
def test_op_crosses_into_cpp_once(name):
  assert_crosses_once(name, _cases()[name])


@pytest.mark.parametrize("size,out", [(9, 4), (100, 3)])
def test_adaptive_max_pool_graph_does_not_grow_with_the_window(size, out):
  # One gather of the values and one of the indices per spatial dim (and
  # one argmax window each), however long the windows are.
  x = torch.randn(1, 2, size, size).to(DEV)
  values, indices = aten.adaptive_max_pool2d(x, [out, out])
  hlo = _XLAC._get_stablehlo([values, indices]).decode()
  assert hlo.count('"stablehlo.gather"') == 4
  assert hlo.count('"stablehlo.reduce_window"') == 2
  expected = aten.adaptive_max_pool2d(x.cpu(), [out, out])
  torch.testing.assert_close(values.cpu(), expected[0])
  torch.testing.assert_close(indices.cpu(), expected[1])
