"""Indexing: advanced indexing, index_put, index_select/copy/add/fill/
reduce, gather/scatter, take/put, masked_fill/scatter and embedding, on the
IR gather/scatter ops.

Index values are data, so nothing here can check them without running the
graph. Out-of-range integer indices therefore do not raise IndexError as in
eager: XLA gather clamps a start index into range (reads the nearest valid
row) and XLA scatter skips an out-of-range update (index_reduce ignores
them the same way). Negative indices of advanced indexing (x[idx],
x[idx] = v) and of take/put wrap like Python's, as in eager. For the same
reason masked_scatter with fewer source elements than True mask values
repeats the last one instead of raising.

Boolean masks in advanced indexing give an output whose shape depends on
the mask's values. `x[mask] = v` with a `v` that does not depend on the
number of selected elements is static and becomes a select; `x[mask]` and
the other mask cases fall back to CPU with a warning saying why (use
torch.where or masked_fill to keep them on the device).
"""

import math
import warnings

import torch

from torch_xla import _XLAC, _dtypes, _ir
from torch_xla._ops import registry
from torch_xla._ops._common import (broadcast_shapes, canonical_dim,
                                    check_same_device, code_of, literal,
                                    scalar)
from torch_xla._ops.reductions import reduce_extreme, scan
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import XlaTensor, commit, wrap, xt_of

# Index operands.


def _index_value(t, device):
  """An index tensor as an s64 handle (cpu index tensors are allowed, as in
  eager on accelerators)."""
  if isinstance(t, XlaTensor):
    v = xt_of(t)
  elif isinstance(t, torch.Tensor):
    if t.device.type != "cpu":
      raise RuntimeError(f"indices on {t.device} cannot index an xla tensor")
    from torch_xla._ops import copy_ops
    v = xt_of(copy_ops.from_host(t, device))
  else:
    raise TypeError(f"expected an index tensor, got {type(t).__name__}")
  return _ir.convert(v, _ir.S64)


def _operand(t, device, what):
  """A tensor operand as a handle (a cpu scalar becomes a parameter)."""
  check_same_device(what, t)
  if isinstance(t, XlaTensor):
    return xt_of(t)
  return scalar(t.item(), code_of(t.dtype), device)


def _check_index_dtype(t, what):
  if t.dtype not in (torch.int64, torch.int32):
    raise RuntimeError(f"{what}: Expected dtype int32 or int64 for index, "
                       f"got {t.dtype}")


def _wrap_negative(v, size):
  shape, device = v.dims, v.device
  negative = _ir.compare(v, literal(0, _ir.S64, shape, device), "LT")
  return _ir.select(negative,
                    _ir.binary("add", v, literal(size, _ir.S64, shape,
                                                 device)), v)


def _broadcast_index_shapes(shapes):
  try:
    return broadcast_shapes(*[list(s) for s in shapes])
  except RuntimeError:
    raise IndexError(
        "shape mismatch: indexing tensors could not be broadcast together "
        f"with shapes {', '.join(str(list(s)) for s in shapes)}") from None


def _is_mask(t):
  return t is not None and t.dtype in (torch.bool, torch.uint8)


class _Advanced:
  """The geometry of x[indices] for integer index tensors (None = ':').

  idx: s64 [*B, k] start indices of the k indexed dims; result shape: the
  indexed dims replaced by B, at the first indexed dim when they are
  adjacent, else in front (numpy's rule).
  """

  def __init__(self, x, indices):
    rank = x.dim()
    if len(indices) > rank:
      raise IndexError(f"too many indices for tensor of dimension {rank} "
                       f"(got {len(indices)})")
    shape = list(x.shape)
    self.dims = [d for d, i in enumerate(indices) if i is not None]
    batch = _broadcast_index_shapes([indices[d].shape for d in self.dims])
    device = x.device.index
    cols = []
    for d in self.dims:
      v = _wrap_negative(_index_value(indices[d], device), shape[d])
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
    self.slice_sizes = [1 if d in dims else shape[d] for d in range(rank)]
    self.index_vec_dim = len(batch)

  def gather(self, v):
    return _ir.gather(v, self.idx, offset_dims=self.offset_dims,
                      collapsed_dims=self.dims, start_index_map=self.dims,
                      index_vec_dim=self.index_vec_dim,
                      slice_sizes=self.slice_sizes)

  def scatter(self, v, updates, kind):
    return _ir.scatter(v, self.idx, updates, window_dims=self.offset_dims,
                       inserted_dims=self.dims, scatter_dim_map=self.dims,
                       index_vec_dim=self.index_vec_dim, kind=kind)


