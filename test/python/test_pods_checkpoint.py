"""Sharded checkpoints across processes (issue 30 section 6): a 2-layer MLP
and its Adam state, sharded under SPMD, saved and loaded with
torch.distributed.checkpoint through torch_xla's planners and
CheckpointManager in a 2 x 2 job (processes x devices), a 4 x 1 job and
1 process x 4 devices (test/python/pods_checkpoint_cases.py; the jobs run
one after the other, each reading what the one before saved).

What is exact: which chunks each process writes (its own shards only, each
chunk once in the job) and reads from its devices (InboundData); which
saved chunks each process reads on load (those overlapping its own shards)
and what it sends to its devices (OutboundData: its own shards); every
loaded shard against the CPU state's slice; the commit marker and a
process SIGKILLed mid-save (never listed or restored, the survivor's error
names it)."""

import json
import math
import os
import subprocess
import sys

import pytest

from pods_util import GUARD_S, base_env, free_port

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "pods_checkpoint_cases.py")


def _job(phase, outdir, processes, devices):
  """Runs `phase` as a job of `processes` x `devices`; (return codes,
  outputs)."""
  port = free_port()
  procs = [
      subprocess.Popen(
          [sys.executable, CASES, phase, str(outdir)],
          env=base_env(RANK=rank, WORLD_SIZE=processes, LOCAL_RANK=rank,
                       PJRT_LOCAL_PROCESS_RANK=rank,
                       PJRT_LOCAL_PROCESS_COUNT=processes,
                       MASTER_ADDR="localhost", XLA_COORDINATOR_PORT=port,
                       CPU_NUM_DEVICES=devices,
                       TORCH_XLA_DISTRIBUTED_TIMEOUT=60),
          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
      for rank in range(processes)
  ]
  outputs = []
  for p in procs:
    try:
      outputs.append(p.communicate(timeout=GUARD_S)[0])
    except subprocess.TimeoutExpired:
      p.kill()
      outputs.append(p.communicate()[0] + "\n(hang guard: killed)")
  return [p.returncode for p in procs], outputs


def _results(outdir, phase, count, outputs):
  seen = []
  for rank in range(count):
    path = os.path.join(outdir, f"{phase}_{rank}.json")
    assert os.path.exists(path), outputs[rank][-4000:]
    with open(path) as f:
      seen.append(json.load(f))
  return seen


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
  """The three layouts in order: 2 x 2 (its process 1 dies by SIGKILL at
  the end, by design), 4 x 1, 1 x 4."""
  outdir = tmp_path_factory.mktemp("pods_checkpoint")
  codes, outputs = _job("2x2", outdir, 2, 2)
  out = {"dir": str(outdir), "2x2_codes": codes,
         "2x2": _results(outdir, "2x2", 2, outputs)}
  codes, outputs = _job("4x1", outdir, 4, 1)
  assert codes == [0] * 4, "\n".join(o[-3000:] for o in outputs)
  out["4x1"] = _results(outdir, "4x1", 4, outputs)
  codes, outputs = _job("1x4", outdir, 1, 4)
  assert codes == [0], outputs[0][-4000:]
  out["1x4"] = _results(outdir, "1x4", 1, outputs)[0]
  return out


def _metadata(path):
  import torch.distributed.checkpoint as dcp

  return dcp.FileSystemReader(path).read_metadata()


def _overlaps(a_start, a_size, b_start, b_size):
  return all(s < t + m and t < s + n
             for s, n, t, m in zip(a_start, a_size, b_start, b_size))


def _boxes(local):
  """fqn -> [(starts, sizes)] of a process's shards of each sharded
  tensor (every local device; replicas repeat)."""
  return {
      fqn: [(tuple(a for a, _ in box), tuple(b - a for a, b in box))
            for box in v["boxes"]]
      for fqn, v in local.items() if v.get("spec")
  }


def _check_writes(files, locals_):
  """Each process's file holds only chunks of its own shards, every chunk
  of the job is in exactly one file; returns {rank: (chunks, bytes)} of
  sharded tensors per file."""
  per_rank = {}
  everywhere = []
  for name, chunks in files.items():
    rank = int(name.split("_")[2])
    mine = _boxes(locals_[rank])
    n = nbytes = 0
    for fqn, offsets, size in chunks:
      if fqn not in mine:
        continue  # an unsharded value: written whole by one process
      assert tuple(offsets) in {s for s, _ in mine[fqn]}, (name, fqn, offsets)
      everywhere.append((fqn, tuple(offsets)))
      n, nbytes = n + 1, nbytes + size
    per_rank[rank] = (n, nbytes)
  assert len(everywhere) == len(set(everywhere))  # each chunk once
  for rank, local in enumerate(locals_):
    for fqn, boxes in _boxes(local).items():
      for starts, _ in boxes:
        assert (fqn, starts) in everywhere, (rank, fqn, starts)
  return per_rank


def test_processes_plan_together_over_a_gloo_group(jobs):
  """dist.init_process_group('gloo', init_method='xla://') under SPMD: one
  rank per process (upstream), so DCP's plans meet."""
  for rank, p in enumerate(jobs["2x2"]):
    assert p["ranks"] == [rank, 2]
  for rank, p in enumerate(jobs["4x1"]):
    assert p["ranks"] == [rank, 4]


def test_each_process_writes_only_its_own_shards_2x2(jobs):
  """Saved from a 4x1 mesh in a 2 x 2 job: process r's file holds its own
  devices' shards (fc1 rows 8r..8r+8 as two chunks), each read from its
  device once; a shard of another process is never read or written."""
  seen = jobs["2x2"]
  files = seen[0]["saved"]["files"]
  assert files == seen[1]["saved"]["files"]  # one agreed global plan
  per_rank = _check_writes(files, [p["saved_local"] for p in seen])
  for rank, p in enumerate(seen):
    fc1 = sorted(o for fqn, o, _ in files[f"__{rank}_0.distcp"]
                 if fqn == "model.fc1.weight")
    assert fc1 == [[8 * rank, 0], [8 * rank + 4, 0]]
    assert p["saved"]["inbound"] == list(per_rank[rank])
  # 3 tensors of 16x8 and 3 of 4x16 split over the job, plus the
  # replicated 4-element fc2.bias and its 2 moments, each element once.
  total = sum(b for _, b in per_rank.values())
  assert total == (3 * 128 + 3 * 64 + 3 * 4) * 4


def test_each_process_writes_only_its_own_shards_4x1(jobs):
  seen = jobs["4x1"]
  files = seen[0]["saved"]["files"]
  per_rank = _check_writes(files, [p["loaded"]["local"] for p in seen])
  for rank, p in enumerate(seen):
    assert p["saved"]["inbound"] == list(per_rank[rank])
    fc1 = [o for fqn, o, _ in files[f"__{rank}_0.distcp"]
           if fqn == "model.fc1.weight"]
    assert fc1 == [[4 * rank, 0]]


def test_a_pending_value_is_refused_naming_it(jobs):
  for p in jobs["2x2"]:
    assert "SPMDSavePlanner: doubled ([16, 8], torch.float32) holds a " \
        "pending computation, not device data" in p["pending_save"]
    assert "a program across the processes" in p["pending_save"]


def test_several_processes_without_torch_distributed_are_refused(jobs):
  """Each would save as rank 0 into the same files: refused up front."""
  for p in jobs["2x2"]:
    assert ("SPMDSavePlanner: this process is one of 2 in the job, but "
            "torch.distributed is not initialized" in p["no_world_save"])
    assert p["no_world_manager"].startswith(
        "RuntimeError: CheckpointManager: this process is one of 2 in the "
        "job, but torch.distributed is not initialized")
    assert "init_process_group('gloo', init_method='xla://')" in \
        p["no_world_manager"]


def _check_load(loaded, saved_path, mesh_specs):
  """The saved chunks a process read are exactly those overlapping its
  shards (each once); it sent its devices exactly its shards; every shard
  equals the CPU state's slice."""
  metadata = _metadata(saved_path)
  boxes = _boxes(loaded["local"])
  asked = [(fqn, tuple(o)) for fqn, o in loaded["asked"] if fqn in boxes]
  assert len(asked) == len(set(asked))
  for fqn, mine in boxes.items():
    want = {
        tuple(c.offsets) for c in metadata.state_dict_metadata[fqn].chunks
        if any(_overlaps(c.offsets, c.sizes, s, n) for s, n in mine)
    }
    assert {o for f, o in asked if f == fqn} == want, fqn
  shards = [n for mine in boxes.values() for _, n in mine]
  volume = sum(math.prod(n) for n in shards)
  assert loaded["outbound"] == [len(shards), 4 * volume]
  for fqn, v in loaded["local"].items():
    assert v["equal"] and all(v["equal"]), fqn
    name = fqn.replace("model.", "")
    if name in mesh_specs:
      assert v["spec"] == mesh_specs[name], fqn
  assert loaded["epoch"] == 0


def test_load_2x2_from_a_4x1_mesh_reads_overlaps_and_sends_own_shards(jobs):
  """Into a 2x2 mesh: fc1 (rows by process) reads only this process's 2
  of the 4 saved row chunks; fc2 (rows by process, saved by columns) reads
  all 4 column chunks, 2 of them written by the other process."""
  path = os.path.join(jobs["dir"], "ck_4x1")
  for rank, p in enumerate(jobs["2x2"]):
    loaded = p["loaded"]
    _check_load(loaded, path, {"fc1.weight": "{devices=[2,2]0,1,2,3}",
                               "fc2.weight": "{devices=[2,2]0,1,2,3}"})
    asked = [o for fqn, o in loaded["asked"] if fqn == "model.fc1.weight"]
    assert sorted(asked) == [[8 * rank, 0], [8 * rank + 4, 0]]
    asked = [o for fqn, o in loaded["asked"] if fqn == "model.fc2.weight"]
    assert sorted(asked) == [[0, 0], [0, 4], [0, 8], [0, 12]]


def test_a_process_holding_only_padding_still_takes_the_loaded_value(jobs):
  """2 rows over 4 devices: process 0's devices hold a row each, process
  1's only padding; both processes' targets take the loaded value."""
  for rank, p in enumerate(jobs["2x2"]):
    tiny = p["tiny"]
    assert tiny["replaced"] is True
    assert all(tiny["equal"])
    rows = [box[0] for box in tiny["boxes"]]
    assert rows == ([[0, 1], [1, 2]] if rank == 0 else [[2, 2], [2, 2]])


def test_restore_in_4x1_from_a_2x2_save(jobs):
  """CheckpointManager.restore of the 2 x 2 job's step 10 in a 4 x 1 job:
  each process reads the chunks of its rows only and sends its one
  shard."""
  path = os.path.join(jobs["dir"], "mgr", "10")
  for rank, p in enumerate(jobs["4x1"]):
    assert p["steps"] == [10]
    _check_load(p["loaded"], path, {"fc1.weight": "{devices=[4,1]0,1,2,3}",
                                    "fc2.weight": "{devices=[1,4]0,1,2,3}"})
    asked = [o for fqn, o in p["loaded"]["asked"]
             if fqn == "model.fc1.weight"]
    assert sorted(asked) == [[8 * (rank // 2), 0], [8 * (rank // 2), 4]]


def test_one_process_reads_back_both_checkpoints_whole(jobs):
  p = jobs["1x4"]
  for name in ("from_2x2", "from_4x1"):
    assert len(p[name]) == 16 and all(p[name].values()), p[name]
    assert p[name + "_epoch"] == 0


def test_manager_commits_after_every_process_wrote(jobs):
  for p in jobs["2x2"]:
    assert p["manager_saved"] is True
    assert p["steps_after_save"] == [10]  # both see the marker
  assert sorted(os.listdir(os.path.join(jobs["dir"], "mgr", "10"))) == [
      ".metadata", ".torch_xla_committed", "__0_0.distcp", "__1_0.distcp"]


def test_a_process_killed_mid_save_leaves_no_checkpoint(jobs):
  """Process 1 SIGKILLs itself after writing part of its step-20 shards:
  process 0's save fails naming it (no hang), step 20 is never listed,
  restore refuses it, step 10 stays."""
  assert jobs["2x2_codes"] == [0, -9]
  p = jobs["2x2"][0]
  assert p["killed_save"].startswith(
      "RuntimeError: CheckpointManager.save: step 20 at "), p["killed_save"]
  assert "was not committed: process 1 (pid " in p["killed_save"]
  assert "of the job is gone (crashed or killed)" in p["killed_save"]
  assert p["steps_after_kill"] == [10]
  assert "__1_0.distcp" in p["step_20_files"]  # a partial write
  assert ".torch_xla_committed" not in p["step_20_files"]
  assert ".metadata" not in p["step_20_files"]
  assert p["restore_20"].startswith(
      "ValueError: CheckpointManager.restore: step 20 has no complete "
      "checkpoint")
