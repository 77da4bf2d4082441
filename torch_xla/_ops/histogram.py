"""torch.histc: counts of values in `bins` equal-width bins over [min, max].

One call into the C++ builder (torch_xla/csrc/ops/histogram_ops.h, through
_XLAC._histc), which states the binning: each element's bin computed
elementwise and one scatter-add into `bins` zeros, so the cost is one pass
over the input whatever the bin count; floats as eager's CPU kernel;
integer tensors (which eager's CPU kernel rejects and its CUDA kernel
counts, as a Mixtral router does with int32 expert ids) in exact integer
arithmetic when min and max are whole numbers, with counts in x's dtype,
as CUDA does. min == max (e.g. the default 0, 0) takes the data's min and
max, computed in the graph, without reading them back; a range that is not
finite is then eager's error, a device-side check the binding registers.
This rule raises eager's errors for bad arguments.
"""

import math

import torch

from torch_xla import _XLAC
from torch_xla._ops.registry import aten, op


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
  if low == high:
    if x.numel():
      return _XLAC._histc(x, bins, None, None, False)  # the data's range
    low, high = low - 1, high + 1
  if not x.dtype.is_floating_point and low.is_integer() and \
      high.is_integer():
    return _XLAC._histc(x, bins, int(low), int(high), True)
  return _XLAC._histc(x, bins, low, high, False)
