"""gather/scatter (one index per element, with scatter_add/scatter_reduce)
and take/put (indices into the flattened tensor), on the IR gather/scatter
ops. Index values are data and are not checked (see advanced_indexing.py);
negative take/put indices wrap as in eager."""

import torch

from torch_xla import _XLAC, _dtypes, _ir
from torch_xla._ops._common import (canonical_dim, check_same_device, code_of,
                                    literal, scalar)
from torch_xla._ops.index_util import (index_value, operand, wrap_negative,
                                       fallback, gather_dim, scatter_dim)
from torch_xla._ops.registry import aten, inplace_rule, op
from torch_xla._tensor import XlaTensor, commit, wrap, xt_of


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
    too_large = k != d and ishape[k] > xshape[k]
    if src is None and too_large:
      raise RuntimeError(
          f"Size does not match at dimension {k} expected index {ishape} to "
          f"be no larger than self {xshape} apart from dimension {d}")
    if src is not None and (too_large or ishape[k] > src.shape[k]):
      raise RuntimeError(
          f"Expected index {ishape} to be no larger than self {xshape} apart "
          f"from dimension {d} and to be no larger size than src "
          f"{list(src.shape)}")


def _dim_of(x, dim):
  return canonical_dim(dim, x.dim())


def _bounds(x, d):
  """gather/scatter's index check along dim d: [0, size), eager's text."""
  return (x.shape[d] if x.dim() else 1, d, False, None)


def _gather_value(x, d, index):
  rank = max(x.dim(), 1)
  v = _ir.reshape(xt_of(x), list(x.shape) or [1])
  iv = index_value(index, x.device.index, _bounds(x, d), op="gather",
                   error=RuntimeError)
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
  iv = _ir.reshape(index_value(index, x.device.index, _bounds(x, d),
                               op=what, error=RuntimeError), ishape)
  v = _ir.reshape(xt_of(x), list(x.shape) or [1])
  indices = _element_indices(iv, d, rank)

  def scatter_into(target, updates):
    return _ir.scatter(target, indices, updates, window_dims=[],
                       inserted_dims=list(range(rank)),
                       scatter_dim_map=list(range(rank)), index_vec_dim=rank,
                       kind=kind)

  if kind == "add" and x.dtype == torch.bool:
    # Eager adds bools as a logical or: x | (any update at each position),
    # from int32 counts of the true updates.
    counts = scatter_into(literal(0, _ir.S32, v.dims, x.device.index),
                          _ir.convert(u, _ir.S32))
    out = _ir.binary("or", v, _ir.compare(
        counts, literal(0, _ir.S32, v.dims, x.device.index), "NE"))
  else:
    out = scatter_into(v, u)
  return _ir.reshape(out, list(x.shape))


@op(aten.scatter.src, aten.scatter.value)
def scatter(x, dim, index, src):
  return wrap(_scatter_value(x, dim, index, src, "replace", "scatter"))


scatter_ = op(aten.scatter_.src, aten.scatter_.value)(inplace_rule(scatter))


@op(aten.scatter_add.default)
def scatter_add(x, dim, index, src):
  return wrap(_scatter_value(x, dim, index, src, "add", "scatter_add"))


scatter_add_ = op(aten.scatter_add_.default)(inplace_rule(scatter_add))


def _scatter_with_reduce(overload, finish):
  """The older scatter(..., reduce='add'|'multiply') overloads."""

  def rule(x, dim, index, src, *, reduce):
    if reduce not in ("add", "multiply"):
      raise RuntimeError("reduce argument must be either add or multiply.")
    if reduce == "multiply":
      return fallback(overload, (x, dim, index, src), {"reduce": reduce},
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
      return fallback(overload, (x, dim, index, src, reduce),
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
  n = x.numel()
  bounds = (n, 0, True, lambda i: f"out of range: tried to access index {i} "
            f"on a tensor of {n} elements.")
  v = _ir.reshape(index_value(index, x.device.index, bounds if n else None,
                              op=what), [index.numel()])
  return wrap_negative(v, n)


@op(aten.take.default)
def take(x, index):
  idx = _flat_index(x, index, "take()")
  if x.numel() == 0 and index.numel():
    raise IndexError("take(): tried to take from an empty tensor")
  if index.numel() == 0:
    return wrap(literal(0, code_of(x.dtype), list(index.shape),
                        x.device.index))
  flat = _ir.reshape(xt_of(x), [x.numel()])
  return wrap(_ir.reshape(gather_dim(flat, 0, idx), list(index.shape)))


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
  src = _ir.reshape(operand(source, x.device.index, "put_()"), [n])
  flat = _ir.reshape(base, [x.numel()])
  if accumulate and x.dtype == torch.bool:
    # scatter-add needs numbers: or-accumulate through int8.
    out = scatter_dim(_ir.convert(flat, _ir.S8), 0, idx,
                       _ir.convert(src, _ir.S8), "add")
    out = _ir.compare(out, literal(0, _ir.S8, out.dims, x.device.index),
                      "NE")
  else:
    out = scatter_dim(flat, 0, idx, src, "add" if accumulate else "replace")
  return _ir.reshape(out, list(x.shape))


@op(aten.put.default)
def put(x, index, source, accumulate=False):
  return wrap(_put_value(x, index, source, accumulate))


put_ = op(aten.put_.default)(inplace_rule(put))
