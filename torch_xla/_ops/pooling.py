"""2-d pooling: max (with indices), average, adaptive average and max; the
backwards.

Like convolution.py, windows are built by composition: the input is padded
(with -inf for max, 0 for average) and each kernel offset k is one strided
slice x_pad[..., k*d :: stride] of the output's shape; the pool is the
elementwise max or sum over those prod(kernel) slices. Max pooling keeps,
next to the running max, the flat index (h * W + w into the unpadded
input plane, as eager returns) of the offset that won: the first maximum,
or the last NaN, as eager's CPU kernel does. Its backward scatter-adds the
gradient to those indices; average pooling's backward pads the scaled
gradient back to each offset's positions (the transpose of the slice).
Average divisors come from pooling a 0/1 mask the same way.

Adaptive average pooling with equal windows (output divides input) is a
reshape and a sum; otherwise it multiplies by the [out, in] averaging
matrix of each spatial dim (two dots). Adaptive max pooling gathers each
window's rows and columns at their longest length (short windows repeat
their last element, which never changes the first maximum).

Cost: prod(kernel) slices and elementwise ops over the output; no extra
memory beyond a slice at a time.
"""

import math

from torch_xla import _dtypes, _ir
from torch_xla._ops._common import check_same_device, literal
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import wrap, xt_of


def _pair(value, name, default=None):
  if value is None or (isinstance(value, (list, tuple)) and not value):
    value = default
  value = list(value) if isinstance(value, (list, tuple)) else [value]
  if len(value) == 1:
    value = value * 2
  if len(value) != 2:
    raise RuntimeError(f"{name} must either be a single int, or a tuple of "
                       f"two ints")
  return value


def _output_size(size, k, s, p, d, ceil_mode):
  """Eager's pooling_output_shape."""
  numerator = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
  out = numerator // s + 1
  if ceil_mode and (out - 1) * s >= size + p:
    out -= 1
  return out


