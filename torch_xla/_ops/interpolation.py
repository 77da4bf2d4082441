"""Upsampling (F.interpolate) and its backward: nearest, nearest-exact,
linear, bilinear, bicubic and trilinear, in 1-d, 2-d and 3-d.

The forward rules live in decomposition_checks.py (eager's argument checks
first); for float inputs they call `forward` here, other dtypes run
PyTorch's decomposition. The backward ops (which had neither a rule nor a
decomposition, and fell back to the CPU) are the rules below.

Design: these interpolations are separable. Along spatial dim d (input
size n, output size m), out = A_d x, with A_d an [m, n] matrix that depends
only on the sizes, the scale and align_corners. The forward applies A_d
along each spatial dim and the backward is grad_input = A_d^T grad: one
dot_general per dim, f32 accumulation at HIGHEST precision, bf16/f16
computed in f32 and converted back as eager's CPU kernels do (f64 stays
f64). Forward and backward share the matrices, so they agree with each
other and with eager, also where a dim keeps its size under a scale factor
(eager's linear and nearest kernels copy it; the decomposition did not).

A_d is built from iota arithmetic, so it is a constant of the sizes that
XLA folds at compile time (the IR has splat constants only; no host
upload, no parameter). Row o of A_d holds the taps eager's kernels give
output index o, each a (source index, weight) pair; taps that land on the
same index add up. The source arithmetic is eager's (aten/native/UpSample.h),
in f32 (f64 for f64 linear/bicubic) like eager's opmath:
- nearest: index o when m == n, o // 2 when m == 2n, else
  min(floor(o * s), n - 1) with s = 1/scale (the scale when given) or n/m,
  rounded to f32;
- nearest-exact: min(floor((o + 0.5) * s), n - 1);
- linear (the bilinear and trilinear dims too): identity when m == n; else
  the source x = r * o (align_corners, r = (n-1)/(m-1)) or
  max(r * (o + 0.5) - 0.5, 0) (r = s), index i0 = min(floor(x), n-1), i1 =
  i0 + 1 clamped, weights 1 - l, l with l = clamp(x - i0, 0, 1);
- bicubic: the unclamped source x, i = min(floor(x), n-1), t = clamp(x - i,
  0, 1), four taps i-1 .. i+2 clamped into [0, n-1] with Keys' cubic
  convolution weights (A = -0.75); the backward (only) copies when both
  dims keep their size.
Being continuous in x, the linear and cubic weights tolerate the last-bit
differences of fused arithmetic; nearest's floor(o * s) is one f32 multiply,
exact on every backend.

Cost: the matrices are m x n per dim (a 1024 -> 2048 resize: 8 MiB of f32
folded constant), the products O(numel(grad) * n) per dim: the dense form
trades flops for no gathers or scatters, which suits accelerators for the
image sizes interpolation sees.
"""

import math
import struct

import torch

from torch_xla import _ir
from torch_xla._ops._common import apply_matrix, check_same_device, literal
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import wrap, xt_of

_CUBIC_A = -0.75


def _f32(value):
  """`value` rounded to f32 (eager's float casts)."""
  return struct.unpack("f", struct.pack("f", value))[0]


def _scale(n_in, n_out, scale, code):
  """Eager's compute_scales_value: 1/scale when given, else n_in/n_out."""
  value = 1.0 / scale if scale is not None and scale > 0 else n_in / n_out
  return _f32(value) if code == _ir.F32 else value


def _area_scale(n_in, n_out, align_corners, scale, code):
  """Eager's area_pixel_compute_scale."""
  if align_corners:
    value = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return _f32(value) if code == _ir.F32 else value
  return _scale(n_in, n_out, scale, code)


class _Dim:
  """Builders of one dim's taps: handles of shape [n_out]."""

  def __init__(self, n_in, n_out, code, device):
    self.n_in, self.n_out, self.code, self.device = n_in, n_out, code, device

  def lit(self, value, code=None):
    return literal(value, self.code if code is None else code, [self.n_out],
                   self.device)

  def positions(self, code=None):
    return _ir.iota(self.code if code is None else code, [self.n_out], 0,
                    self.device)

  def floor_index(self, x):
    """min(floor(x), n_in - 1) as s64."""
    index = _ir.convert(_ir.unary("floor", x), _ir.S64)
    return _ir.binary("minimum", index, self.lit(self.n_in - 1, _ir.S64))

  def clamp_index(self, index):
    return _ir.binary(
        "maximum", _ir.binary("minimum", index,
                              self.lit(self.n_in - 1, _ir.S64)),
        self.lit(0, _ir.S64))

  def source(self, ratio, align_corners, cubic):
    """Eager's area_pixel_compute_source_index for every output index."""
    o = self.positions()
    if align_corners:
      return _ir.binary("multiply", self.lit(ratio), o)
    x = _ir.binary(
        "subtract",
        _ir.binary("multiply", self.lit(ratio),
                   _ir.binary("add", o, self.lit(0.5))), self.lit(0.5))
    return x if cubic else _ir.binary("maximum", x, self.lit(0))


