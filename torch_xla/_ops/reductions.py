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

The helpers on handles (acc_code, reduction_dims, keep_dims, reduce_extreme)
are shared with normalization.py and losses.py.
"""

import math
import warnings

import torch

from torch_xla import _XLAC, _dtypes, _ir
from torch_xla._ops._common import (canonical_dim, code_of, dtype_of_code,
                                    literal, scalar)
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import commit, wrap, xt_of

F32, S32, S64, PRED = _ir.F32, _ir.S32, _ir.S64, _ir.PRED
_HALF_CODES = (_ir.BF16, _ir.F16)


# ---------------------------------------------------------------------------
# Helpers on handles.


def _lit(value, code, like):
  """A literal with the shape and device of the handle `like`."""
  return literal(value, code, like.dims, like.device)


def acc_code(code: int) -> int:
  """Element type to accumulate `code` in: f32 for the 16-bit floats."""
  return F32 if code in _HALF_CODES else code


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


def keep_dims(shape, dims):
  """`shape` with the reduced `dims` kept as size 1 (keepdim=True)."""
  return [1 if i in dims else s for i, s in enumerate(shape)]


def _reduce(v, dims, kind: str, keepdim: bool):
  if not dims:
    return _XLAC._clone(v)  # a new value, never an alias of the input
  out = _ir.reduce(v, dims, kind)
  if keepdim:
    out = _ir.reshape(out, keep_dims(v.dims, dims))
  return out


def reduce_extreme(v, dims, kind: str, keepdim: bool = False):
  """max or min of a handle over `dims`; NaN wins like in eager."""
  out = _reduce(v, dims, kind, keepdim)
  if v.dtype in _ir.FLOAT_CODES and dims:
    has_nan = _reduce(_ir.compare(v, v, "NE"), dims, "or", keepdim)
    out = _ir.select(has_nan, _lit(math.nan, v.dtype, out), out)
  return out


def _first_index(v, extreme_kept, d: int):
  """Index along `d` of the first element equal to `extreme_kept` (the
  keepdim max/min of `v`), or of the first NaN; keeps dim `d` as size 1."""
  shape = v.dims
  hit = _ir.compare(v, _ir.broadcast_to(extreme_kept, shape), "EQ")
  if v.dtype in _ir.FLOAT_CODES:
    hit = _ir.binary("or", hit, _ir.compare(v, v, "NE"))
  index = _ir.iota(S64, shape, d, v.device)
  past_end = _lit(shape[d], S64, v)
  return _reduce(_ir.select(hit, index, past_end), [d], "min", True)


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


def _sum(x, dim, keepdim, dtype):
  code = _result_code(x, dtype)
  dims = reduction_dims(dim, x.dim())
  out = _reduce(_ir.convert(xt_of(x), acc_code(code)), dims, "sum", keepdim)
  return wrap(_ir.convert(out, code))


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
  code = code_of(out_dtype)
  acc = acc_code(code)
  dims = reduction_dims(dim, x.dim())
  count = math.prod(x.shape[d] for d in dims)
  total = _reduce(_ir.convert(xt_of(x), acc), dims, "sum", keepdim)
  mean = _ir.binary("divide", total, _lit(count, acc, total))
  return wrap(_ir.convert(mean, code))


@op(aten.mean.default)
def mean(x, dtype=None):
  return _mean(x, None, False, dtype)


@op(aten.mean.dim)
def mean_dim(x, dim, keepdim=False, dtype=None):
  return _mean(x, dim, keepdim, dtype)


def _prod(x, dim, keepdim, dtype):
  code = _result_code(x, dtype)
  dims = reduction_dims(dim, x.dim())
  out = _reduce(_ir.convert(xt_of(x), acc_code(code)), dims, "prod", keepdim)
  return wrap(_ir.convert(out, code))


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
    return wrap(reduce_extreme(xt_of(x), dims, kind, keepdim))

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
    return wrap(reduce_extreme(xt_of(x), list(range(x.dim())), kind))

  rule.__name__ = name
  return rule


max_ = op(aten.max.default)(_full_extreme("max", "max"))
min_ = op(aten.min.default)(_full_extreme("min", "min"))


def _extreme_and_index(name, x, dim, keepdim, kind):
  """(values, first index) of the max/min along one dim."""
  rank = x.dim()
  d = canonical_dim(dim, rank)
  v = xt_of(x)
  if rank == 0:
    return _XLAC._clone(v), literal(0, S64, [], v.device)
  _check_nonempty_dims(name, x.shape, [d])
  values = reduce_extreme(v, [d], kind, keepdim=True)
  index = _first_index(v, values, d)
  if not keepdim:
    out_shape = [s for i, s in enumerate(x.shape) if i != d]
    values, index = _ir.reshape(values, out_shape), _ir.reshape(index,
                                                                 out_shape)
  return values, index


@op(aten.max.dim)
def max_dim(x, dim, keepdim=False):
  values, index = _extreme_and_index("max", x, dim, keepdim, "max")
  return wrap(values), wrap(index)


@op(aten.min.dim)
def min_dim(x, dim, keepdim=False):
  values, index = _extreme_and_index("min", x, dim, keepdim, "min")
  return wrap(values), wrap(index)


def _arg_extreme(name, kind):

  def rule(x, dim=None, keepdim=False):
    if dim is not None:
      return wrap(_extreme_and_index(name, x, dim, keepdim, kind)[1])
    if x.numel() == 0:
      raise IndexError(f"{name}(): Expected reduction dim to be specified "
                       "for input.numel() == 0.")
    flat = _ir.reshape(xt_of(x), [x.numel()])
    values = reduce_extreme(flat, [0], kind, keepdim=True)
    index = _first_index(flat, values, 0)
    return wrap(_ir.reshape(index, [1] * x.dim() if keepdim else []))

  rule.__name__ = name
  return rule


argmax = op(aten.argmax.default)(_arg_extreme("argmax", "max"))
argmin = op(aten.argmin.default)(_arg_extreme("argmin", "min"))


# ---------------------------------------------------------------------------
# var, std and their means.


def _var_and_mean(name, x, dim, correction, keepdim):
  """(variance, mean) handles in x's dtype; two passes over the data."""
  if not x.dtype.is_floating_point:
    raise RuntimeError(
        "std and var only support floating point and complex dtypes")
  code = code_of(x.dtype)
  acc = acc_code(code)
  dims = reduction_dims(dim, x.dim())
  count = math.prod(x.shape[d] for d in dims)
  v = _ir.convert(xt_of(x), acc)
  total = _reduce(v, dims, "sum", True)
  mean_kept = _ir.binary("divide", total, _lit(count, acc, total))
  centered = _ir.binary("subtract", v, _ir.broadcast_to(mean_kept, v.dims))
  squares = _reduce(_ir.binary("multiply", centered, centered), dims, "sum",
                    keepdim)
  correction = 1 if correction is None else correction
  if count - correction <= 0:
    warnings.warn(
        f"{name}(): degrees of freedom is <= 0. Correction should be "
        "strictly less than the reduction factor (input numel divided by "
        "output numel).", stacklevel=2)
  divisor = _ir.broadcast_to(
      scalar(max(0, count - correction), acc, x.device.index), squares.dims)
  var = _ir.binary("divide", squares, divisor)
  mean = mean_kept if keepdim else _ir.reshape(mean_kept, squares.dims)
  return _ir.convert(var, code), _ir.convert(mean, code)