class _Geometry:
  """Window geometry of one pooling call (2 spatial dims)."""

  def __init__(self, name, x, kernel_size, stride, padding, dilation,
               ceil_mode):
    if x.dim() not in (3, 4) or any(s == 0 for s in x.shape[-3:]):
      raise RuntimeError(
          "non-empty 3D or 4D (batch mode) tensor expected for input")
    self.kernel = _pair(kernel_size, "kernel_size")
    self.stride = _pair(stride, "stride", self.kernel)
    self.padding = _pair(padding, "padding")
    self.dilation = _pair(dilation, "dilation")
    if any(k <= 0 for k in self.kernel):
      raise RuntimeError(f"{name}: kernel size should be greater than zero, "
                         f"but got {self.kernel}")
    if any(s <= 0 for s in self.stride):
      raise RuntimeError(f"{name}: stride should be greater than zero, but "
                         f"got {self.stride}")
    if any(d <= 0 for d in self.dilation):
      raise RuntimeError(f"{name}: dilation should be greater than zero, "
                         f"but got {self.dilation}")
    for k, p, d in zip(self.kernel, self.padding, self.dilation):
      if p < 0 or p > (d * (k - 1) + 1) // 2:
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got "
            f"pad={p}, kernel_size={k} and dilation={d}")
    self.input = list(x.shape[-2:])
    self.out = [
        _output_size(self.input[i], self.kernel[i], self.stride[i],
                     self.padding[i], self.dilation[i], ceil_mode)
        for i in range(2)
    ]
    if any(o <= 0 for o in self.out):
      raise RuntimeError(
          f"Given input size: ({'x'.join(map(str, x.shape[-3:]))}). "
          f"Calculated output size: ({x.shape[-3]}x{self.out[0]}x"
          f"{self.out[1]}). Output size is too small")
    # Padded extent the windows reach (ceil_mode may reach past padding).
    self.reach = [(self.out[i] - 1) * self.stride[i] +
                  self.dilation[i] * (self.kernel[i] - 1) + 1
                  for i in range(2)]
    self.pad_hi = [max(self.padding[i],
                       self.reach[i] - self.input[i] - self.padding[i])
                   for i in range(2)]

  def first_valid_index(self, device):
    """[OH, OW] flat index of each window's first in-bounds element."""
    firsts = []
    for axis in (0, 1):
      s, p, d = self.stride[axis], self.padding[axis], self.dilation[axis]

      def lit(v):
        return literal(v, _ir.S64, self.out, device)

      start = _ir.binary(
          "subtract",
          _ir.binary("multiply", _ir.iota(_ir.S64, self.out, axis, device),
                     lit(s)), lit(p))
      # start + ceil(max(-start, 0) / d) * d
      neg = _ir.binary("maximum", _ir.unary("negate", start), lit(0))
      steps = _ir.binary("divide", _ir.binary("add", neg, lit(d - 1)), lit(d))
      firsts.append(_ir.binary("add", start,
                               _ir.binary("multiply", steps, lit(d))))
    return _ir.binary(
        "add",
        _ir.binary("multiply", firsts[0], literal(self.input[1], _ir.S64,
                                                  self.out, device)),
        firsts[1])

  def offsets(self):
    for kh in range(self.kernel[0]):
      for kw in range(self.kernel[1]):
        yield kh * self.dilation[0], kw * self.dilation[1]

  def pad(self, x, value):
    """Pads the last two dims of handle x with the scalar handle value."""
    lead = len(x.dims) - 2
    if not any(self.padding) and self.pad_hi == [0, 0]:
      return x
    return _ir.pad(x, value, [0] * lead + self.padding,
                   [0] * lead + self.pad_hi)

  def window(self, x_pad, oh, ow):
    """The strided slice of offset (oh, ow) of a padded handle."""
    lead = x_pad.dims[:-2]
    start = [0] * len(lead) + [oh, ow]
    limit = lead + [oh + (self.out[0] - 1) * self.stride[0] + 1,
                    ow + (self.out[1] - 1) * self.stride[1] + 1]
    return _ir.slice_(x_pad, start, limit, [1] * len(lead) + self.stride)

  def unwindow(self, g, oh, ow):
    """The transpose of `window`: g placed at the offset's positions of a
    zero array of the padded shape."""
    lead = len(g.dims) - 2
    padded = [self.input[i] + self.padding[i] + self.pad_hi[i]
              for i in range(2)]
    lo = [oh, ow]
    hi = [padded[i] - lo[i] - ((self.out[i] - 1) * self.stride[i] + 1)
          for i in range(2)]
    zero = _ir.constant(0, g.dtype, (), g.device)
    return _ir.pad(g, zero, [0] * lead + lo, [0] * lead + hi,
                   [0] * lead + [s - 1 for s in self.stride])

  def crop(self, x_pad):
    """The unpadded input region of a padded handle."""
    lead = x_pad.dims[:-2]
    start = [0] * len(lead) + self.padding
    limit = lead + [self.padding[i] + self.input[i] for i in range(2)]
    return _ir.slice_(x_pad, start, limit)


def _lowest(code, device):
  if code in _ir.FLOAT_CODES:
    return literal(-math.inf, code, (), device)
  if code == _ir.PRED:
    return literal(False, code, (), device)
  bits = {_ir.S64: 64, _ir.S32: 32, _ir.S16: 16, _ir.S8: 8}.get(code)
  return literal(-(1 << (bits - 1)) if bits else 0, code, (), device)


