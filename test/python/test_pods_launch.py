"""Multi-process jobs on one machine: torch_xla.launch, the job's layout
(global device list, ordinals) and its faults. Each test starts fresh
interpreters (test/python/pods_cases.py), as a pod starts its hosts."""

import json
import os
import time

import pytest

from pods_util import (finish, free_port, launch, results, start_job,
                       start_process)


def _alive(pid):
  try:
    os.kill(pid, 0)
  except ProcessLookupError:
    return False
  with open(f"/proc/{pid}/stat") as f:
    return f.read().rsplit(")", 1)[1].split()[0] != "Z"


def test_layout_2x2_against_1x4(tmp_path):
  """2 processes x 2 devices started by hand (RANK/WORLD_SIZE): one global
  list of 4 devices with distinct global ids, each process driving its own
  2; 1 process x 4 sees the same count, all addressable. Such a process is
  no replica itself: its collectives outside replica threads are refused;
  a replica thread that raises stops its partner waiting in a collective,
  and spawn_threads reports the raising thread's own error."""
  outputs = finish(start_job("by_hand_2x2", tmp_path, 2, 2))
  for p in results(tmp_path, "no_threads", 2):
    assert "this process drives 2 devices in a 2-process job; run a " \
           "replica thread per device" in p["error"], outputs
  assert [p["error"] for p in results(tmp_path, "one_raises", 2)] == [
      "ValueError: boom in replica 1", "ValueError: boom in replica 3"]
  two = results(tmp_path, "ordinals", 2)
  assert all(p["process_count"] == 2 for p in two), outputs
  assert [p["process_index"] for p in two] == [0, 1]
  for p in two:
    assert p["global_runtime_device_count"] == 4
    assert p["addressable_runtime_device_count"] == 2
    assert [d["process_index"] for d in p["global_devices"]] == [0, 0, 1, 1]
    assert p["global_devices"] == two[0]["global_devices"]
  ids = [d["id"] for d in two[0]["global_devices"]]
  assert len(set(ids)) == 4
  assert [p["global_ordinal"] for p in two] == [0, 2]
  assert [p["value"] for p in two] == [[1.0] * 3, [2.0] * 3]

  one_dir = tmp_path / "one"
  one_dir.mkdir()
  finish(start_job("ordinals", one_dir, 1, 4))
  (one,) = results(one_dir, "ordinals", 1)
  assert one["process_count"] == 1 and one["world_size"] == 1
  assert one["global_runtime_device_count"] == 4
  assert one["addressable_runtime_device_count"] == 4
  assert [d["process_index"] for d in one["global_devices"]] == [0] * 4


@pytest.mark.parametrize("devices, env, replicas", [
    (2, {}, 2),  # 2 processes x 1 device
    (4, {"PJRT_LOCAL_PROCESS_COUNT": 2}, 4),  # 2 x 2, a thread per device
])
def test_raising_worker_stops_the_launch(tmp_path, devices, env, replicas):
  """The last replica raises while the others compute (sleep): the launch
  ends within the grace period with its traceback, and no worker is left.
  In a 2 x 2 launch the raising replica thread ends its process at once,
  though its partner thread is busy."""
  run = launch("raises", tmp_path, devices, **env)
  assert run.returncode != 0
  assert "WorkerFailedError: process 1 of 2 raised an exception" in run.stderr
  assert f"ValueError: boom from worker {replicas - 1}" in run.stderr
  assert "Worker 1's traceback" in run.stderr
  # Worker 0 was sleeping for minutes: the launch stopped it (no orphan).
  pids = [p["pid"] for p in results_of(tmp_path, "raises")]
  assert len(pids) >= 2
  deadline = time.monotonic() + 10
  while any(_alive(p) for p in pids) and time.monotonic() < deadline:
    time.sleep(0.2)
  assert not any(_alive(p) for p in pids)


def test_unreachable_coordinator_is_a_clear_error(tmp_path):
  """A process that cannot reach the coordinator fails after the timeout
  with the address and the variables to check, never hangs."""
  port = free_port()  # nobody serves it: rank 0 never starts
  proc = start_process("unreachable", tmp_path, 1, 2, port, 1,
                       TORCH_XLA_DISTRIBUTED_TIMEOUT=3)
  output = finish([proc])[0]
  (result,) = results_of(tmp_path, "unreachable")
  assert (f"process 1 of 2 could not reach the coordinator at "
          f"localhost:{port} within 3 s" in result["error"]), output
  assert "XLA_COORDINATOR_PORT" in result["error"]


def results_of(outdir, case):
  """What the workers of `case` that got that far wrote."""
  out = []
  for name in sorted(os.listdir(outdir)):
    if name.startswith(case + "_") and name.endswith(".json"):
      with open(os.path.join(outdir, name)) as f:
        out.append(json.load(f))
  return out


def test_killed_worker_is_named_by_the_others(tmp_path):
  procs = start_job("killed", tmp_path, 2, 1, TORCH_XLA_DISTRIBUTED_TIMEOUT=10)
  outputs = finish(procs)
  assert procs[1].returncode == -9
  (result,) = results_of(tmp_path, "killed")
  assert "all_reduce: process 1 (pid " in result["error"], outputs[0]
  assert "is gone (crashed or killed)" in result["error"]


def test_replica_meetings_give_each_thread_its_own_result():
  """_replica_threads.combine, the local half of the 2 x 2 host route: in
  2,000 meetings of 2 replica threads arriving in random order, with random
  delays before arriving and inside the work, each thread gets the result
  the last to arrive computed for it from that meeting's payloads (never
  another meeting's, never a stale one), and no meeting is left behind."""
  import random
  import threading

  from torch_xla import _replica_threads

  state = _replica_threads._Replicas(2)
  wrong, meetings = [], 2000

  def replica(index):
    _replica_threads._local.replicas = state
    _replica_threads._local.index = index
    rng = random.Random(index)
    try:
      for m in range(meetings):
        if rng.random() < 0.3:
          time.sleep(rng.random() * 1e-4)

        def run(payloads):
          if rng.random() < 0.3:
            time.sleep(rng.random() * 1e-4)
          total = sum(payloads.values())
          return {i: (total, i) for i in payloads}

        got = _replica_threads.combine(("all_reduce", (0, 1), m), (0, 1),
                                       10 * m + index, run, 30)
        if got != (20 * m + 1, index):
          wrong.append((index, m, got))
    finally:
      _replica_threads._local.replicas = None

  threads = [threading.Thread(target=replica, args=(i,)) for i in range(2)]
  for t in threads:
    t.start()
  for t in threads:
    t.join(timeout=120)
  assert not any(t.is_alive() for t in threads)
  assert wrong == []
  assert state.meetings == {}