def _fallback(func, args, kwargs, reason):
  warnings.warn(f"{func}: {reason}; running it on CPU (this executes the "
                f"pending graph)", stacklevel=3)
  return registry.cpu_fallback(func, args, kwargs)


_MASK_REASON = ("a boolean mask index gives a shape that depends on the "
                "mask's values. Use torch.where or masked_fill to stay on "
                "the device")


@op(aten.index.Tensor, aten._unsafe_index.Tensor)
def index(x, indices):
  indices = list(indices)
  if any(_is_mask(i) for i in indices):
    return _fallback(aten.index.Tensor, (x, indices), {}, _MASK_REASON)
  if all(i is None for i in indices):
    return wrap(_XLAC._clone(xt_of(x)))
  return wrap(_Advanced(x, indices).gather(xt_of(x)))


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
  keep = _ir.convert(_index_mask(mask, device), _ir.PRED)
  keep = _ir.broadcast_in_dim(keep, shape, range(mask_at, mask_at + m))
  base = xt_of(x)
  if accumulate:
    zero = literal(0, base.dtype, shape, device)
    return _ir.binary("add", base, _ir.select(keep, v, zero))
  return _ir.select(keep, v, base)


def _index_mask(mask, device):
  if isinstance(mask, XlaTensor):
    return xt_of(mask)
  from torch_xla._ops import copy_ops
  return xt_of(copy_ops.from_host(mask, device))


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
    return _fallback(aten.index_put.default, (x, indices, values, accumulate),
                     {}, _MASK_REASON)
  return wrap(_XLAC._clone(value))


@op(aten.index_put_.default)
def index_put_(x, indices, values, accumulate=False):
  value = _index_put_value(aten.index_put_.default, x, indices, values,
                           accumulate)
  if value is None:
    return _fallback(aten.index_put_.default,
                     (x, indices, values, accumulate), {}, _MASK_REASON)
  return commit(x, value)


@op(aten._index_put_impl_.default)
def _index_put_impl_(x, indices, values, accumulate=False, unsafe=False):
  return index_put_(x, indices, values, accumulate)


# Along one dim: index_select, index_copy, index_add, index_fill.


def _dim_index(x, dim, index, what):
  _check_index_dtype(index, what)
  if index.dim() > 1:
    raise IndexError(f"{what}: Index is supposed to be a vector")
  d = canonical_dim(dim, x.dim())
  n = index.numel()
  return d, n, _ir.reshape(_index_value(index, x.device.index), [n])


def _gather_dim(v, d, idx):
  rank = len(v.dims)
  sizes = list(v.dims)
  sizes[d] = 1
  return _ir.gather(v, idx, offset_dims=[i for i in range(rank) if i != d],
                    collapsed_dims=[d], start_index_map=[d], index_vec_dim=1,
                    slice_sizes=sizes)


def _scatter_dim(v, d, idx, updates, kind):
  rank = len(v.dims)
  return _ir.scatter(v, idx, updates,
                     window_dims=[i for i in range(rank) if i != d],
                     inserted_dims=[d], scatter_dim_map=[d], index_vec_dim=1,
                     kind=kind)


@op(aten.index_select.default)
def index_select(x, dim, index):
  if x.dim() == 0:
    # Eager: a scalar's index_select is that scalar (index [0] or 0).
    canonical_dim(dim, 0)
    _check_index_dtype(index, "index_select()")
    if index.numel() != 1:
      raise RuntimeError(f"index_select(): Index to scalar can have only 1 "
                         f"value, got {index.numel()} value(s)")
    return wrap(_XLAC._clone(xt_of(x)))
  d, _, idx = _dim_index(x, dim, index, "index_select()")
  return wrap(_gather_dim(xt_of(x), d, idx))


def _dim_source(x, d, n, source, what):
  check_same_device(what, source)
  if not isinstance(source, XlaTensor):  # a cpu scalar
    source = wrap(scalar(source.item(), code_of(source.dtype),
                         x.device.index))
  if source.dtype != x.dtype:
    raise RuntimeError(
        f"{what}: self and source expected to have the same dtype, but got "
        f"(self) {_dtypes.scalar_type_name(x.dtype)} and (source) "
        f"{_dtypes.scalar_type_name(source.dtype)}")
  expected = list(x.shape)
  expected[d] = n
  got = list(source.shape)
  if got != expected:
    if source.dim() and got[d] != n:
      raise IndexError(
          f"{what}: Number of indices ({n}) should be equal to "
          f"source.size(dim) ({got[d]})")
    raise RuntimeError(f"{what}: source {got} must have the shape of self "
                       f"{list(x.shape)} except at dimension {d} ({n})")
  return xt_of(source)


