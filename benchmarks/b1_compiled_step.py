"""B1 with the whole training step under torch.compile: the anchors'
decoder (../shared/anchors/b1_scan_txla.py builds it), with zero_grad,
forward, loss, backward and the SGD step in one function compiled with
`torch.compile(step, backend='openxla')`, as a JAX user jits the whole
step. The anchor's own `--mode compile` compiles only the forward, so its
backward bookkeeping and optimizer run op by op in Python.

Prints one JSON line in the anchor's format (first_step, steady with
median_host_s / median_trace_s / median_wall_s, loss_first, loss_last), so
trace_once_bench.py reads it like the anchor's modes. `median_host_cpu_s`
is the host thread's CPU time over the host span (`time.thread_time`): on
a shared, loaded machine the wall-clock host time mostly measures waits.

  PJRT_DEVICE=CPU python benchmarks/b1_compiled_step.py \
      --anchors ../shared/anchors --steps 8
"""

import argparse
import json
import os
import statistics
import sys
import time


def main():
  p = argparse.ArgumentParser()
  p.add_argument("--anchors", required=True)
  p.add_argument("--steps", type=int, default=8)
  args = p.parse_args()
  sys.path.insert(0, os.path.abspath(args.anchors))
  import b1_scan_txla as anchor

  import torch
  import torch_xla
  import torch_xla.core.xla_model as xm

  cfg = argparse.Namespace(hidden=512, layers=8, heads=8, ffn=1376, seq=128,
                           batch=4, vocab=1024, mode="loop")
  dev = torch_xla.device()
  torch.manual_seed(0)
  model = anchor.build_model(cfg).to(dev)
  opt = torch.optim.SGD(model.parameters(), lr=1e-3)
  tokens = torch.randint(0, cfg.vocab, (cfg.batch, cfg.seq)).to(dev)
  labels = torch.randint(0, cfg.vocab, (cfg.batch, cfg.seq)).to(dev)
  loss_fn = torch.nn.CrossEntropyLoss()
  torch_xla.sync()
  xm.wait_device_ops()

  def train_step(tokens, labels):
    opt.zero_grad()
    logits = model(tokens)
    loss = loss_fn(logits.view(-1, cfg.vocab), labels.view(-1))
    loss.backward()
    opt.step()
    return loss

  compiled = torch.compile(train_step, backend="openxla")

  def step():
    c0 = time.thread_time()
    t0 = time.perf_counter()
    loss = compiled(tokens, labels)
    t1 = time.perf_counter()
    torch_xla.sync()
    host = time.perf_counter() - t0  # until the step is enqueued
    cpu = time.thread_time() - c0
    xm.wait_device_ops()
    return loss, t1 - t0, host, cpu, time.perf_counter() - t0

  loss, trace, host, cpu, wall = step()
  first = {"wall_s": round(wall, 4), "trace_s": round(trace, 4)}
  loss_first = loss.item()
  traces, hosts, cpus, walls = [], [], [], []
  for _ in range(args.steps):
    loss, trace, host, cpu, wall = step()
    traces.append(trace)
    hosts.append(host)
    cpus.append(cpu)
    walls.append(wall)
  print(json.dumps({
      "bench": "b1_compiled_step",
      "mode": "compile_step",
      "first_step": first,
      "steady": {
          "median_wall_s": round(statistics.median(walls), 4),
          "median_trace_s": round(statistics.median(traces), 5),
          "median_host_s": round(statistics.median(hosts[1:]), 5),
          "min_host_s": round(min(hosts), 5),
          # The host thread's CPU time over the same span: what the step
          # costs the host, less the waits a loaded machine adds.
          "median_host_cpu_s": round(statistics.median(cpus[1:]), 5),
          "min_host_cpu_s": round(min(cpus), 5),
      },
      "loss_first": loss_first,
      "loss_last": loss.item(),
  }))


if __name__ == "__main__":
  main()
