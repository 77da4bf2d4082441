"""Pooling (2-d and 3-d; 1-d comes here through PyTorch's decomposition):
max (with indices), average, adaptive average and max; the backwards.

Each rule checks eager's arguments (shapes only, eager's error classes and
texts; the window geometry in pool_geometry.py: kernel, stride, padding,
the extra high padding ceil_mode's last window needs, dilation) and makes one
call into its C++ builder (torch_xla/csrc/ops/pooling_ops.h, through
_XLAC._max_pool, _avg_pool, _adaptive_avg_pool, _adaptive_max_pool and
their backwards), which holds the semantics as IR window ops:
- max pooling: one `reduce_window` argmax over (x, flat index into the
  input plane), the first maximum or the last NaN as eager picks; its
  backward one `select_and_scatter` (undilated windows) or a scatter-add
  of the gradient to the saved indices;
- average pooling: a window sum over the window sums of a 0/1 mask, in
  f32 for bf16/f16; its backward the transpose of the strided window sum;
- adaptive average pooling: a window sum where the output divides the
  input, else one dot per spatial dim with its averaging matrix;
- adaptive max pooling: max pooling where the output divides the input,
  else one argmax per spatial dim over each window gathered at its longest
  length (a graph whose size does not grow with the windows).

Cost: one pass over the input per op; no buffer beyond the result (and, for
max pooling, an int64 index plane broadcast over the batch).
"""

import math

import torch

from torch_xla import _XLAC, _dtypes
from torch_xla._ops._common import check_same_device
from torch_xla._ops.pool_geometry import Geometry
from torch_xla._ops.registry import aten, op


def _check_not_bool(name, x):
  if x.dtype == torch.bool:
    raise NotImplementedError(f"\"{name}\" not implemented for 'Bool'")


def _max_pool(name, x, kernel_size, stride, padding, dilation, ceil_mode,
              nsp):
  geo = Geometry("max", x, kernel_size, stride, padding, dilation, ceil_mode,
                 nsp)
  _check_not_bool(name, x)
  return _XLAC._max_pool(x, *geo.args())


@op(aten.max_pool2d_with_indices.default)
def max_pool2d_with_indices(x, kernel_size, stride=(), padding=0,
                            dilation=1, ceil_mode=False):
  return _max_pool("max_pool2d", x, kernel_size, stride, padding, dilation,
                   ceil_mode, 2)


@op(aten.max_pool3d_with_indices.default)
def max_pool3d_with_indices(x, kernel_size, stride=(), padding=0,
                            dilation=1, ceil_mode=False):
  return _max_pool("max_pool3d", x, kernel_size, stride, padding, dilation,
                   ceil_mode, 3)


def _check_indices(name, grad, x, indices, nsp):
  """grad and indices agree, and have x's leading dims (what scattering
  grad to the indices needs)."""
  check_same_device(name, grad, x, indices)
  lead = x.dim() - nsp
  if (list(indices.shape) != list(grad.shape) or
      list(grad.shape[:lead]) != list(x.shape[:lead])):
    raise RuntimeError(
        f"{name}: grad_output {list(grad.shape)}, indices "
        f"{list(indices.shape)} and input {list(x.shape)} must agree on all "
        f"but the last {nsp} dims (and grad_output and indices on all)")


def _max_pool_backward(name, grad, x, kernel_size, stride, padding, dilation,
                       ceil_mode, indices, nsp):
  if nsp == 3:  # eager takes the output sizes from grad
    geo = Geometry("max", x, kernel_size, stride, padding, dilation,
                   ceil_mode, nsp, grad=grad)
    geo.check_pooled(grad, x, dims=[-4])
    geo.check_pooled(indices, x)
  else:
    geo = Geometry("max", x, kernel_size, stride, padding, dilation,
                   ceil_mode, nsp)
    geo.check_pooled(grad, x)
    geo.check_pooled(indices, x)
    if x.dim() == 4:
      geo.check_pooled(grad, x, dims=[-4])
      geo.check_pooled(indices, x, dims=[-4])
  _check_indices(name, grad, x, indices, nsp)
  return _XLAC._max_pool_backward(grad, x, indices, *geo.args())