def _vector(t):
  """0-dim tensors index like 1-element vectors."""
  if isinstance(t, XlaTensor) and t.dim() == 0:
    return wrap(_ir.reshape(xt_of(t), [1]))
  return t


def _index_copy_value(x, dim, index, source):
  if x.dim() == 0:
    return _ir.reshape(
        _index_copy_value(_vector(x), dim, index, _vector(source)), [])
  d, n, idx = _dim_index(x, dim, index, "index_copy_()")
  src = _dim_source(x, d, n, source, "index_copy_()")
  return _scatter_dim(xt_of(x), d, idx, src, "replace")


@op(aten.index_copy.default)
def index_copy(x, dim, index, source):
  return wrap(_index_copy_value(x, dim, index, source))


@op(aten.index_copy_.default)
def index_copy_(x, dim, index, source):
  """In place: a KV cache keeps its tensor and alias IDs (so its buffer is
  donated and updated in place when the step runs)."""
  return commit(x, _index_copy_value(x, dim, index, source))


def _index_add_value(x, dim, index, source, alpha):
  if x.dim() == 0:
    return _ir.reshape(
        _index_add_value(_vector(x), dim, index, _vector(source), alpha), [])
  d, n, idx = _dim_index(x, dim, index, "index_add_()")
  if source.dtype != x.dtype:
    raise RuntimeError(
        f"index_add_(): self ({_dtypes.scalar_type_name(x.dtype)}) and "
        f"source ({_dtypes.scalar_type_name(source.dtype)}) must have the "
        f"same scalar type")
  src = _dim_source(x, d, n, source, "index_add_()")
  if alpha != 1:
    src = _ir.binary(
        "multiply", src,
        _ir.broadcast_to(scalar(alpha, src.dtype, x.device.index), src.dims))
  return _scatter_dim(xt_of(x), d, idx, src, "add")


@op(aten.index_add.default)
def index_add(x, dim, index, source, alpha=1):
  return wrap(_index_add_value(x, dim, index, source, alpha))


@op(aten.index_add_.default)
def index_add_(x, dim, index, source, alpha=1):
  return commit(x, _index_add_value(x, dim, index, source, alpha))


def _index_fill_value(x, dim, index, value):
  if x.dim() == 0:
    return _ir.reshape(_index_fill_value(_vector(x), dim, index, value), [])
  d, n, idx = _dim_index(x, dim, index, "index_fill_()")
  code = code_of(x.dtype)
  if isinstance(value, XlaTensor):
    if value.dim():
      raise RuntimeError(
          f"index_fill_ only supports a 0-dimensional value tensor, but got "
          f"tensor with {value.dim()} dimension(s).")
    fill = _ir.convert(xt_of(value), code)
  else:
    fill = scalar(value.item() if isinstance(value, torch.Tensor) else value,
                  code, x.device.index)
  shape = list(x.shape)
  shape[d] = n
  return _scatter_dim(xt_of(x), d, idx, _ir.broadcast_to(fill, shape),
                      "replace")


@op(aten.index_fill.int_Scalar, aten.index_fill.int_Tensor)
def index_fill(x, dim, index, value):
  return wrap(_index_fill_value(x, dim, index, value))


@op(aten.index_fill_.int_Scalar, aten.index_fill_.int_Tensor)
def index_fill_(x, dim, index, value):
  return commit(x, _index_fill_value(x, dim, index, value))


# index_reduce: prod, mean, amax or amin of the source rows into self's.


_INDEX_REDUCE = {"prod": "prod", "mean": "sum", "amax": "max", "amin": "min"}


