"""Sharded checkpoints through torch.distributed.checkpoint (upstream name:
torch_xla.experimental.distributed_checkpoint): planners that save each
process's shards and reshard on load, and a CheckpointManager that only
ever restores complete checkpoints."""

from .manager import CheckpointManager
from .planners import SPMDLoadPlanner, SPMDSavePlanner

__all__ = ["CheckpointManager", "SPMDSavePlanner", "SPMDLoadPlanner"]
