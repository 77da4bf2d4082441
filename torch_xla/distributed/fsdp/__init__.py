"""FSDP for XLA (upstream name: torch_xla.distributed.fsdp).

Here: the auto-wrap policies (`wrap`) and `checkpoint_module`, which FSDPv2
(torch_xla.experimental.spmd_fully_sharded_data_parallel) uses. Upstream's
first FSDP (XlaFullyShardedDataParallel, per-process shards with explicit
collectives) is not provided: FSDPv2 shards the same way through SPMD.
"""

from torch_xla.distributed.fsdp.utils import checkpoint_module
from torch_xla.distributed.fsdp.wrap import (
    always_wrap_policy, lambda_auto_wrap_policy, recursive_wrap,
    size_based_auto_wrap_policy, transformer_auto_wrap_policy)

__all__ = [
    "checkpoint_module", "always_wrap_policy", "lambda_auto_wrap_policy",
    "recursive_wrap", "size_based_auto_wrap_policy",
    "transformer_auto_wrap_policy"
]
