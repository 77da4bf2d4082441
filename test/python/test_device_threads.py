"""The CPU plugin's device threads run under SCHED_BATCH, so that the
threads a program wakes never preempt the thread that dispatched it
(runtime/device_threads.h, docs/execution_pipeline.md): the client is
created under that policy and the plugin's pools inherit it, while the
thread that created the client gets its own policy back.
TORCH_XLA_CPU_SCHED_BATCH=0 turns it off."""

import os
import subprocess
import sys
import threading

import pytest
import torch

import torch_xla
import torch_xla.core.xla_model as xm

pytestmark = pytest.mark.skipif(
    not hasattr(os, "SCHED_BATCH"), reason="SCHED_BATCH is Linux only")

# Runs in a fresh process: creates the client, runs a program, prints the
# policy of the main thread and of the plugin's intra-op (Eigen) threads.
_PROBE = r"""
import os, threading, torch, torch_xla
import torch_xla.core.xla_model as xm
x = torch.ones(64, 64).to(torch_xla.device())
(x @ x).sum().item()
me = threading.get_native_id()
eigen = sorted({os.sched_getscheduler(int(t)) for t in os.listdir('/proc/self/task')
                if 'Eigen' in open(f'/proc/self/task/{t}/comm').read()})
print('POLICIES', os.sched_getscheduler(me), eigen)
"""


def _policies():
  """(main thread's policy, {policy of each intra-op Eigen thread})."""
  me = threading.get_native_id()
  eigen = set()
  for tid in os.listdir("/proc/self/task"):
    with open(f"/proc/self/task/{tid}/comm") as f:
      if "Eigen" in f.read():
        eigen.add(os.sched_getscheduler(int(tid)))
  return os.sched_getscheduler(me), eigen


def test_device_threads_batch_and_dispatching_thread_normal():
  x = torch.randn(64, 64).to(torch_xla.device())
  y = (x @ x).sum()
  torch_xla.sync()
  xm.wait_device_ops()
  main, eigen = _policies()
  assert eigen, "the CPU plugin started no intra-op (Eigen) threads"
  assert eigen == {os.SCHED_BATCH}
  # The thread that created the client got SCHED_OTHER back.
  assert main == os.SCHED_OTHER
  torch.testing.assert_close(y.cpu(), (x.cpu() @ x.cpu()).sum(),
                             rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("value,expected", [("0", os.SCHED_OTHER),
                                            ("1", os.SCHED_BATCH)])
def test_env_switch(value, expected):
  env = dict(os.environ, TORCH_XLA_CPU_SCHED_BATCH=value, PJRT_DEVICE="CPU")
  out = subprocess.run([sys.executable, "-c", _PROBE], env=env,
                       capture_output=True, text=True, timeout=300)
  assert out.returncode == 0, out.stderr[-2000:]
  line = [l for l in out.stdout.splitlines() if l.startswith("POLICIES")][0]
  main, eigen = line.split(" ", 2)[1:]
  assert int(main) == os.SCHED_OTHER
  assert eigen == f"[{expected}]"
