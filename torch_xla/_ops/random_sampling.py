"""Discrete random draws on the device, built on random_ops.py's seeds,
bits and uniforms (its docstring states the design): multinomial,
bernoulli, random_ (integer ranges), dropout, randperm, and the *_like
factories."""

import torch

from torch_xla import _XLAC, _ir
from torch_xla._ops._common import code_of, literal
from torch_xla._ops.random_ops import (_DIGITS, _INT_RANGE, _TYPE_NAMES,
                                       _compute_code, _dtype_name,
                                       _empty_result, _float_code, _fmt,
                                       _open_uniform, _param, check_values,
                                       normal_, not_at_least, random_bits,
                                       uniform01, uniform_)
from torch_xla._ops.reductions import sort_along
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import commit, wrap, xt_of


@op(aten.multinomial.default)
def multinomial(probs, num_samples, replacement=False, generator=None):
  """Category indices drawn with weights `probs` (rows of a 1-d or 2-d
  tensor), int64 of shape [..., num_samples].

  With replacement: each draw inverts the row's cumulative weights at a
  uniform point. Without: the num_samples largest of log(p) + Gumbel noise
  (the Gumbel top-k trick gives exactly sampling without replacement).
  Eager's value checks (a negative, infinite or NaN weight, an all-zero
  row) are device-side checks with eager CPU's texts (_check_weights).
  """
  if probs.dim() not in (1, 2):
    raise RuntimeError("prob_dist must be 1 or 2 dim")
  if not probs.dtype.is_floating_point:
    raise RuntimeError(f"multinomial only supports floating-point dtypes "
                       f"for input, got: {_dtype_name(probs.dtype)}")
  n = probs.shape[-1]
  if num_samples <= 0:
    raise RuntimeError("cannot sample n_sample <= 0 samples")
  if not replacement and num_samples > n:
    raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples "
                       "without replacement")
  device = probs.device.index
  cc = _compute_code(code_of(probs.dtype))
  rows = probs.shape[0] if probs.dim() == 2 else 1
  weights = _ir.reshape(_ir.convert(xt_of(probs), cc), [rows, n])
  _check_weights(probs, weights, replacement and num_samples > 1)
  if replacement:
    cdf = xt_of(torch.cumsum(wrap(weights), 1))  # [rows, n]
    total = _ir.slice_(cdf, [0, n - 1], [rows, n])  # [rows, 1]
    pair = [rows, num_samples, n]
    point = _ir.binary(
        "multiply", uniform01([rows, num_samples], cc, device, generator),
        _ir.broadcast_to(total, [rows, num_samples]))
    below = _ir.compare(
        _ir.broadcast_in_dim(cdf, pair, [0, 2]),
        _ir.broadcast_in_dim(point, pair, [0, 1]), "LE")
    index = _ir.reduce(_ir.convert(below, _ir.S64), [2], "sum")
    # Rounding can put the point at the total: stay on the last category.
    index = _ir.binary("minimum", index,
                       literal(n - 1, _ir.S64, [rows, num_samples], device))
  else:
    u = _open_uniform([rows, n], cc, device, generator)
    gumbel = _ir.unary("negate", _ir.unary("log", _ir.unary(
        "negate", _ir.unary("log", u))))
    keys = _ir.binary("add", _ir.unary("log", weights), gumbel)
    index = xt_of(torch.topk(wrap(keys), num_samples)[1])
  out_shape = list(probs.shape[:-1]) + [num_samples]
  return wrap(_ir.reshape(index, out_shape))


_INVALID = "invalid multinomial distribution "


def _check_weights(probs, weights, drawing_repeatedly):
  """Device-side checks of multinomial's weights (the [rows, n] handle),
  in eager CPU's order and words: its one-draw and without-replacement
  path checks "inf, nan or < 0" at once, its repeated-draw path entry by
  entry; then no row may sum to 0."""
  def row_sums_zero(w):
    total = _ir.reduce(w, [1], "sum")
    return _ir.compare(total, literal(0, w.dtype, total.dims, w.device),
                       "EQ")

  if drawing_repeatedly:
    check_values(probs, lambda v: not_at_least(v, 0),
                 _INVALID + "(encountering probability entry < 0)")
    check_values(probs, lambda v: _ir.unary("not", _ir.unary(
        "is_finite", v)), _INVALID + "(encountering probability entry = "
                 "infinity or NaN)")
  else:
    check_values(probs, lambda v: _ir.binary(
        "or", not_at_least(v, 0), _ir.unary("not", _ir.unary(
            "is_finite", v))), "probability tensor contains either `inf`, "
                 "`nan` or element < 0")
  check_values(probs, lambda v: row_sums_zero(weights),
               _INVALID + "(sum of probabilities <= 0)")


_BERNOULLI_P = ("Expected p_in >= 0 && p_in <= 1 to be true, but got "
                "false.")