def _check_index_reduce(x, d, index, source):
  what = "index_reduce_()"
  if index.dim() > 1:
    raise IndexError(
        f"{what}: Index is supposed to be a vector, but got dim: "
        f"{index.dim()} with type: {_dtypes.scalar_type_name(index.dtype)} "
        f"and size: {list(index.shape)}")
  if index.dtype not in (torch.int64, torch.int32):
    raise RuntimeError(f"{what}: Expected dtype int32/int64 for index but "
                       f"got: {_dtypes.scalar_type_name(index.dtype)}")
  if source.dtype != x.dtype:
    raise RuntimeError(
        f"{what}: self ({_dtypes.scalar_type_name(x.dtype)}) and source "
        f"({_dtypes.scalar_type_name(source.dtype)}) must have the same "
        f"scalar type")
  if source.dim() and d >= source.dim():
    raise RuntimeError(f"{what}: Indexing dim {d} is out of bounds of the "
                       f"source tensor with dim {source.dim()}")
  n = index.numel()
  got = source.shape[d] if source.dim() else 1
  if n != got:
    raise RuntimeError(f"{what}: Number of indices ({n}) should be equal to "
                       f"source.size(dim): ({got}), for dim: {d}")
  xs, ss = list(x.shape), list(source.shape)
  if xs and ss:
    del xs[d], ss[d]
  if xs != ss:
    raise RuntimeError(
        f"source tensor shape must match self tensor shape, excluding the "
        f"specified dimension. Got self.shape = {list(x.shape)} "
        f"source.shape = {list(source.shape)}")


def _floor_divide_by_positive(a, b):
  """a // b for integers when b > 0 (XLA's divide truncates)."""
  q = _ir.binary("divide", a, b)
  zero = literal(0, a.dtype, a.dims, a.device)
  r = _ir.binary("remainder", a, b)  # has a's sign
  one = literal(1, a.dtype, a.dims, a.device)
  return _ir.select(_ir.compare(r, zero, "LT"), _ir.binary("subtract", q, one),
                    q)


def _index_reduce_value(x, dim, index, source, reduce, include_self):
  """XLA scatter here only adds or replaces, so each row of self reduces
  the source rows whose index hits it through a dense [size, n] match:
  O(size * n) work per element of the other dims (XLA can fuse the
  broadcasts into the reduce), so long index vectors are slow."""
  if reduce not in _INDEX_REDUCE:
    raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, "
                       f"mean, amax or amin but got {reduce}.")
  d = canonical_dim(dim, x.dim())
  _check_index_reduce(x, d, index, source)
  if x.dtype == torch.bool:
    # Eager's CPU kernels take bool only here; name the one that refuses.
    kernel = ("index_reduce_func_exclude_input_init" if not include_self
              else "index_func_" if x.dim() <= 1 else
              "div_floor_cpu" if reduce == "mean" else None)
    if kernel:
      raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
  device = x.device.index
  shape = list(x.shape) or [1]
  # 0/1 bytes: prod and amin are `and`, amax is `or`.
  code = _ir.S8 if x.dtype == torch.bool else code_of(x.dtype)
  base = _ir.convert(_ir.reshape(xt_of(x), shape), code)
  n = index.numel()
  size = shape[d]
  idx = _ir.reshape(_index_value(index, device), [n])
  hit = _ir.compare(_ir.iota(_ir.S64, [size, n], 0, device),
                    _ir.broadcast_in_dim(idx, [size, n], [1]), "EQ")
  # Source rows along a new dim d + 1, next to the self row they reduce to.
  big = shape[:d] + [size, n] + shape[d + 1:]
  rank = len(shape)
  src = _ir.reshape(_operand(source, device, "index_reduce_()"),
                    shape[:d] + [n] + shape[d + 1:])
  src = _ir.broadcast_in_dim(_ir.convert(src, code), big,
                             [k if k < d else k + 1 for k in range(rank)])
  kind = _INDEX_REDUCE[reduce]
  if kind in ("sum", "prod"):
    identity = 0 if kind == "sum" else 1
  elif code in _ir.FLOAT_CODES:
    identity = -math.inf if kind == "max" else math.inf
  else:
    info = torch.iinfo(torch.int8 if code == _ir.S8 else x.dtype)
    identity = info.min if kind == "max" else info.max
  values = _ir.select(_ir.broadcast_in_dim(hit, big, [d, d + 1]), src,
                      literal(identity, code, big, device))
  if include_self:  # self is one more contribution
    values = _ir.concatenate(
        [values, _ir.reshape(base, shape[:d] + [size, 1] + shape[d + 1:])],
        d + 1)
  if kind in ("max", "min"):
    out = reduce_extreme(values, [d + 1], kind)  # NaN wins, as in eager
  else:
    out = _ir.reduce(values, [d + 1], kind)
  count = _ir.reduce(_ir.convert(hit, _ir.S64), [1], "sum")
  if include_self:
    count = _ir.binary("add", count, literal(1, _ir.S64, [size], device))
  count = _ir.broadcast_in_dim(count, shape, [d])
  reached = _ir.compare(count, literal(0, _ir.S64, shape, device), "GT")
  if reduce == "mean":
    count = _ir.convert(
        _ir.select(reached, count, literal(1, _ir.S64, shape, device)), code)
    if code in _ir.FLOAT_CODES:
      out = _ir.binary("divide", out, count)
    else:  # eager floors integer means
      out = _floor_divide_by_positive(out, count)
  out = _ir.select(reached, out, base)  # rows no index reaches keep self
  if x.dtype == torch.bool:
    out = _ir.compare(out, literal(0, code, shape, device), "NE")
  return _ir.reshape(out, list(x.shape))


