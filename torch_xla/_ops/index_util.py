"""Helpers shared by the indexing rules (advanced_indexing.py,
index_along_dim.py, gather_scatter.py, masked_ops.py, embedding.py): index
operands as s64 handles, one-dim gathers and scatters, the CPU fallback for
value-dependent shapes."""

import warnings

import torch

from torch_xla import _ir
from torch_xla._ops import registry
from torch_xla._ops._common import check_same_device, code_of, literal, scalar
from torch_xla._tensor import XlaTensor, xt_of


def index_value(t, device):
  """An index tensor as an s64 handle (cpu index tensors are allowed, as in
  eager on accelerators)."""
  if isinstance(t, XlaTensor):
    v = xt_of(t)
  elif isinstance(t, torch.Tensor):
    if t.device.type != "cpu":
      raise RuntimeError(f"indices on {t.device} cannot index an xla tensor")
    from torch_xla._ops import copy_ops
    v = xt_of(copy_ops.from_host(t, device))
  else:
    raise TypeError(f"expected an index tensor, got {type(t).__name__}")
  return _ir.convert(v, _ir.S64)


def operand(t, device, what):
  """A tensor operand as a handle (a cpu scalar becomes a parameter)."""
  check_same_device(what, t)
  if isinstance(t, XlaTensor):
    return xt_of(t)
  return scalar(t.item(), code_of(t.dtype), device)


def check_index_dtype(t, what):
  if t.dtype not in (torch.int64, torch.int32):
    raise RuntimeError(f"{what}: Expected dtype int32 or int64 for index, "
                       f"got {t.dtype}")


def wrap_negative(v, size):
  shape, device = v.dims, v.device
  negative = _ir.compare(v, literal(0, _ir.S64, shape, device), "LT")
  return _ir.select(negative,
                    _ir.binary("add", v, literal(size, _ir.S64, shape,
                                                 device)), v)


def fallback(func, args, kwargs, reason):
  warnings.warn(f"{func}: {reason}; running it on CPU (this executes the "
                f"pending graph)", stacklevel=3)
  return registry.cpu_fallback(func, args, kwargs)


def index_mask(mask, device):
  if isinstance(mask, XlaTensor):
    return xt_of(mask)
  from torch_xla._ops import copy_ops
  return xt_of(copy_ops.from_host(mask, device))


def gather_dim(v, d, idx):
  rank = len(v.dims)
  sizes = list(v.dims)
  sizes[d] = 1
  return _ir.gather(v, idx, offset_dims=[i for i in range(rank) if i != d],
                    collapsed_dims=[d], start_index_map=[d], index_vec_dim=1,
                    slice_sizes=sizes)


def scatter_dim(v, d, idx, updates, kind):
  rank = len(v.dims)
  return _ir.scatter(v, idx, updates,
                     window_dims=[i for i in range(rank) if i != d],
                     inserted_dims=[d], scatter_dim_map=[d], index_vec_dim=1,
                     kind=kind)
