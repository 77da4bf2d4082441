"""Pairwise distances: cdist and pdist (aten._cdist_forward,
aten._pdist_forward) and their backwards.

Both are the p-norm of the difference of every pair of rows (not eager's
matrix-product form of the Euclidean case, which cancels badly when rows
are close: this one is exact up to the norm's rounding). cdist computes the
broadcast difference [..., P, R, M] here. pdist, the pairs i < j of its
single input in row-major order, and its backward are one call each into
their C++ builders (torch_xla/csrc/ops/distance_ops.h), which gather each
pair's two rows (O(pairs * M), not a full cdist). The backwards are the
p-norm's gradient with eager's conventions (0 where a distance is 0).
"""

import math

import torch

from torch_xla import _XLAC
from torch_xla._dtypes import scalar_type_name
from torch_xla._ops.registry import aten, op


def _norm(diff, p):
  """The p-norm over the last dim of `diff`, eager's cases."""
  if p == 0:
    return (diff != 0).to(diff.dtype).sum(-1)
  if p == math.inf:
    return diff.abs().amax(-1)
  if p == 1:
    return diff.abs().sum(-1)
  if p == 2:
    return diff.mul(diff).sum(-1).sqrt()
  return diff.abs().pow(p).sum(-1).pow(1.0 / p)


def _check_cdist(x1, x2, p):
  if x1.dim() < 2 or x2.dim() < 2:
    raise RuntimeError(
        f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D, X2 "
        f"got: {x2.dim()}D")
  if x1.shape[-1] != x2.shape[-1]:
    raise RuntimeError(
        f"X1 and X2 must have the same number of columns. X1: "
        f"{x1.shape[-1]} X2: {x2.shape[-1]}")
  for name, t in (("X1", x1), ("X2", x2)):
    if not t.dtype.is_floating_point:
      raise RuntimeError(f"cdist only supports floating-point dtypes, {name} "
                         f"got: {scalar_type_name(t.dtype)}")
  if p < 0:
    raise RuntimeError(
        f"cdist only supports non-negative p values, got {p}")


def _cdist(x1, x2, p):
  return _norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), p)


@op(aten._cdist_forward.default)
def cdist_forward(x1, x2, p, compute_mode=None):
  _check_cdist(x1, x2, p)
  return _cdist(x1, x2, p)


@op(aten._cdist_backward.default)
def cdist_backward(grad, x1, x2, p, cdist):
  """d/dx1 of sum(grad * cdist): each pair's norm gradient weighted by its
  grad, summed over x2's rows; 0 where a distance is 0 (eager's
  convention)."""
  if p == 0:
    return torch.zeros_like(x1)
  diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
  dist = cdist.unsqueeze(-1)
  zero = torch.zeros_like(diff)
  if p == 1:
    term = diff.sign()
  elif p == 2:
    term = diff / dist
  elif p == math.inf:
    term = diff.sign() * (diff.abs() == dist).to(diff.dtype)
  else:
    term = diff.sign() * diff.abs().pow(p - 1) / dist.pow(p - 1)
    term = torch.where(diff == 0, zero, term)
  term = torch.where(dist == 0, zero, term)
  return (grad.unsqueeze(-1) * term).sum(-2).sum_to_size(x1.shape)


@op(aten._pdist_forward.default)
def pdist_forward(x, p=2):
  if x.dim() != 2:
    raise RuntimeError(
        f"pdist only supports 2D tensors, got: {x.dim()}D")
  if not x.dtype.is_floating_point:
    raise RuntimeError(
        f"pdist only supports floating-point dtypes")
  if p < 0:
    raise RuntimeError("pdist only supports non-negative p values")
  return _XLAC._pdist(x, float(p))  # ops/distance_ops.h


@op(aten._pdist_backward.default)
def pdist_backward(grad, x, p, pdist):
  """Each pair's norm gradient added to its first row and subtracted from
  its second (ops/distance_ops.h)."""
  return _XLAC._pdist_backward(grad, x, float(p), pdist)
