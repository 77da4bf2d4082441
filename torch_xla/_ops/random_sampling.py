"""Discrete random draws on the device (random_ops.py's docstring states
the design): multinomial, bernoulli, random_ (integer ranges), dropout,
randperm, the random factories (rand, randn, randint, randperm on the XLA
key) and the *_like factories. Each rule checks eager's arguments, draws
the seed and makes one call into its C++ builder
(torch_xla/csrc/ops/random_ops.h)."""

import torch

from torch_xla import _XLAC, _ir
from torch_xla._ops._common import code_of, literal
from torch_xla._ops.random_ops import (_DIGITS, _INT_RANGE, _TYPE_NAMES,
                                       _compute_code, _dtype_name,
                                       _empty_result, _float_code, _fmt,
                                       seed)
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import wrap, xt_of


@op(aten.multinomial.default)
def multinomial(probs, num_samples, replacement=False, generator=None):
  """Category indices drawn with weights `probs` (rows of a 1-d or 2-d
  tensor), int64 of shape [..., num_samples].

  With replacement: each draw inverts the row's cumulative weights at a
  uniform point. Without: the num_samples largest of log(p) + Gumbel noise
  (the Gumbel top-k trick gives exactly sampling without replacement).
  Eager's value checks (a negative, infinite or NaN weight, an all-zero
  row) are device-side checks with eager CPU's texts, registered by the
  binding (ops/random_ops.h MultinomialChecks).
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
  if n == 0:
    raise RuntimeError("aminmax(): cannot compute aminmax over an empty "
                       "dimension as the operation has no identity.")
  # One call: the builder and eager's device-side checks of the weights.
  return _XLAC._multinomial(probs, seed(generator, probs.device.index),
                            num_samples, replacement)


def _bernoulli(x, p, generator, name, target):
  """u < p as x's dtype, p a float or a tensor broadcastable to x; written
  into `target` (x itself for the in-place forms) or, for None, a new
  tensor. Compared at p's resolution for a float tensor p, else at x's
  (f32 for a non-float x)."""
  code = code_of(x.dtype)
  compute = code if code in _ir.FLOAT_CODES else _ir.F32
  check_p = False
  if isinstance(p, torch.Tensor):
    if p.device.type != "xla":
      p = p.to(x.device)
    if p.is_floating_point():
      # Eager's [0, 1] check, device-side, registered by the binding.
      compute, check_p = code_of(p.dtype), True
    try:
      fits = torch.broadcast_shapes(p.shape, x.shape) == x.shape
    except RuntimeError:
      fits = False
    if not fits:
      raise RuntimeError(
          f"{name}: p of shape {list(p.shape)} is not broadcastable to the "
          f"tensor's shape {list(x.shape)}")
  else:
    if not 0 <= p <= 1:
      raise RuntimeError(
          f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(p)}")
    p = float(p)
  device = x.device.index
  return _XLAC._bernoulli(seed(generator, device), p, _compute_code(compute),
                          target, list(x.shape), code, device, check_p)


@op(aten.bernoulli_.float)
def bernoulli_float_(x, p=0.5, generator=None):
  if _empty_result(x):
    return x
  return _bernoulli(x, p, generator, "bernoulli_", x)


@op(aten.bernoulli_.Tensor)
def bernoulli_tensor_(x, p, generator=None):
  if _empty_result(x):
    return x
  return _bernoulli(x, p, generator, "bernoulli_", x)


@op(aten.bernoulli.p)
def bernoulli_p(x, p=0.5, generator=None):
  if _empty_result(x):
    return wrap(_XLAC._clone(xt_of(x)))
  return _bernoulli(x, p, generator, "bernoulli", None)


@op(aten.bernoulli.default)
def bernoulli(x, generator=None):
  """Each element of x is its own probability."""
  _float_code("bernoulli_tensor_cpu_p_", x)
  if _empty_result(x):
    return wrap(_XLAC._clone(xt_of(x)))
  return _bernoulli(x, x, generator, "bernoulli", None)


def _random_range(dtype, from_, to):
  """[from, to) as Python ints after eager's checks; to None means the
  largest value of `dtype` (2^digits for floats)."""
  code = code_of(dtype)
  if code in _ir.FLOAT_CODES:
    low, high = -(1 << _DIGITS[code]), 1 << _DIGITS[code]
  else:
    low, high = _INT_RANGE[code]
  name = _TYPE_NAMES.get(code, str(dtype))
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


def _random_value(x, from_, to, generator, dims=None, dtype=None, device=0):
  """Integers in [from, to) (ops/random_ops.h RandomInteger) filling x, or
  for x None a new tensor of `dims` and `dtype` on `device`."""
  if x is not None:
    dtype, device = x.dtype, x.device.index
  _, from_, to = _random_range(dtype, from_, to)
  span = to - from_  # in [1, 2^64]
  # The span and the start are parameters: new bounds do not recompile.
  span = _wrap_int64(span) if span < (1 << 64) else None
  return _XLAC._random_integer(seed(generator, device), span, from_, x,
                               dims or [], code_of(dtype), device)


def _wrap_int64(value):
  """An integer in [0, 2^64) as the int64 with the same bits."""
  return value - (1 << 64) if value >= (1 << 63) else value


@op(getattr(aten.random_, "from"))
def random_from(x, from_, to=None, generator=None):
  if _empty_result(x):
    return x
  return _random_value(x, from_, to, generator)


@op(aten.random_.to)
def random_to(x, to, generator=None):
  if _empty_result(x):
    return x
  return _random_value(x, 0, to, generator)


@op(aten.random_.default)
def random_(x, generator=None):
  if _empty_result(x):
    return x
  code = code_of(x.dtype)
  if code in _ir.FLOAT_CODES:
    to = (1 << _DIGITS[code]) + 1
  else:
    to = _INT_RANGE[code][1] + 1
  return _random_value(x, 0, to, generator)


@op(aten.native_dropout.default)
def native_dropout(x, p, train):
  """(x * mask / (1 - p), mask) with mask ~ bernoulli(1 - p), like eager:
  one call into C++ (ops/random_ops.h Dropout) in training."""
  if (train is not None and not train) or _empty_result(x):
    v = xt_of(x)
    return (wrap(_XLAC._clone(v)),
            wrap(literal(True, _ir.PRED, list(x.shape), x.device.index)))
  if not x.dtype.is_floating_point:
    raise RuntimeError(f"native_dropout: expected a floating point input, "
                       f"got {x.dtype}")
  keep_probability = 1.0 - p
  scale = 0.0 if keep_probability == 0 else 1.0 / keep_probability
  return _XLAC._dropout(x, seed(None, x.device.index), keep_probability,
                        scale)


@op(aten.native_dropout_backward.default)
def native_dropout_backward(grad, mask, scale):
  return _XLAC._dropout_backward(grad, mask, float(scale))


def _new_uniform(dims, dtype, device, generator=None):
  _float_code("check_uniform_bounds", dtype)
  return _XLAC._random("uniform", seed(generator, device), None, None, None,
                       list(dims), code_of(dtype), device)


def _new_normal(dims, dtype, device, generator=None):
  _float_code("normal_kernel_cpu", dtype)
  return _XLAC._random("normal", seed(generator, device), None, None, None,
                       list(dims), code_of(dtype), device)


def _like(x, dtype, device, new, method, *args):
  """A new tensor shaped like x made by `new(dims, dtype, device, *args)`
  (or, for a non-xla `device`, filled by the eager tensor method of that
  name)."""
  dtype = dtype or x.dtype
  if device is not None and torch.device(device).type != "xla":
    target = torch.empty(tuple(x.shape), dtype=dtype, device=device)
    return getattr(target, method)(*args[:-1], generator=args[-1])
  index = x.device.index if device is None else (
      torch.device(device).index or 0)
  return new(list(x.shape), dtype, index, *args)


def _new_integers(dims, dtype, device, low, high, generator=None):
  return _random_value(None, low, high, generator, list(dims), dtype, device)


@op(aten.rand_like.default, aten.rand_like.generator)
def rand_like(x, *, generator=None, dtype=None, layout=None, device=None,
              pin_memory=None, memory_format=None):
  return _like(x, dtype, device, _new_uniform, "uniform_", generator)


@op(aten.randn_like.default, aten.randn_like.generator)
def randn_like(x, *, generator=None, dtype=None, layout=None, device=None,
               pin_memory=None, memory_format=None):
  return _like(x, dtype, device, _new_normal, "normal_", generator)


@op(aten.randint_like.default, aten.randint_like.generator,
    aten.randint_like.Tensor, aten.randint_like.Tensor_generator)
def randint_like(x, high, *, generator=None, dtype=None, layout=None,
                 device=None, pin_memory=None, memory_format=None):
  if isinstance(high, torch.Tensor):
    high = int(high.item())
  return _like(x, dtype, device, _new_integers, "random_", 0, high,
               generator)


@op(aten.randint_like.low_dtype, aten.randint_like.low_generator_dtype)
def randint_like_low(x, low, high, *, generator=None, dtype=None,
                     layout=None, device=None, pin_memory=None,
                     memory_format=None):
  return _like(x, dtype, device, _new_integers, "random_", low, high,
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


def _randperm(n, out, generator=None, dtype=None, device=0):
  """A random permutation of range(n) written into `out`, or for None a new
  tensor of `dtype` on `device` (ops/random_ops.h Randperm: one sort of n
  random keys, O(n log n) work, O(n) memory)."""
  if n < 0:
    raise RuntimeError(f"n must be non-negative, got{n}")
  if n >= 1 << 32:
    raise RuntimeError(f"randperm: n={n} is too large for 'xla' (at most "
                       f"2^32 - 1)")
  if out is not None:
    dtype, device = out.dtype, out.device.index
  code = code_of(dtype)
  _check_randperm_dtype(n, code)
  return _XLAC._randperm(n, seed(generator, device), out, code, device)


@op(aten.randperm.generator_out)
def randperm_generator_out(n, generator=None, out=None):
  return _randperm(n, out, generator)


@op(aten.randperm.out)
def randperm_out(n, out):
  return _randperm(n, out)


# Factories: ops without tensor arguments do not reach __torch_dispatch__;
# they dispatch on the XLA key, where these kernels make the tensor in one
# call into C++ (eager's composite would make an empty tensor and fill it).
_xla_kernels = torch.library.Library("aten", "IMPL", "XLA")


def _factory(new, default_dtype=None):
  """An XLA-key kernel for a random factory: new(size, dtype, device,
  *numbers, generator) after eager's argument handling."""

  def kernel(*args, generator=None, dtype=None, layout=None, device=None,
             pin_memory=None):
    *numbers, size = args
    _check_size(size)
    dtype = dtype or default_dtype or torch.get_default_dtype()
    index = torch.device(device).index or 0 if device is not None else 0
    return _made(new(list(size), dtype, index, *numbers, generator))

  kernel.__name__ = new.__name__
  return kernel


