"""XLAShardedTensor: a view of a sharded 'xla' tensor with its shards.

The tensor itself (`global_tensor`) is an ordinary 'xla' tensor on the
virtual device; this object adds what SPMD users inspect: the sharding
spec, its type and the per-device shards (tensors on xla:d, read without
gathering).
"""

from dataclasses import dataclass
from typing import List, Tuple

import torch

from torch_xla import _XLAC, _tensor


@dataclass
class XLAShard:
  """Device `device`'s part of a sharded tensor: `data` (an 'xla' tensor on
  that device, of the shard shape) holds `indices` (one slice per
  dimension) of the global tensor at its start; when a dimension does not
  divide evenly the rest of `data` is padding (see unpadded_data)."""
  data: torch.Tensor
  indices: Tuple[slice, ...]
  device: str

  @property
  def unpadded_data(self) -> torch.Tensor:
    """`data` without the padding an uneven tiling adds at the end of the
    last shards (the elements `indices` names)."""
    sizes = [max(0, i.stop - i.start) for i in self.indices]
    if list(self.data.shape) == sizes:
      return self.data
    return self.data[tuple(slice(0, n) for n in sizes)]


class XLAShardedTensor:
  """A sharded 'xla' tensor and its shards.

  Attribute access not defined here goes to `global_tensor`, so the object
  can be used where the tensor's methods are needed.
  """

  def __init__(self, global_tensor: torch.Tensor, mesh_shape=None,
               partition_spec=None):
    self.global_tensor = global_tensor
    self.mesh_shape = mesh_shape
    self.partition_spec = partition_spec

  @property
  def sharding_spec(self) -> str:
    return _XLAC._get_xla_sharding_spec(self.global_tensor)

  @property
  def sharding_type(self):
    from torch_xla.distributed.spmd.xla_sharding import ShardingType
    kind = _XLAC._get_xla_sharding_type(self.global_tensor)
    return None if kind is None else ShardingType(kind)

  @property
  def local_shards(self) -> List[XLAShard]:
    (shards,) = _XLAC._get_local_shards([self.global_tensor])
    return [
        XLAShard(
            _tensor.wrap(handle), tuple(slice(a, b) for a, b in box),
            f"xla:{device}") for handle, box, device in shards
    ]

  def __getattr__(self, name):
    return getattr(self.global_tensor, name)

  def __repr__(self):
    return (f"XLAShardedTensor({self.sharding_spec}, "
            f"global_tensor={self.global_tensor!r})")
