"""CheckpointManager: periodic sharded checkpoints of a training job
(upstream name: torch_xla.experimental.distributed_checkpoint).

Design. Step `s` is saved with torch.distributed.checkpoint into
`<path>/<s>/` (SPMDSavePlanner: each process writes its own shards to its
own file). The processes of a job plan and finish the save together over
a CPU process group: by default a gloo group made from torch.distributed's
default group (every process calls `dist.init_process_group('gloo',
init_method='xla://')` first, as upstream), whose calls wait at most
TORCH_XLA_DISTRIBUTED_TIMEOUT seconds. A checkpoint counts only once it is
committed: DCP's save ends when the coordinator has gathered every
process's write results and written the metadata; then process 0 writes
`<path>/<s>/.torch_xla_committed`, and a barrier makes every process's
save() return only after that. A save cut short (a killed process, a full
disk) leaves no marker, so all_steps() never lists it and restore() refuses
it; the surviving processes' save() raises an error naming the lost
process instead of waiting. Old committed steps beyond `max_to_keep` are
deleted, oldest first.

`save_async` saves synchronously here (the shards are read from the devices
and written before it returns); the upstream signature is kept.
"""

import datetime
import os
import shutil
from typing import List, Optional

import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.api import CheckpointException

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
    num_of_threads: threads writing each process's files.
    process_group: the CPU group that saves together (default: a new gloo
      group over torch.distributed's default group when it is initialized,
      else this process alone; a job of several processes must initialize
      torch.distributed first).
    chkpt_on_preemption: accepted for upstream compatibility.
  """

  def __init__(self, path: str, save_interval: int, max_to_keep: int = 0,
               max_pending_async: int = 1, num_of_threads: int = 1,
               process_group: Optional[dist.ProcessGroup] = None,
               chkpt_on_preemption: bool = True):
    del max_pending_async, chkpt_on_preemption
    if save_interval < 1:
      raise ValueError(f"CheckpointManager: save_interval must be at least "
                       f"1, got {save_interval}")
    self.base_path = os.fspath(path)
    self.save_interval = save_interval
    self.max_to_keep = max_to_keep
    self.num_of_threads = num_of_threads
    self.pg = process_group
    if self.pg is None and dist.is_initialized():
      from torch_xla.distributed import _world

      timeout = datetime.timedelta(seconds=_world.timeout_s())
      self.pg = dist.new_group(backend="gloo", timeout=timeout)
    elif self.pg is None and _process_count() > 1:
      raise RuntimeError(
          f"CheckpointManager: this process is one of {_process_count()} in "
          f"the job, but torch.distributed is not initialized, so the "
          f"processes cannot save together. Call "
          f"dist.init_process_group('gloo', init_method='xla://') in every "
          f"process first")
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
    self._together("save", step, self._barrier)
    self._together("save", step, lambda: dcp.save(
        state_dict, storage_writer=dcp.FileSystemWriter(
            path, thread_count=self.num_of_threads),
        planner=SPMDSavePlanner(), process_group=self.pg,
        no_dist=not dist.is_initialized()))
    # Every process has written (DCP's save ends with the coordinator
    # gathering every write result): commit, then let every process see it.
    if self._is_coordinator():
      with open(os.path.join(path, _COMMITTED), "w") as f:
        f.write(str(step))
    self._together("save", step, self._barrier)
    if self._is_coordinator():
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
    self._together("restore", step, lambda: dcp.load(
        state_dict, storage_reader=dcp.FileSystemReader(self._path(step)),
        planner=SPMDLoadPlanner(), process_group=self.pg,
        no_dist=not dist.is_initialized()))

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

  def _barrier(self) -> None:
    if dist.is_initialized():
      dist.barrier(self.pg)

  def _together(self, op, step, fn):
    """Runs `fn`, a part of a save or restore that every process of the job
    takes part in; when it fails in a job of several processes, the error
    names the processes of this host that are gone."""
    try:
      return fn()
    # gloo raises several kinds; DCP gathers the processes' errors into a
    # CheckpointException (a BaseException).
    except (Exception, CheckpointException) as e:
      if _process_count() == 1:
        raise
      from torch_xla.core import _cpu_transport
      from torch_xla.distributed import _world

      _cpu_transport._record_pids()
      gone = _cpu_transport._gone_processes()
      where = (f"CheckpointManager.{op}: step {step} at {self._path(step)}"
               + (" was not committed" if op == "save" else ""))
      if gone:
        who = ", ".join(f"process {i} (pid {pid})" for i, pid in gone)
        raise RuntimeError(
            f"{where}: {who} of the job is gone (crashed or killed), so the "
            f"processes cannot finish it together"
            + ("; the partial checkpoint is never listed by all_steps() or "
               "restored" if op == "save" else "")
            + f". It failed with: {type(e).__name__}: {e}") from e
      raise RuntimeError(
          f"{where}: the processes did not finish it together within "
          f"TORCH_XLA_DISTRIBUTED_TIMEOUT={_world.timeout_s():g} s (every "
          f"process must call it with the same step). It failed with: "
          f"{type(e).__name__}: {e}") from e

  def _prune(self) -> None:
    if self.max_to_keep <= 0:
      return
    for step in self.all_steps()[:-self.max_to_keep]:
      shutil.rmtree(self._path(step), ignore_errors=True)


def _process_count() -> int:
  import torch_xla.runtime as xr

  return xr.process_count()
