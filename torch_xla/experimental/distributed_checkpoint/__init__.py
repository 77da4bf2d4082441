"""Sharded checkpoints through torch.distributed.checkpoint (upstream name:
torch_xla.experimental.distributed_checkpoint): planners that save each
process's shards and reshard on load, a CheckpointManager that only ever
restores complete checkpoints, and prime_optimizer (an optimizer's state
before a restore)."""

from .manager import CheckpointManager
from .planners import SPMDLoadPlanner, SPMDSavePlanner
from .util import prime_optimizer

__all__ = [
    "CheckpointManager", "SPMDSavePlanner", "SPMDLoadPlanner",
    "prime_optimizer"
]
