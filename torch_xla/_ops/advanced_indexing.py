"""Advanced indexing (x[idx], x[idx] = v: index, index_put) on the IR
gather/scatter ops; with integer indices both are built in C++
(torch_xla/csrc/ops/index_ops.h), one _XLAC call each. The other indexing ops: index_along_dim.py,
gather_scatter.py, masked_ops.py, embedding.py.

Index values known on the host (a cpu index tensor, a list, or an 'xla'
tensor whose value was just uploaded) are checked there, as eager checks
them: an out-of-range one raises IndexError (index_util.checked_index).
Indices computed on the device are checked on the device, for x[idx],
index_select/copy/add/fill and embedding: the step computes a flag, and
IndexError naming the op is raised at the next read or sync
(torch_xla/_device_checks.py), as eager CUDA's device-side asserts are.
Without a check (gather, scatter, take, put, index_reduce, index_put's
indices) XLA gather clamps a start index into range (reads the nearest
valid row) and XLA scatter skips an out-of-range update. Negative indices of advanced indexing (x[idx],
x[idx] = v) and of take/put wrap like Python's, as in eager. For the same
reason masked_scatter with fewer source elements than True mask values
repeats the last one instead of raising.

Boolean masks in advanced indexing give an output whose shape depends on
the mask's values. `x[mask] = v` with a `v` that does not depend on the
number of selected elements is static and becomes a select; `x[mask]` and
the other mask cases fall back to CPU with a warning saying why (use
torch.where or masked_fill to keep them on the device).
"""

import torch

from torch_xla import _XLAC, _dtypes, _ir
from torch_xla._ops._common import (check_same_device, code_of, literal,
                                    scalar)
from torch_xla._ops.index_util import checked_index, fallback, index_mask
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import XlaTensor, commit, wrap, xt_of


# Index operands.


def _broadcast_index_shapes(shapes):
  """The index tensors' common (numpy-broadcast) shape; eager's IndexError
  when they do not broadcast. Plain Python: no call into C++."""
  shapes = [list(s) for s in shapes]
  rank = max(len(s) for s in shapes)
  out = [1] * rank
  for s in shapes:
    for i, n in enumerate(s, rank - len(s)):
      if out[i] == 1:
        out[i] = n
      elif n not in (1, out[i]):
        raise IndexError(
            "shape mismatch: indexing tensors could not be broadcast "
            f"together with shapes {', '.join(str(t) for t in shapes)}")
  return out


def _is_mask(t):
  return t is not None and t.dtype in (torch.bool, torch.uint8)


# Index tensor dtypes eager takes (uint8 and bool are masks).
_INDEX_DTYPES = (torch.int64, torch.int32, torch.uint8, torch.bool)


def _check_index_dtypes(indices):
  """Eager's IndexError for an index tensor of another dtype (a float
  one would be converted and index silently)."""
  for i in indices:
    if i is not None and i.dtype not in _INDEX_DTYPES:
      raise IndexError(
          "tensors used as indices must be long, int, byte or bool tensors "
          f"(got an index tensor of dtype {i.dtype})")


def _checked_indices(x, indices):
  """The integer index tensors of x[indices] (None = ':') as 'xla' tensors
  (cpu ones uploaded), their values checked as eager checks them (on the
  host when it knows them, else on the device: index_util.checked_index),
  and eager's IndexError for too many indices or shapes that do not
  broadcast."""
  rank = x.dim()
  if len(indices) > rank:
    raise IndexError(f"too many indices for tensor of dimension {rank} "
                     f"(got {len(indices)})")
  _broadcast_index_shapes([i.shape for i in indices if i is not None])
  device = x.device.index
  return [None if i is None else checked_index(
      i, device, (x.shape[d], d, True, None), op="index")
          for d, i in enumerate(indices)]


_MASK_REASON = ("a boolean mask index gives a shape that depends on the "
                "mask's values. Use torch.where or masked_fill to stay on "
                "the device")


@op(aten.index.Tensor, aten._unsafe_index.Tensor)
def index(x, indices):
  indices = list(indices)
  _check_index_dtypes(indices)
  if any(_is_mask(i) for i in indices):
    return fallback(aten.index.Tensor, (x, indices), {}, _MASK_REASON)
  if all(i is None for i in indices):
    return wrap(_XLAC._clone(xt_of(x)))
  # One gather, negative indices wrapped: ops/index_ops.h.
  return _XLAC._index(x, _checked_indices(x, indices))


