"""When does the CPU plugin's PJRT_LoadedExecutable_Execute return?

Times Execute (the `ExecuteTime` metric: our Client::Execute, which is the
PJRT call and a few microseconds of bookkeeping) against the program's
completion, for the cases docs/execution_pipeline.md ("When Execute
returns") states:

  ready    a ~100 ms program whose inputs are ready;
  pending  the same program reading the output of a run still in flight;
  cheap    a zero-flop program (a 64 MB transpose and flip), which XLA's
           CPU client counts as cheap (< 1000 flops) and runs inline;
  busy     `ready`, right after the host thread ran busy for 20 ms (as it
           does while tracing a step): with the plugin's threads under the
           same policy as the host thread, they preempt it inside Execute.

For `busy` it also prints how long the host thread sat runnable but not
running during the sync (/proc/<tid>/schedstat). Compare
TORCH_XLA_CPU_SCHED_BATCH=0 (plugin threads as SCHED_OTHER) with the
default (SCHED_BATCH):

  PJRT_DEVICE=CPU python docs/execute_probe.py
  TORCH_XLA_CPU_SCHED_BATCH=0 PJRT_DEVICE=CPU python docs/execute_probe.py
"""

import os
import statistics
import threading
import time

import torch

import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.debug.metrics as met

DEV = torch_xla.device()


def execute_ns():
  data = met.metric_data("ExecuteTime")
  return data[1] if data else 0


def run_queue_ns():
  """Nanoseconds this thread has spent runnable but not running."""
  tid = threading.get_native_id()
  with open(f"/proc/self/task/{tid}/schedstat") as f:
    return int(f.read().split()[1])


def measure(fn, inputs, reps=15, spin_ms=0.0, pending=False):
  """Medians over `reps` of (ms inside Execute, ms until done, ms waiting
  runnable during the sync), the mean ms inside Execute, and the count of
  Execute calls over 1 ms."""
  fn(inputs())
  torch_xla.sync()
  xm.wait_device_ops()  # compiled
  rows = []
  for _ in range(reps):
    xm.wait_device_ops()
    x = inputs()
    if pending:
      x = fn(x)
      torch_xla.sync()  # in flight while the next one is enqueued
    y = fn(x)
    t = time.perf_counter()
    while time.perf_counter() - t < spin_ms / 1e3:
      pass
    e0, q0, t0 = execute_ns(), run_queue_ns(), time.perf_counter()
    torch_xla.sync()
    e1, q1 = execute_ns(), run_queue_ns()
    xm.wait_device_ops()
    t1 = time.perf_counter()
    rows.append(((e1 - e0) / 1e6, (t1 - t0) * 1e3, (q1 - q0) / 1e6))
  med = [statistics.median(r[i] for r in rows) for i in range(3)]
  mean = statistics.mean(r[0] for r in rows)
  return med, mean, sum(r[0] > 1 for r in rows)


def main():
  n = 768
  a = torch.randn(n, n).to(DEV)
  b = torch.randn(n, n).to(DEV)
  big = torch.randn(4096, 4096).to(DEV)
  torch_xla.sync()

  def matmuls(x):
    for _ in range(6):
      x = torch.tanh(x @ b)
    return x

  cases = [
      ("ready", matmuls, lambda: a, {}),
      ("pending", matmuls, lambda: a, {"pending": True}),
      ("cheap", lambda t: t.t().flip(0).contiguous(), lambda: big, {}),
      ("busy", matmuls, lambda: a, {"spin_ms": 20.0, "reps": 25}),
  ]
  policy = os.environ.get("TORCH_XLA_CPU_SCHED_BATCH", "1")
  print(f"TORCH_XLA_CPU_SCHED_BATCH={policy}")
  for name, fn, inputs, kw in cases:
    (inside, done, queued), mean, over = measure(fn, inputs, **kw)
    reps = kw.get("reps", 15)
    print(f"{name:8s} inside Execute {inside:7.2f} ms (mean {mean:6.2f}, "
          f"> 1 ms: {over:2d}/{reps})   until done {done:6.1f} ms   "
          f"runnable, not running {queued:6.2f} ms")


if __name__ == "__main__":
  main()
