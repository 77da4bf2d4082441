"""Random numbers generated on the device: the seeds, the bits, and the
continuous draws (uniform_, normal_, exponential_, log_normal_, cauchy_,
geometric_). Discrete draws built on them (bernoulli, random_, multinomial,
dropout, randperm, the *_like factories) are in random_sampling.py.

High level design
-----------------
Every random op draws a fresh 63-bit seed from PyTorch's CPU generator (the
`generator` argument, else the default one), so `torch.manual_seed(s)` makes
'xla' randomness reproducible. The seed enters the graph as a scalar
*parameter* (not a literal): a new seed changes no IR, so steps with dropout
hit the compile cache, and nothing is transferred while tracing (the seed is
sent with the other parameters when the graph runs). On the device the seed
becomes the u64[2] state [seed, STREAM] of `rng_bit_generator` (THREE_FRY,
the same algorithm on every backend), whose bits are mapped to values:

  uniform [0, 1)  the mantissa trick: random mantissa bits under the
                  exponent of 1.0 give a float in [1, 2); subtract 1. Only
                  as many bits as the target dtype's mantissa are used, so
                  the value is exact in bf16/f16 too (computed in f32).
  normal          Box-Muller on pairs of uniforms (both the cos and the sin
                  branch are used).
  others          transforms of those: exp(normal) (log-normal), the
                  inverse CDF of the uniform (exponential, Cauchy,
                  geometric).
  integers        64 random bits modulo the range (bias <= range / 2^64).
  permutations    the indices sorted by random 32-bit keys (one stable
                  IR sort: O(n) memory).

User values (bounds, p, mean, std, lambda, median, sigma) are scalar
parameters too, so changing them does not recompile.
"""

import math

import torch

from torch_xla import _XLAC, _ir
from torch_xla._dtypes import scalar_type_name
from torch_xla._ops._common import code_of, literal, scalar
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import commit, xt_of

# Second word of the generator state; any constant works (the seed varies).
_STREAM = 0x5851F42D4C957F2D
_MANTISSA_BITS = {_ir.F64: 52, _ir.F32: 23, _ir.BF16: 7, _ir.F16: 10}
# Eager's `digits` per float dtype: random_() without bounds draws from
# [0, 2^digits].
_DIGITS = {_ir.F64: 53, _ir.F32: 24, _ir.BF16: 8, _ir.F16: 11}
_INT_RANGE = {
    _ir.S64: (-(1 << 63), (1 << 63) - 1),
    _ir.S32: (-(1 << 31), (1 << 31) - 1),
    _ir.S16: (-(1 << 15), (1 << 15) - 1),
    _ir.S8: (-(1 << 7), (1 << 7) - 1),
    _ir.U8: (0, 255),
    _ir.U32: (0, (1 << 32) - 1),
    _ir.U64: (0, (1 << 64) - 1),
    _ir.PRED: (0, 1),
}
_TYPE_NAMES = {
    _ir.S64: "int64_t", _ir.S32: "int", _ir.S16: "short",
    _ir.S8: "signed char", _ir.U8: "unsigned char", _ir.PRED: "bool",
    _ir.F32: "float", _ir.F64: "double", _ir.BF16: "c10::BFloat16",
    _ir.F16: "c10::Half"
}
# The C++ type names eager's cauchy_ message prints for non-float dtypes.
_CXX_TYPE_NAMES = {
    _ir.S64: "long int", _ir.S32: "int", _ir.S16: "short int",
    _ir.S8: "signed char", _ir.U8: "unsigned char", _ir.PRED: "bool",
    _ir.U32: "unsigned int", _ir.U64: "long unsigned int"
}
# Dtypes eager's geometric_ accepts (no bool, no wide unsigned ints).
_GEOMETRIC_CODES = _ir.FLOAT_CODES | {_ir.S64, _ir.S32, _ir.S16, _ir.S8,
                                      _ir.U8}

_seed_buffer = torch.empty((), dtype=torch.int64)

# Set while a loop body is traced (torch_xla/experimental/_staging.py): a
# function device -> seed handle that derives a seed per iteration in the
# graph, so each iteration draws different numbers from one compiled body.
seed_source = None


def draw_seed(generator=None) -> int:
  """A fresh seed from the CPU generator (PyTorch's default one unless a
  generator is given)."""
  if generator is not None and generator.device.type != "cpu":
    raise RuntimeError(
        f"random ops on 'xla' take a CPU torch.Generator (seeds come from "
        f"it), got a generator on {generator.device}")
  _seed_buffer.random_(generator=generator)
  return int(_seed_buffer)