def _nearest_taps(dim, scale, exact):
  n_in, n_out = dim.n_in, dim.n_out
  if not exact and n_out == n_in:
    return [(dim.positions(_ir.S64), None)]
  if not exact and n_out == 2 * n_in:
    return [(_ir.binary("divide", dim.positions(_ir.S64),
                        dim.lit(2, _ir.S64)), None)]
  s = _scale(n_in, n_out, scale, _ir.F32)  # float in eager, for every dtype
  o = dim.positions(_ir.F32)
  if exact:
    o = _ir.binary("add", o, dim.lit(0.5, _ir.F32))
  return [(dim.floor_index(_ir.binary("multiply", o, dim.lit(s, _ir.F32))),
           None)]


def _linear_taps(dim, align_corners, scale):
  n_in = dim.n_in
  if dim.n_out == n_in:
    return [(dim.positions(_ir.S64), None)]
  ratio = _area_scale(n_in, dim.n_out, align_corners, scale, dim.code)
  x = dim.source(ratio, align_corners, cubic=False)
  i0 = dim.floor_index(x)
  l1 = _ir.binary("subtract", x, _ir.convert(i0, dim.code))
  l1 = _ir.binary("minimum", _ir.binary("maximum", l1, dim.lit(0)),
                  dim.lit(1))
  step = _ir.convert(_ir.compare(i0, dim.lit(n_in - 1, _ir.S64), "LT"),
                     _ir.S64)
  i1 = _ir.binary("add", i0, step)
  l0 = _ir.binary("subtract", dim.lit(1), l1)
  return [(i0, l0), (i1, l1)]


def _cubic_weights(dim, t):
  """Keys' cubic convolution weights of the taps i-1, i, i+1, i+2 for the
  fraction t (eager's get_cubic_upsample_coefficients)."""
  a = _CUBIC_A

  def mul(p, q):
    return _ir.binary("multiply", p, q)

  def add(p, q):
    return _ir.binary("add", p, q)

  def c(value):
    return dim.lit(value)

  def near(x):  # ((A + 2) x - (A + 3)) x x + 1, for |x| <= 1
    inner = _ir.binary("subtract", mul(c(a + 2), x), c(a + 3))
    return add(mul(mul(inner, x), x), c(1))

  def far(x):  # ((A x - 5A) x + 8A) x - 4A, for 1 < |x| < 2
    inner = _ir.binary("subtract", mul(c(a), x), c(5 * a))
    inner = add(mul(inner, x), c(8 * a))
    return _ir.binary("subtract", mul(inner, x), c(4 * a))

  u = _ir.binary("subtract", c(1), t)
  return [far(add(t, c(1))), near(t), near(u), far(add(u, c(1)))]


def _cubic_taps(dim, align_corners, scale):
  ratio = _area_scale(dim.n_in, dim.n_out, align_corners, scale, dim.code)
  x = dim.source(ratio, align_corners, cubic=True)
  i = dim.floor_index(x)
  t = _ir.binary("subtract", x, _ir.convert(i, dim.code))
  t = _ir.binary("minimum", _ir.binary("maximum", t, dim.lit(0)),
                 dim.lit(1))
  taps = []
  for k, weight in enumerate(_cubic_weights(dim, t)):
    index = dim.clamp_index(_ir.binary("add", i, dim.lit(k - 1, _ir.S64)))
    taps.append((index, weight))
  return taps


def _matrix(dim, taps):
  """The [n_out, n_in] matrix whose row o sums its taps' weights at their
  indices."""
  shape = [dim.n_out, dim.n_in]
  columns = _ir.iota(_ir.S64, shape, 1, dim.device)
  zero = literal(0, dim.code, shape, dim.device)
  one = literal(1, dim.code, shape, dim.device)
  total = None
  for index, weight in taps:
    hit = _ir.compare(_ir.broadcast_in_dim(index, shape, [0]), columns, "EQ")
    value = one if weight is None else _ir.broadcast_in_dim(weight, shape,
                                                            [0])
    term = _ir.select(hit, value, zero)
    total = term if total is None else _ir.binary("add", total, term)
  return total