@op(aten.max_pool2d_with_indices.default)
def max_pool2d_with_indices(x, kernel_size, stride=(), padding=0,
                            dilation=1, ceil_mode=False):
  geo = _Geometry("max_pool2d", x, kernel_size, stride, padding, dilation,
                  ceil_mode)
  v = xt_of(x)
  device = x.device.index
  code = v.dtype
  x_pad = geo.pad(v, _lowest(code, device))
  lead = v.dims[:-2]
  out_dims = lead + geo.out
  width = geo.input[1]
  # Flat input index of each output position's window origin, [OH, OW].
  row = _ir.iota(_ir.S64, geo.out, 0, device)
  col = _ir.iota(_ir.S64, geo.out, 1, device)
  origin = _ir.binary(
      "add",
      _ir.binary("multiply", row,
                 literal(geo.stride[0] * width, _ir.S64, geo.out, device)),
      _ir.binary("multiply", col,
                 literal(geo.stride[1], _ir.S64, geo.out, device)))
  origin = _ir.broadcast_to(origin, out_dims)
  # Like eager: start from the lowest value at the window's first in-bounds
  # element, so windows of -inf (or the integer minimum) report it.
  best = _ir.broadcast_to(_lowest(code, device), out_dims)
  index = _ir.broadcast_to(geo.first_valid_index(device), out_dims)
  is_float = code in _ir.FLOAT_CODES
  for oh, ow in geo.offsets():
    patch = geo.window(x_pad, oh, ow)
    shift = (oh - geo.padding[0]) * width + (ow - geo.padding[1])
    idx = _ir.binary("add", origin, literal(shift, _ir.S64, out_dims, device))
    take = _ir.compare(patch, best, "GT")
    if is_float:
      take = _ir.binary("or", take, _ir.compare(patch, patch, "NE"))
    best = _ir.select(take, patch, best)
    index = _ir.select(take, idx, index)
  return wrap(best), wrap(index)


def _scatter_to_indices(name, grad, x, indices):
  """Adds each grad element to the input position its index names (a flat
  index into its [H, W] plane): the backward of max pools."""
  check_same_device(name, grad, x, indices)
  g = xt_of(grad)
  idx = xt_of(indices)
  dims = list(x.shape)
  plane = dims[-2] * dims[-1]
  planes = 1
  for d in dims[:-2]:
    planes *= d
  per_plane = g.dims[-2] * g.dims[-1]
  if list(indices.shape) != g.dims or g.dims[:-2] != dims[:-2]:
    raise RuntimeError(
        f"{name}: grad_output {g.dims}, indices {list(indices.shape)} and "
        f"input {dims} must agree on all but the last two dims (and "
        f"grad_output and indices on all)")
  device = x.device.index
  # Flat index into all planes: plane number * plane size + index in plane.
  base = _ir.binary(
      "multiply", _ir.iota(_ir.S64, [planes, per_plane], 0, device),
      literal(plane, _ir.S64, [planes, per_plane], device))
  flat = _ir.binary("add", base,
                    _ir.reshape(_ir.convert(idx, _ir.S64),
                                [planes, per_plane]))
  flat = _ir.reshape(flat, [planes * per_plane, 1])
  zeros = literal(0, g.dtype, [planes * plane], device)
  out = _ir.scatter(
      zeros, flat, _ir.reshape(g, [planes * per_plane]),
      window_dims=[], inserted_dims=[0], scatter_dim_map=[0],
      index_vec_dim=1, kind="add")
  return wrap(_ir.reshape(out, dims))


@op(aten.max_pool2d_with_indices_backward.default)
def max_pool2d_with_indices_backward(grad, x, kernel_size, stride, padding,
                                     dilation, ceil_mode, indices):
  return _scatter_to_indices("max_pool2d_with_indices_backward", grad, x,
                             indices)


@op(aten.adaptive_max_pool2d_backward.default)
def adaptive_max_pool2d_backward(grad, x, indices):
  return _scatter_to_indices("adaptive_max_pool2d_backward", grad, x, indices)


def _window_sum(geo, x_pad):
  total = None
  for oh, ow in geo.offsets():
    patch = geo.window(x_pad, oh, ow)
    total = patch if total is None else _ir.binary("add", total, patch)
  return total


def _accumulation(code):
  return _ir.F32 if code in (_ir.BF16, _ir.F16) else code