def random_bits(shape, code, device, generator=None):
  """A handle of random u32 or u64 `code` bits of `shape`."""
  if seed_source is not None:
    seed = seed_source(device)
  else:
    # Not _common.scalar: that cache is for values that repeat; every seed
    # is new. It is still a parameter, never a literal.
    seed = _XLAC._tensor_scalar(draw_seed(generator), _ir.U64, device)
  state = _ir.concatenate(
      [_ir.reshape(seed, [1]), literal(_STREAM, _ir.U64, [1], device)], 0)
  _, bits = _ir._op_multi(_ir.K["rng_bit_generator"], [state], {
      "dtype": _ir.DT[code],
      "dims": list(shape),
      "algorithm": "THREE_FRY"
  })
  return bits


def _compute_code(code):
  """Floats are generated in f64 for f64 tensors, else in f32."""
  return _ir.F64 if code == _ir.F64 else _ir.F32


def uniform01(shape, target, device, generator=None):
  """A handle in [0, 1) of `shape`, of element type _compute_code(target),
  whose values are exact in the float type `target`."""
  if target == _ir.F64:
    bits_code, one_bits, width, mantissa = _ir.U64, 0x3FF0000000000000, 64, 52
  else:
    bits_code, one_bits, width, mantissa = _ir.U32, 0x3F800000, 32, 23
  keep = _MANTISSA_BITS.get(target, mantissa)
  bits = random_bits(shape, bits_code, device, generator)
  bits = _ir.binary("shift_right_logical", bits,
                    literal(width - keep, bits_code, shape, device))
  if keep != mantissa:
    bits = _ir.binary("shift_left", bits,
                      literal(mantissa - keep, bits_code, shape, device))
  bits = _ir.binary("or", bits, literal(one_bits, bits_code, shape, device))
  code = _compute_code(target)
  value = _ir._op(_ir.K["bitcast_convert"], [bits], {"dtype": _ir.DT[code]})
  return _ir.binary("subtract", value, literal(1, code, shape, device))


def _normal01(shape, target, device, generator=None):
  """Standard normal values (Box-Muller) in _compute_code(target), from
  uniforms at the compute type's full resolution."""
  code = _compute_code(target)
  n = 1
  for d in shape:
    n *= d
  half = (n + 1) // 2
  u = uniform01([2, half], code, device, generator)
  u1 = _ir.reshape(_ir.slice_(u, [0, 0], [1, half]), [half])
  u2 = _ir.reshape(_ir.slice_(u, [1, 0], [2, half]), [half])

  def lit(v):
    return literal(v, code, [half], device)

  # 1 - u1 is in (0, 1]: the log is finite.
  radius = _ir.unary(
      "sqrt",
      _ir.binary("multiply", lit(-2.0),
                 _ir.unary("log", _ir.binary("subtract", lit(1.0), u1))))
  theta = _ir.binary("multiply", lit(2 * math.pi), u2)
  z = _ir.concatenate([
      _ir.binary("multiply", radius, _ir.unary("cosine", theta)),
      _ir.binary("multiply", radius, _ir.unary("sine", theta))
  ], 0)
  if 2 * half != n:
    z = _ir.slice_(z, [0], [n])
  return _ir.reshape(z, list(shape))


def _fmt(value):
  """A number as eager's C++ messages print it: a double through an
  ostream, 6 significant digits (2.0 -> 2, -1234567.5 -> -1.23457e+06)."""
  return "%g" % value


def _float_code(name, x):
  code = code_of(x.dtype)
  if code not in _ir.FLOAT_CODES:
    raise NotImplementedError(
        f"\"{name}\" not implemented for '{_dtype_name(x.dtype)}'")
  return code


def _dtype_name(dtype):
  return {torch.int64: "Long", torch.int32: "Int", torch.int16: "Short",
          torch.int8: "Char", torch.uint8: "Byte", torch.bool: "Bool",
          torch.uint32: "UInt32", torch.uint64: "UInt64"}.get(
              dtype, str(dtype))


def _param(value, code, shape, device):
  """A user value as a scalar parameter broadcast to `shape`."""
  return _ir.broadcast_to(scalar(value, code, device), list(shape))


def _empty_result(x):
  return x.numel() == 0


