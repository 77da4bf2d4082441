"""Worker body for the multi-process checkpoint tests (test_pods_checkpoint.py):
one process of a job started as torchrun would (RANK, WORLD_SIZE, ...,
CPU_NUM_DEVICES devices each), `python pods_checkpoint_cases.py <phase>
<outdir>`. Each process calls xr.use_spmd(), joins a gloo group
(`dist.init_process_group('gloo', init_method='xla://')`, ranks = process
indices) and writes what it saw to <outdir>/<phase>_<rank>.json. The file
name keeps pytest from collecting it.

The state is a 2-layer MLP and its Adam state, computed on CPU (one eager
step, seed 0) and placed on the devices with mark_sharding only: nothing
here runs a program, which the CPU plugin refuses across processes. The
weights and their Adam moments are sharded per a layout (a mesh shape and
partition specs); fc2.bias is replicated, fc1.bias stays unsharded.

Phases (each after the one before; the checkpoints live under <outdir>):
* '2x2' (2 processes x 2 devices): saves the state from a 4x1 mesh
  (dcp.save), tries to save a pending value (refused), loads the checkpoint
  into a 2x2 mesh with other specs, saves that through a CheckpointManager
  (step 10), then has process 1 SIGKILL itself half-way through the save of
  step 20.
* '4x1' (4 processes x 1 device): restores step 10 into the 4x1 layout and
  saves it again (dcp.save).
* '1x4' (1 process x 4 devices): loads both checkpoints and reads every
  tensor back whole.
Every value is compared exactly with the CPU state's slices.
"""

import datetime
import json
import os
import signal
import sys

import numpy as np
import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.api import CheckpointException

import torch_xla
import torch_xla.debug.metrics as met
import torch_xla.distributed.spmd as xs
import torch_xla.runtime as xr
from torch_xla import _XLAC, _tensor
from torch_xla.experimental.distributed_checkpoint import (CheckpointManager,
                                                           SPMDLoadPlanner,
                                                           SPMDSavePlanner)

from checkpoint_net import Net

# mesh shape, partition spec of each weight (its Adam moments alike).
LAYOUTS = {
    "4x1": ((4, 1), {"fc1.weight": ("x", "y"), "fc2.weight": ("y", "x")}),
    # fc1's rows stay with their process; fc2's rows move across processes.
    "2x2": ((2, 2), {"fc1.weight": ("x", "y"), "fc2.weight": ("x", "y")}),
}


def cpu_state(seed):
  """(net, Adam) on CPU after one eager step from seed `seed`."""
  torch.manual_seed(seed)
  net = Net()
  opt = torch.optim.Adam(net.parameters(), lr=0.01)
  net(torch.randn(4, 8)).square().sum().backward()
  opt.step()
  return net, opt


def expected_flat(seed=0):
  """fqn -> CPU tensor of the state as DCP flattens it."""
  net, opt = cpu_state(seed)
  flat = {f"model.{k}": v for k, v in net.state_dict().items()}
  for i, s in opt.state_dict()["state"].items():
    for k, v in s.items():
      flat[f"optim.state.{i}.{k}"] = v
  return flat


def xla_state(seed, layout):
  """{'model', 'optim', 'epoch'}: the CPU state of seed `seed` on the
  devices, sharded per `layout` (no program runs)."""
  shape, specs = LAYOUTS[layout]
  mesh = xs.Mesh(np.arange(xr.global_runtime_device_count()), shape,
                 ("x", "y"))
  net, opt = cpu_state(seed)
  xnet = Net()
  xnet.load_state_dict(net.state_dict())
  xnet = xnet.to("xla")
  xopt = torch.optim.Adam(xnet.parameters(), lr=0.01)
  xopt.load_state_dict(opt.state_dict())  # moments follow their params
  for name, p in xnet.named_parameters():
    spec = specs.get(name, (None,) if name == "fc2.bias" else None)
    if spec is None:
      continue  # fc1.bias: unsharded
    xs.mark_sharding(p, mesh, spec)
    for key in ("exp_avg", "exp_avg_sq"):
      xs.mark_sharding(xopt.state[p][key], mesh, spec)
  return {"model": xnet.state_dict(), "optim": xopt.state_dict(),
          "epoch": seed}


def flat_xla(state):
  flat = {f"model.{k}": v for k, v in state["model"].items()}
  for i, s in state["optim"]["state"].items():
    for k, v in s.items():
      flat[f"optim.state.{i}.{k}"] = v
  return flat


def _metric(name):
  data = met.metric_data(name)
  return [0, 0] if data is None else [int(data[0]), int(data[1])]


