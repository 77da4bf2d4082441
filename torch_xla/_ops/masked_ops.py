"""masked_fill and masked_scatter (with its backward): a boolean mask
selects positions of a tensor of static shape, so both stay on the device.
masked_scatter with fewer source elements than True mask values raises
eager's RuntimeError from a device-side check (the mask's count is data:
torch_xla/_device_checks.py), at the next read or sync. A fill value x's dtype
cannot hold raises eager's overflow error (uint8 takes -255..255, wrapping
negatives, as eager does)."""

import math

import torch

from torch_xla import _XLAC, _dtypes, _ir
from torch_xla._ops._common import broadcast_shapes, code_of, literal, scalar
from torch_xla._ops.index_util import (operand, index_mask, gather_dim,
                                       scatter_dim)
from torch_xla._ops.reductions import scan
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import XlaTensor, commit, wrap, xt_of


# masked_fill.


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
  if inplace and list(mask.shape) != shape:
    target = broadcast_shapes(shape, list(mask.shape))
    if target != shape:
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


def _mask_positions(m):
  """For a flat bool mask: the number of Trues before each position (the
  source element a True position takes), as s64."""
  return _ir.binary("subtract", scan(_ir.convert(m, _ir.S64), 0, "add"),
                    _ir.convert(m, _ir.S64))


_SOURCE_TOO_SMALL = ("masked_scatter: Number of elements of source < number "
                     "of ones in mask")


def _check_source_size(flat_m, k):
  """The device-side check that the flat pred mask has at most k Trues
  (eager's RuntimeError, raised at the next read or sync)."""
  from torch_xla import _device_checks
  if flat_m.reads_placeholder or flat_m.dims == [0]:
    return  # a traced body never runs by itself (see index_util)
  count = _ir.reduce(_ir.convert(flat_m, _ir.S64), [0], "sum")
  bad = _ir.compare(count, literal(k, _ir.S64, [], flat_m.device), "GT")
  _device_checks.add(bad, _SOURCE_TOO_SMALL, error=RuntimeError)


def _masked_scatter_value(x, mask, source, inplace):
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
  device = x.device.index
  v = _ir.broadcast_to(xt_of(x), shape)
  k = source.numel()
  m = _ir.broadcast_to(index_mask(mask, device), shape)
  total = math.prod(shape)
  flat_m = _ir.reshape(m, [total])
  _check_source_size(flat_m, k)
  if k == 0:  # then the mask must be all False
    return _XLAC._clone(v)
  src = _ir.reshape(operand(source, device, "masked_scatter_"), [k])
  # Past the last source element the gather clamps; eager raises (a value
  # check) and the select drops the rest.
  picked = gather_dim(src, 0, _mask_positions(flat_m))
  return _ir.select(m, _ir.reshape(picked, shape), v)


@op(aten.masked_scatter.default)
def masked_scatter(x, mask, source):
  return wrap(_masked_scatter_value(x, mask, source, False))


@op(aten.masked_scatter_.default)
def masked_scatter_(x, mask, source):
  return commit(x, _masked_scatter_value(x, mask, source, True))


@op(aten.masked_scatter_backward.default)
def masked_scatter_backward(grad, mask, sizes):
  """The source's gradient: grad at the True positions, in order, then
  zeros (eager's masked_select has a data-dependent shape)."""
  device = grad.device.index
  sizes = list(sizes)
  k = math.prod(sizes)
  code = code_of(grad.dtype)
  out = literal(0, code, [k], device)
  if k == 0:
    return wrap(_ir.reshape(out, sizes))
  shape = broadcast_shapes(list(grad.shape), list(mask.shape))
  total = math.prod(shape)
  g = _ir.reshape(_ir.broadcast_to(xt_of(grad), shape), [total])
  m = _ir.reshape(
      _ir.broadcast_to(index_mask(mask, device), shape), [total])
  # False positions add 0 at element 0; True ones hit distinct elements.
  pos = _ir.select(m, _mask_positions(m), literal(0, _ir.S64, [total],
                                                  device))
  g = _ir.select(m, g, literal(0, code, [total], device))
  return wrap(_ir.reshape(scatter_dim(out, 0, pos, g, "add"), sizes))
