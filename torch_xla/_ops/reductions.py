"""Reductions: sum/mean/prod, max/min/arg*, var/std, any/all, norms, scans,
logsumexp, sort and topk.

Numerics follow eager CPU PyTorch:
- integer and bool sums, products and cumulative sums give int64 (eager
  promotes them);
- bf16/f16 sums, means and scans accumulate in f32 and round once at the
  end, as eager's CPU kernels do;
- max/min/amax/amin propagate NaN. XLA's reduce does not (its max drops
  NaN), so a NaN test over the same dims picks NaN where one was seen;
- argmax/argmin/max.dim/min.dim give the first index of the extreme value
  (of the first NaN when there is one), like eager.

sum, mean, prod, var/std, any/all, logsumexp, linalg_vector_norm, the
NaN-aware max/min/amax/amin and max.dim/argmax are built in C++
(torch_xla/csrc/ops/reduction_ops.h; cumsum/cumprod's scan in
cumulative_ops.h), one _XLAC call per op, by the
builders the C++ fast rules call too; this module normalizes eager's
`dim`/`dtype` arguments and raises eager's errors. The helpers (acc_code,
reduction_dims, reduce_extreme) are shared with other rule files.
"""

import math
import warnings

import torch

from torch_xla import _XLAC, _dtypes, _ir
from torch_xla._ops._common import canonical_dim, code_of
from torch_xla._ops.registry import aten, op

F32, S32, S64, PRED = _ir.F32, _ir.S32, _ir.S64, _ir.PRED
# The C++ rule (ops/opmath.h) read once per dtype: no call per op.
_ACC_CODES = {code: _XLAC._opmath_type(code) for code in _dtypes._CODES.values()}


# ---------------------------------------------------------------------------
# Helpers on handles.


def acc_code(code: int) -> int:
  """Element type to accumulate `code` in: f32 for the 16-bit floats."""
  return _ACC_CODES[code]


def reduction_dims(dim, rank: int, empty_means_all: bool = True):
  """An ATen `dim` argument (None, int or list) as sorted canonical dims.

  Raises IndexError for an out-of-range dim and RuntimeError for a repeated
  one, with eager's messages. A 0-d tensor accepts dim 0 / -1 and reduces
  nothing.
  """
  if dim is None:
    return list(range(rank))
  if isinstance(dim, int):
    dim = [dim]
  if len(dim) == 0:
    return list(range(rank)) if empty_means_all else []
  dims = []
  for d in dim:
    c = canonical_dim(d, rank)
    if c in dims:
      raise RuntimeError(f"dim {c} appears multiple times in the list of dims")
    dims.append(c)
  return sorted(dims) if rank else []


def reduce_extreme(v, dims, kind: str, keepdim: bool = False):
  """max or min of a handle over `dims`; NaN wins like in eager (C++:
  ops/reduction_ops.h, shared with softmax's fast rule)."""
  return _XLAC._reduce_extreme(v, dims, kind, keepdim)