def local_view(state):
  """fqn -> {'spec', 'boxes' (per local device), 'equal' (each shard
  against the CPU state's slice, exactly)}; reads shards only."""
  want = expected_flat()
  out = {}
  for fqn, t in flat_xla(state).items():
    if not (isinstance(t, torch.Tensor) and t.device.type == "xla"):
      out[fqn] = {"cpu": True, "equal": [torch.equal(t, want[fqn])]}
      continue
    spec = _XLAC._get_xla_sharding_spec(t)
    if not spec:  # unsharded host data: readable whole
      out[fqn] = {"spec": "", "equal": [torch.equal(t.cpu(), want[fqn])]}
      continue
    (shards,) = _XLAC._get_local_shards([t])
    boxes, equal = [], []
    for handle, box, _ in shards:
      boxes.append([list(b) for b in box])
      value = _tensor.wrap(handle).cpu()
      cut = value[tuple(slice(0, b - a) for a, b in box)]
      equal.append(torch.equal(cut, want[fqn][tuple(
          slice(a, b) for a, b in box)]))
    out[fqn] = {"spec": spec, "boxes": boxes, "equal": equal}
  return out


class RecordingReader(dcp.FileSystemReader):
  """A FileSystemReader that records the saved chunks it was asked for:
  [fqn, offsets of the saved chunk]."""

  def __init__(self, path):
    super().__init__(path)
    self.asked = []

  def read_data(self, plan, planner):
    for item in plan.items:
      index = item.storage_index
      self.asked.append([index.fqn, list(index.offset or [])])
    return super().read_data(plan, planner)


def save(state, path):
  """dcp.save with SPMDSavePlanner: what this process read from its
  devices, and the chunks in each file."""
  met.clear_all()
  metadata = dcp.save(state, storage_writer=dcp.FileSystemWriter(path),
                      planner=SPMDSavePlanner())
  return {"inbound": _metric("InboundData"), "files": files_of(metadata)}


def files_of(metadata):
  """file -> [[fqn, offsets, bytes]] of the tensor chunks it holds."""
  files = {}
  for index, info in metadata.storage_data.items():
    md = metadata.state_dict_metadata[index.fqn]
    if not hasattr(md, "chunks"):
      continue
    (chunk,) = [c for c in md.chunks if c.offsets == index.offset] or [None]
    n = 1
    for s in (chunk.sizes if chunk is not None else md.size):
      n *= s
    files.setdefault(info.relative_path, []).append(
        [index.fqn, list(index.offset or []),
         n * md.properties.dtype.itemsize])
  return files


def load(state, path, manager=None, step=None):
  """dcp.load with SPMDLoadPlanner (or manager.restore): the saved chunks
  this process read, what it sent to its devices, its shards after."""
  met.clear_all()
  reader = RecordingReader(path)
  if manager is None:
    dcp.load(state, storage_reader=reader, planner=SPMDLoadPlanner())
  else:
    import torch_xla.experimental.distributed_checkpoint.manager as m

    original = m.dcp.FileSystemReader
    m.dcp.FileSystemReader = lambda p: reader
    try:
      manager.restore(step, state)
    finally:
      m.dcp.FileSystemReader = original
  return {"asked": reader.asked, "outbound": _metric("OutboundData"),
          "epoch": state["epoch"], "local": local_view(state)}


def _kill_self_on_second_shard():
  """Process 1 dies by SIGKILL once it has written one shard of its save
  (the planner resolves each shard just before it is written)."""
  resolved = [0]
  original = SPMDSavePlanner.resolve_data

  def resolve_data(self, write_item):
    resolved[0] += 1
    if resolved[0] == 2:
      os.kill(os.getpid(), signal.SIGKILL)
    return original(self, write_item)

  SPMDSavePlanner.resolve_data = resolve_data


def _error(fn):
  try:
    fn()
  # The message is what the test pins; DCP's CheckpointException (the
  # processes' errors gathered) is a BaseException.
  except (Exception, CheckpointException) as e:
    return f"{type(e).__name__}: {e}"
  return "no error"


_progress = {}  # what main saw before the phase


def phase_2x2(rank, outdir):
  seen = dict(_progress, rank=rank)
  seen["ranks"] = [dist.get_rank(), dist.get_world_size()]
  state = xla_state(0, "4x1")
  seen["saved"] = save(state, os.path.join(outdir, "ck_4x1"))
  seen["saved_local"] = local_view(state)

  # A pending value would need a program across the processes: refused,
  # naming it, on every process (DCP gathers the planners' errors).
  doubled = state["model"]["fc1.weight"] * 2
  seen["pending_save"] = _error(lambda: dcp.save(
      {"doubled": doubled}, planner=SPMDSavePlanner(),
      storage_writer=dcp.FileSystemWriter(os.path.join(outdir, "pending"))))

  target = xla_state(1, "2x2")
  seen["loaded"] = load(target, os.path.join(outdir, "ck_4x1"))

  seen["tiny"] = tiny_round_trip(outdir)

  manager = CheckpointManager(os.path.join(outdir, "mgr"), save_interval=10)
  met.clear_all()
  seen["manager_saved"] = manager.save(10, target)
  seen["manager_inbound"] = _metric("InboundData")
  seen["steps_after_save"] = manager.all_steps()

  # Step 20: process 1 is killed half-way through writing its shards.
  write(outdir, "2x2", rank, seen)  # what it saw until then
  if rank == 1:
    _kill_self_on_second_shard()
  seen["killed_save"] = _error(lambda: manager.save(20, target))
  seen["steps_after_kill"] = manager.all_steps()
  seen["step_20_files"] = sorted(os.listdir(os.path.join(outdir, "mgr",
                                                         "20")))
  seen["restore_20"] = _error(lambda: manager.restore(20, target))
  return seen