def _check_probabilities(p):
  """Eager's check that every probability of the 'xla' tensor p is in
  [0, 1] (NaN fails), device-side."""
  check_values(p, lambda v: _ir.binary("or", not_at_least(v, 0), _ir.compare(
      v, literal(1, v.dtype, v.dims, v.device), "GT")), _BERNOULLI_P)


def _bernoulli_value(x, p, generator, name):
  """u < p as x's dtype; p a float or a tensor broadcastable to x."""
  shape, device = list(x.shape), x.device.index
  code = code_of(x.dtype)
  target = code if code in _ir.FLOAT_CODES else _ir.F32
  if isinstance(p, torch.Tensor):
    if p.device.type != "xla":
      p = p.to(x.device)
    if p.is_floating_point():
      target = code_of(p.dtype)  # compare at p's resolution
      _check_probabilities(p)
    pv = _ir.convert(xt_of(p), _compute_code(target))
    try:
      pv = _ir.broadcast_to(pv, shape)
    except RuntimeError:
      raise RuntimeError(
          f"{name}: p of shape {list(p.shape)} is not broadcastable to the "
          f"tensor's shape {shape}") from None
  else:
    if not 0 <= p <= 1:
      raise RuntimeError(
          f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(p)}")
    pv = _param(float(p), _compute_code(target), shape, device)
  u = uniform01(shape, _compute_code(target), device, generator)
  return _ir.convert(_ir.compare(u, pv, "LT"), code)


@op(aten.bernoulli_.float)
def bernoulli_float_(x, p=0.5, generator=None):
  if _empty_result(x):
    return x
  return commit(x, _bernoulli_value(x, p, generator, "bernoulli_"))


@op(aten.bernoulli_.Tensor)
def bernoulli_tensor_(x, p, generator=None):
  if _empty_result(x):
    return x
  return commit(x, _bernoulli_value(x, p, generator, "bernoulli_"))


@op(aten.bernoulli.p)
def bernoulli_p(x, p=0.5, generator=None):
  if _empty_result(x):
    return wrap(_XLAC._clone(xt_of(x)))
  return wrap(_bernoulli_value(x, p, generator, "bernoulli"))


@op(aten.bernoulli.default)
def bernoulli(x, generator=None):
  """Each element of x is its own probability."""
  _float_code("bernoulli_tensor_cpu_p_", x)
  if _empty_result(x):
    return wrap(_XLAC._clone(xt_of(x)))
  return wrap(_bernoulli_value(x, x, generator, "bernoulli"))


def _random_range(x, from_, to):
  """[from, to) as Python ints after eager's checks; to None means the
  largest value of x's dtype (2^digits for floats)."""
  code = code_of(x.dtype)
  if code in _ir.FLOAT_CODES:
    low, high = -(1 << _DIGITS[code]), 1 << _DIGITS[code]
  else:
    low, high = _INT_RANGE[code]
  name = _TYPE_NAMES.get(code, str(x.dtype))
  if to is None:
    to = high + 1
  elif from_ >= to:
    raise RuntimeError(f"random_ expects 'from' to be less than 'to', but "
                       f"got from={from_} >= to={to}")
  if from_ < low or from_ > high:
    raise RuntimeError(f"from is out of bounds for {name}")
  if to - 1 < low or to - 1 > high:
    raise RuntimeError(f"to - 1 is out of bounds for {name}")
  return code, from_, to


def _random_value(x, from_, to, generator):
  code, from_, to = _random_range(x, from_, to)
  shape, device = list(x.shape), x.device.index
  span = to - from_  # in [1, 2^64]
  bits = random_bits(shape, _ir.U64, device, generator)
  if span < (1 << 64):
    # The span and the start are parameters: new bounds do not recompile.
    span_param = _wrap_int64(span)
    bits = _ir.binary("remainder", bits,
                      _param(span_param, _ir.U64, shape, device))
  value = _ir.convert(bits, _ir.S64)  # wraps for values >= 2^63
  value = _ir.binary("add", value, _param(from_, _ir.S64, shape, device))
  return _ir.convert(value, code)


def _wrap_int64(value):
  """An integer in [0, 2^64) as the int64 with the same bits."""
  return value - (1 << 64) if value >= (1 << 63) else value


@op(getattr(aten.random_, "from"))
def random_from(x, from_, to=None, generator=None):
  if _empty_result(x):
    return x
  return commit(x, _random_value(x, from_, to, generator))


@op(aten.random_.to)
def random_to(x, to, generator=None):
  if _empty_result(x):
    return x
  return commit(x, _random_value(x, 0, to, generator))


@op(aten.random_.default)
def random_(x, generator=None):
  if _empty_result(x):
    return x
  code = code_of(x.dtype)
  if code in _ir.FLOAT_CODES:
    to = (1 << _DIGITS[code]) + 1
  else:
    to = _INT_RANGE[code][1] + 1
  return commit(x, _random_value(x, 0, to, generator))