# index_put: x[indices] = values (accumulate: +=).


def _check_put_values(x, values):
  if values.dtype != x.dtype:
    raise RuntimeError(
        f"Index put requires the source and destination dtypes match, got "
        f"{_dtypes.scalar_type_name(x.dtype)} for the destination and "
        f"{_dtypes.scalar_type_name(values.dtype)} for the source.")
  if not isinstance(values, XlaTensor):
    check_same_device("index_put_", values)


def _put_values(x, values):
  """values (checked) as a handle: a cpu 0-d one becomes a parameter."""
  if isinstance(values, XlaTensor):
    return xt_of(values)
  return scalar(values.item(), code_of(x.dtype), x.device.index)


def _broadcast_values(v, shape, shape_name="indexing result"):
  try:
    return _ir.broadcast_to(v, shape)
  except RuntimeError:
    raise RuntimeError(
        f"shape mismatch: value tensor of shape {v.dims} cannot be broadcast "
        f"to {shape_name} of shape {shape}") from None


def _masked_put(x, mask_at, mask, v, accumulate):
  """x[..., mask, ...] = v where v does not depend on the mask's count;
  None when it does (the caller falls back)."""
  shape = list(x.shape)
  m = mask.dim()
  if list(mask.shape) != shape[mask_at:mask_at + m]:
    raise IndexError(
        f"The shape of the mask {list(mask.shape)} at index {mask_at} does "
        f"not match the shape of the indexed tensor {shape} at index "
        f"{mask_at}")
  before, after = shape[:mask_at], shape[mask_at + m:]
  value_shape = before + [1] + after  # the selected count is broadcast
  vd = v.dims
  if len(vd) > len(value_shape):
    return None
  aligned = [1] * (len(value_shape) - len(vd)) + list(vd)
  if aligned[len(before)] != 1:
    return None
  v = _broadcast_values(v, value_shape)
  v = _ir.broadcast_to(_ir.reshape(v, before + [1] * m + after), shape)
  device = x.device.index
  keep = _ir.convert(index_mask(mask, device), _ir.PRED)
  keep = _ir.broadcast_in_dim(keep, shape, range(mask_at, mask_at + m))
  base = xt_of(x)
  if accumulate:
    zero = literal(0, base.dtype, shape, device)
    return _ir.binary("add", base, _ir.select(keep, v, zero))
  return _ir.select(keep, v, base)


def _index_put(func, x, indices, values, accumulate, inplace):
  """x[indices] = values: one builder call (ops/index_ops.h) for integer
  indices; a boolean mask index becomes a select (or falls back to the
  CPU when the values depend on the mask's count)."""
  indices = list(indices)
  _check_index_dtypes(indices)
  _check_put_values(x, values)
  masks = [d for d, i in enumerate(indices) if _is_mask(i)]
  if not masks:
    checked = _checked_indices(x, indices) if any(
        i is not None for i in indices) else []
    if isinstance(values, XlaTensor):
      v = values
    else:
      v = values.item()
    return _XLAC._index_put(x, checked, v, accumulate, inplace)
  others = [i for i in indices if i is not None]
  value = None
  if len(others) == 1:
    value = _masked_put(x, masks[0], indices[masks[0]],
                        _put_values(x, values), accumulate)
  if value is None:
    return fallback(func, (x, indices, values, accumulate), {}, _MASK_REASON)
  return commit(x, value) if inplace else wrap(_XLAC._clone(value))


@op(aten.index_put.default, aten._unsafe_index_put.default)
def index_put(x, indices, values, accumulate=False):
  return _index_put(aten.index_put.default, x, indices, values, accumulate,
                    inplace=False)


@op(aten.index_put_.default)
def index_put_(x, indices, values, accumulate=False):
  return _index_put(aten.index_put_.default, x, indices, values, accumulate,
                    inplace=True)


@op(aten._index_put_impl_.default)
def _index_put_impl_(x, indices, values, accumulate=False, unsafe=False):
  return index_put_(x, indices, values, accumulate)