def tiny_round_trip(outdir):
  """A 2x3 tensor split by rows over the 4 devices: process 1's devices
  hold only padding. Saved, then loaded into a zero tensor of the same
  layout: {'boxes', 'equal' of this process's shards, 'replaced': whether
  the target took new data}."""
  mesh = xs.Mesh(np.arange(4), (4, 1), ("x", "y"))
  full = torch.arange(6.0).reshape(2, 3)
  t = full.to("xla")
  xs.mark_sharding(t, mesh, ("x", None))
  path = os.path.join(outdir, "tiny")
  dcp.save({"tiny": t}, storage_writer=dcp.FileSystemWriter(path),
           planner=SPMDSavePlanner())
  target = torch.zeros(2, 3).to("xla")
  xs.mark_sharding(target, mesh, ("x", None))
  before = target._xt.data_id
  dcp.load({"tiny": target}, storage_reader=dcp.FileSystemReader(path),
           planner=SPMDLoadPlanner())
  (shards,) = _XLAC._get_local_shards([target])
  out = {"replaced": target._xt.data_id != before, "boxes": [], "equal": []}
  for handle, box, _ in shards:
    out["boxes"].append([list(b) for b in box])
    value = _tensor.wrap(handle).cpu()
    cut = value[tuple(slice(0, b - a) for a, b in box)]
    out["equal"].append(torch.equal(cut, full[tuple(
        slice(a, b) for a, b in box)]))
  return out


def phase_4x1(rank, outdir):
  seen = {"rank": rank, "ranks": [dist.get_rank(), dist.get_world_size()]}
  manager = CheckpointManager(os.path.join(outdir, "mgr"), save_interval=10)
  seen["steps"] = manager.all_steps()
  target = xla_state(1, "4x1")
  seen["loaded"] = load(target, os.path.join(outdir, "mgr", "10"), manager,
                        10)
  seen["saved"] = save(target, os.path.join(outdir, "ck_4x1job"))
  return seen


def phase_1x4(rank, outdir):
  del rank
  want = expected_flat()
  seen = {}
  for name, path, layout in (("from_2x2", os.path.join("mgr", "10"), "4x1"),
                             ("from_4x1", "ck_4x1job", "2x2")):
    target = xla_state(1, layout)
    dcp.load(target, storage_reader=dcp.FileSystemReader(
        os.path.join(outdir, path)), planner=SPMDLoadPlanner())
    seen[name] = {
        fqn: torch.equal(t.cpu() if t.device.type == "xla" else t, want[fqn])
        for fqn, t in flat_xla(target).items()}
    seen[name + "_epoch"] = target["epoch"]
  return seen


PHASES = {"2x2": phase_2x2, "4x1": phase_4x1, "1x4": phase_1x4}


def write(outdir, phase, rank, seen):
  path = os.path.join(outdir, f"{phase}_{rank}.json")
  with open(path + ".tmp", "w") as f:
    json.dump(seen, f)
  os.replace(path + ".tmp", path)


def main(phase, outdir):
  import torch_xla.distributed.xla_backend  # noqa: F401 ('xla://')

  xr.use_spmd()
  rank = xr.process_index()
  before = {}
  if phase == "2x2":  # without torch.distributed: refused, not clobbered
    before["no_world_save"] = _error(lambda: dcp.save(
        {"x": torch.zeros(2)}, planner=SPMDSavePlanner(),
        storage_writer=dcp.FileSystemWriter(os.path.join(outdir, "none"))))
    before["no_world_manager"] = _error(
        lambda: CheckpointManager(os.path.join(outdir, "none"), 1))
  if xr.process_count() > 1:
    dist.init_process_group("gloo", init_method="xla://",
                            timeout=datetime.timedelta(seconds=60))
  if phase == "2x2":
    _progress.update(before)
  write(outdir, phase, rank, PHASES[phase](rank, outdir))
  sys.stdout.flush()
  # A peer may be gone (the killed save): leave without the group's
  # shutdown handshakes.
  os._exit(0)


if __name__ == "__main__":
  main(sys.argv[1], sys.argv[2])
