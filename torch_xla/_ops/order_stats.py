"""Order statistics from one sort: kthvalue, median and nanmedian.

Each is one call into its C++ builder (torch_xla/csrc/ops/order_ops.h,
through _XLAC._order_statistic): the input is sorted along the dim
(stable, PyTorch's float order: NaN largest) and each row's answer is
taken at a position: k - 1 for kthvalue; for median the lower middle
(n - 1) // 2, or, in a row holding NaN, its first NaN (eager's median
propagates NaN); for nanmedian the lower middle of the row's non-NaN
elements (NaN for a row of NaN). The index returned is that element's original position
(which of equal elements is unspecified in eager). The rules here raise
eager's errors.
"""

import torch

from torch_xla import _XLAC
from torch_xla._ops._common import canonical_dim
from torch_xla._ops.registry import aten, op


def _check_not_bool(x, kernel):
  """Eager CPU's NotImplementedError: its sort-based kernels take no
  bool."""
  if x.dtype == torch.bool:
    raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


@op(aten.kthvalue.default)
def kthvalue(x, k, dim=-1, keepdim=False):
  _check_not_bool(x, "kthvalue_cpu")
  dim = canonical_dim(dim, x.dim())
  n = x.shape[dim] if x.dim() else 1
  if not 1 <= k <= n:
    raise RuntimeError(
        f"kthvalue(): selected number k out of range for dimension {dim}")
  return _XLAC._order_statistic("kthvalue", x, k, dim, keepdim)


def _median_dim(kind, x, dim, keepdim):
  _check_not_bool(x, "median_out")
  dim = canonical_dim(dim, x.dim())
  if x.dim() and x.shape[dim] == 0:
    raise IndexError(
        f"median(): Expected reduction dim {dim} to have non-zero size.")
  return _XLAC._order_statistic(kind, x, 0, dim, keepdim)


def _median_all(kind, x):
  _check_not_bool(x, "median_cpu")
  if x.numel() == 0:
    return torch.full((), float("nan"), dtype=x.dtype, device=x.device)
  return _XLAC._order_statistic(kind, x.reshape(-1), 0, 0, False)[0]


@op(aten.median.dim)
def median_dim(x, dim, keepdim=False):
  return _median_dim("median", x, dim, keepdim)


@op(aten.median.default)
def median(x):
  return _median_all("median", x)


@op(aten.nanmedian.dim)
def nanmedian_dim(x, dim, keepdim=False):
  """The median of each row's non-NaN elements (NaN for a row of NaN)."""
  return _median_dim("nanmedian", x, dim, keepdim)


@op(aten.nanmedian.default)
def nanmedian(x):
  return _median_all("nanmedian", x)
