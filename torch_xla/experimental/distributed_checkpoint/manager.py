"""CheckpointManager: periodic sharded checkpoints of a training job
(upstream name: torch_xla.experimental.distributed_checkpoint).

Design. Step `s` is saved with torch.distributed.checkpoint into
`<path>/<s>/` (SPMDSavePlanner: each process writes its own shards). A
checkpoint counts only once it is committed: after every process has
written (DCP's save ends with a collective finish), process 0 writes
`<path>/<s>/.torch_xla_committed`. A save cut short (a killed process, a
full disk) leaves no marker, so all_steps() never lists it and restore()
refuses it. Old committed steps beyond `max_to_keep` are deleted, oldest
first.

`save_async` saves synchronously here (the shards are read from the devices
and written before it returns); the upstream signature is kept.
"""

import os
import shutil
from typing import List, Optional

import torch.distributed as dist
import torch.distributed.checkpoint as dcp

from torch_xla.experimental.distributed_checkpoint.planners import (
    SPMDLoadPlanner, SPMDSavePlanner)

_COMMITTED = ".torch_xla_committed"


class CheckpointManager:
  """Saves and restores a state dict every `save_interval` steps.

  Args:
    path: the folder holding one sub-folder per saved step.
    save_interval: should_save(step) is true every that many steps.
    max_to_keep: how many committed checkpoints to keep (0: all).
    max_pending_async: accepted for upstream compatibility.
    process_group: the group that saves together (default: torch.distributed's
      default group when initialized, else this process alone).
    chkpt_on_preemption: accepted for upstream compatibility.
  """

  def __init__(self, path: str, save_interval: int, max_to_keep: int = 0,
               max_pending_async: int = 1,
               process_group: Optional[dist.ProcessGroup] = None,
               chkpt_on_preemption: bool = True):
    del max_pending_async, chkpt_on_preemption
    if save_interval < 1:
      raise ValueError(f"CheckpointManager: save_interval must be at least "
                       f"1, got {save_interval}")
    self.base_path = os.fspath(path)
    self.save_interval = save_interval
    self.max_to_keep = max_to_keep
    self.pg = process_group
    os.makedirs(self.base_path, exist_ok=True)

  def _path(self, step: int) -> str:
    return os.path.join(self.base_path, str(step))

  def _is_coordinator(self) -> bool:
    if not dist.is_initialized():
      return True
    return dist.get_rank(self.pg) == 0

  def should_save(self, step: int) -> bool:
    """Whether `step` is a saving step (a multiple of save_interval)."""
    return step % self.save_interval == 0

  def save(self, step: int, state_dict, force: bool = False) -> bool:
    """Saves `state_dict` as step `step` if should_save(step) or force.

    Returns:
      Whether a checkpoint was taken.
    """
    if not force and not self.should_save(step):
      return False
    path = self._path(step)
    if self._is_coordinator() and os.path.exists(path):
      shutil.rmtree(path)  # an older, possibly incomplete attempt
    if dist.is_initialized():
      dist.barrier(self.pg)
    dcp.save(state_dict, storage_writer=dcp.FileSystemWriter(path),
             planner=SPMDSavePlanner(), process_group=self.pg,
             no_dist=not dist.is_initialized())
    if self._is_coordinator():
      with open(os.path.join(path, _COMMITTED), "w") as f:
        f.write(str(step))
      self._prune()
    return True

  def save_async(self, step: int, state_dict, force: bool = False) -> bool:
    """As save (synchronous here)."""
    return self.save(step, state_dict, force)

  def restore(self, step: int, state_dict) -> None:
    """Loads step `step` into `state_dict` in place (its 'xla' tensors keep
    their own shardings: the checkpoint is resharded as needed).

    Raises:
      ValueError: the step was never committed (missing or cut short).
    """
    if step not in self.all_steps():
      raise ValueError(
          f"CheckpointManager.restore: step {step} has no complete "
          f"checkpoint in {self.base_path} (committed steps: "
          f"{self.all_steps()}); a save that was cut short is never loaded")
    dcp.load(state_dict, storage_reader=dcp.FileSystemReader(
        self._path(step)), planner=SPMDLoadPlanner(), process_group=self.pg,
             no_dist=not dist.is_initialized())

  def all_steps(self) -> List[int]:
    """The committed steps, oldest first."""
    steps = []
    for name in os.listdir(self.base_path):
      if name.isdigit() and os.path.exists(
          os.path.join(self.base_path, name, _COMMITTED)):
        steps.append(int(name))
    return sorted(steps)

  def join(self) -> None:
    """Waits for pending saves (none: saves are synchronous here)."""

  def _prune(self) -> None:
    if self.max_to_keep <= 0:
      return
    for step in self.all_steps()[:-self.max_to_keep]:
      shutil.rmtree(self._path(step), ignore_errors=True)