@op(aten.index_reduce.default)
def index_reduce(x, dim, index, source, reduce, *, include_self=True):
  return wrap(
      _index_reduce_value(x, dim, index, source, reduce, include_self))


@op(aten.index_reduce_.default)
def index_reduce_(x, dim, index, source, reduce, *, include_self=True):
  return commit(
      x, _index_reduce_value(x, dim, index, source, reduce, include_self))


# gather / scatter: one index per element.


def _element_indices(index_v, d, rank):
  """[*I, rank] coordinates: index values along d, positions elsewhere."""
  shape = index_v.dims
  device = index_v.device
  cols = []
  for k in range(rank):
    col = index_v if k == d else _ir.iota(_ir.S64, shape, k, device)
    cols.append(_ir.reshape(col, shape + [1]))
  return cols[0] if rank == 1 else _ir.concatenate(cols, len(shape))


def _check_gather(x, d, index, what, src=None):
  if index.numel() == 0:
    return  # eager checks nothing for an empty index
  if index.dim() != x.dim() and not (index.dim() <= 1 and x.dim() <= 1):
    raise RuntimeError(f"Index tensor must have the same number of "
                       f"dimensions as {'input' if src is None else 'self'} "
                       f"tensor")
  if index.dtype not in (torch.int64, torch.int32):
    raise RuntimeError(f"{what}(): Expected dtype int32/int64 for index")
  ishape, xshape = list(index.shape), list(x.shape)
  for k in range(min(len(ishape), len(xshape))):
    if k != d and ishape[k] > xshape[k]:
      raise RuntimeError(
          f"Size does not match at dimension {k} expected index {ishape} to "
          f"be no larger than self {xshape} apart from dimension {d}")
    if src is not None and ishape[k] > src.shape[k]:
      raise RuntimeError(
          f"Size does not match at dimension {k} expected index {ishape} to "
          f"be no larger than src {list(src.shape)}")


def _dim_of(x, dim):
  return canonical_dim(dim, x.dim())


def _gather_value(x, d, index):
  rank = max(x.dim(), 1)
  v = _ir.reshape(xt_of(x), list(x.shape) or [1])
  iv = _index_value(index, x.device.index)
  ishape = list(index.shape)
  iv = _ir.reshape(iv, ishape or [1])
  out = _ir.gather(v, _element_indices(iv, d, rank), offset_dims=[],
                   collapsed_dims=list(range(rank)),
                   start_index_map=list(range(rank)), index_vec_dim=rank,
                   slice_sizes=[1] * rank)
  return _ir.reshape(out, ishape)


@op(aten.gather.default)
def gather(x, dim, index, sparse_grad=False):
  d = _dim_of(x, dim)
  _check_gather(x, d, index, "gather")
  if index.numel() == 0:
    return wrap(literal(0, code_of(x.dtype), list(index.shape),
                        x.device.index))
  return wrap(_gather_value(x, d, index))


def _scatter_value(x, dim, index, src, kind, what):
  d = _dim_of(x, dim)
  code = code_of(x.dtype)
  src_tensor = src if isinstance(src, torch.Tensor) else None
  if src_tensor is not None and src_tensor.dim() == 0 and \
      not isinstance(src_tensor, XlaTensor):
    src, src_tensor = src.item(), None  # a cpu scalar: a value
  check_same_device(what, src_tensor)
  _check_gather(x, d, index, what, src_tensor)
  if src_tensor is not None and src_tensor.dtype != x.dtype:
    raise RuntimeError(
        f"{what}(): Expected self.dtype to be equal to src.dtype")
  if index.numel() == 0:
    return _XLAC._clone(xt_of(x))
  rank = max(x.dim(), 1)
  ishape = list(index.shape) or [1]
  if src_tensor is not None:
    u = _ir.reshape(xt_of(src_tensor), list(src_tensor.shape) or [1])
    if u.dims != ishape:
      u = _ir.slice_(u, [0] * rank, ishape)
  else:
    u = _ir.broadcast_to(scalar(src, code, x.device.index), ishape)
  iv = _ir.reshape(_index_value(index, x.device.index), ishape)
  v = _ir.reshape(xt_of(x), list(x.shape) or [1])
  if kind == "add" and x.dtype == torch.bool:
    raise RuntimeError(f"{what}(): bool tensors cannot be scatter-added")
  out = _ir.scatter(v, _element_indices(iv, d, rank), u, window_dims=[],
                    inserted_dims=list(range(rank)),
                    scatter_dim_map=list(range(rank)), index_vec_dim=rank,
                    kind=kind)
  return _ir.reshape(out, list(x.shape))


