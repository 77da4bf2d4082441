"""Order statistics from one sort: kthvalue and median.

The input is sorted along the dim (stable, PyTorch's float order: NaN
largest), and each row's answer is gathered at a position: k - 1 for
kthvalue; for median the lower middle (n - 1) // 2, or, in a row holding
NaN, its first NaN (eager's median propagates NaN). The index returned is
that element's original position (which of equal elements is unspecified
in eager).
"""

import torch

from torch_xla._ops._common import canonical_dim
from torch_xla._ops.registry import aten, op


def _at(x, dim, keepdim, position):
  """(values, indices) of the sorted row elements at `position` (a tensor
  of x's shape with `dim` of size 1)."""
  values, indices = torch.sort(x, dim=dim, stable=True)
  value = values.gather(dim, position)
  index = indices.gather(dim, position)
  if not keepdim:
    value, index = value.squeeze(dim), index.squeeze(dim)
  return value, index


def _row_shape(x, dim):
  shape = list(x.shape)
  shape[dim] = 1
  return shape


def _check_not_bool(x, kernel):
  """Eager CPU's NotImplementedError: its sort-based kernels take no
  bool."""
  if x.dtype == torch.bool:
    raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


@op(aten.kthvalue.default)
def kthvalue(x, k, dim=-1, keepdim=False):
  _check_not_bool(x, "kthvalue_cpu")
  if x.dim() == 0:
    v, i = kthvalue(x.reshape(1), k, 0, False)
    return v.reshape(()), i.reshape(())
  dim = canonical_dim(dim, x.dim())
  n = x.shape[dim]
  if not 1 <= k <= n:
    raise RuntimeError(
        f"kthvalue(): selected number k out of range for dimension {dim}")
  position = torch.full(_row_shape(x, dim), k - 1, dtype=torch.int64,
                        device=x.device)
  return _at(x, dim, keepdim, position)


def _median_position(x, dim):
  n = x.shape[dim]
  middle = torch.full(_row_shape(x, dim), (n - 1) // 2, dtype=torch.int64,
                      device=x.device)
  if not x.dtype.is_floating_point:
    return middle
  nans = torch.isnan(x).sum(dim, keepdim=True)
  return torch.where(nans > 0, n - nans, middle)


@op(aten.median.dim)
def median_dim(x, dim, keepdim=False):
  _check_not_bool(x, "median_out")
  if x.dim() == 0:
    return x.clone(), torch.zeros((), dtype=torch.int64, device=x.device)
  dim = canonical_dim(dim, x.dim())
  if x.shape[dim] == 0:
    raise IndexError(
        f"median(): Expected reduction dim {dim} to have non-zero size.")
  return _at(x, dim, keepdim, _median_position(x, dim))


@op(aten.median.default)
def median(x):
  _check_not_bool(x, "median_cpu")
  if x.numel() == 0:
    return torch.full((), float("nan"), dtype=x.dtype, device=x.device)
  flat = x.reshape(-1)
  return _at(flat, 0, False, _median_position(flat, 0))[0]
