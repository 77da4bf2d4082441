"""max_unpool2d / max_unpool3d: the inverse of max pooling with indices.

Each input plane's values go into a zero plane of `output_size` at the flat
positions its indices name (the indices max_pool*_with_indices returns).
The rule checks eager's arguments in eager's order and makes one call into
C++ (_XLAC._max_unpool, ops/unpool_ops.h), which also registers eager's
check that every index lies inside the output plane as a device-side check
(the index values are only known on the device; it raises at the next
sync or read, naming the index as `i`). The backward (autograd's
max_pool_double_backward: a gather of the gradient at the indices) comes
back to the gather rules.
"""

import torch

from torch_xla import _XLAC
from torch_xla._dtypes import scalar_type_name
from torch_xla._ops._common import check_same_device
from torch_xla._ops.registry import aten, op

_FLOATS = (torch.float32, torch.float64, torch.bfloat16, torch.float16)


def _sizes(shape):
  return "[" + ", ".join(str(s) for s in shape) + "]"


def _check_common(name, kernel, x, indices, output_size):
  """The checks after the rank's: indices' shape, non-empty non-batch
  dims, non-negative output sizes, and the kernel's dtypes."""
  if x.shape != indices.shape:
    raise RuntimeError(
        f"Expected shape of indices to be same as that of the input tensor "
        f"({_sizes(x.shape)}) but got indices tensor with shape: "
        f"{_sizes(indices.shape)}")
  for i in range(1, x.dim()):
    if x.shape[i] <= 0:
      raise RuntimeError(
          f"{name}: Expected input to have non-zero size for non-batch "
          f"dimensions, but got {_sizes(x.shape)} with dimension {i} being "
          f"empty.")
  if any(s < 0 for s in output_size):
    raise RuntimeError(
        f"{kernel[:-2]}ing{kernel[-2:]}(): output_size must contain "
        f"non-negative spatial dimensions, but got output_size="
        f"({', '.join(str(s) for s in output_size)})")
  if x.dtype not in _FLOATS:
    raise NotImplementedError(
        f"\"{kernel}\" not implemented for '{scalar_type_name(x.dtype)}'")


def _unpool(x, indices, output_size):
  check_same_device("max_unpool", x, indices)
  message = ("Found an invalid max index: i (output volumes are of size "
             f"{'x'.join(str(s) for s in output_size)})")
  return _XLAC._max_unpool(x, indices, list(output_size), message)


@op(aten.max_unpool2d.default)
def max_unpool2d(x, indices, output_size):
  if indices.dtype != torch.int64:
    raise RuntimeError(f"elements in indices should be type int64 but got: "
                       f"{scalar_type_name(indices.dtype)}")
  if len(output_size) != 2:
    raise RuntimeError(
        f"There should be exactly two elements (height, width) in "
        f"output_size, but got {len(output_size)} elements.")
  if x.dim() not in (3, 4):
    raise RuntimeError(
        f"Input to max_unpooling2d should be a 3d or 4d Tensor, but got a "
        f"tensor with {x.dim()} dimensions.")
  _check_common("max_unpooling2d_forward_out_cpu()", "max_unpool2d", x,
                indices, output_size)
  return _unpool(x, indices, output_size)


@op(aten.max_unpool3d.default)
def max_unpool3d(x, indices, output_size, stride, padding):
  if indices.dtype != torch.int64:
    raise RuntimeError("elements in indices should be type int64")
  if x.dim() not in (4, 5):
    raise RuntimeError(
        f"Input to max_unpooling3d should be a 4d or 5d Tensor, but got a "
        f"tensor with {x.dim()} dimensions.")
  for what, values in (("output_size", output_size), ("stride", stride),
                       ("padding", padding)):
    if len(values) != 3:
      got = (f"{len(values)} elements." if what == "output_size" else
             f": {len(values)} elements.")
      raise RuntimeError(
          f"There should be exactly three elements (depth, height, width) in "
          f"{what}, but got{' ' if what == 'output_size' else ''}{got}")
  _check_common("max_unpooling3d()", "max_unpool3d", x, indices, output_size)
  if not all(s > 0 for s in stride):
    raise RuntimeError(f"strides should be greater than zero, but got "
                       f"stride: {_sizes(stride)}")
  return _unpool(x, indices, output_size)
