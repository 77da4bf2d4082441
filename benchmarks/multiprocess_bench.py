"""Data parallelism over processes against one process, on CPU devices.

Prints one JSON line:
  - dp_2proc_step_s: median steady step time of data-parallel training of
    an MLP over 2 processes x 1 CPU device (torch_xla.launch; gradients
    averaged by xm.optimizer_step, which on CPU carries them between the
    processes through gloo: docs/pods.md);
  - dp_1proc_step_s: the same global batch and model in 1 process over the
    same 2 CPU devices (SPMD: the batch sharded over the 2 devices, XLA's
    in-program all-reduce);
  - step_ratio: dp_2proc_step_s / dp_1proc_step_s (above 1: the process
    route costs more);
  - dp_1proc_threads_step_s: the 2-process training's code in 1 process
    with a replica thread per device (torch_xla._internal.pjrt.spawn_threads:
    the gradients computed by their own program, then their all-reduce and
    the update inside one replicated program);
  - gradient_bytes: the model's gradient bytes (f32);
    transport_bytes_per_step: the payload one process hands to gloo per
    step (all_reduce of every gradient, one flat buffer);
    host_transfer_bytes_per_step: bytes that process moved device->host and
    host->device per step (InboundData + OutboundData: the gradients out,
    the averaged gradients back, the batch in, the loss out);
    transport_ratio and host_transfer_ratio divide those by gradient_bytes.
    gloo's ring all-reduce puts about 2 (n-1)/n times its payload on the
    wire per process (1x for n = 2); we count the payload, not the wire.

This machine has 2 cores shared by everything running on it: compare the
two figures of one run, not runs with each other.

  .venv/bin/python benchmarks/multiprocess_bench.py [--steps 8]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
HIDDEN = 512
BATCH = 64


def _model():
  import torch

  torch.manual_seed(0)
  return torch.nn.Sequential(
      torch.nn.Linear(HIDDEN, 2 * HIDDEN), torch.nn.Tanh(),
      torch.nn.Linear(2 * HIDDEN, HIDDEN), torch.nn.Tanh(),
      torch.nn.Linear(HIDDEN, 1))


def _batch(step):
  import torch

  g = torch.Generator().manual_seed(step)
  return torch.randn(BATCH, HIDDEN, generator=g), torch.randn(BATCH, 1,
                                                              generator=g)


def _metric_bytes(name):
  import torch_xla.debug.metrics as met

  data = met.metric_data(name)
  return 0 if data is None else data[1]


def dp_worker(index, steps, outdir):
  """One replica of the 2-process run."""
  import torch
  import torch_xla
  import torch_xla.core.xla_model as xm
  import torch_xla.runtime as xr
  from torch_xla.core import _cpu_transport

  world, me = xr.world_size(), xr.global_ordinal()
  dev = torch_xla.device()
  model = _model().to(dev)
  opt = torch.optim.SGD(model.parameters(), lr=0.01)
  per = BATCH // world
  times, transport, host = [], [], []
  for step in range(steps):
    x, y = _batch(step)
    xm.rendezvous("step")  # start the steps together
    before_in, before_out = (_metric_bytes("InboundData"),
                             _metric_bytes("OutboundData"))
    _cpu_transport.reset_stats()
    start = time.perf_counter()
    xs = x[me * per:(me + 1) * per].to(dev)
    ys = y[me * per:(me + 1) * per].to(dev)
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(xs), ys)
    loss.backward()
    xm.optimizer_step(opt)
    torch_xla.sync()
    loss.item()
    times.append(time.perf_counter() - start)
    transport.append(_cpu_transport.stats()["payload_bytes"])
    host.append(_metric_bytes("InboundData") - before_in +
                _metric_bytes("OutboundData") - before_out)
  with open(os.path.join(outdir, f"dp_{index}.json"), "w") as f:
    json.dump({
        "times": times, "transport": transport, "host": host,
        "gradient_bytes": sum(p.numel() * 4 for p in model.parameters()),
    }, f)


def spmd_worker(steps):
  """The 1-process run: the batch sharded over 2 devices."""
  import numpy as np
  import torch
  import torch_xla
  import torch_xla.distributed.spmd as xs
  import torch_xla.runtime as xr

  xr.use_spmd()
  n = xr.global_runtime_device_count()
  mesh = xs.Mesh(np.arange(n), (n, 1), ("data", "model"))
  dev = torch_xla.device()
  model = _model().to(dev)
  opt = torch.optim.SGD(model.parameters(), lr=0.01)
  times = []
  for step in range(steps):
    x, y = _batch(step)
    start = time.perf_counter()
    xs_, ys = x.to(dev), y.to(dev)
    xs.mark_sharding(xs_, mesh, ("data", None))
    xs.mark_sharding(ys, mesh, ("data", None))
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(xs_), ys)
    loss.backward()
    opt.step()
    torch_xla.sync()
    loss.item()
    times.append(time.perf_counter() - start)
  return times


def _steady(times):
  return statistics.median(times[2:]) if len(times) > 3 else min(times)


def main():
  parser = argparse.ArgumentParser()
  parser.add_argument("--steps", type=int, default=8)
  parser.add_argument("--worker", choices=["dp", "spmd", "threads"])
  parser.add_argument("--outdir")
  args = parser.parse_args()
  if args.worker == "dp":
    import torch_xla

    torch_xla.launch(dp_worker, args=(args.steps, args.outdir))
    return
  if args.worker == "threads":
    from torch_xla._internal import pjrt

    pjrt.spawn_threads(dp_worker, args=(args.steps, args.outdir))
    return
  if args.worker == "spmd":
    print(json.dumps(spmd_worker(args.steps)))
    return

  env = dict(os.environ, CPU_NUM_DEVICES="2")
  for name in ("RANK", "WORLD_SIZE", "XLA_USE_SPMD", "XLA_COORDINATOR_PORT"):
    env.pop(name, None)
  me = os.path.abspath(__file__)
  with tempfile.TemporaryDirectory() as outdir:
    subprocess.run([sys.executable, me, "--worker", "dp", "--outdir", outdir,
                    "--steps", str(args.steps)], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    runs = []
    for i in range(2):
      with open(os.path.join(outdir, f"dp_{i}.json")) as f:
        runs.append(json.load(f))
  with tempfile.TemporaryDirectory() as outdir:
    subprocess.run([sys.executable, me, "--worker", "threads", "--outdir",
                    outdir, "--steps", str(args.steps)], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    threads = []
    for i in range(2):
      with open(os.path.join(outdir, f"dp_{i}.json")) as f:
        threads.append(json.load(f))
  spmd = subprocess.run([sys.executable, me, "--worker", "spmd", "--steps",
                         str(args.steps)], env=env, check=True,
                        capture_output=True, text=True)
  spmd_times = json.loads(spmd.stdout.strip().splitlines()[-1])
  dp = max(_steady(r["times"]) for r in runs)  # a step ends when both do
  one = _steady(spmd_times)
  grad = runs[0]["gradient_bytes"]
  transport = statistics.median(runs[0]["transport"][2:])
  host = statistics.median(runs[0]["host"][2:])
  print(json.dumps({
      "model": f"MLP {HIDDEN}-{2 * HIDDEN}-{HIDDEN}-1, batch {BATCH}",
      "dp_2proc_step_s": round(dp, 5),
      "dp_1proc_step_s": round(one, 5),
      "step_ratio": round(dp / one, 3),
      "dp_1proc_threads_step_s": round(
          max(_steady(r["times"]) for r in threads), 5),
      "gradient_bytes": grad,
      "transport_bytes_per_step": int(transport),
      "transport_ratio": round(transport / grad, 4),
      "host_transfer_bytes_per_step": int(host),
      "host_transfer_ratio": round(host / grad, 4),
  }))


if __name__ == "__main__":
  sys.path.insert(0, HERE)
  main()