@op(aten.native_dropout.default)
def native_dropout(x, p, train):
  """(x * mask / (1 - p), mask) with mask ~ bernoulli(1 - p), like eager."""
  v = xt_of(x)
  shape, device = list(x.shape), x.device.index
  if (train is not None and not train) or _empty_result(x):
    return (wrap(_XLAC._clone(v)),
            wrap(literal(True, _ir.PRED, shape, device)))
  code = code_of(x.dtype)
  if code not in _ir.FLOAT_CODES:
    raise RuntimeError(f"native_dropout: expected a floating point input, "
                       f"got {x.dtype}")
  keep_probability = 1.0 - p
  u = uniform01(shape, _compute_code(code), device)
  cc = u.dtype
  mask = _ir.compare(u, _param(keep_probability, cc, shape, device), "LT")
  scale = 0.0 if keep_probability == 0 else 1.0 / keep_probability
  out = _ir.binary("multiply", v, _ir.convert(mask, code))
  out = _ir.binary("multiply", out, _param(scale, code, shape, device))
  return wrap(out), wrap(mask)


@op(aten.native_dropout_backward.default)
def native_dropout_backward(grad, mask, scale):
  g = xt_of(grad)
  code = g.dtype
  shape, device = list(grad.shape), grad.device.index
  m = _ir.binary("multiply", _ir.convert(xt_of(mask), code),
                 _param(scale, code, shape, device))
  return wrap(_ir.binary("multiply", g, m))


def _like(x, dtype, device, fill, method, *args):
  """A new tensor shaped like x filled by the in-place rule `fill` (or, for
  a non-xla `device`, by the eager tensor method of that name)."""
  dtype = dtype or x.dtype
  if device is not None and torch.device(device).type != "xla":
    target = torch.empty(tuple(x.shape), dtype=dtype, device=device)
    return getattr(target, method)(*args[:-1], generator=args[-1])
  index = x.device.index if device is None else (
      torch.device(device).index or 0)
  target = wrap(literal(0, code_of(dtype), list(x.shape), index))
  return fill(target, *args)


@op(aten.rand_like.default, aten.rand_like.generator)
def rand_like(x, *, generator=None, dtype=None, layout=None, device=None,
              pin_memory=None, memory_format=None):
  return _like(x, dtype, device, uniform_, "uniform_", 0.0, 1.0, generator)


@op(aten.randn_like.default, aten.randn_like.generator)
def randn_like(x, *, generator=None, dtype=None, layout=None, device=None,
               pin_memory=None, memory_format=None):
  return _like(x, dtype, device, normal_, "normal_", 0.0, 1.0, generator)


@op(aten.randint_like.default, aten.randint_like.generator,
    aten.randint_like.Tensor, aten.randint_like.Tensor_generator)
def randint_like(x, high, *, generator=None, dtype=None, layout=None,
                 device=None, pin_memory=None, memory_format=None):
  if isinstance(high, torch.Tensor):
    high = int(high.item())
  return _like(x, dtype, device, random_from, "random_", 0, high, generator)


@op(aten.randint_like.low_dtype, aten.randint_like.low_generator_dtype)
def randint_like_low(x, low, high, *, generator=None, dtype=None,
                     layout=None, device=None, pin_memory=None,
                     memory_format=None):
  return _like(x, dtype, device, random_from, "random_", low, high,
               generator)


_RANDPERM_INT_LIMITS = {_ir.S8: ("int8_t", 127), _ir.U8: ("uint8_t", 255),
                        _ir.S16: ("int16_t", 32767),
                        _ir.S32: ("int", 2**31 - 1)}


def _check_randperm_dtype(n, code):
  """Eager's errors when n - 1 does not fit the result's dtype."""
  if code in _RANDPERM_INT_LIMITS:
    name, top = _RANDPERM_INT_LIMITS[code]
    if n - 1 > top:
      raise RuntimeError(
          f"value cannot be converted to type {name} without overflow")
  elif code == _ir.F16 and n > 2049:
    raise RuntimeError("n cannot be greater than 2049 for Half type.")


def randperm_value(n, code, device, generator=None):
  """A handle holding a random permutation of range(n) as `code`.

  Cost: one sort of n keys (O(n log n) work, O(n) memory).
  """
  if n < 0:
    raise RuntimeError(f"n must be non-negative, got{n}")
  if n >= 1 << 32:
    raise RuntimeError(f"randperm: n={n} is too large for 'xla' (at most "
                       f"2^32 - 1)")
  _check_randperm_dtype(n, code)
  if n <= 1:
    return _ir.convert(_ir.iota(_ir.S64, [n], 0, device), code)
  # Stable, so equal keys keep index order: the same permutation as sorting
  # (key << 32 | index).
  keys = random_bits([n], _ir.U32, device, generator)
  return _ir.convert(sort_along(keys, 0, descending=False)[1], code)


@op(aten.randperm.generator_out)
def randperm_generator_out(n, generator=None, out=None):
  value = randperm_value(n, code_of(out.dtype), out.device.index, generator)
  return commit(out, value)


@op(aten.randperm.out)
def randperm_out(n, out):
  return randperm_generator_out(n, None, out=out)
