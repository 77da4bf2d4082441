"""gradient_accumulation vs a manual Python loop on the reference setup: a
2-layer MLP 1024 -> 4096 -> 1024, 8 micro-batches of 64, then an SGD step.

Prints one JSON line: per mode, the median steady step, executions and
compiles per steady step, peak RSS and its growth over the process size
before the first step (a fresh process per mode), peak live device bytes,
and peak live device bytes without the micro-batch inputs, for 8 and 32
micro-batches (the loop's working memory must not grow with their
number).

  .venv/bin/python benchmarks/grad_acc_bench.py [--steps 10]
      [--jax PYTHON --anchors DIR]   # also b2_gradacc_jax.py, same run
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

from anchors import run_anchor, steady_step_s


def rss_peak_mb():
  return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def worker(mode, micro, steps):
  import torch
  import torch_xla
  import torch_xla.core.xla_model as xm
  import torch_xla.debug.metrics as met
  from torch_xla.experimental.gradient_accumulation import gradient_accumulation

  device = torch_xla.device()
  torch.manual_seed(0)
  model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(),
                              torch.nn.Linear(4096, 1024)).to(device)
  optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
  xs = torch.randn(micro, 64, 1024).to(device)
  ys = torch.randn(micro, 64, 1024).to(device)
  torch_xla.sync()
  xm.wait_device_ops()
  rss_before = rss_peak_mb()

  def micro_loss(x, y):
    return torch.nn.functional.mse_loss(model(x), y)

  def accumulate():
    if mode == "ga":
      return gradient_accumulation(micro_loss, (xs, ys), model)
    total = torch.zeros((), device=device)
    for i in range(micro):
      loss = micro_loss(xs[i], ys[i]) / micro
      loss.backward()
      total = total + loss.detach()
    return total

  def step():
    start = time.perf_counter()
    optimizer.zero_grad()
    loss = accumulate()
    optimizer.step()
    torch_xla.sync()
    xm.wait_device_ops()
    return loss, time.perf_counter() - start

  torch_xla._XLAC._runtime.reset_peak_live_device_bytes()
  step()
  met.clear_all()
  walls = []
  for _ in range(steps):
    loss, wall = step()
    walls.append(wall)
  executions = (met.metric_data("ExecuteTime") or (0,))[0]
  return {
      "steady_step_s": round(statistics.median(walls), 4) if walls else None,
      "executions_per_step": executions / steps if steps else None,
      "compiles_after_first": met.counter_value("UncachedCompile") or 0,
      "peak_live_device_bytes":
          torch_xla._XLAC._runtime.peak_live_device_bytes(),
      # Without the micro-batches themselves (the caller's inputs, which
      # grow with their number): what the accumulation adds.
      "peak_working_bytes": torch_xla._XLAC._runtime.peak_live_device_bytes()
                            - 2 * xs.numel() * 4,
      "rss_peak_mb": round(rss_peak_mb(), 1),
      "rss_growth_mb": round(rss_peak_mb() - rss_before, 1),
      "loss_last": loss.item(),
  }


def run(args):
  command = [sys.executable, os.path.abspath(__file__)] + args
  out = subprocess.run(command, check=True, capture_output=True, text=True)
  return json.loads(out.stdout.strip().splitlines()[-1])


def main():
  parser = argparse.ArgumentParser(description=__doc__)
  parser.add_argument("--steps", type=int, default=10)
  parser.add_argument("--jax", help="python of the JAX reference env")
  parser.add_argument("--anchors", help="folder of b2_gradacc_jax.py")
  parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.worker:
    mode, micro, steps = args.worker
    print(json.dumps(worker(mode, int(micro), int(steps))))
    return
  result = {"bench": "grad_acc_bench", "modes": {}}
  for mode in ("ga", "manual"):
    result["modes"][mode] = run(["--worker", mode, "8", str(args.steps)])
    if args.jax:
      result.setdefault("jax", {})[mode] = run_anchor(
          args.jax, args.anchors, "b2_gradacc_jax.py", "--mode",
          "scan" if mode == "ga" else "manual", "--steps", str(args.steps))
  ga = result["modes"]["ga"]
  ga["peak_working_bytes_32_micro"] = run(["--worker", "ga", "32", "2"
                                          ])["peak_working_bytes"]
  result["ga_peak_working_bytes_32_vs_8"] = round(
      ga["peak_working_bytes_32_micro"] / ga["peak_working_bytes"], 3)
  result["ga_vs_manual_step"] = round(
      ga["steady_step_s"] / result["modes"]["manual"]["steady_step_s"], 3)
  if args.jax:
    step = steady_step_s(result["jax"]["ga"])
    if step:
      result["ga_vs_jax_scan_step"] = round(ga["steady_step_s"] / step, 3)
  print(json.dumps(result))


if __name__ == "__main__":
  main()
