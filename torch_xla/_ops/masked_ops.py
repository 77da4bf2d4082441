"""masked_fill and masked_scatter (with its backward): a boolean mask
selects positions of a tensor of static shape, so both stay on the device;
each rule checks eager's arguments and makes one call into C++ (ops/nn_ops.h
for masked_fill, ops/scatter_ops.h for masked_scatter). masked_scatter with
fewer source elements than True mask values raises eager's RuntimeError
from a device-side check (the mask's count is data, registered by the
binding: torch_xla/_device_checks.py), at the next read or sync. A fill value x's dtype
cannot hold raises eager's overflow error (uint8 takes -255..255, wrapping
negatives, as eager does)."""

import torch

from torch_xla import _XLAC, _dtypes
from torch_xla._ops._common import broadcast_shapes, check_same_device
from torch_xla._ops.index_util import index_mask
from torch_xla._ops.registry import aten, op


# masked_fill.


def _broadcasts_into(shape, target):
  """True when `shape` broadcasts to `target` itself (checked here, with no
  call into C++)."""
  if len(shape) > len(target):
    return False
  return all(d in (1, t) for d, t in zip(reversed(shape), reversed(target)))


def _masked_fill(x, mask, value, inplace):
  if mask.dtype != torch.bool:
    name = {torch.float32: "float", torch.float64: "double"}.get(
        mask.dtype, str(mask.dtype).replace("torch.", ""))
    raise RuntimeError(f"masked_fill_ only supports boolean masks, but got "
                       f"mask with dtype {name}")
  if isinstance(value, torch.Tensor) and value.dim():
    raise RuntimeError(
        f"masked_fill_ only supports a 0-dimensional value tensor, but "
        f"got tensor with {value.dim()} dimension(s).")
  shape = list(x.shape)
  if inplace and not _broadcasts_into(list(mask.shape), shape):
    target = broadcast_shapes(shape, list(mask.shape))  # eager's errors
    raise RuntimeError(f"output with shape {shape} doesn't match the "
                       f"broadcast shape {target}")
  # One C++ call: the value checked and made a scalar parameter, the select
  # built by ops/nn_ops.h (as the C++ fast rule builds it), the result
  # wrapped or committed into x.
  return _XLAC._masked_fill(x, index_mask(mask, x.device.index), value,
                            inplace)


@op(aten.masked_fill.Scalar, aten.masked_fill.Tensor)
def masked_fill(x, mask, value):
  return _masked_fill(x, mask, value, False)


@op(aten.masked_fill_.Scalar, aten.masked_fill_.Tensor)
def masked_fill_(x, mask, value):
  return _masked_fill(x, mask, value, True)


# masked_scatter: source's elements, in order, into the True positions.


def _masked_scatter(x, mask, source, inplace):
  """Eager's argument checks, then one call (ops/scatter_ops.h) that also
  registers the check that source holds enough elements."""
  if not inplace:  # eager broadcasts self and mask first
    shape = broadcast_shapes(list(mask.shape), list(x.shape))
  if source.dtype != x.dtype:
    raise RuntimeError(
        f"masked_scatter: expected self and source to have same dtypes but "
        f"got{_dtypes.scalar_type_name(x.dtype)} and "
        f"{_dtypes.scalar_type_name(source.dtype)}")
  if inplace:
    shape = list(x.shape)
    if list(mask.shape) != shape:
      mask = mask.expand(shape)  # raises eager's expand errors
  if mask.dtype != torch.bool:
    raise RuntimeError(
        f"masked_scatter_ only supports boolean masks, but got mask with "
        f"dtype {_dtypes.scalar_type_name(mask.dtype)}")
  check_same_device("masked_scatter_", source)
  return _XLAC._masked_scatter(x, index_mask(mask, x.device.index), source,
                               shape, inplace)


@op(aten.masked_scatter.default)
def masked_scatter(x, mask, source):
  return _masked_scatter(x, mask, source, False)


@op(aten.masked_scatter_.default)
def masked_scatter_(x, mask, source):
  return _masked_scatter(x, mask, source, True)


@op(aten.masked_scatter_backward.default)
def masked_scatter_backward(grad, mask, sizes):
  """The source's gradient: grad at the True positions, in order, then
  zeros (eager's masked_select has a data-dependent shape); one call."""
  return _XLAC._masked_scatter_backward(
      grad, index_mask(mask, grad.device.index), list(sizes))
