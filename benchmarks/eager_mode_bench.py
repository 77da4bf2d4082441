"""Eager mode's per-op cost: every op is a trace, a graph hash and
compile-cache lookup, and an enqueued execution.

Runs a chain of small elementwise ops (x = x * 1.0001 + 0.5 on a 128x128
tensor: two ops per iteration) three ways:
  - lazy: traced only, one sync at the end (the per-op tracing cost);
  - eager: eager_mode(True), each op runs when called (programs cached
    after the first iteration);
  - eager CPU: the same ops in eager PyTorch on CPU (for scale).
Also a 2-layer MLP training step (forward, backward, SGD) in eager mode vs
compiled with torch_xla.compile.

Prints one JSON line: microseconds per op for each, the eager overhead
over lazy tracing, compiles during the timed eager run (0: every op hit
the cache), and the MLP step times.

  .venv/bin/python benchmarks/eager_mode_bench.py [--ops 2000]
"""

import argparse
import json
import statistics
import time

import torch

import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.debug.metrics as met
from torch_xla.experimental import eager_mode_context


def chain(x, iterations):
  for _ in range(iterations):
    x = x * 1.0001 + 0.5
  return x


def timed(fn, repeats=3):
  samples = []
  for _ in range(repeats):
    start = time.perf_counter()
    fn()
    samples.append(time.perf_counter() - start)
  return statistics.median(samples)


def main():
  parser = argparse.ArgumentParser()
  parser.add_argument("--ops", type=int, default=2000)
  args = parser.parse_args()
  iterations = args.ops // 2
  device = torch_xla.device()
  x = torch.randn(128, 128).to(device)
  x_cpu = x.cpu()
  torch_xla.sync()

  def lazy():
    chain(x, iterations)  # traced, then dropped: no execution

  def eager():
    with eager_mode_context(True):
      chain(x, iterations)
    xm.wait_device_ops()

  lazy()
  eager()  # warm: compiles the two programs
  lazy_s = timed(lazy)
  met.clear_all()
  eager_s = timed(eager)
  compiles = met.counter_value("UncachedCompile") or 0
  executions = (met.metric_data("EagerOpExecuteTime") or [0])[0]
  cpu_s = timed(lambda: chain(x_cpu, iterations))

  # A training step: eager mode vs one compiled graph.
  torch.manual_seed(0)
  model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(),
                              torch.nn.Linear(512, 256)).to(device)
  opt = torch.optim.SGD(model.parameters(), lr=1e-3)
  data = torch.randn(32, 256).to(device)

  def train_step():
    opt.zero_grad()
    loss = model(data).pow(2).mean()
    loss.backward()
    opt.step()
    return loss

  compiled = torch_xla.compile(train_step)

  def eager_steps():
    with eager_mode_context(True):
      for _ in range(10):
        train_step()
    xm.wait_device_ops()

  def compiled_steps():
    for _ in range(10):
      compiled()
    xm.wait_device_ops()

  eager_steps()
  compiled_steps()
  eager_step_s = timed(eager_steps) / 10
  compiled_step_s = timed(compiled_steps) / 10

  ops = iterations * 2
  print(json.dumps({
      "bench": "eager_mode",
      "ops": ops,
      "lazy_trace_us_per_op": round(lazy_s / ops * 1e6, 2),
      "eager_us_per_op": round(eager_s / ops * 1e6, 2),
      "eager_minus_trace_us_per_op": round((eager_s - lazy_s) / ops * 1e6, 2),
      "eager_cpu_torch_us_per_op": round(cpu_s / ops * 1e6, 2),
      "eager_programs_compiled_in_timed_runs": compiles,
      "eager_executions_per_op": round(executions / (3 * ops), 3),
      "mlp_step_eager_ms": round(eager_step_s * 1e3, 3),
      "mlp_step_compiled_ms": round(compiled_step_s * 1e3, 3),
  }))


if __name__ == "__main__":
  main()