def _made(out):
  """A factory kernel's result: these kernels skip __torch_dispatch__, so
  in eager mode they run the new tensor's value themselves."""
  from torch_xla.experimental import eager
  eager.run_if_eager([xt_of(out)])
  return out


def _check_size(size):
  """Eager's error for a negative size."""
  for d in size:
    if d < 0:
      raise RuntimeError(f"Trying to create tensor with negative dimension "
                         f"{d}: {list(size)}")


def _new_integers_below(dims, dtype, device, high, generator=None):
  return _new_integers(dims, dtype, device, 0, high, generator)


for _name, _new, _default in (
    ("rand", _new_uniform, None), ("rand.generator", _new_uniform, None),
    ("randn", _new_normal, None), ("randn.generator", _new_normal, None),
    ("randint", _new_integers_below, torch.int64),
    ("randint.generator", _new_integers_below, torch.int64),
    ("randint.low", _new_integers, torch.int64),
    ("randint.low_generator", _new_integers, torch.int64)):
  _xla_kernels.impl(_name, _factory(_new, _default))


def _randperm_kernel(n, generator=None, dtype=None, layout=None, device=None,
                     pin_memory=None):
  _check_size([n])
  index = torch.device(device).index or 0 if device is not None else 0
  return _made(_randperm(n, None, generator, dtype or torch.int64, index))


_xla_kernels.impl("randperm", _randperm_kernel)
_xla_kernels.impl("randperm.generator", _randperm_kernel)


# aten.dropout is CompositeImplicit: eager's composite (for a tensor that is
# not CUDA's) makes an empty tensor, fills it with bernoulli_, divides and
# multiplies: three calls into C++ and three graph nodes per training step.
# On the AutogradXLA key it becomes native_dropout (one call, one node; its
# derivative is native_dropout_backward), as eager does on CUDA, with eager's
# check and its identity cases (the input itself when p is 0, not training,
# or empty).
_autograd_kernels = torch.library.Library("aten", "IMPL", "AutogradXLA")


def _dropout_kernel(x, p, train):
  if not 0 <= p <= 1:
    raise RuntimeError(
        f"dropout probability has to be between 0 and 1, but got {p}")
  if p == 0 or not train or x.numel() == 0:
    return x
  if not x.is_floating_point():  # eager's composite, and its errors
    noise = torch.empty_like(x).bernoulli_(1 - p)
    noise.div_(1 - p)
    return x * noise
  return torch.ops.aten.native_dropout(x, p, train)[0]


_autograd_kernels.impl("dropout", _dropout_kernel)
