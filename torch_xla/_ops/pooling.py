"""Pooling (2-d and 3-d; 1-d comes here through PyTorch's decomposition):
max (with indices), average, adaptive average and max; the backwards.

Windows are IR window ops, native on every PJRT backend:
- max pooling is one `reduce_window` of kind argmax over (x, flat index
  into the input plane): the first maximum and its index, or the last NaN,
  as eager's CPU kernel picks; padding never wins;
- its backward is one `select_and_scatter` (the same choice, recomputed
  from the input) when dilation is 1; dilated windows (which
  select_and_scatter lacks) and adaptive max pooling scatter-add the
  gradient to the saved indices;
- average pooling is a window sum divided by the window sums of a 0/1 mask
  (a constant of the geometry: 1 over the input, and over the explicit
  padding when it counts);
- its backward is the transpose of the strided window sum: a window sum of
  the scaled gradient spread by the stride (base dilation) and padded by
  k - 1 - p.

Adaptive average pooling with equal windows (output divides input) is a
window sum too; otherwise it multiplies by the [out, in] averaging matrix
of each spatial dim (a dot per dim). Adaptive max pooling with equal windows is
the argmax window; otherwise it gathers each window's rows and columns at
their longest length (short windows repeat their last element, which never
changes the first maximum).

Cost: one pass over the input per op; no buffer beyond the result (and, for
max pooling, an int64 index plane broadcast over the batch).
"""

import math

import torch

from torch_xla import _dtypes, _ir
from torch_xla._ops._common import apply_matrix, check_same_device, literal
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import wrap, xt_of

_COUNT_WORDS = {2: "two", 3: "three"}


def _tuple(value, name, n, default=None):
  if value is None or (isinstance(value, (list, tuple)) and not value):
    value = default
  value = list(value) if isinstance(value, (list, tuple)) else [value]
  if len(value) == 1:
    value = value * n
  if len(value) != n:
    raise RuntimeError(f"{name} must either be a single int, or a tuple of "
                       f"{_COUNT_WORDS[n]} ints")
  return value


def _pair(value, name, default=None):
  return _tuple(value, name, 2, default)


def _output_size(size, k, s, p, d, ceil_mode):
  """Eager's pooling_output_shape."""
  numerator = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
  out = numerator // s + 1
  if ceil_mode and (out - 1) * s >= size + p:
    out -= 1
  return out


class _Geometry:
  """Window geometry of one pooling call over the last `nsp` dims."""

  def __init__(self, name, x, kernel_size, stride, padding, dilation,
               ceil_mode, nsp=2):
    if x.dim() not in (nsp + 1, nsp + 2):
      raise RuntimeError(
          f"non-empty {nsp + 1}D or {nsp + 2}D (batch mode) tensor expected "
          f"for input")
    if any(s == 0 for s in x.shape[-nsp - 1:]):
      raise RuntimeError(
          f"Expected {nsp + 1}D or {nsp + 2}D (batch mode) tensor with "
          f"optional 0 dim batch size for input, but got:{list(x.shape)}")
    self.nsp = nsp
    self.lead = x.dim() - nsp
    self.kernel = _tuple(kernel_size, "kernel_size", nsp)
    self.stride = _tuple(stride, "stride", nsp, self.kernel)
    self.padding = _tuple(padding, "padding", nsp)
    self.dilation = _tuple(dilation, "dilation", nsp)
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
    self.input = list(x.shape[-nsp:])
    self.out = [
        _output_size(self.input[i], self.kernel[i], self.stride[i],
                     self.padding[i], self.dilation[i], ceil_mode)
        for i in range(nsp)
    ]
    if any(o <= 0 for o in self.out):
      raise RuntimeError(
          f"Given input size: ({'x'.join(map(str, x.shape[-nsp - 1:]))}). "
          f"Calculated output size: ({x.shape[-nsp - 1]}x"
          f"{'x'.join(map(str, self.out))}). Output size is too small")
    # Padded extent the windows reach (ceil_mode may reach past padding).
    reach = [(self.out[i] - 1) * self.stride[i] +
             self.dilation[i] * (self.kernel[i] - 1) + 1 for i in range(nsp)]
    self.pad_hi = [max(self.padding[i],
                       reach[i] - self.input[i] - self.padding[i])
                   for i in range(nsp)]

  def window(self, pad=True):
    """Keyword arguments of the window ops over a handle of x's rank."""
    ones, zeros = [1] * self.lead, [0] * self.lead
    kwargs = dict(window=ones + self.kernel, strides=ones + self.stride)
    if pad:
      kwargs.update(pad_lo=zeros + self.padding, pad_hi=zeros + self.pad_hi)
    return kwargs

  def flat_index(self, dims, device):
    """int64 handle of `dims`: each element's flat index into its input
    plane (h * W + w, or d * H * W + h * W + w)."""
    plane = 1
    for s in self.input:
      plane *= s
    index = _ir.reshape(_ir.iota(_ir.S64, [plane], 0, device), self.input)
    return _ir.broadcast_in_dim(index, dims,
                                list(range(self.lead, len(dims))))