@op(aten.var.correction)
def var(x, dim=None, *, correction=None, keepdim=False):
  return wrap(_var_and_mean("var", x, dim, correction, keepdim)[0])


@op(aten.std.correction)
def std(x, dim=None, *, correction=None, keepdim=False):
  var_, _ = _var_and_mean("std", x, dim, correction, keepdim)
  return wrap(_ir.unary("sqrt", var_))


@op(aten.var_mean.correction)
def var_mean(x, dim=None, *, correction=None, keepdim=False):
  var_, mean_ = _var_and_mean("var_mean", x, dim, correction, keepdim)
  return wrap(var_), wrap(mean_)


@op(aten.std_mean.correction)
def std_mean(x, dim=None, *, correction=None, keepdim=False):
  var_, mean_ = _var_and_mean("std_mean", x, dim, correction, keepdim)
  return wrap(_ir.unary("sqrt", var_)), wrap(mean_)


# ---------------------------------------------------------------------------
# any, all.


def _truth(x):
  v = xt_of(x)
  if x.dtype == torch.bool:
    return v
  return _ir.compare(v, _lit(0, v.dtype, v), "NE")


def _any_all(kind):

  def rule(x, dim=None, keepdim=False):
    # `dim=[]` reduces nothing here (eager), unlike sum's.
    dims = reduction_dims(dim, x.dim(), empty_means_all=False)
    out = _reduce(_truth(x), dims, kind, keepdim)
    if x.dtype == torch.uint8:  # eager keeps uint8 for uint8 inputs
      out = _ir.convert(out, _ir.U8)
    return wrap(out)

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
  code = code_of(dtype or x.dtype)
  acc = acc_code(code)
  dims = reduction_dims(dim, x.dim())
  v = _ir.convert(xt_of(x), acc)
  if math.isinf(ord):
    if any(x.shape[d] == 0 for d in dims) or x.numel() == 0:
      raise RuntimeError(
          "linalg.vector_norm cannot compute the inf norm on an empty tensor "
          "because the operation does not have an identity")
    out = reduce_extreme(_ir.unary("abs", v), dims,
                         "max" if ord > 0 else "min", keepdim)
  elif ord == 0:
    nonzero = _ir.compare(v, _lit(0, acc, v), "NE")
    out = _reduce(_ir.convert(nonzero, acc), dims, "sum", keepdim)
  elif ord == 1:
    out = _reduce(_ir.unary("abs", v), dims, "sum", keepdim)
  elif ord == 2:
    out = _ir.unary("sqrt",
                    _reduce(_ir.binary("multiply", v, v), dims, "sum",
                            keepdim))
  else:
    device = x.device.index
    p = _ir.broadcast_to(scalar(float(ord), acc, device), v.dims)
    powered = _reduce(_ir.binary("power", _ir.unary("abs", v), p), dims,
                      "sum", keepdim)
    inv = _ir.broadcast_to(scalar(1.0 / ord, acc, device), powered.dims)
    out = _ir.binary("power", powered, inv)
  return wrap(_ir.convert(out, code))


