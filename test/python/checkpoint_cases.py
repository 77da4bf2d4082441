"""Sharded checkpoint cases. SPMD is chosen before the runtime starts, so
test_distributed_checkpoint.py runs these in a subprocess with
XLA_USE_SPMD=1 and CPU_NUM_DEVICES=4; the file name keeps the main run
from collecting them."""

import os

import numpy as np
import pytest
import torch
import torch.distributed.checkpoint as dcp

import torch_xla
import torch_xla.debug.metrics as met
import torch_xla.distributed.spmd as xs
import torch_xla.runtime as xr
from torch_xla import _XLAC
from torch_xla.experimental.distributed_checkpoint import (CheckpointManager,
                                                           SPMDLoadPlanner,
                                                           SPMDSavePlanner,
                                                           prime_optimizer)

from checkpoint_net import Net

if os.environ.get("XLA_USE_SPMD") != "1":
  pytest.skip("run through test_distributed_checkpoint.py (needs "
              "XLA_USE_SPMD=1 before the runtime starts)",
              allow_module_level=True)

N = xr.global_runtime_device_count()
DEV = torch_xla.device()


def mesh(shape):
  return xs.Mesh(np.arange(N), shape, ("x", "y"))


def sharded_net(seed, m):
  """Net on the virtual device, weights sharded over mesh `m`, trained one
  SGD-with-momentum step (so the optimizer has state)."""
  torch.manual_seed(seed)
  net = Net().to(DEV)
  xs.mark_sharding(net.fc1.weight, m, ("x", "y"))
  xs.mark_sharding(net.fc2.weight, m, ("y", "x"))
  opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
  x = torch.randn(4, 8, generator=torch.Generator().manual_seed(seed))
  net(x.to(DEV)).sum().backward()
  opt.step()
  torch_xla.sync()
  return net, opt


def state(net, opt):
  return {"model": net.state_dict(), "optim": opt.state_dict(), "epoch": 7}


def host(tree):
  return {k: v.cpu() for k, v in tree.items()}


