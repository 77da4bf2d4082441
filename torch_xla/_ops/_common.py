"""Helpers shared by the ATen rules: unwrapping, scalars, promotion."""

import torch

from torch_xla import _XLAC, _dtypes, _ir
from torch_xla._tensor import XlaTensor, xt_of

code_of = _dtypes.to_code
dtype_of_code = _dtypes.TORCH_DTYPES


def scalar(value, code: int, device: int):
  """A Python number as a scalar parameter of element type `code`: its value
  is sent when the graph runs, so a new value (a learning rate) never
  recompiles. Shared only with equal numbers from the same user code site
  (python/scalar_leaves.h), so the graph's structure does not depend on
  values; a graph's scalars travel packed, one small vector per dtype,
  uploaded only when they change."""
  return _XLAC._scalar(value, code, device)


def literal(value, code: int, shape=(), device: int = 0):
  """A constant baked into the module (for values that never change)."""
  return _ir.constant(value, code, shape, device)


def literal_like(value, code: int, like):
  """A literal of element type `code` with the shape and device of the
  handle `like`."""
  return _ir.constant(value, code, like.dims, like.device)


def device_of(*tensors) -> int:
  for t in tensors:
    if isinstance(t, XlaTensor):
      return t.device.index
  return 0


def check_same_device(op_name, *tensors):
  """Errors like eager's for a cpu tensor mixed into an xla op (cpu 0-dim
  tensors are allowed, as in eager). The text is the C++ core's."""
  for t in tensors:
    if isinstance(t, torch.Tensor) and type(t) is not XlaTensor and not (
        t.dim() == 0 and t.device.type == "cpu"):  # allowed: no call
      _XLAC._check_same_device(op_name, t)


def result_type(a, b) -> torch.dtype:
  """torch.result_type with fast paths for the common cases."""
  tb = type(b)
  if tb is XlaTensor:
    if type(a) is XlaTensor:
      dtype = a.dtype
      if dtype is b.dtype:
        return dtype
  elif type(a) is XlaTensor:
    dtype = a.dtype
    # A Python number only promotes across categories (int -> float).
    if tb is float:
      if dtype.is_floating_point:
        return dtype
    elif tb is int:
      if dtype is not torch.bool:
        return dtype
  return torch.result_type(a, b)


def broadcast_shapes(*shapes):
  """Numpy broadcasting of shapes (C++: ir/shape_util.h), eager's errors."""
  first = shapes[0]
  if all(s == first for s in shapes):
    return list(first)
  return _XLAC._broadcast_shapes([list(s) for s in shapes])


def operand(x):
  """What the C++ fast paths take: a handle for an 'xla' tensor, a number
  for a Python scalar or a cpu 0-dim tensor."""
  if isinstance(x, XlaTensor):
    return xt_of(x)
  if isinstance(x, torch.Tensor):
    if x.dim() != 0:
      check_same_device("", x)
    return x.item()  # cpu scalars mix with xla tensors, as in eager
  return x


def reduce_dims(dim, rank):
  if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
    return list(range(rank))
  if isinstance(dim, int):
    dim = [dim]
  return sorted(d % rank if rank else 0 for d in dim)


def canonical_dim(dim: int, rank: int) -> int:
  if not -max(rank, 1) <= dim < max(rank, 1):
    raise IndexError(
        f"Dimension out of range (expected to be in range of "
        f"[{-max(rank, 1)}, {max(rank, 1) - 1}], but got {dim})")
  return dim % max(rank, 1)