def _check_not_bool(name, x):
  if x.dtype == torch.bool:
    raise NotImplementedError(f"\"{name}\" not implemented for 'Bool'")


def _max_pool(name, x, kernel_size, stride, padding, dilation, ceil_mode,
              nsp):
  _check_not_bool(name, x)
  geo = _Geometry(name, x, kernel_size, stride, padding, dilation, ceil_mode,
                  nsp)
  v = xt_of(x)
  if x.numel() == 0:  # an empty batch: no window to reduce
    dims = v.dims[:geo.lead] + geo.out
    return (wrap(literal(0, v.dtype, dims, x.device.index)),
            wrap(literal(0, _ir.S64, dims, x.device.index)))
  values, indices = _ir.reduce_window(
      [v, geo.flat_index(v.dims, x.device.index)], "argmax",
      win_dilation=[1] * geo.lead + geo.dilation, **geo.window())
  return wrap(values), wrap(indices)


@op(aten.max_pool2d_with_indices.default)
def max_pool2d_with_indices(x, kernel_size, stride=(), padding=0,
                            dilation=1, ceil_mode=False):
  return _max_pool("max_pool2d", x, kernel_size, stride, padding, dilation,
                   ceil_mode, 2)


@op(aten.max_pool3d_with_indices.default)
def max_pool3d_with_indices(x, kernel_size, stride=(), padding=0,
                            dilation=1, ceil_mode=False):
  return _max_pool("max_pool3d", x, kernel_size, stride, padding, dilation,
                   ceil_mode, 3)


