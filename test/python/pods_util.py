"""Helpers for the multi-process tests: run test/python/pods_cases.py as a
launch or as the processes of a job whose environment we set, and read what
the workers wrote. (Not a test module: pytest collects test_*.py only.)"""

import json
import os
import socket
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "pods_cases.py")
# Generous hang guards: a launch that works ends long before.
GUARD_S = 240


def free_port():
  with socket.socket() as s:
    s.bind(("localhost", 0))
    return s.getsockname()[1]


def base_env(**extra):
  env = dict(os.environ)
  for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE",
               "PJRT_LOCAL_PROCESS_RANK", "PJRT_LOCAL_PROCESS_COUNT",
               "MASTER_ADDR", "XLA_COORDINATOR_PORT", "XLA_USE_SPMD",
               "TORCHELASTIC_RUN_ID"):
    env.pop(name, None)
  env.update({k: str(v) for k, v in extra.items()})
  return env


def launch(case, outdir, devices, **env):
  """`torch_xla.launch` of `case` with CPU_NUM_DEVICES=devices (and
  PJRT_LOCAL_PROCESS_COUNT=processes in `env` for several devices per
  process)."""
  return subprocess.run(
      [sys.executable, CASES, case, str(outdir)],
      env=base_env(CPU_NUM_DEVICES=devices, **env), capture_output=True,
      text=True, timeout=GUARD_S)


def run_threads(case, outdir, devices):
  """`case` in one process with a replica thread per device
  (torch_xla._internal.pjrt.spawn_threads), CPU_NUM_DEVICES=devices."""
  return subprocess.run(
      [sys.executable, CASES, case, str(outdir), "threads"],
      env=base_env(CPU_NUM_DEVICES=devices), capture_output=True, text=True,
      timeout=GUARD_S)


def start_process(case, outdir, rank, processes, port, devices, **env):
  """Process `rank` of a job started as torchrun would (RANK, WORLD_SIZE,
  MASTER_ADDR, XLA_COORDINATOR_PORT) with `devices` CPU devices."""
  return subprocess.Popen(
      [sys.executable, CASES, case, str(outdir), "env"],
      env=base_env(RANK=rank, WORLD_SIZE=processes, LOCAL_RANK=rank,
                   PJRT_LOCAL_PROCESS_RANK=rank,
                   PJRT_LOCAL_PROCESS_COUNT=processes,
                   MASTER_ADDR="localhost", XLA_COORDINATOR_PORT=port,
                   CPU_NUM_DEVICES=devices, **env),
      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def start_job(case, outdir, processes, devices_per_process, **env):
  """Every process of such a job. Returns the Popen objects."""
  port = free_port()
  return [
      start_process(case, outdir, rank, processes, port, devices_per_process,
                    **env) for rank in range(processes)
  ]


def finish(procs):
  """Waits for every process; their outputs."""
  outputs = []
  for p in procs:
    try:
      out, _ = p.communicate(timeout=GUARD_S)
    except subprocess.TimeoutExpired:
      p.kill()
      out, _ = p.communicate()
    outputs.append(out)
  return outputs


def results(outdir, case, count):
  out = []
  for i in range(count):
    with open(os.path.join(outdir, f"{case}_{i}.json")) as f:
      out.append(json.load(f))
  return out


_shared = {}


def four_worker_launch(tmp_path_factory):
  """One launch of 4 workers x 1 CPU device running the 'pods' case
  (ordinals, collectives, data parallel, torch.distributed + DDP), shared
  by every test module of the session: interpreter start-ups dominate."""
  if "pods" not in _shared:
    outdir = tmp_path_factory.mktemp("pods")
    run = launch("pods", outdir, 4)
    _shared["pods"] = (outdir, run)
  outdir, run = _shared["pods"]
  assert run.returncode == 0, run.stderr[-4000:]
  return outdir


def two_by_two_launch(tmp_path_factory):
  """One `torch_xla.launch` of 2 processes x 2 CPU devices
  (CPU_NUM_DEVICES=4, PJRT_LOCAL_PROCESS_COUNT=2: a replica thread per
  device) running the same 'pods' case as four_worker_launch, shared by
  every test module of the session."""
  if "pods_2x2" not in _shared:
    outdir = tmp_path_factory.mktemp("pods_2x2")
    run = launch("pods", outdir, 4, PJRT_LOCAL_PROCESS_COUNT=2)
    _shared["pods_2x2"] = (outdir, run)
  outdir, run = _shared["pods_2x2"]
  assert run.returncode == 0, run.stderr[-4000:]
  return outdir
