"""The window geometry of max and average pooling, checked as eager checks
it (shapes only, so no call into C++): the argument lists, then each
spatial dim's output size (ATen's pooling_output_shape), then the shape
check (pool2d_shape_check / pool3d_shape_check), with eager's error texts
and in eager's order, so that a call with several bad arguments reports the
one eager reports.

The rules in pooling.py pass the result's `args()` to their builder
(torch_xla/csrc/ops/pooling_ops.h): kernel, stride, padding, the high
padding that ceil_mode's last window needs, and dilation.
"""

_COUNT_WORDS = {2: "two", 3: "three"}


def _cdiv(a, b):
  """C++'s integer division (truncates toward zero), as eager's checks."""
  q = abs(a) // abs(b)
  return q if (a >= 0) == (b > 0) else -q


def _window_arg(value, n, message, default=None):
  """An int list argument of a pool as n ints: a single int repeats; an
  empty list is `default` (only stride has one: the kernel)."""
  value = list(value) if isinstance(value, (list, tuple)) else [value]
  if not value and default is not None:
    return list(default)
  if len(value) == 1:
    value = value * n
  if len(value) != n:
    raise RuntimeError(message)
  return [int(v) for v in value]


def _output_size(size, k, s, p, d, ceil_mode):
  """Eager's pooling_output_shape (its checks, then the size)."""
  if s == 0:
    raise RuntimeError("stride should not be zero")
  if p < 0:
    raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
  if p > _cdiv((k - 1) * d + 1, 2):
    raise RuntimeError(
        f"pad should be at most half of effective kernel size, but got "
        f"pad={p}, kernel_size={k} and dilation={d}")
  numerator = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
  out = numerator // s + 1
  if ceil_mode and (out - 1) * s >= size + p:
    out -= 1
  return out


def _dims_text(prefixes, values):
  return " ".join(f"{p}: {v}" for p, v in zip(prefixes, values))