@op(aten.scatter.src, aten.scatter.value)
def scatter(x, dim, index, src):
  return wrap(_scatter_value(x, dim, index, src, "replace", "scatter"))


@op(aten.scatter_.src, aten.scatter_.value)
def scatter_(x, dim, index, src):
  return commit(x, _scatter_value(x, dim, index, src, "replace", "scatter"))


@op(aten.scatter_add.default)
def scatter_add(x, dim, index, src):
  return wrap(_scatter_value(x, dim, index, src, "add", "scatter_add"))


@op(aten.scatter_add_.default)
def scatter_add_(x, dim, index, src):
  return commit(x, _scatter_value(x, dim, index, src, "add", "scatter_add"))


def _scatter_with_reduce(overload, finish):
  """The older scatter(..., reduce='add'|'multiply') overloads."""

  def rule(x, dim, index, src, *, reduce):
    if reduce not in ("add", "multiply"):
      raise RuntimeError("reduce argument must be either add or multiply.")
    if reduce == "multiply":
      return _fallback(overload, (x, dim, index, src), {"reduce": reduce},
                       "reduce='multiply' has no XLA scatter here")
    return finish(x, _scatter_value(x, dim, index, src, "add", "scatter"))

  return op(overload)(rule)


for _overload in (aten.scatter.reduce, aten.scatter.value_reduce):
  _scatter_with_reduce(_overload, lambda x, value: wrap(value))
for _overload in (aten.scatter_.reduce, aten.scatter_.value_reduce):
  _scatter_with_reduce(_overload, commit)


def _scatter_reduce_value(x, dim, index, src, reduce, include_self):
  """sum and mean (floats); None for the reductions XLA scatter lacks here."""
  if reduce not in ("sum", "mean"):
    return None
  if reduce == "mean" and not x.dtype.is_floating_point:
    return None
  base = x
  if not include_self:
    base = wrap(_scatter_value(x, dim, index, 0, "replace", "scatter_reduce"))
  total = _scatter_value(base, dim, index, src, "add", "scatter_reduce")
  if reduce == "sum":
    return total
  ones = wrap(literal(1, code_of(x.dtype), list(x.shape), x.device.index))
  if not include_self:
    ones = wrap(_scatter_value(ones, dim, index, 0, "replace",
                               "scatter_reduce"))
  # Positions no index reaches keep count 1 (their own value).
  count = _scatter_value(ones, dim, index, 1, "add", "scatter_reduce")
  return _ir.binary("divide", total, count)


def _scatter_reduce_rule(overload, finish):
  """scatter_reduce(_): `finish(x, value)` wraps or commits the result;
  reductions without an XLA scatter fall back (with the reason)."""

  def rule(x, dim, index, src, reduce, include_self=True):
    value = _scatter_reduce_value(x, dim, index, src, reduce, include_self)
    if value is None:
      return _fallback(overload, (x, dim, index, src, reduce),
                       {"include_self": include_self},
                       f"reduce='{reduce}' on {x.dtype} has no XLA scatter "
                       f"here (sum, and mean on floats, do)")
    return finish(x, value)

  return op(overload)(rule)


scatter_reduce = _scatter_reduce_rule(aten.scatter_reduce.two,
                                      lambda x, value: wrap(value))
scatter_reduce_ = _scatter_reduce_rule(aten.scatter_reduce_.two, commit)


# take / put: indices into the flattened tensor.


def _flat_index(x, index, what):
  """index as a flat s64 vector into x.reshape(-1) (negatives wrap)."""
  if index.dtype != torch.int64:
    raise RuntimeError(f"{what}: Expected a long tensor for index, but got "
                       f"{_dtypes.scalar_type_name(index.dtype)}")
  v = _ir.reshape(_index_value(index, x.device.index), [index.numel()])
  return _wrap_negative(v, x.numel())


