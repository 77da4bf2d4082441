"""Indexing along one dim: index_select, index_copy, index_add, index_fill
and index_reduce: eager's argument checks here, then one call into the
op's builder (ops/scatter_ops.h, ops/index_reduce_ops.h), which also
registers an index's device-side check.

Every one checks its index values as eager does (IndexError): values
known on the host at once, values computed on the device at a later sync
or read (index_util.index_and_check, docs/device_checks.md)."""

import torch

from torch_xla import _XLAC, _dtypes
from torch_xla._ops._common import canonical_dim, check_same_device, code_of
from torch_xla._ops.index_util import Prefix, index_and_check, check_index_dtype
from torch_xla._ops.registry import aten, op


# Along one dim: index_select, index_copy, index_add, index_fill.


def _dim_index(x, dim, index, what, message=None, negative_ok=False):
  """(d, n, index, check): the canonical dim, the index's length, the index
  as an 'xla' tensor and its device-side check (None when not needed).
  message: when given, index values known on the host are checked against
  [0, size) ([-size, size) when negative_ok) and a bad one raises
  IndexError with eager's text (index_util.index_and_check's `bounds`)."""
  check_index_dtype(index, what)
  if index.dim() > 1:
    raise IndexError(f"{what}: Index is supposed to be a vector")
  d = canonical_dim(dim, x.dim())
  bounds = None
  if message is not None:
    bounds = ((list(x.shape) or [1])[d], d, negative_ok,
              None if message is True else message)
  index, check = index_and_check(index, x.device.index, bounds, op=what)
  return d, index.numel(), index, check


@op(aten.index_select.default)
def index_select(x, dim, index):
  if x.dim() == 0:
    # Eager: a scalar's index_select is that scalar (index [0] or 0).
    canonical_dim(dim, 0)
    check_index_dtype(index, "index_select()")
    if index.numel() != 1:
      raise RuntimeError(f"index_select(): Index to scalar can have only 1 "
                         f"value, got {index.numel()} value(s)")
    return _XLAC._to_dtype(x, code_of(x.dtype))  # a clone
  d, _, index, check = _dim_index(x, dim, index, "index_select()",
                                  "index out of range in self")
  return _XLAC._index_select(x, d, index, check)  # ops/scatter_ops.h


def _check_source(x, d, n, source, what):
  """Eager's errors for index_copy/index_add's source: device, dtype and
  shape (a 0-d x and source work as 1-vectors)."""
  check_same_device(what, source)
  if source.dtype != x.dtype:
    raise RuntimeError(
        f"{what}: self and source expected to have the same dtype, but got "
        f"(self) {_dtypes.scalar_type_name(x.dtype)} and (source) "
        f"{_dtypes.scalar_type_name(source.dtype)}")
  shape = list(x.shape) or [1]
  got = list(source.shape) or ([] if x.dim() else [1])
  expected = list(shape)
  expected[d] = n
  if got != expected:
    _raise_source_shape(shape, d, n, got, what)


def _raise_source_shape(shape, d, n, got, what):
  """Eager's error (class and text, which differ between index_copy_ and
  index_add_) for a source of the wrong shape."""
  if what != "index_copy_()":
    if len(got) == len(shape) and got[d] != n:
      raise RuntimeError(
          f"{what}: Number of indices ({n}) should be equal to "
          f"source.size(dim): ({got[d]}), for dim: {d}")
    raise RuntimeError(
        f"source tensor shape must match self tensor shape, excluding the "
        f"specified dimension. Got self.shape = {shape} source.shape = "
        f"{got}")
  if got and len(got) != len(shape):
    raise IndexError(
        f"{what}: When source and destination are not scalars, their "
        f"dimensionality must match. Source dimensionality ({len(got)}), "
        f"destination dimensionality ({len(shape)})")
  if got and got[d] != n:
    raise IndexError(f"{what}: Number of indices ({n}) should be equal to "
                     f"source.size(dim) ({got[d]})")
  rest = [s for i, s in enumerate(shape) if i != d]
  source_rest = [s for i, s in enumerate(got) if i != d]
  raise RuntimeError(
      f"{what}: Source/destination tensor must have same slice shapes. "
      f"Destination slice shape: {_sizes(rest)} at dimension {d} and source "
      f"slice shape: {_sizes(source_rest)} at dimension 0.")