def test_round_trip_across_meshes(tmp_path):
  """Saved from a 4x1 mesh, restored into a 2x2 one (and other values):
  identical tensors, the targets keep their own shardings."""
  net, opt = sharded_net(0, mesh((N, 1)))
  manager = CheckpointManager(tmp_path, save_interval=5)
  assert manager.save(10, state(net, opt))
  want_model = host(net.state_dict())
  want_momentum = [opt.state[p]["momentum_buffer"].cpu()
                   for p in net.parameters()]

  net2, opt2 = sharded_net(1, mesh((2, N // 2)))
  spec = _XLAC._get_xla_sharding_spec(net2.fc1.weight)
  target = state(net2, opt2)
  target["epoch"] = 0
  manager.restore(10, target)
  net2.load_state_dict(target["model"])
  opt2.load_state_dict(target["optim"])
  assert target["epoch"] == 7
  for name, value in host(net2.state_dict()).items():
    assert torch.equal(value, want_model[name]), name
  for p, want in zip(net2.parameters(), want_momentum):
    assert torch.equal(opt2.state[p]["momentum_buffer"].cpu(), want)
  assert _XLAC._get_xla_sharding_spec(net2.fc1.weight) == spec
  assert spec == "{devices=[2,2]0,1,2,3}"


def test_each_shard_is_read_and_written_once(tmp_path):
  """A tensor sharded 4 ways and one replicated over 2 of a 2x2 mesh: the
  checkpoint holds each element once, read from the devices once."""
  w = torch.arange(64.0).reshape(16, 4).to(DEV)
  xs.mark_sharding(w, mesh((N, 1)), ("x", None))
  r = torch.arange(32.0).reshape(8, 4).to(DEV)
  xs.mark_sharding(r, mesh((2, N // 2)), ("x", None))  # 2 copies per shard
  torch_xla.sync()
  met.clear_all()
  metadata = dcp.save({"w": w, "r": r},
                      storage_writer=dcp.FileSystemWriter(tmp_path),
                      planner=SPMDSavePlanner())
  chunks = metadata.state_dict_metadata["w"].chunks
  assert sorted(tuple(c.offsets) for c in chunks) == [(0, 0), (4, 0), (8, 0),
                                                      (12, 0)]
  assert [tuple(c.sizes) for c in chunks] == [(4, 4)] * 4
  assert len(metadata.state_dict_metadata["r"].chunks) == 2
  assert met.metric_data("InboundData")[1] == (64 + 32) * 4

  w2 = torch.zeros(16, 4).to(DEV)
  xs.mark_sharding(w2, mesh((2, N // 2)), ("x", "y"))
  r2 = torch.zeros(8, 4).to(DEV)
  dcp.load({"w": w2, "r": r2}, storage_reader=dcp.FileSystemReader(tmp_path),
           planner=SPMDLoadPlanner())
  assert torch.equal(w2.cpu(), torch.arange(64.0).reshape(16, 4))
  assert torch.equal(r2.cpu(), torch.arange(32.0).reshape(8, 4))


def test_a_cut_short_checkpoint_is_never_loaded(tmp_path):
  net, opt = sharded_net(0, mesh((N, 1)))
  manager = CheckpointManager(tmp_path, save_interval=1, max_to_keep=2)
  for step in (1, 2, 3):
    manager.save(step, state(net, opt))
  assert manager.all_steps() == [2, 3]  # max_to_keep
  # Step 4's data is written but the save stops before the commit (as when
  # a process is killed mid-save).
  dcp.save(state(net, opt), storage_writer=dcp.FileSystemWriter(
      os.path.join(tmp_path, "4")), planner=SPMDSavePlanner())
  assert manager.all_steps() == [2, 3]
  with pytest.raises(ValueError, match="step 4 has no complete checkpoint"):
    manager.restore(4, state(net, opt))


def test_prime_optimizer_then_restore(tmp_path):
  """A fresh Adam has no state to load into; prime_optimizer gives it
  moments sharded like their parameters, and a restore fills them with
  the saved values."""
  torch.manual_seed(0)
  net = Net().to(DEV)
  xs.mark_sharding(net.fc1.weight, mesh((N, 1)), ("x", "y"))
  opt = torch.optim.Adam(net.parameters(), lr=0.1)
  net(torch.randn(4, 8).to(DEV)).sum().backward()
  opt.step()
  torch_xla.sync()
  manager = CheckpointManager(tmp_path, save_interval=1)
  manager.save(1, state(net, opt))
  want = {k: {n: v.cpu() for n, v in s.items() if torch.is_tensor(v)}
          for k, s in opt.state_dict()["state"].items()}

  torch.manual_seed(1)
  net2 = Net().to(DEV)
  xs.mark_sharding(net2.fc1.weight, mesh((2, N // 2)), ("x", "y"))
  opt2 = torch.optim.Adam(net2.parameters(), lr=0.1)
  assert not opt2.state_dict()["state"]
  assert prime_optimizer(opt2) is opt2
  moment = opt2.state[net2.fc1.weight]["exp_avg"]
  assert _XLAC._get_xla_sharding_spec(moment) == "{devices=[2,2]0,1,2,3}"
  target = state(net2, opt2)
  manager.restore(1, target)
  opt2.load_state_dict(target["optim"])
  for k, s in opt2.state_dict()["state"].items():
    for n, v in s.items():
      if torch.is_tensor(v):
        assert torch.equal(v.cpu(), want[k][n]), (k, n)
  assert _XLAC._get_xla_sharding_spec(
      opt2.state[net2.fc1.weight]["exp_avg"]) == "{devices=[2,2]0,1,2,3}"


def test_uneven_shards_round_trip(tmp_path):
  """A 10x3 tensor over 4 row shards (3, 3, 3, 1 rows; the devices' buffers
  are padded) saved without the padding and loaded into a 2x2 mesh (5 rows,
  2 and 1 columns per device)."""
  full = torch.arange(30.0).reshape(10, 3)
  w = full.to(DEV)
  xs.mark_sharding(w, mesh((N, 1)), ("x", None))
  metadata = dcp.save({"w": w}, storage_writer=dcp.FileSystemWriter(tmp_path),
                      planner=SPMDSavePlanner())
  chunks = sorted((tuple(c.offsets), tuple(c.sizes))
                  for c in metadata.state_dict_metadata["w"].chunks)
  assert chunks == [((0, 0), (3, 3)), ((3, 0), (3, 3)), ((6, 0), (3, 3)),
                    ((9, 0), (1, 3))]
  w2 = torch.zeros(10, 3).to(DEV)
  xs.mark_sharding(w2, mesh((2, N // 2)), ("x", "y"))
  dcp.load({"w": w2}, storage_reader=dcp.FileSystemReader(tmp_path),
           planner=SPMDLoadPlanner())
  assert torch.equal(w2.cpu(), full)
  assert _XLAC._get_xla_sharding_spec(w2) == "{devices=[2,2]0,1,2,3}"
