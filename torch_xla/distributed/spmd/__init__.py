"""SPMD sharding (upstream name: torch_xla.distributed.spmd, imported as xs).

See docs/spmd.md: one program over all devices, tensors on a virtual device
(xla:0) that only ever transfers shards.
"""

from torch_xla.distributed.spmd.xla_sharded_tensor import XLAShard, XLAShardedTensor
from torch_xla.distributed.spmd.xla_sharding import (
    Mesh, ShardingSpec, ShardingType, apply_xla_patch_to_nn_linear,
    clear_sharding, get_1d_mesh,
    get_global_mesh, mark_sharding, mark_sharding_with_gradients,
    set_global_mesh)

__all__ = [
    "Mesh", "ShardingSpec", "ShardingType", "XLAShard", "XLAShardedTensor",
    "apply_xla_patch_to_nn_linear",
    "clear_sharding", "get_1d_mesh", "get_global_mesh", "mark_sharding",
    "mark_sharding_with_gradients", "set_global_mesh"
]