def _sizes(sizes):
  return str(sizes[0]) if len(sizes) == 1 else str(sizes)


def _index_copy(x, dim, index, source, inplace):
  d, n, index, check = _dim_index(x, dim, index, "index_copy_()",
                                  Prefix("index_copy_(): "))
  _check_source(x, d, n, source, "index_copy_()")
  return _XLAC._index_copy(x, d, index, source, inplace, check)


@op(aten.index_copy.default)
def index_copy(x, dim, index, source):
  return _index_copy(x, dim, index, source, False)


# In place: a KV cache keeps its tensor and alias IDs (so its buffer is
# donated and updated in place when the step runs).
@op(aten.index_copy_.default)
def index_copy_(x, dim, index, source):
  return _index_copy(x, dim, index, source, True)


def _index_add(x, dim, index, source, alpha, inplace):
  d, n, index, check = _dim_index(x, dim, index, "index_add_()",
                                  "index out of range in self")
  if source.dtype != x.dtype:
    raise RuntimeError(
        f"index_add_(): self ({_dtypes.scalar_type_name(x.dtype)}) and "
        f"source ({_dtypes.scalar_type_name(source.dtype)}) must have the "
        f"same scalar type")
  _check_source(x, d, n, source, "index_add_()")
  return _XLAC._index_add(x, d, index, source, None if alpha == 1 else alpha,
                          inplace, check)


@op(aten.index_add.default)
def index_add(x, dim, index, source, alpha=1):
  return _index_add(x, dim, index, source, alpha, False)


@op(aten.index_add_.default)
def index_add_(x, dim, index, source, alpha=1):
  return _index_add(x, dim, index, source, alpha, True)


def _index_fill(x, dim, index, value, inplace):
  d, _, index, check = _dim_index(x, dim, index, "index_fill_()", True,
                                  negative_ok=True)
  if isinstance(value, torch.Tensor) and value.dim():
    raise RuntimeError(
        f"index_fill_ only supports a 0-dimensional value tensor, but got "
        f"tensor with {value.dim()} dimension(s).")
  # Negative indices wrap, as in eager; a number x's dtype cannot hold
  # raises eager's overflow error (ops/scatter_ops.h, one call).
  return _XLAC._index_fill(x, d, index, value, inplace, check)


@op(aten.index_fill.int_Scalar, aten.index_fill.int_Tensor)
def index_fill(x, dim, index, value):
  return _index_fill(x, dim, index, value, False)


@op(aten.index_fill_.int_Scalar, aten.index_fill_.int_Tensor)
def index_fill_(x, dim, index, value):
  return _index_fill(x, dim, index, value, True)


# index_reduce: prod, mean, amax or amin of the source rows into self's.


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


def _index_reduce(x, dim, index, source, reduce, include_self, inplace):
  """Eager's argument checks, then one call (ops/index_reduce_ops.h)."""
  if reduce not in ("prod", "mean", "amax", "amin"):
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
  check_same_device("index_reduce_()", source)
  size = (list(x.shape) or [1])[d]
  index, check = index_and_check(
      index, x.device.index, (size, d, False, "index out of range in self"),
      op="index_reduce")
  return _XLAC._index_reduce(x, d, index, source, reduce, include_self,
                             inplace, check)


@op(aten.index_reduce.default)
def index_reduce(x, dim, index, source, reduce, *, include_self=True):
  return _index_reduce(x, dim, index, source, reduce, include_self, False)


@op(aten.index_reduce_.default)
def index_reduce_(x, dim, index, source, reduce, *, include_self=True):
  return _index_reduce(x, dim, index, source, reduce, include_self, True)
