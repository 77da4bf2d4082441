"""Indexing: advanced indexing, index_put, index_select/copy/add/fill,
gather/scatter, masked_fill and embedding, on the IR gather/scatter ops.

Index values are data, so nothing here can check them without running the
graph. Out-of-range integer indices therefore do not raise IndexError as in
eager: XLA gather clamps a start index into range (reads the nearest valid
row) and XLA scatter skips an out-of-range update. Negative indices of
advanced indexing (x[idx], x[idx] = v) wrap like Python's, as in eager.

Boolean masks in advanced indexing give an output whose shape depends on
the mask's values. `x[mask] = v` with a `v` that does not depend on the
number of selected elements is static and becomes a select; `x[mask]` and
the other mask cases fall back to CPU with a warning saying why (use
torch.where or masked_fill to keep them on the device).
"""

import warnings

import torch

from torch_xla import _XLAC, _dtypes, _ir
from torch_xla._ops import registry
from torch_xla._ops._common import (broadcast_shapes, canonical_dim,
                                    check_same_device, code_of, literal,
                                    scalar)
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
        f"index_add_(): self ({_dtypes.scalar_type_name(x.dtype)}) and source "
        f"({_dtypes.scalar_type_name(source.dtype)}) must have the same scalar type")
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
  if index.dim() != x.dim() and not (index.dim() <= 1 and x.dim() <= 1):
    raise RuntimeError(f"Index tensor must have the same number of "
                       f"dimensions as {'input' if src is None else 'self'} "
                       f"tensor")
  if index.dtype != torch.int64 and index.dtype != torch.int32:
    raise RuntimeError(f"{what}(): Expected dtype int64 for index")
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