@op(aten.take.default)
def take(x, index):
  idx = _flat_index(x, index, "take()")
  if x.numel() == 0 and index.numel():
    raise IndexError("take(): tried to take from an empty tensor")
  if index.numel() == 0:
    return wrap(literal(0, code_of(x.dtype), list(index.shape),
                        x.device.index))
  flat = _ir.reshape(xt_of(x), [x.numel()])
  return wrap(_ir.reshape(_gather_dim(flat, 0, idx), list(index.shape)))


def _put_value(x, index, source, accumulate):
  idx = _flat_index(x, index, "put_()")
  if source.dtype != x.dtype:
    raise RuntimeError(
        f"put_(): self and source expected to have the same dtype, but got "
        f"self.dtype = {_dtypes.scalar_type_name(x.dtype)} and source.dtype "
        f"= {_dtypes.scalar_type_name(source.dtype)}")
  n = index.numel()
  if source.numel() != n:
    raise IndexError(
        f"put_(): Expected source and index to have the same number of "
        f"elements, but got source.numel() = {source.numel()}, "
        f"index.numel() = {n}")
  if x.numel() == 0 and n:
    raise IndexError("put_(): Tried to put elements into an empty tensor")
  base = xt_of(x)
  if n == 0:
    return _XLAC._clone(base)
  src = _ir.reshape(_operand(source, x.device.index, "put_()"), [n])
  flat = _ir.reshape(base, [x.numel()])
  if accumulate and x.dtype == torch.bool:
    # scatter-add needs numbers: or-accumulate through int8.
    out = _scatter_dim(_ir.convert(flat, _ir.S8), 0, idx,
                       _ir.convert(src, _ir.S8), "add")
    out = _ir.compare(out, literal(0, _ir.S8, out.dims, x.device.index),
                      "NE")
  else:
    out = _scatter_dim(flat, 0, idx, src, "add" if accumulate else "replace")
  return _ir.reshape(out, list(x.shape))


@op(aten.put.default)
def put(x, index, source, accumulate=False):
  return wrap(_put_value(x, index, source, accumulate))


@op(aten.put_.default)
def put_(x, index, source, accumulate=False):
  return commit(x, _put_value(x, index, source, accumulate))


# masked_fill.


def _masked_fill_value(x, mask, value, inplace):
  if mask.dtype != torch.bool:
    name = {torch.float32: "float", torch.float64: "double"}.get(
        mask.dtype, str(mask.dtype).replace("torch.", ""))
    raise RuntimeError(f"masked_fill_ only supports boolean masks, but got "
                       f"mask with dtype {name}")
  device = x.device.index
  code = code_of(x.dtype)
  if isinstance(value, torch.Tensor):
    if value.dim():
      raise RuntimeError(
          f"masked_fill_ only supports a 0-dimensional value tensor, but "
          f"got tensor with {value.dim()} dimension(s).")
    fill = _ir.convert(xt_of(value), code) if isinstance(
        value, XlaTensor) else scalar(value.item(), code, device)
  else:
    fill = scalar(value, code, device)
  v = xt_of(x)
  m = _index_mask(mask, device)
  shape = list(x.shape)
  if list(mask.shape) != shape:
    target = broadcast_shapes(shape, list(mask.shape))
    if inplace and target != shape:
      raise RuntimeError(f"output with shape {shape} doesn't match the "
                         f"broadcast shape {target}")
    shape = target
    v, m = _ir.broadcast_to(v, shape), _ir.broadcast_to(m, shape)
  return _ir.select(m, _ir.broadcast_to(fill, shape), v)


@op(aten.masked_fill.Scalar, aten.masked_fill.Tensor)
def masked_fill(x, mask, value):
  return wrap(_masked_fill_value(x, mask, value, False))


@op(aten.masked_fill_.Scalar, aten.masked_fill_.Tensor)
def masked_fill_(x, mask, value):
  return commit(x, _masked_fill_value(x, mask, value, True))


# masked_scatter: source's elements, in order, into the True positions.