# ---------------------------------------------------------------------------
# Cumulative sum and product.


def scan(v, d: int, kind: str):
  """Inclusive prefix sum ("add") or product ("multiply") along `d`.

  A log-depth (Hillis-Steele) scan: ceil(log2(n)) steps, each adding a
  copy shifted by 2^k (a pad with negative high padding). O(n log n) work,
  exact for integers; floats add in a balanced tree, which is at least as
  accurate as a sequential sum.
  """
  n = v.dims[d]
  rank = len(v.dims)
  identity = literal(0 if kind == "add" else 1, v.dtype, [], v.device)
  shift = 1
  while shift < n:
    low, high = [0] * rank, [0] * rank
    low[d], high[d] = shift, -shift
    v = _ir.binary(kind, v, _ir.pad(v, identity, low, high))
    shift *= 2
  return v


def _cumulative(kind):

  def rule(x, dim, *, dtype=None):
    d = canonical_dim(dim, x.dim())
    code = _result_code(x, dtype)
    v = _ir.convert(xt_of(x), acc_code(code))
    if x.dim() == 0:
      return wrap(_ir.convert(_XLAC._clone(v), code))
    return wrap(_ir.convert(_XLAC._clone(scan(v, d, kind)), code))

  return rule


cumsum = op(aten.cumsum.default)(_cumulative("add"))
cumprod = op(aten.cumprod.default)(_cumulative("multiply"))


@op(aten.cumsum_.default)
def cumsum_(x, dim, *, dtype=None):
  return commit(x, _ir.convert(xt_of(cumsum(x, dim, dtype=dtype)),
                               code_of(x.dtype)))


@op(aten.cumprod_.default)
def cumprod_(x, dim, *, dtype=None):
  return commit(x, _ir.convert(xt_of(cumprod(x, dim, dtype=dtype)),
                               code_of(x.dtype)))


# ---------------------------------------------------------------------------
# logsumexp.


@op(aten.logsumexp.default)
def logsumexp(x, dim, keepdim=False):
  code = code_of(x.dtype) if x.dtype.is_floating_point else code_of(
      torch.get_default_dtype())
  acc = acc_code(code)
  dims = reduction_dims(dim, x.dim())
  v = _ir.convert(xt_of(x), acc)
  if not dims:
    return wrap(_ir.convert(_XLAC._clone(v), code))
  # Subtract the max first; an infinite max (all -inf, or +inf) is replaced
  # by 0 so that inf - inf never makes a NaN that eager would not.
  m = reduce_extreme(v, dims, "max", keepdim=True)
  m = _ir.select(_ir.unary("is_finite", m), m, _lit(0, acc, m))
  shifted = _ir.unary("exponential",
                      _ir.binary("subtract", v, _ir.broadcast_to(m, v.dims)))
  total = _reduce(shifted, dims, "sum", keepdim)
  if not keepdim:
    m = _ir.reshape(m, total.dims)
  return wrap(_ir.convert(_ir.binary("add", _ir.unary("log", total), m), code))


