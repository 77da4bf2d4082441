"""Multi-process SPMD on CPU: 2 processes x 2 devices, xr.use_spmd() in
each, a Mesh over all 4 devices of the job (test/python/pods_spmd_cases.py).
What each process holds and transfers is exact: a host tensor's
mark_sharding and the loader's input_sharding send only this process's
shards, the lowering context's device mapping gathers nothing, and running
the partitioned program stops at the CPU plugin's limit with a clear
error (docs/pods.md: the plugin runs no program across processes)."""

import json
import os
import subprocess
import sys

import pytest

from pods_util import GUARD_S, base_env, free_port

HERE = os.path.dirname(os.path.abspath(__file__))
FULL = [[4.0 * r + c for c in range(4)] for r in range(8)]


@pytest.fixture(scope="module")
def job(tmp_path_factory):
  outdir = tmp_path_factory.mktemp("pods_spmd")
  port = free_port()
  procs = [
      subprocess.Popen(
          [sys.executable, os.path.join(HERE, "pods_spmd_cases.py"),
           str(outdir)],
          env=base_env(RANK=rank, WORLD_SIZE=2, LOCAL_RANK=rank,
                       PJRT_LOCAL_PROCESS_RANK=rank,
                       PJRT_LOCAL_PROCESS_COUNT=2, MASTER_ADDR="localhost",
                       XLA_COORDINATOR_PORT=port, CPU_NUM_DEVICES=2),
          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
      for rank in range(2)
  ]
  outputs = []
  for p in procs:
    try:
      outputs.append(p.communicate(timeout=GUARD_S)[0])
    except subprocess.TimeoutExpired:
      p.kill()
      outputs.append(p.communicate()[0])
  seen = []
  for rank in range(2):
    path = os.path.join(outdir, f"spmd_{rank}.json")
    assert os.path.exists(path), outputs[rank][-4000:]
    with open(path) as f:
      seen.append(json.load(f))
  return seen


def test_the_mesh_covers_every_process(job):
  for rank, p in enumerate(job):
    assert p["process_index"] == rank and p["process_count"] == 2
    assert p["global_runtime_device_count"] == 4
    assert p["addressable_runtime_device_count"] == 2
    assert p["spmd_device_count"] == 4  # a Mesh names all 4


def test_mark_sharding_sends_only_this_process_shards(job):
  """8x4 f32 rows split over 4 devices: each process sends its 2 shards
  of 2 rows (2 x 32 bytes), never the other process's, and holds the rows
  of its own devices."""
  for rank, p in enumerate(job):
    assert p["outbound_before_mark"] == [0, 0]  # host data until sharded
    assert p["outbound_rows"] == [2, 64]
    assert [s["rows"] for s in p["rows_shards"]] == \
        [[4 * rank, 4 * rank + 2], [4 * rank + 2, 4 * rank + 4]]
    for s in p["rows_shards"]:
      assert s["values"] == FULL[s["rows"][0]:s["rows"][1]]
    # Split along the processes: the other half lives elsewhere.
    assert p["rows_read"].startswith("RuntimeError: cannot read the value")
    assert ("this process holds only the shards of SPMD devices "
            f"{2 * rank}..{2 * rank + 1}, which do not cover it" in
            p["rows_read"])


def test_a_value_each_process_holds_whole_reads_back(job):
  """Split only along the mesh axis inside each process (each process's
  2 devices hold the two column halves), or replicated: the value reads
  back from this process's own shards."""
  for p in job:
    assert p["outbound_inner"] == [2, 128]  # an 8x2 half per device
    assert p["inner_read"] == FULL
    assert p["replicated_read"] == FULL


def test_loader_sends_only_this_process_part_of_the_global_batch(job):
  """MpDeviceLoader(input_sharding=ShardingSpec(mesh, ('data', None))) over
  a global batch of 8 rows (x 8x4, y 8x1): each process transfers its
  4 rows of each, one shard per device."""
  for rank, p in enumerate(job):
    assert p["outbound_loader"] == [4, 2 * 32 + 2 * 8]
    for s in p["loader_x_shards"]:
      assert s["values"] == [[10 * v for v in row]
                             for row in FULL[s["rows"][0]:s["rows"][1]]]
    assert [s["rows"] for s in p["loader_y_shards"]] == \
        [[4 * rank, 4 * rank + 2], [4 * rank + 2, 4 * rank + 4]]
    for s in p["loader_y_shards"]:
      assert s["values"] == [[float(r)] for r in range(*s["rows"])]


def test_device_parameter_mapping_gathers_nothing(job):
  for p in job:
    assert p["hlo_has_sharding"]
    assert p["mapping_inbound"] is False
    assert p["mapping_gathers"] == 0
    assert p["mapping_spec"] == "{devices=[4,1]0,1,2,3}"
    assert p["mapping_shards"] == p["rows_shards"]


def test_executing_the_partitioned_program_names_the_plugin_limit(job):
  for p in job:
    assert p["execute"].startswith("RuntimeError: "), p["execute"]
    assert ("the program is partitioned over 4 devices of 2 processes" in
            p["execute"])
    assert ("the CPU PJRT plugin runs no program across processes "
            "(" in p["execute"])
    assert "Multiprocess computations aren't implemented" in p["execute"]
    assert "libtpu on a TPU pod" in p["execute"]
    assert p["still_readable"]