def apply_transposed(g, matrices):
  """grad_input from grad `g`: A_d^T applied along each of the last
  len(matrices) dims (A_d of shape [n_out, n_in])."""
  lead = len(g.dims) - len(matrices)
  for axis, m in enumerate(matrices):
    dim = lead + axis
    attrs = {
        "lhs_contract": [dim],
        "rhs_contract": [0],
        "lhs_batch": [],
        "rhs_batch": [],
    }
    if g.dtype in (_ir.F32, _ir.F64):
      attrs["precision"] = "HIGHEST"
    g = _ir._op(_ir.K["dot_general"], [g, m], attrs)
    rank = len(g.dims)  # the new dim lands last: move it back
    g = _ir.transpose(g, list(range(dim)) + [rank - 1] +
                      list(range(dim, rank - 1)))
  return g


def _check_sizes(grad, output_size, input_size, rank):
  """Eager's checks of the sizes (texts too)."""
  output_size, input_size = list(output_size), list(input_size)
  if len(output_size) != rank:
    raise RuntimeError(f"It is expected output_size equals to {rank}, but "
                       f"got size {len(output_size)}")
  if len(input_size) != rank + 2:
    raise RuntimeError(f"It is expected input_size equals to {rank + 2}, "
                       f"but got size {len(input_size)}")
  if grad.dim() != rank + 2:
    raise RuntimeError(f"Expected grad_output to be a tensor of dimension "
                       f"{rank + 2} but got: dimension {grad.dim()}")
  full = input_size[:2] + output_size
  for i, (want, got) in enumerate(zip(full, grad.shape)):
    if want != got:
      raise RuntimeError(
          f"Expected a tensor of dimension {rank + 2} and tensor.size[{i}] "
          f"== {want} but got: dimension {grad.dim()} and tensor.size[{i}] "
          f"= {got}")
  return output_size, input_size


def _backward(name, kind, grad, output_size, input_size, scales,
              align_corners=False):
  rank = len(scales)
  check_same_device(name, grad)
  output_size, input_size = _check_sizes(grad, output_size, input_size, rank)
  g = xt_of(grad)
  code = g.dtype
  if code not in _ir.FLOAT_CODES:
    raise NotImplementedError(f"\"{name}\" not implemented for "
                              f"'{grad.dtype}'")
  device = grad.device.index
  if 0 in input_size or 0 in output_size:
    return wrap(literal(0, code, input_size, device))
  acc = _ir.F64 if code == _ir.F64 else _ir.F32
  dims = [_Dim(n, m, acc, device) for n, m in zip(input_size[2:],
                                                  output_size)]
  if kind == "cubic" and input_size[2:] == output_size:
    return wrap(g)  # eager copies when no size changes
  taps = {
      "nearest": lambda d, s: _nearest_taps(d, s, exact=False),
      "nearest_exact": lambda d, s: _nearest_taps(d, s, exact=True),
      "linear": lambda d, s: _linear_taps(d, align_corners, s),
      "cubic": lambda d, s: _cubic_taps(d, align_corners, s),
  }[kind]
  matrices = [_matrix(d, taps(d, s)) for d, s in zip(dims, scales)]
  value = apply_transposed(_ir.convert(g, acc), matrices)
  return wrap(_ir.convert(value, code))


@op(aten.upsample_nearest1d_backward.default)
def upsample_nearest1d_backward(grad, output_size, input_size, scales=None):
  return _backward("upsample_nearest1d_backward", "nearest", grad,
                   output_size, input_size, [scales])


@op(aten.upsample_nearest2d_backward.default)
def upsample_nearest2d_backward(grad, output_size, input_size, scales_h=None,
                                scales_w=None):
  return _backward("upsample_nearest2d_backward", "nearest", grad,
                   output_size, input_size, [scales_h, scales_w])


@op(aten.upsample_nearest3d_backward.default)
def upsample_nearest3d_backward(grad, output_size, input_size, scales_d=None,
                                scales_h=None, scales_w=None):
  return _backward("upsample_nearest3d_backward", "nearest", grad,
                   output_size, input_size, [scales_d, scales_h, scales_w])


@op(aten._upsample_nearest_exact1d_backward.default)
def upsample_nearest_exact1d_backward(grad, output_size, input_size,
                                      scales=None):
  return _backward("_upsample_nearest_exact1d_backward", "nearest_exact",
                   grad, output_size, input_size, [scales])


@op(aten._upsample_nearest_exact2d_backward.default)
def upsample_nearest_exact2d_backward(grad, output_size, input_size,
                                      scales_h=None, scales_w=None):
  return _backward("_upsample_nearest_exact2d_backward", "nearest_exact",
                   grad, output_size, input_size, [scales_h, scales_w])