# ---------------------------------------------------------------------------
# sort and topk.
#
# There is no sort primitive in the IR. Two lowerings, both stable (ties keep
# index order) and both sorting NaN as the largest value, as eager does:
# - rank by counting comparisons (_sorted_last): the rank of element i is
#   the number of elements that come before it (smaller, or equal with a
#   smaller index); output position p takes the element of rank p, selected
#   bit-exactly by an OR over a one-hot mask. O(n^2) work and memory (an
#   [..., n, n] mask) per row of n: for sort and for top-k of short rows.
# - k rounds of "take the best element not taken yet" (_top_k_rounds):
#   O(n k) work, k unrolled rounds of a few ops each. For top-k with k much
#   smaller than n (sampling over a vocabulary), where n^2 would not fit.

_BITS = {_ir.F32: S32, _ir.F64: S64, _ir.BF16: _ir.S16, _ir.F16: _ir.S16}


def _ordered_before(xj, xi, descending, is_float):
  """pred: does x_j sort strictly before x_i (ignoring ties)?"""
  direction = "GT" if descending else "LT"
  before = _ir.compare(xj, xi, direction)
  if is_float:
    nan_j, nan_i = _ir.compare(xj, xj, "NE"), _ir.compare(xi, xi, "NE")
    # NaN is the largest: descending puts it first, ascending last.
    first, second = (nan_j, nan_i) if descending else (nan_i, nan_j)
    before = _ir.binary("or", before,
                        _ir.binary("and", first, _ir.unary("not", second)))
  return before


def _equal(xj, xi, is_float):
  eq = _ir.compare(xj, xi, "EQ")
  if is_float:
    both_nan = _ir.binary("and", _ir.compare(xj, xj, "NE"),
                          _ir.compare(xi, xi, "NE"))
    eq = _ir.binary("or", eq, both_nan)
  return eq


def _bitcast(v, code):
  return _XLAC._op(_ir.K["bitcast_convert"], [v], {"dtype": _ir.DT[code]})


def _ranks(v, descending):
  """Sorted position of each element of v along its last dim (S32)."""
  shape = v.dims
  r = len(shape) - 1
  n = shape[r]
  pair = shape[:r] + [n, n]  # [..., j, i]
  xj = _ir.broadcast_in_dim(v, pair, list(range(r)) + [r])
  xi = _ir.broadcast_in_dim(v, pair, list(range(r)) + [r + 1])
  is_float = v.dtype in _ir.FLOAT_CODES
  j_before_i = _ir.compare(
      _ir.iota(S32, pair, r, v.device), _ir.iota(S32, pair, r + 1, v.device),
      "LT")
  precedes = _ir.binary(
      "or", _ordered_before(xj, xi, descending, is_float),
      _ir.binary("and", _equal(xj, xi, is_float), j_before_i))
  return _ir.reduce(_ir.convert(precedes, S32), [r], "sum")


def _sorted_last(v, k, descending):
  """(values, indices) of the first k of v sorted along its last dim."""
  shape = v.dims
  r = len(shape) - 1
  spread_dims = list(range(r)) + [r + 1]
  out_pair = shape[:r] + [k, shape[r]]  # [..., p, i]
  # One-hot: does element i land at output position p?
  onehot = _ir.compare(
      _ir.broadcast_in_dim(_ranks(v, descending), out_pair, spread_dims),
      _ir.iota(S32, out_pair, r, v.device), "EQ")

  def pick(x):  # the one selected element per position, bit-exact
    x = _ir.broadcast_in_dim(x, out_pair, spread_dims)
    zero = literal(0, x.dtype, out_pair, x.device)
    return _ir.reduce(_ir.select(onehot, x, zero), [r + 1], "or")

  bits_code = _BITS.get(v.dtype)
  if bits_code is not None:
    values = _bitcast(pick(_bitcast(v, bits_code)), v.dtype)
  else:  # integers; bool goes through u8
    values = _ir.convert(pick(_ir.convert(v, _ir.U8) if v.dtype == PRED else
                              v), v.dtype)
  indices = pick(_ir.iota(S64, shape, r, v.device))
  return values, indices