def check_values(t, bad_of, message):
  """Eager's RuntimeError `message` when some element of the 'xla' tensor
  `t` is invalid (a negative std, a probability outside [0, 1]): a
  device-side check (torch_xla/_device_checks.py) raising at the next sync
  or read, as eager CUDA's asserts do; eager CPU checks at once, but the
  values are only known on the device. bad_of(handle) -> pred handle,
  true where an element (or a row) is invalid. Not made in a traced
  body (it never runs by itself) or for an empty tensor."""
  from torch_xla import _device_checks
  v = xt_of(t)
  if t.numel() == 0 or v.reads_placeholder:
    return
  bad = bad_of(v)
  if bad.dims:
    bad = _ir.reduce(bad, list(range(len(bad.dims))), "or")
  _device_checks.add(bad, message, error=RuntimeError)


def not_at_least(v, low):
  """Pred handle: where `v` is not >= low (NaN included)."""
  return _ir.unary("not", _ir.compare(
      v, literal(low, v.dtype, v.dims, v.device), "GE"))


_NORMAL_STD = "normal expects all elements of std >= 0.0"


def _checked_normal(func):
  """normal(mean, std) with a tensor std: eager's check that every std is
  >= 0, then the op's decomposition (mean + std * a standard normal)."""
  from torch._decomp import decomposition_table
  decomposition = decomposition_table[func]

  def rule(mean, std, *args, **kwargs):
    if isinstance(std, torch.Tensor) and std.device.type == "xla":
      check_values(std, lambda v: not_at_least(v, 0), _NORMAL_STD)
    return decomposition(mean, std, *args, **kwargs)

  rule.__name__ = f"normal_{func._overloadname}"
  return rule


for _func in (aten.normal.Tensor_Tensor, aten.normal.float_Tensor):
  op(_func)(_checked_normal(_func))


def _check_uniform_bounds(dtype, code, from_, to):
  """Eager's checks of uniform_'s range, in its order: both ends finite
  numbers of the dtype (NaN fails), from <= to, and to - from finite."""
  info = torch.finfo(dtype)
  for name, value in (("from", from_), ("to", to)):
    if not info.min <= value <= info.max:
      raise RuntimeError(f"{name} is out of bounds for {_TYPE_NAMES[code]}")
  if from_ > to:
    raise RuntimeError(f"uniform_ expects to return a [from, to) range, but "
                       f"found from={_fmt(from_)} > to={_fmt(to)}")
  if to - from_ > info.max:
    raise RuntimeError(
        f"uniform_ expects to-from <= std::numeric_limits<"
        f"{scalar_type_name(dtype)}>::max(), but found to={_fmt(to)} and "
        f"from={_fmt(from_)} which result in to-from to exceed the limit")


@op(aten.uniform_.default)
def uniform_(x, from_=0.0, to=1.0, generator=None):
  code = _float_code("check_uniform_bounds", x)
  _check_uniform_bounds(x.dtype, code, from_, to)
  if _empty_result(x):
    return x
  shape, device = list(x.shape), x.device.index
  u = uniform01(shape, code, device, generator)
  cc = u.dtype
  if from_ != 0.0 or to != 1.0:
    u = _ir.binary(
        "add",
        _ir.binary("multiply", u, _param(to - from_, cc, shape, device)),
        _param(from_, cc, shape, device))
  return commit(x, _ir.convert(u, code))


@op(aten.normal_.default)
def normal_(x, mean=0.0, std=1.0, generator=None):
  code = _float_code("normal_kernel_cpu", x)
  if not std >= 0:  # NaN too
    raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")
  if _empty_result(x):
    return x
  shape, device = list(x.shape), x.device.index
  z = _normal01(shape, code, device, generator)
  cc = z.dtype
  if std != 1.0:
    z = _ir.binary("multiply", z, _param(std, cc, shape, device))
  if mean != 0.0:
    z = _ir.binary("add", z, _param(mean, cc, shape, device))
  return commit(x, _ir.convert(z, code))


@op(aten.exponential_.default)
def exponential_(x, lambd=1.0, generator=None):
  if not x.dtype.is_floating_point:
    raise RuntimeError(
        f"Exponential distribution is a continuous probability distribution. "
        f"dtype must be a floating point but you specified "
        f"{_dtype_name(x.dtype)}")
  code = _float_code("exponential_cpu", x)
  if not lambd > 0:
    raise RuntimeError(
        f"exponential_ expects lambda > 0.0, but found lambda={_fmt(lambd)}")
  if _empty_result(x):
    return x
  shape, device = list(x.shape), x.device.index
  u = uniform01(shape, _compute_code(code), device, generator)
  cc = u.dtype
  # -log(1 - u) / lambda, finite because 1 - u is in (0, 1].
  value = _ir.unary("negate", _ir.unary("log_plus_one", _ir.unary("negate",
                                                                  u)))
  value = _ir.binary("divide", value, _param(lambd, cc, shape, device))
  return commit(x, _ir.convert(value, code))


