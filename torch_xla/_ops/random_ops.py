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
becomes the state of `rng_bit_generator` (THREE_FRY, the same algorithm on
every backend), whose bits are mapped to values by the op's C++ builder
(torch_xla/csrc/ops/random_ops.h states the mappings: the mantissa trick
for uniforms, Box-Muller for normals, inverse CDFs, integers modulo the
range, permutations by sorting random keys).

Each rule checks eager's arguments, draws the seed and makes one call into
C++ (_XLAC._random, _bernoulli, _random_integer, _dropout, _randperm,
_multinomial). User values (bounds, p, mean, std, lambda, median, sigma)
are scalar parameters too, so changing them does not recompile.
"""

import math

import torch

from torch_xla import _XLAC, _ir
from torch_xla._dtypes import scalar_type_name
from torch_xla._ops._common import check_same_device, code_of
from torch_xla._ops.reductions import acc_code
from torch_xla._ops.registry import aten, op

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


def seed(generator, device: int):
  """The seed of one random op: an int from the CPU generator (the binding
  makes it a fresh u64 parameter), or, inside a traced loop body, the
  handle seed_source derives in the graph."""
  if seed_source is not None:
    return seed_source(device)
  return draw_seed(generator)


def _compute_code(code):
  """Floats are generated in f64 for f64 tensors, else in f32."""
  return _ir.F64 if code == _ir.F64 else _ir.F32


def _fmt(value):
  """A number as eager's C++ messages print it: a double through an
  ostream, 6 significant digits (2.0 -> 2, -1234567.5 -> -1.23457e+06)."""
  return "%g" % value


def _float_code(name, x):
  """The code of the float dtype of x (a tensor or a dtype); eager's
  NotImplementedError from the kernel `name` for another dtype."""
  dtype = x if isinstance(x, torch.dtype) else x.dtype
  code = code_of(dtype)
  if code not in _ir.FLOAT_CODES:
    raise NotImplementedError(
        f"\"{name}\" not implemented for '{_dtype_name(dtype)}'")
  return code


def _dtype_name(dtype):
  return {torch.int64: "Long", torch.int32: "Int", torch.int16: "Short",
          torch.int8: "Char", torch.uint8: "Byte", torch.bool: "Bool",
          torch.uint32: "UInt32", torch.uint64: "UInt64"}.get(
              dtype, str(dtype))


def _empty_result(x):
  return x.numel() == 0


def _normal_dtype(t):
  """normal's result dtype: that of its tensor `t` (mean's, else std's),
  a float dtype (eager's NotImplementedError from its kernel otherwise)."""
  _float_code("normal_kernel_cpu", t)
  return t.dtype


def _check_std_tensor(std):
  if std.dtype.is_complex:
    raise RuntimeError("normal expects standard deviation to be non-complex")


def _check_std_number(std):
  if not std >= 0:  # NaN too
    raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")


def _normal(mean, std, dtype, mul_dtype, generator):
  """One call into C++ (ops/random_ops.h NormalOf): a normal draw times std
  in mul_dtype, plus mean in dtype's opmath, each step rounded to dtype as
  eager's normal_out; a tensor std's values are checked on the device."""
  device = (mean if isinstance(mean, torch.Tensor) else std).device.index
  return _XLAC._normal(seed(generator, device), mean, std, code_of(dtype),
                       acc_code(code_of(mul_dtype)), acc_code(code_of(dtype)))


@op(aten.normal.Tensor_Tensor)
def normal_tensor_tensor(mean, std, generator=None):
  check_same_device("normal", mean, std)
  _check_std_tensor(std)
  dtype = _normal_dtype(mean)
  like = torch.empty((1,) if mean.dim() or std.dim() else (), dtype=dtype)
  return _normal(mean, std, dtype, torch.result_type(like, std), generator)


@op(aten.normal.float_Tensor)
def normal_float_tensor(mean, std, generator=None):
  _check_std_tensor(std)
  dtype = _normal_dtype(std)
  return _normal(float(mean), std, dtype, dtype, generator)


@op(aten.normal.Tensor_float)
def normal_tensor_float(mean, std=1.0, generator=None):
  _check_std_number(std)
  dtype = _normal_dtype(mean)
  return _normal(mean, None if std == 1.0 else float(std), dtype, dtype,
                 generator)


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


def _draw(kind, x, a, b, generator):
  """x filled in place by the continuous draw `kind` (ops/random_ops.h
  Draw): one call into C++."""
  return _XLAC._random(kind, seed(generator, x.device.index), a, b, x)


@op(aten.uniform_.default)
def uniform_(x, from_=0.0, to=1.0, generator=None):
  code = _float_code("check_uniform_bounds", x)
  _check_uniform_bounds(x.dtype, code, from_, to)
  if _empty_result(x):
    return x
  if from_ == 0.0 and to == 1.0:
    return _draw("uniform", x, None, None, generator)
  return _draw("uniform", x, to - from_, from_, generator)


@op(aten.normal_.default)
def normal_(x, mean=0.0, std=1.0, generator=None):
  _float_code("normal_kernel_cpu", x)
  _check_std_number(std)
  if _empty_result(x):
    return x
  return _draw("normal", x, None if std == 1.0 else std,
               None if mean == 0.0 else mean, generator)


@op(aten.exponential_.default)
def exponential_(x, lambd=1.0, generator=None):
  if not x.dtype.is_floating_point:
    raise RuntimeError(
        f"Exponential distribution is a continuous probability distribution. "
        f"dtype must be a floating point but you specified "
        f"{_dtype_name(x.dtype)}")
  _float_code("exponential_cpu", x)
  if not lambd > 0:
    raise RuntimeError(
        f"exponential_ expects lambda > 0.0, but found lambda={_fmt(lambd)}")
  if _empty_result(x):
    return x
  return _draw("exponential", x, lambd, None, generator)


@op(aten.log_normal_.default)
def log_normal_(x, mean=1.0, std=2.0, generator=None):
  """exp(mean + std * z) with z standard normal."""
  # Eager checks std first, and skips the dtype check for empty tensors.
  if not std > 0:
    raise RuntimeError(
        f"log_normal_ expects std > 0.0, but found std={_fmt(std)}")
  if _empty_result(x):
    return x
  _float_code("log_normal_cpu", x)
  # Always parameters (even for 0 and 1): new values reuse the graph.
  return _draw("log_normal", x, float(std), float(mean), generator)


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
  return _draw("cauchy", x, float(sigma), float(median), generator)


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
  # log(1 - u) is finite (1 - u is in (0, 1]) and above -64, so a
  # denominator of at least 64 times the smallest normal in magnitude
  # keeps the quotient finite for tiny p (log1p(-p) would round to 0).
  tiny = 2.0**-1016 if _compute_code(code) == _ir.F64 else 2.0**-120
  log_q = min(math.log1p(-float(p)), -tiny)
  return _draw("geometric", x, log_q, None, generator)