def _check_nonempty_dims(name, shape, dims):
  for d in dims:
    if shape[d] == 0:
      raise IndexError(
          f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _result_code(x, dtype) -> int:
  """Result type of sum/prod/cumsum: `dtype` if given, else x's for floats
  and int64 for integers and bool (eager's promotion)."""
  if dtype is not None:
    return code_of(dtype)
  return code_of(x.dtype) if x.dtype.is_floating_point else S64


# ---------------------------------------------------------------------------
# sum, mean, prod.


def _bool_reduce(x, dim, keepdim, kind):
  """sum/prod in dtype=torch.bool, as eager computes them: any / all of
  x != 0 (a NaN counts as nonzero), never a wrapped integer sum."""
  return _XLAC._any_all(x, reduction_dims(dim, x.dim()), kind, keepdim)


def _sum(x, dim, keepdim, dtype):
  if dtype == torch.bool:
    return _bool_reduce(x, dim, keepdim, "or")
  # Built by ops/reduction_ops.h, as the C++ fast rules build it.
  return _XLAC._sum(x, reduction_dims(dim, x.dim()), keepdim,
                    _result_code(x, dtype))


@op(aten.sum.default)
def sum_(x, dtype=None):
  return _sum(x, None, False, dtype)


@op(aten.sum.dim_IntList)
def sum_dim(x, dim, keepdim=False, dtype=None):
  return _sum(x, dim, keepdim, dtype)


def _mean(x, dim, keepdim, dtype):
  out_dtype = dtype or x.dtype
  if not out_dtype.is_floating_point:
    raise RuntimeError(
        "mean(): could not infer output dtype. Input dtype must be either a "
        f"floating point or complex dtype. Got: "
        f"{_dtypes.scalar_type_name(out_dtype)}")
  return _XLAC._mean(x, reduction_dims(dim, x.dim()), keepdim,
                     code_of(out_dtype))


@op(aten.mean.default)
def mean(x, dtype=None):
  return _mean(x, None, False, dtype)


@op(aten.mean.dim)
def mean_dim(x, dim, keepdim=False, dtype=None):
  return _mean(x, dim, keepdim, dtype)


def _prod(x, dim, keepdim, dtype):
  if dtype == torch.bool:
    return _bool_reduce(x, dim, keepdim, "and")
  return _XLAC._prod(x, reduction_dims(dim, x.dim()), keepdim,
                     _result_code(x, dtype))


@op(aten.prod.default)
def prod(x, dtype=None):
  return _prod(x, None, False, dtype)


@op(aten.prod.dim_int)
def prod_dim(x, dim, keepdim=False, dtype=None):
  return _prod(x, dim, keepdim, dtype)


# ---------------------------------------------------------------------------
# max, min, amax, amin, argmax, argmin.


def _amax_amin(name, kind):

  def rule(x, dim=(), keepdim=False):
    dims = reduction_dims(dim, x.dim())
    _check_nonempty_dims(name, x.shape, dims)
    return _XLAC._extreme(x, dims, kind, keepdim)  # ops/reduction_ops.h

  rule.__name__ = name
  return rule


amax = op(aten.amax.default)(_amax_amin("amax", "max"))
amin = op(aten.amin.default)(_amax_amin("amin", "min"))


def _full_extreme(name, kind):

  def rule(x):
    if x.numel() == 0:
      raise RuntimeError(
          f"{name}(): Expected reduction dim to be specified for "
          "input.numel() == 0. Specify the reduction dim with the 'dim' "
          "argument.")
    return _XLAC._extreme(x, list(range(x.dim())), kind, False)

  rule.__name__ = name
  return rule


max_ = op(aten.max.default)(_full_extreme("max", "max"))
min_ = op(aten.min.default)(_full_extreme("min", "min"))


def _extreme_and_index(name, x, dim, keepdim, kind):
  """(values, first index) of the max/min along one dim
  (ops/reduction_ops.h)."""
  d = canonical_dim(dim, x.dim())
  if x.dim():
    _check_nonempty_dims(name, x.shape, [d])
  return _XLAC._extreme_and_index(x, d, kind, keepdim)


@op(aten.max.dim)
def max_dim(x, dim, keepdim=False):
  return _extreme_and_index("max", x, dim, keepdim, "max")


@op(aten.min.dim)
def min_dim(x, dim, keepdim=False):
  return _extreme_and_index("min", x, dim, keepdim, "min")


def _arg_extreme(name, kind):

  def rule(x, dim=None, keepdim=False):
    if x.dtype == torch.bool:
      raise RuntimeError(f"{name}(): does not support bool input")
    if dim is not None:
      d = canonical_dim(dim, x.dim())
      if x.dim():
        _check_nonempty_dims(name, x.shape, [d])
    elif x.numel() == 0:
      raise IndexError(f"{name}(): Expected reduction dim to be specified "
                       "for input.numel() == 0.")
    else:
      d = None
    return _XLAC._arg_extreme(x, d, kind, keepdim)

  rule.__name__ = name
  return rule


argmax = op(aten.argmax.default)(_arg_extreme("argmax", "max"))
argmin = op(aten.argmin.default)(_arg_extreme("argmin", "min"))


# ---------------------------------------------------------------------------
# var, std and their means.


def _var_and_mean(name, x, dim, correction, keepdim, sqrt=False):
  """(variance, or std with `sqrt`, and mean) in x's dtype; two passes
  over the data (ops/reduction_ops.h)."""
  if not x.dtype.is_floating_point:
    raise RuntimeError(
        "std and var only support floating point and complex dtypes")
  dims = reduction_dims(dim, x.dim())
  count = math.prod(x.shape[d] for d in dims)
  correction = 1 if correction is None else correction
  if count - correction <= 0:
    warnings.warn(
        f"{name}(): degrees of freedom is <= 0. Correction should be "
        "strictly less than the reduction factor (input numel divided by "
        "output numel).", stacklevel=2)
  return _XLAC._var_mean(x, dims, max(0, count - correction), keepdim, sqrt)


@op(aten.var.correction)
def var(x, dim=None, *, correction=None, keepdim=False):
  return _var_and_mean("var", x, dim, correction, keepdim)[0]


@op(aten.std.correction)
def std(x, dim=None, *, correction=None, keepdim=False):
  return _var_and_mean("std", x, dim, correction, keepdim, sqrt=True)[0]


@op(aten.var_mean.correction)
def var_mean(x, dim=None, *, correction=None, keepdim=False):
  return _var_and_mean("var_mean", x, dim, correction, keepdim)


@op(aten.std_mean.correction)
def std_mean(x, dim=None, *, correction=None, keepdim=False):
  return _var_and_mean("std_mean", x, dim, correction, keepdim, sqrt=True)


# ---------------------------------------------------------------------------
# any, all.


def _any_all(kind):

  def rule(x, dim=None, keepdim=False):
    # `dim=[]` reduces nothing here (eager), unlike sum's.
    dims = reduction_dims(dim, x.dim(), empty_means_all=False)
    return _XLAC._any_all(x, dims, kind, keepdim)  # ops/reduction_ops.h

  return rule


_any = _any_all("or")
_all = _any_all("and")
op(aten.any.default, aten.any.dim, aten.any.dims)(_any)
op(aten.all.default, aten.all.dim, aten.all.dims)(_all)


# ---------------------------------------------------------------------------
# Norms.


@op(aten.linalg_vector_norm.default)
def linalg_vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
  if not (dtype or x.dtype).is_floating_point:
    raise RuntimeError(
        "linalg.vector_norm: Expected a floating point or complex tensor as "
        f"input. Got {_dtypes.scalar_type_name(x.dtype)}")
  dims = reduction_dims(dim, x.dim())
  if math.isinf(ord) and (any(x.shape[d] == 0 for d in dims) or
                          x.numel() == 0):
    raise RuntimeError(
        "linalg.vector_norm cannot compute the inf norm on an empty tensor "
        "because the operation does not have an identity")
  # ops/reduction_ops.h; a general order's p and 1/p are scalar parameters.
  return _XLAC._vector_norm(x, float(ord), dims, keepdim,
                            code_of(dtype or x.dtype))


# ---------------------------------------------------------------------------
# Cumulative sum and product.


def _cumulative(kind, inplace=False):

  def rule(x, dim, *, dtype=None):
    if dtype == torch.bool and x.dim() and x.numel():  # eager CPU's error
      name = "cumsum" if kind == "add" else "cumprod"
      raise NotImplementedError(
          f"\"{name}_out_cpu\" not implemented for 'Bool'")
    # ops/cumulative_ops.h: the same scan, accumulated in opmath.
    return _XLAC._cumulative(x, canonical_dim(dim, x.dim()), kind,
                             _result_code(x, dtype), inplace)

  return rule


cumsum = op(aten.cumsum.default)(_cumulative("add"))
cumprod = op(aten.cumprod.default)(_cumulative("multiply"))


cumsum_ = op(aten.cumsum_.default)(_cumulative("add", inplace=True))
cumprod_ = op(aten.cumprod_.default)(_cumulative("multiply", inplace=True))


# ---------------------------------------------------------------------------
# logsumexp.


@op(aten.logsumexp.default)
def logsumexp(x, dim, keepdim=False):
  code = code_of(x.dtype) if x.dtype.is_floating_point else code_of(
      torch.get_default_dtype())
  # The max is subtracted first (ops/reduction_ops.h).
  return _XLAC._logsumexp(x, reduction_dims(dim, x.dim()), keepdim, code)


# ---------------------------------------------------------------------------
# sort and topk: one call each into the C++ builder (ops/order_ops.h
# SortFirst): one IR `sort` of (values, iota) along the dim, stable (ties
# keep index order), NaN sorted as the largest value and -0.0 equal to
# 0.0, which is eager's order; top-k is the sort and a slice (StableHLO has
# no top-k op).


@op(aten.sort.default)
def sort(x, dim=-1, descending=False):
  d = canonical_dim(dim, x.dim())
  n = x.shape[d] if x.dim() else 1
  return _XLAC._sort(x, d, n, descending)


@op(aten.sort.stable)
def sort_stable(x, *, stable=None, dim=-1, descending=False):
  return sort(x, dim, descending)  # always stable


@op(aten.topk.default)
def topk(x, k, dim=-1, largest=True, sorted=True):
  d = canonical_dim(dim, x.dim())
  n = x.shape[d] if x.dim() else 1
  if not 0 <= k <= n:
    raise RuntimeError("selected index k out of range")
  if x.dtype == torch.bool:  # eager CPU's error (eager CUDA computes)
    raise RuntimeError("topk does not support bool dtypes (as on CPU)")
  return _XLAC._sort(x, d, k, largest)
