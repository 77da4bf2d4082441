"""Advanced indexing (x[idx], x[idx] = v: index, index_put) on the IR
gather/scatter ops; x[idx] is built in C++ (torch_xla/csrc/ops/
index_ops.h), one _XLAC call. The other indexing ops: index_along_dim.py,
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
from torch_xla._ops.index_util import (checked_index, wrap_negative,
                                       fallback, index_mask)
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


class _Advanced:
  """The geometry of x[indices] = v (index_put) for integer index tensors
  (None = ':'); x[indices] itself is one builder call (_XLAC._index).

  idx: s64 [*B, k] start indices of the k indexed dims; result shape: the
  indexed dims replaced by B, at the first indexed dim when they are
  adjacent, else in front (numpy's rule).
  """

  def __init__(self, x, indices):
    rank = x.dim()
    shape = list(x.shape)
    indices = _checked_indices(x, indices)
    self.dims = [d for d, i in enumerate(indices) if i is not None]
    batch = _broadcast_index_shapes([indices[d].shape for d in self.dims])
    cols = []
    for d in self.dims:
      v = wrap_negative(_ir.convert(xt_of(indices[d]), _ir.S64), shape[d])
      cols.append(_ir.reshape(_ir.broadcast_to(v, batch), batch + [1]))
    self.idx = cols[0] if len(cols) == 1 else _ir.concatenate(
        cols, len(batch))
    dims = self.dims
    adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
    at = dims[0] if adjacent else 0
    rest = [d for d in range(rank) if d not in dims]
    self.offset_dims = [j if j < at else j + len(batch)
                        for j in range(len(rest))]
    rest_sizes = [shape[d] for d in rest]
    self.result_shape = rest_sizes[:at] + batch + rest_sizes[at:]
    self.index_vec_dim = len(batch)

  def scatter(self, v, updates, kind):
    return _ir.scatter(v, self.idx, updates, window_dims=self.offset_dims,
                       inserted_dims=self.dims, scatter_dim_map=self.dims,
                       index_vec_dim=self.index_vec_dim, kind=kind)


_MASK_REASON = ("a boolean mask index gives a shape that depends on the "
                "mask's values. Use torch.where or masked_fill to stay on "
                "the device")


@op(aten.index.Tensor, aten._unsafe_index.Tensor)
def index(x, indices):
  indices = list(indices)
  if any(_is_mask(i) for i in indices):
    return fallback(aten.index.Tensor, (x, indices), {}, _MASK_REASON)
  if all(i is None for i in indices):
    return wrap(_XLAC._clone(xt_of(x)))
  # One gather, negative indices wrapped: ops/index_ops.h.
  return _XLAC._index(x, _checked_indices(x, indices))


# index_put: x[indices] = values (accumulate: +=).


def _put_values(x, values):
  if values.dtype != x.dtype:
    raise RuntimeError(
        f"Index put requires the source and destination dtypes match, got "
        f"{_dtypes.scalar_type_name(x.dtype)} for the destination and "
        f"{_dtypes.scalar_type_name(values.dtype)} for the source.")
  if isinstance(values, XlaTensor):
    return xt_of(values)
  check_same_device("index_put_", values)
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


def _index_put_value(func, x, indices, values, accumulate):
  """The new value of x (a handle), or None when it must fall back."""
  indices = list(indices)
  v = _put_values(x, values)
  masks = [d for d, i in enumerate(indices) if _is_mask(i)]
  if masks:
    others = [i for i in indices if i is not None]
    if len(others) != 1:
      return None
    return _masked_put(x, masks[0], indices[masks[0]], v, accumulate)
  if all(i is None for i in indices):
    shape = list(x.shape)
    v = _broadcast_values(v, shape)
    return _ir.binary("add", xt_of(x), v) if accumulate else v
  adv = _Advanced(x, indices)
  v = _broadcast_values(v, adv.result_shape)
  if x.dtype == torch.bool and accumulate:
    # scatter-add needs numbers: or-accumulate through int8.
    base = _ir.convert(xt_of(x), _ir.S8)
    out = adv.scatter(base, _ir.convert(v, _ir.S8), "add")
    return _ir.compare(out, literal(0, _ir.S8, out.dims, x.device.index),
                       "NE")
  return adv.scatter(xt_of(x), v, "add" if accumulate else "replace")


@op(aten.index_put.default, aten._unsafe_index_put.default)
def index_put(x, indices, values, accumulate=False):
  value = _index_put_value(aten.index_put.default, x, indices, values,
                           accumulate)
  if value is None:
    return fallback(aten.index_put.default, (x, indices, values, accumulate),
                     {}, _MASK_REASON)
  return wrap(_XLAC._clone(value))


@op(aten.index_put_.default)
def index_put_(x, indices, values, accumulate=False):
  value = _index_put_value(aten.index_put_.default, x, indices, values,
                           accumulate)
  if value is None:
    return fallback(aten.index_put_.default,
                     (x, indices, values, accumulate), {}, _MASK_REASON)
  return commit(x, value)


@op(aten._index_put_impl_.default)
def _index_put_impl_(x, indices, values, accumulate=False, unsafe=False):
  return index_put_(x, indices, values, accumulate)