# Top-k uses k rounds when a round (about _ROUND_COST passes over the row)
# is cheaper than the n passes of the comparison count.
_ROUND_COST = 16


def _top_k_rounds(v, k, largest):
  """(values, indices) of the k best of v along its last dim, one per round."""
  shape = v.dims
  r = len(shape) - 1
  n = shape[r]
  is_float = v.dtype in _ir.FLOAT_CODES
  if v.dtype == PRED:
    v = _ir.convert(v, _ir.U8)
  position = _ir.iota(S64, shape, r, v.device)
  past_end = _lit(n, S64, position)
  nan = _ir.compare(v, v, "NE") if is_float else None
  # What a taken (or, for the smallest, NaN) element is replaced by.
  if is_float:
    worst = _lit(-math.inf if largest else math.inf, v.dtype, v)
  else:
    info = torch.iinfo(dtype_of_code[v.dtype])
    worst = _lit(info.min if largest else info.max, v.dtype, v)
  taken = _lit(False, PRED, v)
  values, indices = [], []
  for _ in range(k):
    free = _ir.unary("not", taken)
    hidden = taken
    if is_float and not largest:
      hidden = _ir.binary("or", taken, nan)  # NaN comes last
    candidates = _ir.select(hidden, worst, v)
    best = reduce_extreme(candidates, [r], "max" if largest else "min",
                          keepdim=True)  # NaN wins for the largest
    hit = _ir.compare(v, _ir.broadcast_to(best, shape), "EQ")
    if is_float:
      hit = _ir.binary("or", hit,
                       _ir.binary("and", nan,
                                  _ir.broadcast_to(
                                      _ir.compare(best, best, "NE"), shape)))
    first = _reduce(
        _ir.select(_ir.binary("and", hit, free), position, past_end), [r],
        "min", True)
    if is_float and not largest:  # only NaNs left: take the first of them
      first_nan = _reduce(
          _ir.select(_ir.binary("and", nan, free), position, past_end), [r],
          "min", True)
      first = _ir.select(
          _ir.compare(first, _lit(n, S64, first), "EQ"), first_nan, first)
    chosen = _ir.compare(position, _ir.broadcast_to(first, shape), "EQ")
    bits_code = _BITS.get(v.dtype, v.dtype)
    bits = _bitcast(v, bits_code) if bits_code != v.dtype else v
    picked = _reduce(
        _ir.select(chosen, bits, _lit(0, bits_code, bits)), [r], "or", True)
    values.append(_bitcast(picked, v.dtype) if bits_code != v.dtype else
                  picked)
    indices.append(first)
    taken = _ir.binary("or", taken, chosen)
  if k == 0:
    out_shape = shape[:r] + [0]
    return (literal(0, v.dtype, out_shape, v.device),
            literal(0, S64, out_shape, v.device))
  return _ir.concatenate(values, r), _ir.concatenate(indices, r)


def _sort_along(x, dim, k, descending):
  """Moves `dim` last, sorts, keeps the first k, moves `dim` back."""
  v = xt_of(x)
  rank = x.dim()
  if rank == 0:  # eager gives the value itself, even for topk(k=0)
    return _XLAC._clone(v), literal(0, S64, [], v.device)
  d = canonical_dim(dim, rank)
  perm = [i for i in range(rank) if i != d] + [d]
  inverse = [perm.index(i) for i in range(rank)]
  v = _ir.transpose(v, perm)
  if k * _ROUND_COST < x.shape[d]:
    values, indices = _top_k_rounds(v, k, descending)
    values = _ir.convert(values, code_of(x.dtype))
  else:
    values, indices = _sorted_last(v, k, descending)
  return _ir.transpose(values, inverse), _ir.transpose(indices, inverse)


@op(aten.sort.default)
def sort(x, dim=-1, descending=False):
  n = x.shape[canonical_dim(dim, x.dim())] if x.dim() else 1
  values, indices = _sort_along(x, dim, n, descending)
  return wrap(values), wrap(indices)


@op(aten.sort.stable)
def sort_stable(x, *, stable=None, dim=-1, descending=False):
  return sort(x, dim, descending)  # always stable


@op(aten.topk.default)
def topk(x, k, dim=-1, largest=True, sorted=True):
  d = canonical_dim(dim, x.dim())
  n = x.shape[d] if x.dim() else 1
  if not 0 <= k <= n:
    raise RuntimeError("selected index k out of range")
  values, indices = _sort_along(x, dim, k, largest)
  return wrap(values), wrap(indices)