@op(aten._upsample_nearest_exact3d_backward.default)
def upsample_nearest_exact3d_backward(grad, output_size, input_size,
                                      scales_d=None, scales_h=None,
                                      scales_w=None):
  return _backward("_upsample_nearest_exact3d_backward", "nearest_exact",
                   grad, output_size, input_size,
                   [scales_d, scales_h, scales_w])


@op(aten.upsample_linear1d_backward.default)
def upsample_linear1d_backward(grad, output_size, input_size, align_corners,
                               scales=None):
  return _backward("upsample_linear1d_backward", "linear", grad, output_size,
                   input_size, [scales], align_corners)


@op(aten.upsample_bilinear2d_backward.default)
def upsample_bilinear2d_backward(grad, output_size, input_size, align_corners,
                                 scales_h=None, scales_w=None):
  return _backward("upsample_bilinear2d_backward", "linear", grad,
                   output_size, input_size, [scales_h, scales_w],
                   align_corners)


@op(aten.upsample_trilinear3d_backward.default)
def upsample_trilinear3d_backward(grad, output_size, input_size,
                                  align_corners, scales_d=None, scales_h=None,
                                  scales_w=None):
  return _backward("upsample_trilinear3d_backward", "linear", grad,
                   output_size, input_size, [scales_d, scales_h, scales_w],
                   align_corners)


@op(aten.upsample_bicubic2d_backward.default)
def upsample_bicubic2d_backward(grad, output_size, input_size, align_corners,
                                scales_h=None, scales_w=None):
  return _backward("upsample_bicubic2d_backward", "cubic", grad, output_size,
                   input_size, [scales_h, scales_w], align_corners)


# The forward ------------------------------------------------------------------

_KINDS = {
    "upsample_nearest": "nearest",
    "_upsample_nearest_exact": "nearest_exact",
    "upsample_linear": "linear",
    "upsample_bilinear": "linear",
    "upsample_trilinear": "linear",
    "upsample_bicubic": "cubic",
}

_SCALE_NAMES = {
    1: ["scales"],
    2: ["scales_h", "scales_w"],
    3: ["scales_d", "scales_h", "scales_w"]
}


def forward(schema_name, a):
  """The upsampling op `schema_name` ("aten::upsample_bilinear2d") on its
  arguments by schema name (checked): A_d applied along each spatial dim,
  the same matrices as the backward, so values and gradients agree with
  eager's kernels (also where a dim keeps its size under a scale factor,
  which eager copies). None where the decomposition should run instead
  (non-float input, unusual argument forms)."""
  name = schema_name.split("::")[-1]
  rank = int(name[-2])
  kind = _KINDS[name[:-2]]
  x = a["input" if "input" in a else "self"]
  if x.dtype not in (torch.float32, torch.float64, torch.bfloat16,
                     torch.float16) or x.dim() != rank + 2:
    return None
  spatial = list(x.shape[2:])
  if "scale_factors" in a:  # the .vec overload
    size, factors = a.get("output_size"), a.get("scale_factors")
    if (size is None) == (factors is None):
      return None
    if size is None:
      if len(factors) != rank:
        return None
      size = [int(math.floor(n * s)) for n, s in zip(spatial, factors)]
      scales = list(factors)
    else:
      scales = [None] * rank
  else:
    size = a["output_size"]
    scales = [a.get(k) for k in _SCALE_NAMES[rank]]
  size = list(size)
  if len(size) != rank or min(spatial + size) <= 0:
    return None
  check_same_device(name, x)
  v = xt_of(x)
  code = v.dtype
  device = x.device.index
  acc = _ir.F64 if code == _ir.F64 else _ir.F32
  matrices = []  # (unlike the backward, eager's cubic forward never copies)
  for n, m, s in zip(spatial, size, scales):
    dim = _Dim(n, m, acc, device)
    matrices.append(_matrix(dim, _taps_of(kind, dim, s,
                                          a.get("align_corners") or False)))
  value = _apply(_ir.convert(v, acc), matrices)
  return wrap(_ir.convert(value, code))


def _taps_of(kind, dim, scale, align_corners):
  if kind == "nearest":
    return _nearest_taps(dim, scale, exact=False)
  if kind == "nearest_exact":
    return _nearest_taps(dim, scale, exact=True)
  if kind == "linear":
    return _linear_taps(dim, align_corners, scale)
  return _cubic_taps(dim, align_corners, scale)


def _apply(v, matrices):
  """A_d (shape [n_out, n_in]) applied along each of the last
  len(matrices) dims of v."""
  lead = len(v.dims) - len(matrices)
  for axis, m in enumerate(matrices):
    v = apply_matrix(v, m, lead + axis)
  return v
