"""MpDeviceLoader's cost in a steady training step.

The demo decoder (dim 256, 4 layers, seq 128, batch 8) trains with a
torch_xla.compile'd step, fed two ways:
  - device: the batches were moved to the device before timing (the floor);
  - loader: pl.MpDeviceLoader over CPU batches (background threads move
    the next batches while the step runs; each next() is the step
    boundary's sync).
Windows of steps alternate between the two modes; each window's time per
step includes waiting for the device at its end.

Prints one JSON line: per mode the median time per step over the windows,
and loader/device (the bar: <= 1.05).

  .venv/bin/python benchmarks/loader_bench.py [--windows 5] [--steps 10]
"""

import argparse
import json
import os
import statistics
import sys
import time

import torch

import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "examples"))
from decoder import Decoder, DecoderConfig, next_token_loss  # noqa: E402


def main():
  parser = argparse.ArgumentParser()
  parser.add_argument("--windows", type=int, default=5)
  parser.add_argument("--steps", type=int, default=10)
  parser.add_argument("--batch", type=int, default=8)
  parser.add_argument("--seq", type=int, default=128)
  args = parser.parse_args()

  device = torch_xla.device()
  torch.manual_seed(0)
  config = DecoderConfig(vocab_size=512, dim=256, num_layers=4, num_heads=8,
                         hidden_dim=688, max_seq_len=args.seq)
  model = Decoder(config).to(device)
  optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)

  @torch_xla.compile(full_graph=True, name="loader_bench_step")
  def step(tokens):
    optimizer.zero_grad()
    loss = next_token_loss(model, tokens)
    loss.backward()
    optimizer.step()
    return loss

  n = args.steps
  host = [torch.randint(0, config.vocab_size, (args.batch, args.seq))
          for _ in range(n)]
  on_device = [t.to(device) for t in host]
  torch_xla.sync()
  for tokens in on_device[:3]:  # compile and settle
    step(tokens)
  xm.wait_device_ops()

  def window(mode):
    source = on_device if mode == "device" else pl.MpDeviceLoader(host, device)
    start = time.perf_counter()
    for tokens in source:
      step(tokens)
    xm.wait_device_ops()
    return (time.perf_counter() - start) / n

  times = {"device": [], "loader": []}
  window("loader")  # warm the loader path once
  for _ in range(args.windows):
    for mode in ("device", "loader"):
      times[mode].append(window(mode))
  device_s = statistics.median(times["device"])
  loader_s = statistics.median(times["loader"])
  print(json.dumps({
      "bench": "loader",
      "model": f"decoder dim 256 x4 layers, batch {args.batch}x{args.seq}",
      "steps_per_window": n,
      "windows": args.windows,
      "device_fed_step_s": round(device_s, 5),
      "loader_fed_step_s": round(loader_s, 5),
      "loader_over_device": round(loader_s / device_s, 4),
      "bar": 1.05,
  }))


if __name__ == "__main__":
  main()