class Geometry:
  """Window geometry of one pooling call over the last `nsp` dims of x.

  Args:
    kind: "max" or "avg".
    x: the input tensor.
    kernel_size, stride, padding, dilation, ceil_mode: the op's arguments
      (dilation 1 for average pooling).
    nsp: the number of spatial dims (2 or 3).
    grad: for max_pool3d's backward only: the gradient, whose spatial sizes
      eager takes as the output sizes (it computes none).
    backward: a backward's geometry (3-d errors name the backward).
  """

  def __init__(self, kind, x, kernel_size, stride, padding, dilation,
               ceil_mode, nsp=2, grad=None, backward=False):
    base = f"{kind}_pool{nsp}d"
    words = _COUNT_WORDS[nsp]
    either = "" if base == "avg_pool3d" else "either "
    self.nsp = nsp
    self.kernel = _window_arg(
        kernel_size, nsp, f"{base}: kernel_size must {either}be a single "
        f"int, or a tuple of {words} ints")
    self.stride = _window_arg(
        stride, nsp, f"{base}: stride must {either}be omitted, a single int, "
        f"or a tuple of {words} ints", self.kernel)
    self.padding = _window_arg(
        padding, nsp, f"{base}: padding must {either}be a single int, or a "
        f"tuple of {words} ints")
    self.dilation = _window_arg(
        dilation, nsp, f"{base}: dilation must be either a single int, or a "
        f"tuple of {words} ints")
    if (kind == "max" or nsp == 3) and x.dim() not in (nsp + 1, nsp + 2):
      raise RuntimeError(f"non-empty {nsp + 1}D or {nsp + 2}D (batch mode) "
                         f"tensor expected for input")
    self.input = list(x.shape[-nsp:])
    if grad is not None:
      self.out = list(grad.shape[-nsp:])
    else:
      self.out = [
          _output_size(self.input[i], self.kernel[i], self.stride[i],
                       self.padding[i], self.dilation[i], ceil_mode)
          for i in range(nsp)
      ]
    if nsp == 2:
      self._check_2d(x)
    else:
      self._check_3d(x, kind, backward or grad is not None)
    # Padded extent the windows reach (ceil_mode may reach past padding).
    reach = [(self.out[i] - 1) * self.stride[i] +
             self.dilation[i] * (self.kernel[i] - 1) + 1 for i in range(nsp)]
    self.pad_hi = [max(self.padding[i],
                       reach[i] - self.input[i] - self.padding[i])
                   for i in range(nsp)]

  def _check_common(self, names):
    if any(k <= 0 for k in self.kernel):
      raise RuntimeError(
          f"kernel size should be greater than zero, but got "
          f"{_dims_text(['k' + n for n in names], self.kernel)}")
    if any(s <= 0 for s in self.stride):
      raise RuntimeError(
          f"stride should be greater than zero, but got "
          f"{_dims_text(['d' + n for n in names], self.stride)}")
    if any(d <= 0 for d in self.dilation):
      raise RuntimeError(
          f"dilation should be greater than zero, but got "
          f"{_dims_text(['dilation' + n for n in names], self.dilation)}")

  def _too_small(self, x):
    if any(o < 1 for o in self.out):
      sizes = [x.shape[-self.nsp - 1]] + self.input
      out = [x.shape[-self.nsp - 1]] + self.out
      raise RuntimeError(
          f"Given input size: ({'x'.join(map(str, sizes))}). Calculated "
          f"output size: ({'x'.join(map(str, out))}). Output size is too "
          f"small")

  def _check_2d(self, x):
    """pool2d_shape_check."""
    self._check_common(["H", "W"])
    dims = list(x.shape)
    valid = (len(dims) == 3 and all(dims)) or (len(dims) == 4 and
                                                all(dims[1:]))
    if not valid:
      raise RuntimeError(
          f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
          f"size for input, but got:{dims}")
    (kh, kw), (ph, pw) = self.kernel, self.padding
    if _cdiv(kw, 2) < pw or _cdiv(kh, 2) < ph:
      raise RuntimeError(
          f"pad should be smaller than or equal to half of kernel size, but "
          f"got padW = {pw}, padH = {ph}, kW = {kw}, kH = {kh}")
    self._too_small(x)

  def _check_3d(self, x, kind, backward):
    """pool3d_shape_check."""
    self._check_common(["T", "H", "W"])
    dims = list(x.shape)
    fn = {
        ("avg", False): "avg_pool3d()",
        ("avg", True): "avg_pool3d_backward()",
        ("max", False): "max_pool3d_with_indices_out_cpu_template()",
        ("max", True): "max_pool3d_with_indices_backward_out_cpu_template()",
    }[kind, backward]
    for i, size in enumerate(dims):
      if (len(dims) == 5 and i == 0) or size > 0:
        continue
      raise RuntimeError(
          f"{fn}: Expected input's non-batch dimensions to have positive "
          f"length, but input has a shape of {dims} and non-batch dimension "
          f"{size} has length zero!")
    (kt, kh, kw), (pt, ph, pw) = self.kernel, self.padding
    if kind == "avg" and any(i < k for i, k in zip(self.input, self.kernel)):
      t, h, w = self.input
      raise RuntimeError(
          f"input image (T: {t} H: {h} W: {w}) smaller than kernel size "
          f"(kT: {kt} kH: {kh} kW: {kw})")
    if (_cdiv(kt, 2) < pt or _cdiv(kw, 2) < pw or _cdiv(kh, 2) < ph):
      raise RuntimeError(
          f"pad should be smaller than or equal to half of kernel size, but "
          f"got kT: {kt} kW: {kw} kH: {kh} padT: {pt} padW: {pw} padH: {ph}")
    self._too_small(x)

  def args(self):
    """The window as the pooling bindings take it: kernel, stride, pad_lo,
    pad_hi, dilation (one entry per spatial dim)."""
    return (self.kernel, self.stride, self.padding, self.pad_hi,
            self.dilation)

  def check_pooled(self, t, x, dims=None):
    """Eager's check_dim_size of `t` (a gradient or indices) against x's
    rank and the pooled sizes: `dims` (negative, default the channel and
    spatial dims)."""
    ndim = x.dim()
    sizes = [x.shape[0] if ndim == self.nsp + 2 else None,
             x.shape[-self.nsp - 1]] + self.out
    for d in dims or range(-self.nsp - 1, 0):
      size = sizes[d]
      d = d + ndim
      got = t.shape[d] if 0 <= d < t.dim() else None
      if t.dim() != ndim or got != size:
        raise RuntimeError(
            f"Expected a tensor of dimension {ndim} and tensor.size[{d}] == "
            f"{size} but got: dimension {t.dim()} and tensor.size[{d}] = "
            f"{got}")
