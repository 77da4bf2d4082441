"""F.one_hot on 'xla' tensors, with eager's checks of the class values.

Why a kernel above the Python key. aten::one_hot is
CompositeImplicitAutograd: PyTorch decomposes it at the Autograd key,
before __torch_dispatch__ sees it, and for an XLA device its decomposition
is `eq(self.unsqueeze(-1), arange(num_classes))` without any check (eager
CPU checks the values on the host; eager CUDA relies on scatter's
device-side assert). A value outside [0, num_classes) would silently give
a row of zeros. So this module registers an AutogradXLA kernel for
aten::one_hot (the result is an integer tensor: nothing to differentiate),
and the same function as its rule for __torch_dispatch__ (reached under
inference_mode, which skips the Autograd keys). It checks as eager CPU
does:

- the values known on the host (a small integer tensor just uploaded,
  see index_util.host_range): at once, eager's class and text;
- num_classes=-1 (inferred): the shape depends on the values, so eager
  reads max() (and min()) from the device; so do we, one read of both;
- values computed on the device: a device-side check per bound, registered
  by the op's one call (torch_xla/_device_checks.py), raising eager's
  RuntimeError at the next sync or read.

The value itself is the comparison with an iota (one fused elementwise op,
no scatter), built in C++ (ops/one_hot_ops.h) behind one _XLAC call.
"""

import torch

from torch_xla import _XLAC
from torch_xla._ops import index_util
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import XlaTensor

_NEGATIVE = "Class values must be non-negative."
_TOO_LARGE = "Class values must be smaller than num_classes."


def one_hot(self, num_classes=-1):
  """aten::one_hot for an 'xla' `self` (int64 class values): a tensor of
  shape self.shape + [num_classes], 1 where the last index equals the
  value. Raises RuntimeError as eager CPU does for other dtypes and for
  values outside [0, num_classes)."""
  if self.dtype != torch.int64:
    raise RuntimeError(
        "one_hot is only applicable to index tensor of type LongTensor.")
  if not isinstance(self, XlaTensor):
    # A tracer's stand-in on the 'xla' device (torch.compile's fake
    # tensors): PyTorch's own decomposition, as before this kernel; the
    # traced graph carries no check (like a scan body's indices).
    return aten.one_hot.default.decompose(self, num_classes)
  shape = list(self.shape)
  if self.numel() == 0:
    if num_classes <= 0:
      raise RuntimeError(
          "Can not infer total number of classes from empty tensor.")
    return torch.zeros(shape + [num_classes], dtype=torch.int64,
                       device=self.device)
  known = index_util.host_range(self)
  if known is None and num_classes == -1:
    # One read of both: the shape needs the maximum.
    known = tuple(torch.stack(torch.aminmax(self.detach())).tolist())
  if known is not None:
    lo, hi = known
    if lo < 0:
      raise RuntimeError(_NEGATIVE)
    if num_classes == -1:
      num_classes = hi + 1
    elif num_classes <= hi:
      raise RuntimeError(_TOO_LARGE)
  elif num_classes < 1:
    raise RuntimeError(_TOO_LARGE)  # no class value can be valid
  # One call (ops/one_hot_ops.h), which registers the device-side checks.
  return _XLAC._one_hot(self, num_classes,
                        _value_checks(num_classes) if known is None else ())


def _value_checks(num_classes):
  """Eager's checks of values only the device knows, as index checks
  (low, size, exempt, message, error): none negative (the largest int64,
  too large anyway, is exempt so the next check names it), then none at
  or above num_classes; eager CPU checks the minimum first too."""
  biggest = 2**63 - 1
  return ((0, biggest, biggest, f"one_hot: {_NEGATIVE}", RuntimeError),
          (-biggest - 1, num_classes, None, f"one_hot: {_TOO_LARGE}",
           RuntimeError))


_library = torch.library.Library("aten", "IMPL")
_library.impl("one_hot", one_hot, "AutogradXLA")
# Under inference_mode the Autograd keys are skipped and aten::one_hot
# reaches __torch_dispatch__ itself: the same function is its rule.
op(aten.one_hot.default)(one_hot)
