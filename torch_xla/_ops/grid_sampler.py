"""Backward of grid_sampler_2d (F.grid_sample on 4-d input): bilinear,
nearest and bicubic, with zeros, border and reflection padding, both
align_corners values; the input's and the grid's gradients.

The forward runs through PyTorch's decomposition (behind eager's checks,
decomposition_checks.py); the backward had no rule and fell back to the CPU.

Design: each output point p reads a few taps of the input plane, T of them
(bilinear 4, nearest 1, bicubic 16), tap k at (y_k, x_k) with weight w_k.
Written over all points at once, with the taps laid out [N, T, P]:
- grad_input is one scatter-add of grad_output * w_k into the flattened
  input plane at y_k * W + x_k (taps outside the plane add nothing);
- grad_grid gathers the tapped input values once, sums
  value * grad_output over channels, and contracts that with the weights'
  derivatives d w_k / d ix and d w_k / d iy, times the chain factor of the
  source coordinate (unnormalization, and the clip and reflection folds
  with eager's zero gradient on the borders). Nearest's grid gradient is 0.
The arithmetic is eager's (aten/native/GridSampler.h): source coordinates
unnormalized as ((g + 1) / 2) (size - 1) or ((g + 1) size - 1) / 2,
nearest rounds half to even, bicubic uses Keys' weights (A = -0.75) on the
unpadded coordinate and pads each tap's coordinate. bf16/f16 are computed
in f32, as eager's opmath. The rule is written with torch ops on 'xla'
tensors (each comes back to its own rule), like a decomposition.

Cost: T gathers' worth of indices per point ([N, C, T, P] values); no
buffer of the input's size beyond grad_input itself.
"""

import torch

from torch_xla._ops.decomposition_checks import grid_sampler_2d_check
from torch_xla._ops.registry import aten, op

_BILINEAR, _NEAREST, _BICUBIC = 0, 1, 2
_ZEROS, _BORDER, _REFLECTION = 0, 1, 2
_CUBIC_A = -0.75


def _unnormalize(coord, size, align_corners):
  """Eager's grid_sampler_unnormalize_set_grad: (source coordinate,
  d source / d coord)."""
  if align_corners:
    return (coord + 1) / 2 * (size - 1), (size - 1) / 2
  return ((coord + 1) * size - 1) / 2, size / 2


def _clip(x, size):
  """(x clipped into [0, size - 1], its gradient: 0 at and past the
  borders)."""
  inside = (x > 0) & (x < size - 1)
  return x.clamp(0, size - 1), inside.to(x.dtype)


def _reflect(x, twice_low, twice_high):
  """Eager's reflect_coordinates_set_grad: (x folded into [low, high],
  d fold / d x = +-1)."""
  if twice_low == twice_high:
    return torch.zeros_like(x), torch.zeros_like(x)
  low = twice_low / 2
  span = (twice_high - twice_low) / 2
  x = x - low
  sign = torch.where(x < 0, -1.0, 1.0).to(x.dtype)
  x = x.abs()
  extra = torch.fmod(x, span)
  even = torch.remainder(torch.floor(x / span), 2) == 0
  folded = torch.where(even, extra + low, span - extra + low)
  return folded, torch.where(even, sign, -sign)


def _pad(x, size, padding_mode, align_corners):
  """Eager's padding of a source coordinate: (coordinate, d / d x)."""
  if padding_mode == _ZEROS:
    return x, None
  grad = None
  if padding_mode == _REFLECTION:
    if align_corners:
      x, grad = _reflect(x, 0, 2 * (size - 1))
    else:
      x, grad = _reflect(x, -1, 2 * size - 1)
  x, clip_grad = _clip(x, size)
  return x, clip_grad if grad is None else grad * clip_grad


def _source(coord, size, padding_mode, align_corners):
  """Eager's grid_sampler_compute_source_index_set_grad."""
  x, mult = _unnormalize(coord, size, align_corners)
  x, grad = _pad(x, size, padding_mode, align_corners)
  return x, mult if grad is None else grad * mult


def _cubic(t):
  """Keys' weights of the taps -1, 0, 1, 2 (eager's
  get_cubic_upsample_coefficients) and their derivatives in t (eager's
  get_cubic_coefficients_grad)."""
  a = _CUBIC_A

  def near(x):
    return ((a + 2) * x - (a + 3)) * x * x + 1

  def far(x):
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

  weights = [far(t + 1), near(t), near(1 - t), far(2 - t)]
  x = -1 - t
  d0 = (-3 * a * x - 10 * a) * x - 8 * a
  x = -t
  d1 = (-3 * (a + 2) * x - 2 * (a + 3)) * x
  x = 1 - t
  d2 = (3 * (a + 2) * x - 2 * (a + 3)) * x
  x = 2 - t
  d3 = (3 * a * x - 10 * a) * x + 8 * a
  return weights, [d0, d1, d2, d3]