def _divisor(geo, count_include_pad, divisor_override, code, device):
  """Per output position divisor [OH, OW] (a constant of the geometry)."""
  if divisor_override:
    return literal(divisor_override, code, geo.out, device)
  # Window sums of a 1/0 mask: 1 over the input (and over the explicit
  # padding when it counts), 0 over the ceil_mode overhang.
  if count_include_pad:
    ones = literal(1, code, [geo.input[i] + 2 * geo.padding[i]
                             for i in range(2)], device)
    extra = [geo.pad_hi[i] - geo.padding[i] for i in range(2)]
    mask = _ir.pad(ones, literal(0, code, (), device), [0, 0], extra)
  else:
    mask = geo.pad(literal(1, code, geo.input, device),
                   literal(0, code, (), device))
  return _window_sum(geo, mask)


def _check_avg(name, x, divisor_override):
  if divisor_override is not None and divisor_override == 0:
    raise RuntimeError(f"{name}: divisor must be not zero")


@op(aten.avg_pool2d.default)
def avg_pool2d(x, kernel_size, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
  _check_avg("avg_pool2d", x, divisor_override)
  geo = _Geometry("avg_pool2d", x, kernel_size, stride, padding, 1, ceil_mode)
  v = xt_of(x)
  code = v.dtype
  device = x.device.index
  if code not in _ir.FLOAT_CODES:
    # Eager divides integer sums with truncation.
    total = _window_sum(geo, geo.pad(v, literal(0, code, (), device)))
    divisor = _divisor(geo, count_include_pad, divisor_override, code, device)
    return wrap(_ir.binary("divide", total,
                           _ir.broadcast_to(divisor, total.dims)))
  acc = _accumulation(code)
  v = _ir.convert(v, acc)
  total = _window_sum(geo, geo.pad(v, literal(0, acc, (), device)))
  divisor = _divisor(geo, count_include_pad, divisor_override, acc, device)
  out = _ir.binary("divide", total, _ir.broadcast_to(divisor, total.dims))
  return wrap(_ir.convert(out, code))


@op(aten.avg_pool2d_backward.default)
def avg_pool2d_backward(grad, x, kernel_size, stride, padding, ceil_mode,
                        count_include_pad, divisor_override):
  check_same_device("avg_pool2d_backward", grad, x)
  _check_avg("avg_pool2d_backward", x, divisor_override)
  geo = _Geometry("avg_pool2d_backward", x, kernel_size, stride, padding, 1,
                  ceil_mode)
  g = xt_of(grad)
  code = g.dtype
  acc = _accumulation(code)
  device = x.device.index
  g = _ir.convert(g, acc)
  divisor = _divisor(geo, count_include_pad, divisor_override, acc, device)
  g = _ir.binary("divide", g, _ir.broadcast_to(divisor, g.dims))
  total = None
  for oh, ow in geo.offsets():
    part = geo.unwindow(g, oh, ow)
    total = part if total is None else _ir.binary("add", total, part)
  return wrap(_ir.convert(geo.crop(total), code))


def _adaptive_size(x, output_size):
  size = _pair(output_size, "output_size")
  if x.dim() not in (3, 4) or any(s == 0 for s in x.shape[-2:]):
    raise RuntimeError(
        f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
        f"{list(x.shape)}")
  if any(s is None for s in size):
    size = [x.shape[-2 + i] if s is None else s for i, s in enumerate(size)]
  if any(s < 0 for s in size):
    raise RuntimeError(f"adaptive_avg_pool2d: elements of output_size must "
                       f"be greater than or equal to 0 but received {size}")
  return size


def _adaptive_matrix(out, size, code, device):
  """[out, size] averaging matrix: row i is 1/len over eager's window
  [floor(i*size/out), ceil((i+1)*size/out))."""
  i = _ir.iota(_ir.S64, [out, size], 0, device)
  j = _ir.iota(_ir.S64, [out, size], 1, device)

  def lit(v):
    return literal(v, _ir.S64, [out, size], device)

  start = _ir.binary("divide", _ir.binary("multiply", i, lit(size)), lit(out))
  end = _ir.binary(
      "divide",
      _ir.binary("add",
                 _ir.binary("multiply", _ir.binary("add", i, lit(1)),
                            lit(size)), lit(out - 1)), lit(out))
  inside = _ir.binary("and", _ir.compare(j, start, "GE"),
                      _ir.compare(j, end, "LT"))
  length = _ir.convert(_ir.binary("subtract", end, start), code)
  one = literal(1, code, [out, size], device)
  zero = literal(0, code, [out, size], device)
  return _ir.select(inside, _ir.binary("divide", one, length), zero)


def _adaptive(v, in_size, out_size, device, transpose=False):
  """Applies the separable averaging matrices over the last two dims of
  handle v (sizes in_size -> out_size); with `transpose`, their transposes
  (the backward, where in_size is the forward's output size)."""
  nlead = len(v.dims) - 2
  for axis in (0, 1):
    if transpose:
      m = _adaptive_matrix(in_size[axis], out_size[axis], v.dtype, device)
    else:
      m = _adaptive_matrix(out_size[axis], in_size[axis], v.dtype, device)
    dim = nlead + axis
    attrs = {
        "lhs_contract": [dim],
        "rhs_contract": [0 if transpose else 1],
        "lhs_batch": [],
        "rhs_batch": [],
    }
    if v.dtype in (_ir.F32, _ir.F64):
      attrs["precision"] = "HIGHEST"
    # The contracted dim's replacement lands last: move it back.
    v = _ir._op(_ir.K["dot_general"], [v, m], attrs)
    rank = len(v.dims)
    v = _ir.transpose(v, list(range(dim)) + [rank - 1] +
                      list(range(dim, rank - 1)))
  return v


@op(aten._adaptive_avg_pool2d.default)
def adaptive_avg_pool2d(x, output_size):
  out = _adaptive_size(x, output_size)
  v = xt_of(x)
  code = v.dtype
  if code not in _ir.FLOAT_CODES:
    raise NotImplementedError(
        f"\"adaptive_avg_pool2d_cpu\" not implemented for "
        f"'{_dtypes.scalar_type_name(x.dtype)}'")
  device = x.device.index
  size = list(x.shape[-2:])
  lead = v.dims[:-2]
  acc = _accumulation(code)
  v = _ir.convert(v, acc)
  if all(s % o == 0 for s, o in zip(size, out) if o):
    if 0 in out:
      return wrap(literal(0, code, lead + out, device))
    # Equal windows: a reshape and a sum, exactly eager's arithmetic.
    k = [s // o for s, o in zip(size, out)]
    n = len(lead)
    v = _ir.reshape(v, lead + [out[0], k[0], out[1], k[1]])
    v = _ir.reduce(v, [n + 1, n + 3], "sum")
    v = _ir.binary("divide", v, literal(k[0] * k[1], acc, v.dims, device))
    return wrap(_ir.convert(v, code))
  return wrap(_ir.convert(_adaptive(v, size, out, device), code))


@op(aten._adaptive_avg_pool2d_backward.default)
def adaptive_avg_pool2d_backward(grad, x):
  check_same_device("adaptive_avg_pool2d_backward", grad, x)
  g = xt_of(grad)
  code = g.dtype
  acc = _accumulation(code)
  device = x.device.index
  size = list(x.shape[-2:])
  out = g.dims[-2:]
  lead = g.dims[:-2]
  g = _ir.convert(g, acc)
  if 0 in out:
    return wrap(literal(0, code, list(x.shape), device))
  if all(s % o == 0 for s, o in zip(size, out)):
    k = [s // o for s, o in zip(size, out)]
    n = len(lead)
    g = _ir.binary("divide", g, literal(k[0] * k[1], acc, g.dims, device))
    g = _ir.broadcast_in_dim(g, lead + [out[0], k[0], out[1], k[1]],
                             list(range(n)) + [n, n + 2])
    return wrap(_ir.convert(_ir.reshape(g, list(x.shape)), code))
  return wrap(_ir.convert(_adaptive(g, out, size, device, transpose=True),
                          code))


def _adaptive_rows(out, size, j, device):
  """[out] index of the j-th element of each adaptive window (clamped to
  the window's last element, so short windows repeat it)."""
  i = _ir.iota(_ir.S64, [out], 0, device)

  def lit(v):
    return literal(v, _ir.S64, [out], device)

  start = _ir.binary("divide", _ir.binary("multiply", i, lit(size)), lit(out))
  end = _ir.binary(
      "divide",
      _ir.binary("add", _ir.binary("multiply", i, lit(size)),
                 lit(size + out - 1)), lit(out))
  return _ir.binary("minimum", _ir.binary("add", start, lit(j)),
                    _ir.binary("subtract", end, lit(1)))


def _take(v, index, axis):
  """v[..., index, ...] along `axis` (1 or 2) of a rank-3 handle."""
  dims = v.dims
  sizes = list(dims)
  sizes[axis] = 1
  offset = [0, 2] if axis == 1 else [0, 1]
  return _ir.gather(v, _ir.reshape(index, [index.dims[0], 1]),
                    offset_dims=offset, collapsed_dims=[axis],
                    start_index_map=[axis], index_vec_dim=1,
                    slice_sizes=sizes)


@op(aten.adaptive_max_pool2d.default)
def adaptive_max_pool2d(x, output_size):
  """Max over eager's adaptive windows [floor(i*I/O), ceil((i+1)*I/O)):
  every window is visited at its longest length, short ones repeating
  their last row/column (repeats come after the original in row-major
  order, so they never change the first maximum or its index)."""
  out = _adaptive_size(x, output_size)
  v = xt_of(x)
  code = v.dtype
  if code not in _ir.FLOAT_CODES:
    raise NotImplementedError(
        f"\"adaptive_max_pool2d\" not implemented for "
        f"'{_dtypes.scalar_type_name(x.dtype)}'")
  device = x.device.index
  h, w = x.shape[-2:]
  lead = v.dims[:-2]
  planes = 1
  for d in lead:
    planes *= d
  if 0 in out:
    return (wrap(literal(0, code, lead + out, device)),
            wrap(literal(0, _ir.S64, lead + out, device)))
  flat = _ir.reshape(v, [planes, h, w])
  longest = [-(-h // out[0]) + 1, -(-w // out[1]) + 1]
  longest = [min(longest[0], h), min(longest[1], w)]
  dims = [planes] + out
  best = _ir.broadcast_to(_lowest(code, device), dims)
  index = None
  is_float = code in _ir.FLOAT_CODES
  cols = [_adaptive_rows(out[1], w, j, device) for j in range(longest[1])]
  for jh in range(longest[0]):
    row = _adaptive_rows(out[0], h, jh, device)
    rows = _take(flat, row, 1)  # [P, OH, W]
    row_base = _ir.binary("multiply", row, literal(w, _ir.S64, [out[0]],
                                                   device))
    for col in cols:
      patch = _take(rows, col, 2)  # [P, OH, OW]
      idx = _ir.binary("add", _ir.broadcast_in_dim(row_base, dims, [1]),
                       _ir.broadcast_in_dim(col, dims, [2]))
      if index is None:
        index = idx
      take = _ir.compare(patch, best, "GT")
      if is_float:
        take = _ir.binary("or", take, _ir.compare(patch, patch, "NE"))
      best = _ir.select(take, patch, best)
      index = _ir.select(take, idx, index)
  return (wrap(_ir.reshape(best, lead + out)),
          wrap(_ir.reshape(index, lead + out)))
