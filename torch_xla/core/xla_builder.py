"""Building blocks for staged-out computations (upstream name:
torch_xla.core.xla_builder)."""

import torch

from torch_xla import _XLAC, _dtypes


class Shape:
  """Element type and dimensions of an array."""

  def __init__(self, dims, dtype: torch.dtype = torch.float32):
    self.dims = list(dims)
    self.dtype = dtype

  def __repr__(self):
    return f"Shape({self.dims}, {self.dtype})"


def create_placeholder_tensor(shape, dtype: torch.dtype,
                              sharding=None) -> torch.Tensor:
  """An 'xla' tensor with this shape and dtype and no data.

  It traces and lowers like any tensor (to a computation parameter keyed by
  its own unique ID), allocates nothing and transfers nothing; reading its
  value raises RuntimeError.

  Args:
    shape: the dimensions (sequence of ints).
    dtype: the torch element type.
    sharding: under SPMD, how the value it stands for is split over the
      devices: an xs.ShardingSpec or an _XLAC.OpSharding. Lowering puts it
      on the parameter, so a sharded computation stages out with no data.

  Returns:
    The placeholder tensor.

  Example:
    p = create_placeholder_tensor((2, 3), torch.bfloat16)
    ctx = torch_xla._XLAC.lowering.LoweringContext("f")
    ctx.build([p.sin()])
  """
  _dtypes.to_code(dtype)  # a clear error for unsupported dtypes
  placeholder = _XLAC._xla_create_placeholder_tensor(Shape(shape, dtype))
  if sharding is None:
    return placeholder
  if isinstance(sharding, _XLAC.OpSharding):
    _XLAC._xla_mark_sharding(placeholder, sharding)
  elif hasattr(sharding, "apply"):
    sharding.apply(placeholder)
  else:
    raise ValueError(f"create_placeholder_tensor: sharding must be an "
                     f"xs.ShardingSpec or _XLAC.OpSharding, got "
                     f"{type(sharding).__name__}")
  return placeholder
