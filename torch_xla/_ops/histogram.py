"""torch.histc: counts of values in `bins` equal-width bins over [min, max].

Each element's bin is computed elementwise and the counts are one scatter-add
into `bins` zeros, so the cost is one pass over the input whatever the bin
count. Floats follow eager's CPU kernel: bin = trunc((x - min) * bins /
(max - min)), x == max in the last bin, values outside [min, max] (and NaN)
not counted, the result in x's dtype. Integer tensors (which eager's CPU
kernel rejects and its CUDA kernel counts, as a Mixtral router does with
int32 expert ids) use exact integer arithmetic for the bin when min and max
are whole numbers, and return counts in x's dtype, as CUDA does. min == max
(e.g. the default 0, 0) takes the data's min and max, computed in the graph,
without reading them back.
"""

import math

import torch

from torch_xla import _ir
from torch_xla._ops.registry import aten, op


def _bounds(x, low, high):
  """(low, high) as numbers, or as 0-dim tensors from the data when equal
  (then widened by 1 each way if the data is constant, as eager)."""
  if low != high:
    return low, high
  if x.numel() == 0:
    return low - 1, high + 1
  lo = x.min().to(torch.float64)
  hi = x.max().to(torch.float64)
  same = lo == hi
  return torch.where(same, lo - 1, lo), torch.where(same, hi + 1, hi)


def _check_finite_range(lo, hi):
  """Eager's error for a data range that is not finite (NaN or inf in x
  with min == max): a device-side check, since the range is computed on
  the device (torch_xla/_device_checks.py)."""
  from torch_xla import _device_checks
  from torch_xla._tensor import xt_of
  v = xt_of(torch.stack([lo, hi]))
  if v.reads_placeholder:
    return  # a traced body never runs by itself
  bad = _ir.reduce(_ir.unary("not", _ir.unary("is_finite", v)), [0], "or")
  _device_checks.add(bad, "torch.histc: range of [min, max] of the data is "
                     "not finite", error=RuntimeError)


@op(aten.histc.default)
def histc(x, bins=100, min=0, max=0):
  if bins <= 0:
    raise RuntimeError(f"torch.histc(): bins must be > 0, but got {bins}")
  low, high = float(min), float(max)
  if any(math.isinf(v) or math.isnan(v) for v in (low, high)):
    raise RuntimeError(
        f"torch.histc(): range of [{low}, {high}] is not finite")
  if low > high:
    raise RuntimeError(
        "torch.histc(): max must be larger than min")
  if x.dtype == torch.bool or x.dtype.is_complex:
    raise NotImplementedError(
        f"\"histc\" not implemented for '{x.dtype}' on the XLA device")
  lo, hi = _bounds(x, low, high)
  if isinstance(lo, torch.Tensor):
    _check_finite_range(lo, hi)
  integral = not x.dtype.is_floating_point
  if integral and isinstance(lo, float) and lo.is_integer() and \
      hi.is_integer():
    v = x.to(torch.int64)
    inside = (v >= int(lo)) & (v <= int(hi))
    pos = torch.div((v - int(lo)) * bins, int(hi - lo),
                    rounding_mode="floor")
  else:
    compute = x.dtype if x.dtype.is_floating_point else torch.float64
    v = x.to(compute)
    if isinstance(lo, torch.Tensor):
      lo, hi = lo.to(compute), hi.to(compute)
    inside = (v >= lo) & (v <= hi)
    pos = ((v - lo) * bins / (hi - lo)).to(torch.int64)
  pos = torch.where(inside, pos.clamp(0, bins - 1), torch.zeros_like(pos))
  counts = torch.zeros([bins], dtype=x.dtype, device=x.device)
  return counts.index_put((pos.reshape(-1),),
                          inside.to(x.dtype).reshape(-1), accumulate=True)