@op(aten.log_normal_.default)
def log_normal_(x, mean=1.0, std=2.0, generator=None):
  """exp(mean + std * z) with z standard normal."""
  # Eager checks std first, and skips the dtype check for empty tensors.
  if not std > 0:
    raise RuntimeError(
        f"log_normal_ expects std > 0.0, but found std={_fmt(std)}")
  if _empty_result(x):
    return x
  code = _float_code("log_normal_cpu", x)
  shape, device = list(x.shape), x.device.index
  z = _normal01(shape, code, device, generator)
  cc = z.dtype
  # Always parameters (even for 0 and 1): new values reuse the graph.
  z = _ir.binary("add",
                 _ir.binary("multiply", z, _param(float(std), cc, shape,
                                                  device)),
                 _param(float(mean), cc, shape, device))
  return commit(x, _ir.convert(_ir.unary("exponential", z), code))


def _open_uniform(shape, code, device, generator):
  """Uniform values in (0, 1) at the full resolution of `code`: u + half
  a step, so they are symmetric about 0.5 and never 0."""
  u = uniform01(shape, code, device, generator)
  half_step = 2.0**-(_MANTISSA_BITS[code] + 1)
  return _ir.binary("add", u, literal(half_step, code, shape, device))


@op(aten.cauchy_.default)
def cauchy_(x, median=0.0, sigma=1.0, generator=None):
  """median + sigma * tan(pi * (u - 1/2)) with u uniform in (0, 1)."""
  if not sigma > 0:
    raise RuntimeError(
        f"cauchy_ expects sigma > 0.0, but found sigma={_fmt(sigma)}")
  code = code_of(x.dtype)
  if code not in _ir.FLOAT_CODES:
    raise RuntimeError(
        f"Cauchy distribution is a continuous probability distribution. "
        f"dtype must be a floating point but you specified "
        f"{_CXX_TYPE_NAMES.get(code, str(x.dtype))}")
  if _empty_result(x):
    return x
  shape, device = list(x.shape), x.device.index
  cc = _compute_code(code)
  # u in (0, 1) keeps the angle inside (-pi/2, pi/2): no pole, no sign flip
  # from rounding pi/2 up.
  u = _open_uniform(shape, cc, device, generator)
  angle = _ir.binary(
      "multiply", _ir.binary("subtract", u, literal(0.5, cc, shape, device)),
      literal(math.pi, cc, shape, device))
  value = _ir.binary("multiply", _ir.unary("tan", angle),
                     _param(float(sigma), cc, shape, device))
  value = _ir.binary("add", value, _param(float(median), cc, shape, device))
  return commit(x, _ir.convert(value, code))


@op(aten.geometric_.default)
def geometric_(x, p, generator=None):
  """Trials up to the first success: floor(log(1 - u) / log(1 - p)) + 1
  with u uniform in [0, 1), in {1, 2, ...}; any numeric dtype but bool."""
  if not 0 < p < 1:
    raise RuntimeError(
        f"geometric_ expects p to be in (0, 1), but got p={_fmt(p)}")
  if _empty_result(x):
    return x
  code = code_of(x.dtype)
  if code not in _GEOMETRIC_CODES:
    raise NotImplementedError(
        f"\"geometric_cpu\" not implemented for '{_dtype_name(x.dtype)}'")
  shape, device = list(x.shape), x.device.index
  cc = _compute_code(code)
  u = uniform01(shape, cc, device, generator)
  # log(1 - u) is finite (1 - u is in (0, 1]) and above -64, so a
  # denominator of at least 64 times the smallest normal in magnitude
  # keeps the quotient finite for tiny p (log1p(-p) would round to 0).
  tiny = 2.0**-1016 if cc == _ir.F64 else 2.0**-120
  log_q = min(math.log1p(-float(p)), -tiny)
  ratio = _ir.binary("divide",
                     _ir.unary("log_plus_one", _ir.unary("negate", u)),
                     _param(log_q, cc, shape, device))
  # u = 0 gives a ratio of 0: the smallest value is 1.
  value = _ir.binary("add", _ir.unary("floor", ratio),
                     literal(1, cc, shape, device))
  return commit(x, _ir.convert(value, code))
