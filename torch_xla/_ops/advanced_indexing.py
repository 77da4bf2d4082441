"""Advanced indexing (x[idx], x[idx] = v: index, index_put): eager's
argument checks here, then one call into C++ each: with integer indices
one gather or scatter (ops/index_ops.h), `x[mask] = v` a select
(ops/scatter_ops.h). The other indexing ops: index_along_dim.py,
gather_scatter.py, masked_ops.py, embedding.py.

Index values known on the host (a cpu index tensor, a list, or an 'xla'
tensor whose value was just uploaded) are checked there, as eager checks
them: an out-of-range one raises IndexError (index_util.index_and_check).
Indices computed on the device are checked on the device: the op's binding
registers the check (python/device_checks.h), the step computes a flag,
and IndexError naming the op is raised at the next read or sync
(torch_xla/_device_checks.py), as eager CUDA's device-side asserts are.
Negative indices wrap like Python's, as in eager.

Boolean masks in advanced indexing give an output whose shape depends on
the mask's values. `x[mask] = v` with a `v` that does not depend on the
number of selected elements is static and becomes a select; `x[mask]` and
the other mask cases fall back to CPU with a warning saying why (use
torch.where or masked_fill to keep them on the device).
"""

import torch

from torch_xla import _XLAC, _dtypes
from torch_xla._ops._common import check_same_device, code_of
from torch_xla._ops.index_util import fallback, index_and_check, index_mask
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import XlaTensor


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
  """(indices, checks): the integer index tensors of x[indices] (None =
  ':') as 'xla' tensors (cpu ones uploaded), their values checked as eager
  checks them (on the host when it knows them: index_util.index_and_check),
  and for each the device-side check its builder binding registers (or
  None); eager's IndexError for too many indices or shapes that do not
  broadcast."""
  rank = x.dim()
  if len(indices) > rank:
    raise IndexError(f"too many indices for tensor of dimension {rank} "
                     f"(got {len(indices)})")
  _broadcast_index_shapes([i.shape for i in indices if i is not None])
  device = x.device.index
  out, checks = [], []
  for d, i in enumerate(indices):
    i, check = (None, None) if i is None else index_and_check(
        i, device, (x.shape[d], d, True, None), op="index")
    out.append(i)
    checks.append(check)
  return out, checks


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
    return _XLAC._to_dtype(x, code_of(x.dtype))  # a clone
  # One gather, negative indices wrapped: ops/index_ops.h.
  return _XLAC._index(x, *_checked_indices(x, indices))


# index_put: x[indices] = values (accumulate: +=).


def _check_put_values(x, values):
  if values.dtype != x.dtype:
    raise RuntimeError(
        f"Index put requires the source and destination dtypes match, got "
        f"{_dtypes.scalar_type_name(x.dtype)} for the destination and "
        f"{_dtypes.scalar_type_name(values.dtype)} for the source.")
  if not isinstance(values, XlaTensor):
    check_same_device("index_put_", values)


def _mask_put_is_static(x, mask_at, mask, values):
  """Whether x[..., mask, ...] = values is a select: values do not depend
  on the mask's count (eager's IndexError for a mask of the wrong shape)."""
  shape = list(x.shape)
  m = mask.dim()
  if list(mask.shape) != shape[mask_at:mask_at + m]:
    raise IndexError(
        f"The shape of the mask {list(mask.shape)} at index {mask_at} does "
        f"not match the shape of the indexed tensor {shape} at index "
        f"{mask_at}")
  value_shape = shape[:mask_at] + [1] + shape[mask_at + m:]
  vd = list(values.shape)
  if len(vd) > len(value_shape):
    return False
  aligned = [1] * (len(value_shape) - len(vd)) + vd
  return aligned[mask_at] == 1


def _index_put(func, x, indices, values, accumulate, inplace):
  """x[indices] = values: one builder call (ops/index_ops.h) for integer
  indices; a boolean mask index becomes a select (or falls back to the
  CPU when the values depend on the mask's count)."""
  indices = list(indices)
  _check_index_dtypes(indices)
  _check_put_values(x, values)
  masks = [d for d, i in enumerate(indices) if _is_mask(i)]
  if not masks:
    checked, checks = _checked_indices(x, indices) if any(
        i is not None for i in indices) else ([], [])
    v = values if isinstance(values, XlaTensor) else values.item()
    return _XLAC._index_put(x, checked, v, accumulate, inplace, checks)
  others = [i for i in indices if i is not None]
  mask_at = masks[0]
  if len(others) == 1 and _mask_put_is_static(x, mask_at, indices[mask_at],
                                              values):
    # A select (ops/scatter_ops.h), one call.
    return _XLAC._masked_index_put(
        x, index_mask(indices[mask_at], x.device.index), mask_at, values,
        accumulate, inplace)
  return fallback(func, (x, indices, values, accumulate), {}, _MASK_REASON)


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