def _mask_positions(m):
  """For a flat bool mask: the number of Trues before each position (the
  source element a True position takes), as s64."""
  return _ir.binary("subtract", scan(_ir.convert(m, _ir.S64), 0, "add"),
                    _ir.convert(m, _ir.S64))


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
  if k == 0:  # then the mask must be all False
    return _XLAC._clone(v)
  m = _ir.broadcast_to(_index_mask(mask, device), shape)
  total = math.prod(shape)
  flat_m = _ir.reshape(m, [total])
  src = _ir.reshape(_operand(source, device, "masked_scatter_"), [k])
  # Past the last source element the gather clamps; eager raises (a value
  # check) and the select drops the rest.
  picked = _gather_dim(src, 0, _mask_positions(flat_m))
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
      _ir.broadcast_to(_index_mask(mask, device), shape), [total])
  # False positions add 0 at element 0; True ones hit distinct elements.
  pos = _ir.select(m, _mask_positions(m), literal(0, _ir.S64, [total],
                                                  device))
  g = _ir.select(m, g, literal(0, code, [total], device))
  return wrap(_ir.reshape(_scatter_dim(out, 0, pos, g, "add"), sizes))


# Embedding.


@op(aten.embedding.default)
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False,
              sparse=False):
  if indices.dtype not in (torch.int64, torch.int32):
    raise RuntimeError(
        f"Expected tensor for argument #1 'indices' to have one of the "
        f"following scalar types: Long, Int; but got "
        f"{indices.type()} instead (while checking arguments for embedding)")
  if weight.dim() != 2:
    raise RuntimeError("'weight' must be 2-D")
  rank = indices.dim()
  idx = _index_value(indices, weight.device.index)
  return wrap(
      _ir.gather(xt_of(weight), idx, offset_dims=[rank], collapsed_dims=[0],
                 start_index_map=[0], index_vec_dim=rank,
                 slice_sizes=[1, weight.shape[1]]))


@op(aten.embedding_renorm_.default)
def embedding_renorm_(weight, indices, max_norm, norm_type):
  """Rows of `weight` that `indices` use and whose norm exceeds max_norm
  are scaled to it in place (eager's scale: max_norm / (norm + 1e-7))."""
  device = weight.device.index
  rows, dim = weight.shape
  code = code_of(weight.dtype)
  acc = _ir.F32 if code in (_ir.BF16, _ir.F16) else code
  w = _ir.convert(xt_of(weight), acc)
  norm = xt_of(torch.linalg.vector_norm(wrap(w), norm_type, dim=1))
  n = indices.numel()
  used = _scatter_dim(literal(False, _ir.PRED, [rows], device), 0,
                      _ir.reshape(_index_value(indices, device), [n]),
                      literal(True, _ir.PRED, [n], device), "replace")
  too_long = _ir.binary(
      "and", used,
      _ir.compare(norm, _ir.broadcast_to(scalar(max_norm, acc, device),
                                         [rows]), "GT"))
  scale = _ir.binary(
      "divide", _ir.broadcast_to(scalar(max_norm, acc, device), [rows]),
      _ir.binary("add", norm, literal(1e-7, acc, [rows], device)))
  scale = _ir.select(too_long, scale, literal(1, acc, [rows], device))
  scaled = _ir.binary("multiply", w,
                      _ir.broadcast_in_dim(scale, [rows, dim], [0]))
  return commit(weight, _ir.convert(scaled, code))


@op(aten.embedding_dense_backward.default)
def embedding_dense_backward(grad, indices, num_weights, padding_idx,
                             scale_grad_by_freq):
  """Rows of grad summed into their weight rows (scatter-add); rows of
  padding_idx get nothing; scale_grad_by_freq divides by the counts."""
  device = grad.device.index
  dim = grad.shape[-1]
  n = indices.numel()
  g = _ir.reshape(xt_of(grad), [n, dim])
  idx = _ir.reshape(_index_value(indices, device), [n])
  code = g.dtype
  zeros = literal(0, code, [num_weights, dim], device)
  if scale_grad_by_freq:
    counts = _scatter_dim(
        literal(0, code, [num_weights], device), 0, idx,
        literal(1, code, [n], device), "add")
    per_row = _gather_dim(counts, 0, idx)  # [n]
    g = _ir.binary("divide", g,
                   _ir.broadcast_in_dim(per_row, [n, dim], [0]))
  if padding_idx is not None and padding_idx >= 0:
    pad = _ir.broadcast_to(scalar(padding_idx, _ir.S64, device), [n])
    keep = _ir.broadcast_in_dim(_ir.compare(idx, pad, "NE"), [n, dim], [0])
    g = _ir.select(keep, g, literal(0, code, [n, dim], device))
  return wrap(_scatter_dim(zeros, 0, idx, g, "add"))