def _scatter_to_indices(name, grad, x, indices, nsp=2):
  """Adds each grad element to the input position its index names (a flat
  index into its input plane): the backward of max pools."""
  check_same_device(name, grad, x, indices)
  g = xt_of(grad)
  idx = xt_of(indices)
  dims = list(x.shape)
  lead = len(dims) - nsp
  plane = math.prod(dims[lead:])
  planes = math.prod(dims[:lead])
  per_plane = math.prod(g.dims[lead:])
  if list(indices.shape) != g.dims or g.dims[:lead] != dims[:lead]:
    raise RuntimeError(
        f"{name}: grad_output {g.dims}, indices {list(indices.shape)} and "
        f"input {dims} must agree on all but the last {nsp} dims (and "
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


def _max_pool_backward(name, grad, x, kernel_size, stride, padding, dilation,
                       ceil_mode, indices, nsp):
  geo = _Geometry(name, x, kernel_size, stride, padding, dilation, ceil_mode,
                  nsp)
  if any(d != 1 for d in geo.dilation) or list(grad.shape) != list(
      indices.shape) or grad.dtype != x.dtype:
    return _scatter_to_indices(name, grad, x, indices, nsp)
  check_same_device(name, grad, x, indices)
  g = xt_of(grad)
  if g.dims != list(x.shape[:geo.lead]) + geo.out:
    return _scatter_to_indices(name, grad, x, indices, nsp)
  return wrap(_ir.select_and_scatter(xt_of(x), g, "max", **geo.window()))


@op(aten.max_pool2d_with_indices_backward.default)
def max_pool2d_with_indices_backward(grad, x, kernel_size, stride, padding,
                                     dilation, ceil_mode, indices):
  return _max_pool_backward("max_pool2d_with_indices_backward", grad, x,
                            kernel_size, stride, padding, dilation,
                            ceil_mode, indices, 2)


@op(aten.max_pool3d_with_indices_backward.default)
def max_pool3d_with_indices_backward(grad, x, kernel_size, stride, padding,
                                     dilation, ceil_mode, indices):
  return _max_pool_backward("max_pool3d_with_indices_backward", grad, x,
                            kernel_size, stride, padding, dilation,
                            ceil_mode, indices, 3)


@op(aten.adaptive_max_pool2d_backward.default)
def adaptive_max_pool2d_backward(grad, x, indices):
  return _scatter_to_indices("adaptive_max_pool2d_backward", grad, x, indices)


def _lowest(code, device):
  if code in _ir.FLOAT_CODES:
    return literal(-math.inf, code, (), device)
  bits = {_ir.S64: 64, _ir.S32: 32, _ir.S16: 16, _ir.S8: 8}.get(code)
  return literal(-(1 << (bits - 1)) if bits else 0, code, (), device)


def _accumulation(code):
  return _ir.F32 if code in (_ir.BF16, _ir.F16) else code


def _window_sum(v, geo, pad=True):
  return _ir.reduce_window([v], "sum", **geo.window(pad))[0]


def _divisor(geo, count_include_pad, divisor_override, code, device):
  """Per output position divisor [*out] (a constant of the geometry)."""
  if divisor_override:
    return literal(divisor_override, code, geo.out, device)
  window = dict(window=geo.kernel, strides=geo.stride)
  if count_include_pad:
    # 1 over the input and its explicit padding, 0 over the ceil_mode
    # overhang.
    ones = literal(1, code, [geo.input[i] + 2 * geo.padding[i]
                             for i in range(geo.nsp)], device)
    extra = [geo.pad_hi[i] - geo.padding[i] for i in range(geo.nsp)]
    return _ir.reduce_window([ones], "sum", pad_lo=[0] * geo.nsp,
                             pad_hi=extra, **window)[0]
  ones = literal(1, code, geo.input, device)
  return _ir.reduce_window([ones], "sum", pad_lo=geo.padding,
                           pad_hi=geo.pad_hi, **window)[0]


def _check_avg(name, x, divisor_override):
  _check_not_bool(name, x)
  if divisor_override is not None and divisor_override == 0:
    raise RuntimeError(f"{name}: divisor must be not zero")


def _avg_pool(name, x, kernel_size, stride, padding, ceil_mode,
              count_include_pad, divisor_override, nsp):
  _check_avg(name, x, divisor_override)
  geo = _Geometry(name, x, kernel_size, stride, padding, 1, ceil_mode, nsp)
  v = xt_of(x)
  code = v.dtype
  device = x.device.index
  if x.numel() == 0:  # an empty batch: no window to reduce
    return wrap(literal(0, code, v.dims[:geo.lead] + geo.out, device))
  if code not in _ir.FLOAT_CODES:
    # Eager divides integer sums with truncation.
    total = _window_sum(v, geo)
    divisor = _divisor(geo, count_include_pad, divisor_override, code, device)
    return wrap(_ir.binary("divide", total,
                           _ir.broadcast_to(divisor, total.dims)))
  acc = _accumulation(code)
  total = _window_sum(_ir.convert(v, acc), geo)
  divisor = _divisor(geo, count_include_pad, divisor_override, acc, device)
  out = _ir.binary("divide", total, _ir.broadcast_to(divisor, total.dims))
  return wrap(_ir.convert(out, code))


@op(aten.avg_pool2d.default)
def avg_pool2d(x, kernel_size, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
  return _avg_pool("avg_pool2d", x, kernel_size, stride, padding, ceil_mode,
                   count_include_pad, divisor_override, 2)


@op(aten.avg_pool3d.default)
def avg_pool3d(x, kernel_size, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
  return _avg_pool("avg_pool3d", x, kernel_size, stride, padding, ceil_mode,
                   count_include_pad, divisor_override, 3)


def _avg_pool_backward(name, grad, x, kernel_size, stride, padding,
                       ceil_mode, count_include_pad, divisor_override, nsp):
  check_same_device(name, grad, x)
  _check_avg(name, x, divisor_override)
  geo = _Geometry(name, x, kernel_size, stride, padding, 1, ceil_mode, nsp)
  g = xt_of(grad)
  code = g.dtype
  acc = _accumulation(code)
  device = x.device.index
  g = _ir.convert(g, acc)
  divisor = _divisor(geo, count_include_pad, divisor_override, acc, device)
  g = _ir.binary("divide", g, _ir.broadcast_to(divisor, g.dims))
  # The transpose of a strided window sum: spread g by the stride, pad by
  # k - 1 - p below and up to the input's size above, sum windows of k.
  ones, zeros = [1] * geo.lead, [0] * geo.lead
  lo = [geo.kernel[i] - 1 - geo.padding[i] for i in range(nsp)]
  hi = [geo.input[i] + geo.padding[i] - (geo.out[i] - 1) * geo.stride[i] - 1
        for i in range(nsp)]
  out = _ir.reduce_window([g], "sum", window=ones + geo.kernel,
                          pad_lo=zeros + lo, pad_hi=zeros + hi,
                          base_dilation=ones + geo.stride)[0]
  return wrap(_ir.convert(out, code))


@op(aten.avg_pool2d_backward.default)
def avg_pool2d_backward(grad, x, kernel_size, stride, padding, ceil_mode,
                        count_include_pad, divisor_override):
  return _avg_pool_backward("avg_pool2d_backward", grad, x, kernel_size,
                            stride, padding, ceil_mode, count_include_pad,
                            divisor_override, 2)


@op(aten.avg_pool3d_backward.default)
def avg_pool3d_backward(grad, x, kernel_size, stride, padding, ceil_mode,
                        count_include_pad, divisor_override):
  return _avg_pool_backward("avg_pool3d_backward", grad, x, kernel_size,
                            stride, padding, ceil_mode, count_include_pad,
                            divisor_override, 3)


def _adaptive_size(x, output_size, n=2, name=None):
  """The output's n spatial sizes (None: the input's), checked as eager
  (name: the op, adaptive_avg_pool{n}d by default)."""
  name = name or f"adaptive_avg_pool{n}d"
  size = _tuple(output_size, "output_size", n)
  if x.dim() not in (n + 1, n + 2):
    raise RuntimeError(
        f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got "
        f"{list(x.shape)}")
  for d in range(x.dim() - n - 1, x.dim()):
    if x.shape[d] == 0:
      raise RuntimeError(
          f"{name}(): Expected input to have non-zero size for non-batch "
          f"dimensions, but input has sizes {list(x.shape)} with dimension "
          f"{d} being empty")
  if any(s is None for s in size):
    size = [x.shape[-n + i] if s is None else s for i, s in enumerate(size)]
  if any(s < 0 for s in size):
    if name.startswith("adaptive_max"):  # eager fails making the result
      shape = list(x.shape[:-n]) + size
      raise RuntimeError(f"Trying to create tensor with negative dimension "
                         f"{min(size)}: {shape}")
    raise RuntimeError(f"{name}: elements of output_size must be greater "
                       f"than or equal to 0 but received {size}")
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
  """Applies the separable averaging matrices over the last len(in_size)
  dims of handle v (sizes in_size -> out_size); with `transpose`, their
  transposes (the backward, where in_size is the forward's output size)."""
  nlead = len(v.dims) - len(in_size)
  for axis in range(len(in_size)):
    if transpose:
      m = _adaptive_matrix(in_size[axis], out_size[axis], v.dtype, device)
    else:
      m = _adaptive_matrix(out_size[axis], in_size[axis], v.dtype, device)
    v = apply_matrix(v, m, nlead + axis, transposed=transpose)
  return v


@op(aten._adaptive_avg_pool2d.default)
def adaptive_avg_pool2d(x, output_size):
  return _adaptive_avg_pool(x, output_size, 2)


@op(aten._adaptive_avg_pool3d.default)
def adaptive_avg_pool3d(x, output_size):
  return _adaptive_avg_pool(x, output_size, 3)


def _adaptive_avg_pool(x, output_size, n):
  out = _adaptive_size(x, output_size, n)
  v = xt_of(x)
  code = v.dtype
  if code not in _ir.FLOAT_CODES:
    raise NotImplementedError(
        f"\"adaptive_avg_pool{n}d_cpu\" not implemented for "
        f"'{_dtypes.scalar_type_name(x.dtype)}'")
  device = x.device.index
  size = list(x.shape[-n:])
  lead = v.dims[:-n]
  acc = _accumulation(code)
  v = _ir.convert(v, acc)
  if all(s % o == 0 for s, o in zip(size, out) if o):
    if 0 in out:
      return wrap(literal(0, code, lead + out, device))
    # Equal windows: a window sum, exactly eager's arithmetic.
    k = [s // o for s, o in zip(size, out)]
    ones = [1] * len(lead)
    v = _ir.reduce_window([v], "sum", window=ones + k, strides=ones + k)[0]
    v = _ir.binary("divide", v, literal(math.prod(k), acc, v.dims, device))
    return wrap(_ir.convert(v, code))
  return wrap(_ir.convert(_adaptive(v, size, out, device), code))


@op(aten._adaptive_avg_pool2d_backward.default)
def adaptive_avg_pool2d_backward(grad, x):
  return _adaptive_avg_pool_backward(grad, x, 2)


@op(aten._adaptive_avg_pool3d_backward.default)
def adaptive_avg_pool3d_backward(grad, x):
  return _adaptive_avg_pool_backward(grad, x, 3)


def _adaptive_avg_pool_backward(grad, x, n):
  check_same_device(f"adaptive_avg_pool{n}d_backward", grad, x)
  g = xt_of(grad)
  code = g.dtype
  acc = _accumulation(code)
  device = x.device.index
  size = list(x.shape[-n:])
  out = g.dims[-n:]
  lead = g.dims[:-n]
  g = _ir.convert(g, acc)
  if 0 in out:
    return wrap(literal(0, code, list(x.shape), device))
  if all(s % o == 0 for s, o in zip(size, out)):
    k = [s // o for s, o in zip(size, out)]
    nl = len(lead)
    g = _ir.binary("divide", g, literal(math.prod(k), acc, g.dims, device))
    # Each output element spread over its window: [.., o0, k0, o1, k1, ..].
    g = _ir.broadcast_in_dim(
        g, lead + [d for o, kk in zip(out, k) for d in (o, kk)],
        list(range(nl)) + [nl + 2 * i for i in range(n)])
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
  out = _adaptive_size(x, output_size, name="adaptive_max_pool2d")
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
  if h % out[0] == 0 and w % out[1] == 0:
    # Equal windows: the argmax window of max pooling.
    return _max_pool("adaptive_max_pool2d", x, [h // out[0], w // out[1]],
                     None, 0, 1, False, 2)
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
