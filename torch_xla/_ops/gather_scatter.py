"""gather/scatter (one index per element, with scatter_add/scatter_reduce)
and take/put (indices into the flattened tensor). Each rule checks
eager's arguments here and makes one call into its builder
(ops/scatter_ops.h), which also registers the device-side check of an
index computed on the device (index_util.index_and_check). Index values out of range raise eager's error (at once
when the host knows them, else at the next read or sync:
docs/device_checks.md); negative take/put indices wrap as in eager."""

import torch

from torch_xla import _XLAC, _dtypes
from torch_xla._ops._common import canonical_dim, check_same_device, code_of
from torch_xla._ops.index_util import index_and_check, fallback
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import XlaTensor


# gather / scatter: one index per element.


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


def _index(x, d, index, what):
  """index as an 'xla' tensor and its device-side check (or None)."""
  return index_and_check(index, x.device.index, _bounds(x, d), op=what,
                         error=RuntimeError)


@op(aten.gather.default)
def gather(x, dim, index, sparse_grad=False):
  d = _dim_of(x, dim)
  _check_gather(x, d, index, "gather")
  # One gather (ops/scatter_ops.h); an empty index gives zeros.
  return _XLAC._gather(x, d, *_index(x, d, index, "gather"))


def _scatter(x, dim, index, src, add, what, inplace):
  """scatter/scatter_add (add) of src (a tensor or a number) into x: eager's
  argument checks here, then one call (ops/scatter_ops.h)."""
  d = _dim_of(x, dim)
  src_tensor = src if isinstance(src, torch.Tensor) else None
  if src_tensor is not None and src_tensor.dim() == 0 and \
      not isinstance(src_tensor, XlaTensor):
    src_tensor = None  # a cpu scalar: a value
  check_same_device(what, src_tensor)
  _check_gather(x, d, index, what, src_tensor)
  if src_tensor is not None and src_tensor.dtype != x.dtype:
    raise RuntimeError(
        f"{what}(): Expected self.dtype to be equal to src.dtype")
  index, check = _index(x, d, index, what)
  return _XLAC._scatter(x, d, index, src, src_tensor is None, add, inplace,
                        check, what + "_")


@op(aten.scatter.src, aten.scatter.value)
def scatter(x, dim, index, src):
  return _scatter(x, dim, index, src, False, "scatter", False)


@op(aten.scatter_.src, aten.scatter_.value)
def scatter_(x, dim, index, src):
  return _scatter(x, dim, index, src, False, "scatter", True)


@op(aten.scatter_add.default)
def scatter_add(x, dim, index, src):
  return _scatter(x, dim, index, src, True, "scatter_add", False)


@op(aten.scatter_add_.default)
def scatter_add_(x, dim, index, src):
  return _scatter(x, dim, index, src, True, "scatter_add", True)


def _scatter_with_reduce(overload, inplace):
  """The older scatter(..., reduce='add'|'multiply') overloads."""

  def rule(x, dim, index, src, *, reduce):
    if reduce not in ("add", "multiply"):
      raise RuntimeError("reduce argument must be either add or multiply.")
    if reduce == "multiply":
      return fallback(overload, (x, dim, index, src), {"reduce": reduce},
                       "reduce='multiply' has no XLA scatter here")
    return _scatter(x, dim, index, src, True, "scatter", inplace)

  return op(overload)(rule)


for _overload in (aten.scatter.reduce, aten.scatter.value_reduce):
  _scatter_with_reduce(_overload, False)
for _overload in (aten.scatter_.reduce, aten.scatter_.value_reduce):
  _scatter_with_reduce(_overload, True)


def _scatter_reduce_rule(overload, inplace):
  """scatter_reduce(_): sum, and mean of floats, as one call (ops/
  scatter_ops.h); the reductions XLA scatter lacks here fall back (with the
  reason)."""

  def rule(x, dim, index, src, reduce, include_self=True):
    if reduce not in ("sum", "mean") or (
        reduce == "mean" and not x.dtype.is_floating_point):
      return fallback(overload, (x, dim, index, src, reduce),
                       {"include_self": include_self},
                       f"reduce='{reduce}' on {x.dtype} has no XLA scatter "
                       f"here (sum, and mean on floats, do)")
    d = _dim_of(x, dim)
    check_same_device("scatter_reduce", src)
    _check_gather(x, d, index, "scatter_reduce", src)
    if src.dtype != x.dtype:
      raise RuntimeError(
          "scatter_reduce(): Expected self.dtype to be equal to src.dtype")
    if index.numel() == 0:
      # x, or a clone of it (one call)
      return x if inplace else _XLAC._to_dtype(x, code_of(x.dtype))
    index, check = _index(x, d, index, "scatter_reduce")
    return _XLAC._scatter_reduce(x, d, index, src, reduce == "mean",
                                 include_self, inplace, check)

  return op(overload)(rule)


scatter_reduce = _scatter_reduce_rule(aten.scatter_reduce.two, False)
scatter_reduce_ = _scatter_reduce_rule(aten.scatter_reduce_.two, True)


# take / put: indices into the flattened tensor.


def _flat_index(x, index, what):
  """(index, check): the flat index into x.reshape(-1) as an 'xla' tensor
  and its device-side check (negative values wrap: ops/scatter_ops.h)."""
  if index.dtype != torch.int64:
    raise RuntimeError(f"{what}: Expected a long tensor for index, but got "
                       f"{_dtypes.scalar_type_name(index.dtype)}")
  n = x.numel()
  bounds = (n, 0, True, lambda i: f"out of range: tried to access index {i} "
            f"on a tensor of {n} elements.")
  return index_and_check(index, x.device.index, bounds if n else None,
                         op=what)


@op(aten.take.default)
def take(x, index):
  index, check = _flat_index(x, index, "take()")
  if x.numel() == 0 and index.numel():
    raise IndexError("take(): tried to take from an empty tensor")
  return _XLAC._take(x, index, check)  # one gather: ops/scatter_ops.h


def _put(x, index, source, accumulate, inplace):
  index, check = _flat_index(x, index, "put_()")
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
  check_same_device("put_()", source)
  # One scatter (bool accumulates as or): ops/scatter_ops.h.
  return _XLAC._put(x, index, source, accumulate, inplace, check)


@op(aten.put.default)
def put(x, index, source, accumulate=False):
  return _put(x, index, source, accumulate, False)


@op(aten.put_.default)
def put_(x, index, source, accumulate=False):
  return _put(x, index, source, accumulate, True)