@op(aten.max_pool2d_with_indices_backward.default)
def max_pool2d_with_indices_backward(grad, x, kernel_size, stride, padding,
                                     dilation, ceil_mode, indices):
  return _max_pool_backward("max_pool2d_with_indices_backward", grad, x,
                            kernel_size, stride, padding, dilation,
                            ceil_mode, indices, 2)


@op(aten.max_pool3d_with_indices_backward.default)
def max_pool3d_with_indices_backward(grad, x, kernel_size, stride, padding,
                                     dilation, ceil_mode, indices):
  return _max_pool_backward("max_pool3d_with_indices_backward", grad, x,
                            kernel_size, stride, padding, dilation,
                            ceil_mode, indices, 3)


def _check_divisor(divisor_override):
  if divisor_override is not None and divisor_override == 0:
    raise RuntimeError("divisor must be not zero")


def _avg_pool(name, x, kernel_size, stride, padding, ceil_mode,
              count_include_pad, divisor_override, nsp):
  _check_divisor(divisor_override)
  geo = Geometry("avg", x, kernel_size, stride, padding, 1, ceil_mode, nsp)
  _check_not_bool(name, x)
  return _XLAC._avg_pool(x, *geo.args()[:4], bool(count_include_pad),
                         divisor_override)


@op(aten.avg_pool2d.default)
def avg_pool2d(x, kernel_size, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
  return _avg_pool("avg_pool2d", x, kernel_size, stride, padding, ceil_mode,
                   count_include_pad, divisor_override, 2)


@op(aten.avg_pool3d.default)
def avg_pool3d(x, kernel_size, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
  return _avg_pool("avg_pool3d_out_frame", x, kernel_size, stride, padding,
                   ceil_mode, count_include_pad, divisor_override, 3)


def _avg_pool_backward(name, grad, x, kernel_size, stride, padding,
                       ceil_mode, count_include_pad, divisor_override, nsp):
  check_same_device(name, grad, x)
  _check_divisor(divisor_override)
  geo = Geometry("avg", x, kernel_size, stride, padding, 1, ceil_mode, nsp,
                 backward=True)
  geo.check_pooled(grad, x)
  _check_not_bool(name, x)
  return _XLAC._avg_pool_backward(grad, x, *geo.args()[:4],
                                  bool(count_include_pad), divisor_override)


@op(aten.avg_pool2d_backward.default)
def avg_pool2d_backward(grad, x, kernel_size, stride, padding, ceil_mode,
                        count_include_pad, divisor_override):
  return _avg_pool_backward("avg_pool2d_backward", grad, x, kernel_size,
                            stride, padding, ceil_mode, count_include_pad,
                            divisor_override, 2)


@op(aten.avg_pool3d_backward.default)
def avg_pool3d_backward(grad, x, kernel_size, stride, padding, ceil_mode,
                        count_include_pad, divisor_override):
  return _avg_pool_backward("avg_pool3d_backward", grad, x, kernel_size,
                            stride, padding, ceil_mode, count_include_pad,
                            divisor_override, 3)


def _adaptive_size(x, output_size, n, kind, check_dtype=None):
  """The output's n spatial sizes (None: the input's), checked as eager's
  aten.adaptive_{kind}_pool{n}d checks them, in its order (check_dtype, if
  given, runs where eager checks the dtype: after the input's shape)."""
  name = f"adaptive_{kind}_pool{n}d"
  size = (list(output_size) if isinstance(output_size, (list, tuple)) else
          [output_size])
  if kind == "avg" and len(size) != n:
    raise RuntimeError(f"{name}: output_size must be {n}")
  if x.dim() not in (n + 1, n + 2):
    raise RuntimeError(
        f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got"
        f"{':' if kind == 'max' else ''} {list(x.shape)}")
  # Eager's 2-d average pool checks only the spatial dims, the others every
  # dim after the first (so an unbatched input may have no channels).
  first = x.dim() - n if name == "adaptive_avg_pool2d" else 1
  for d in range(first, x.dim()):
    if x.shape[d] == 0:
      raise RuntimeError(
          f"{name}(): Expected input to have non-zero size for non-batch "
          f"dimensions, but input has sizes {list(x.shape)} with dimension "
          f"{d} being empty")
  if check_dtype:
    check_dtype()
  if len(size) != n:
    raise RuntimeError(
        f"{name}(): internal error: output_size.size() must be {n}")
  size = [x.shape[-n + i] if s is None else int(s) for i, s in enumerate(size)]
  if any(s < 0 for s in size):
    if kind == "max":  # eager fails making the result
      shape = list(x.shape[:-n]) + size
      raise RuntimeError(f"Trying to create tensor with negative dimension "
                         f"{min(size)}: {shape}")
    raise RuntimeError(f"{name}: elements of output_size must be greater "
                       f"than or equal to 0 but received {size}")
  return size


def _check_float(name, x):
  if not x.dtype.is_floating_point:
    raise NotImplementedError(
        f"\"{name}\" not implemented for "
        f"'{_dtypes.scalar_type_name(x.dtype)}'")


def _adaptive_avg_pool(x, output_size, n):
  if n == 3:
    out = _adaptive_size(
        x, output_size, n, "avg",
        lambda: _check_float("adaptive_avg_pool3d_cpu", x))
  else:
    out = _adaptive_size(x, output_size, n, "avg")
    if math.prod(x.shape[:-n]) * math.prod(out):  # else nothing to compute
      _check_float("adaptive_avg_pool2d", x)
  return _XLAC._adaptive_avg_pool(x, out)


@op(aten._adaptive_avg_pool2d.default)
def adaptive_avg_pool2d(x, output_size):
  return _adaptive_avg_pool(x, output_size, 2)


@op(aten._adaptive_avg_pool3d.default)
def adaptive_avg_pool3d(x, output_size):
  return _adaptive_avg_pool(x, output_size, 3)


def _adaptive_avg_pool_backward(grad, x, n):
  name = f"adaptive_avg_pool{n}d_backward"
  check_same_device(name, grad, x)
  for d in range(1, grad.dim()):
    if grad.shape[d] == 0:
      raise RuntimeError(
          f"{name}(): Expected grad_output to have non-zero size for "
          f"non-batch dimensions, but grad_output has sizes "
          f"{list(grad.shape)} with dimension {d} being empty")
  return _XLAC._adaptive_avg_pool_backward(grad, x, n)


@op(aten._adaptive_avg_pool2d_backward.default)
def adaptive_avg_pool2d_backward(grad, x):
  return _adaptive_avg_pool_backward(grad, x, 2)


@op(aten._adaptive_avg_pool3d_backward.default)
def adaptive_avg_pool3d_backward(grad, x):
  return _adaptive_avg_pool_backward(grad, x, 3)


def _adaptive_max_pool(x, output_size, n, float_name):
  out = _adaptive_size(x, output_size, n, "max")
  _check_float(float_name, x)
  return _XLAC._adaptive_max_pool(x, out)


@op(aten.adaptive_max_pool2d.default)
def adaptive_max_pool2d(x, output_size):
  return _adaptive_max_pool(x, output_size, 2, "adaptive_max_pool2d")


@op(aten.adaptive_max_pool3d.default)
def adaptive_max_pool3d(x, output_size):
  return _adaptive_max_pool(x, output_size, 3, "adaptive_max_pool3d_cpu")


def _adaptive_max_pool_backward(name, grad_name, grad, x, indices, n):
  if list(grad.shape) != list(indices.shape):
    raise RuntimeError(f"expected sizes {list(indices.shape)} for "
                       f"`{grad_name}` but got sizes {list(grad.shape)}")
  _check_indices(name, grad, x, indices, n)
  return _XLAC._adaptive_max_pool_backward(grad, x, indices, n)


@op(aten.adaptive_max_pool2d_backward.default)
def adaptive_max_pool2d_backward(grad, x, indices):
  return _adaptive_max_pool_backward("adaptive_max_pool2d_backward",
                                     "grad_output", grad, x, indices, 2)


@op(aten.adaptive_max_pool3d_backward.default)
def adaptive_max_pool3d_backward(grad, x, indices):
  return _adaptive_max_pool_backward("adaptive_max_pool3d_backward",
                                     "gradOutput", grad, x, indices, 3)
