"""Bad window geometries of max and average pooling (forward and backward,
2-d and 3-d) raise eager's error class and text, in eager's order when
several arguments are bad (torch_xla/_ops/pool_geometry.py). Shapes only:
nothing here compiles."""

import pytest
import torch

from op_test_utils import XLA

aten = torch.ops.aten


def _ops(n, x, grad, indices):
  return {
      f"max_pool{n}d": lambda k, s, p, d: getattr(
          aten, f"max_pool{n}d_with_indices")(x, k, s, p, d, False),
      f"max_pool{n}d_backward": lambda k, s, p, d: getattr(
          aten, f"max_pool{n}d_with_indices_backward")(
              grad, x, k, s, p, d, False, indices),
      f"avg_pool{n}d": lambda k, s, p, d: getattr(aten, f"avg_pool{n}d")(
          x, k, s, p, False),
      f"avg_pool{n}d_backward": lambda k, s, p, d: getattr(
          aten, f"avg_pool{n}d_backward")(grad, x, k, s, p, False, True,
                                          None),
  }


def _inputs(n, device):
  torch.manual_seed(0)
  x = torch.randn([1, 2] + [6] * n)
  grad = torch.randn([1, 2] + [3] * n)
  indices = torch.zeros([1, 2] + [3] * n, dtype=torch.long)
  return [t.to(device) for t in (x, grad, indices)]


# kernel, stride, padding, dilation: each has at least one bad entry (for
# average pooling dilation is not an argument, so some are valid there).
GEOMETRIES = [
    ([2, 2, 2, 2], [1], [0], [1]),  # kernel of the wrong length
    ([2], [2, 2, 2, 2], [0], [1]),  # stride of the wrong length
    ([2], [1], [1, 1, 1, 1], [1]),  # padding of the wrong length
    ([2], [1], [0], [1, 1, 1, 1]),  # dilation of the wrong length
    ([0], [1], [0], [1]),  # kernel 0
    ([-1], [], [0], [1]),  # negative kernel (default stride)
    ([2], [0], [5], [0]),  # stride 0 first, then the rest
    ([2], [-1], [0], [1]),  # negative stride
    ([2], [1], [0], [0]),  # dilation 0
    ([2], [1], [-1], [1]),  # negative padding
    ([2], [1], [2], [1]),  # padding beyond half the kernel
    ([3], [1], [2], [2]),  # within the dilated kernel, beyond the kernel
    ([7], [1], [0], [1]),  # a kernel larger than the input
    ([0], [1], [5], [0]),  # padding checked before the kernel
]


def _outcome(fn, args):
  try:
    fn(*args)
  except Exception as e:  # pylint: disable=broad-except
    return type(e), str(e)
  return None


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("geometry", GEOMETRIES, ids=str)
def test_bad_geometry_raises_eagers_error(n, geometry):
  cpu = _ops(n, *_inputs(n, "cpu"))
  xla = _ops(n, *_inputs(n, XLA))
  for name in cpu:
    expected = _outcome(cpu[name], geometry)
    if expected is None:  # valid for this op (average pooling's dilation)
      continue
    assert _outcome(xla[name], geometry) == expected, name


ADAPTIVE_CASES = [
    # op, input shape, output_size, dtype
    (aten._adaptive_avg_pool2d, (2, 5, 6), [3], torch.float32),
    (aten._adaptive_avg_pool2d, (5, 6), [3], torch.float32),
    (aten._adaptive_avg_pool3d, (2, 4, 5, 6), [3, 3], torch.int64),
    (aten.adaptive_max_pool2d, (5, 6), [3], torch.float32),
    (aten.adaptive_max_pool2d, (1, 0, 5, 6), [3], torch.float32),
    (aten.adaptive_max_pool3d, (2, 4, 5, 6), [3, 3], torch.float32),
    (aten._adaptive_avg_pool2d, (2, 5, 6), [0, 3], torch.int64),
    (aten._adaptive_avg_pool2d, (1, 2, 5, 6), [2, 3], torch.int64),
    (aten._adaptive_avg_pool3d, (2, 4, 5, 6), [0, 2, 3], torch.int64),
    (aten._adaptive_avg_pool2d, (1, 0, 5, 6), [3, 3], torch.float32),
]


@pytest.mark.parametrize("case", ADAPTIVE_CASES, ids=str)
def test_adaptive_pool_argument_checks_match_eager(case):
  # The aten ops' own checks, in eager's order: output_size's length first
  # for average pooling, after the input's shape for max pooling; integer
  # inputs of 2-d average pooling fail only when there is something to
  # compute.
  fn, shape, size, dtype = case
  x = torch.zeros(shape, dtype=dtype)
  expected = _outcome(lambda: tuple(fn(x, size)), ())
  got = _outcome(lambda: tuple(fn(x.to(XLA), size)), ())
  assert got == expected
  if expected is None:
    out = fn(x.to(XLA), size)
    assert out.shape == fn(x, size).shape and out.dtype == dtype