def _taps(gx, gy, H, W, mode, padding_mode, align_corners):
  """(ys, xs, weights, d weights / d ix, d weights / d iy, ix factor, iy
  factor): [N, T, P] tap coordinates (floats holding integers), weights and
  their derivatives (None for nearest), and the chain factors from grid to
  source coordinates."""
  if mode == _BICUBIC:
    ix, mx = _unnormalize(gx, W, align_corners)
    iy, my = _unnormalize(gy, H, align_corners)
    x0, y0 = torch.floor(ix), torch.floor(iy)
    wx, dx = _cubic(ix - x0)
    wy, dy = _cubic(iy - y0)
    ys, xs, w, dwx, dwy = [], [], [], [], []
    for i in range(4):
      for j in range(4):
        xs.append(_pad(x0 + (i - 1), W, padding_mode, align_corners)[0])
        ys.append(_pad(y0 + (j - 1), H, padding_mode, align_corners)[0])
        w.append(wx[i] * wy[j])
        dwx.append(-dx[i] * wy[j])
        dwy.append(-dy[j] * wx[i])
    # Eager casts the padded coordinate to an integer (truncation).
    xs = [torch.trunc(v) for v in xs]
    ys = [torch.trunc(v) for v in ys]
  else:
    ix, mx = _source(gx, W, padding_mode, align_corners)
    iy, my = _source(gy, H, padding_mode, align_corners)
    if mode == _NEAREST:  # rounds half to even, as eager's nearbyint
      return (torch.round(iy)[:, None], torch.round(ix)[:, None],
              torch.ones_like(ix)[:, None], None, None, mx, my)
    x0, y0 = torch.floor(ix), torch.floor(iy)
    x1, y1 = x0 + 1, y0 + 1
    wx0, wx1, wy0, wy1 = x1 - ix, ix - x0, y1 - iy, iy - y0
    ys, xs = [y0, y0, y1, y1], [x0, x1, x0, x1]
    w = [wx0 * wy0, wx1 * wy0, wx0 * wy1, wx1 * wy1]
    dwx = [-wy0, wy0, -wy1, wy1]
    dwy = [-wx0, -wx1, wx0, wx1]
  return tuple(torch.stack(v, 1) for v in (ys, xs, w, dwx, dwy)) + (mx, my)


@op(aten.grid_sampler_2d_backward.default)
def grid_sampler_2d_backward(grad_output, input, grid, interpolation_mode,
                             padding_mode, align_corners, output_mask):
  grid_sampler_2d_check("grid_sampler_2d_backward",
                        {"input": input, "grid": grid})
  if interpolation_mode not in (_BILINEAR, _NEAREST, _BICUBIC):
    raise RuntimeError(f"grid_sampler_2d_backward: interpolation_mode must "
                       f"be 0 (bilinear), 1 (nearest) or 2 (bicubic), but "
                       f"got {interpolation_mode}")
  if padding_mode not in (_ZEROS, _BORDER, _REFLECTION):
    raise RuntimeError(f"grid_sampler_2d_backward: padding_mode must be 0 "
                       f"(zeros), 1 (border) or 2 (reflection), but got "
                       f"{padding_mode}")
  dtype = input.dtype
  compute = torch.float32 if dtype in (torch.bfloat16, torch.float16) else (
      dtype)
  N, C, H, W = input.shape
  Ho, Wo = grid.shape[1], grid.shape[2]
  P = Ho * Wo
  with torch.no_grad():
    g = grid.to(compute).reshape(N, P, 2)
    go = grad_output.to(compute).reshape(N, C, 1, P)
    ys, xs, w, dwx, dwy, mx, my = _taps(g[..., 0], g[..., 1], H, W,
                                        interpolation_mode, padding_mode,
                                        align_corners)
    T = ys.shape[1]
    valid = (xs >= 0) & (xs <= W - 1) & (ys >= 0) & (ys <= H - 1)
    flat = torch.where(valid, ys * W + xs, torch.zeros_like(xs)).long()
    index = flat.reshape(N, 1, T * P).expand(N, C, T * P)
    grad_input = None
    if output_mask[0]:
      contribution = go * (w * valid.to(compute)).reshape(N, 1, T, P)
      grad_input = torch.zeros(N, C, H * W, dtype=compute,
                               device=input.device).scatter_add(
                                   2, index, contribution.reshape(N, C, T * P))
      grad_input = grad_input.reshape(N, C, H, W).to(dtype)
    if dwx is None or P == 0 or C == 0:
      return grad_input, torch.zeros_like(grid)
    values = input.to(compute).reshape(N, C, H * W).gather(2, index)
    per_tap = (values.reshape(N, C, T, P) * go).sum(1) * valid.to(compute)
    gix = (per_tap * dwx).sum(1) * mx
    giy = (per_tap * dwy).sum(1) * my
    grad_grid = torch.stack([gix, giy], -1).reshape(N, Ho, Wo, 2)
    return grad_input, grad_grid.to(grid.dtype)
