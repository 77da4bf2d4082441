"""Steady-state training step time of the demo decoder on 'xla' next to eager
CPU PyTorch on the same model: median of 20 steps after warm-up. Prints one
JSON line with both medians and their ratio."""

import json
import os
import statistics
import sys
import time

import torch

import torch_xla
import torch_xla.core.xla_model as xm

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))
from decoder import Decoder, DecoderConfig, next_token_loss, synthetic_batches  # noqa: E402

WARMUP, STEPS = 3, 20


def step_times(device):
  torch.manual_seed(0)
  config = DecoderConfig()
  model = Decoder(config).to(device)
  optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
  times = []
  for i, tokens in enumerate(
      synthetic_batches(config, 8, 32, WARMUP + STEPS)):
    start = time.perf_counter()
    optimizer.zero_grad()
    loss = next_token_loss(model, tokens.to(device))
    loss.backward()
    xm.optimizer_step(optimizer)
    if device != "cpu":
      torch_xla.sync()
    loss.item()
    if i >= WARMUP:
      times.append(time.perf_counter() - start)
  return statistics.median(times)


def main():
  cpu = step_times("cpu")
  xla = step_times(torch_xla.device())
  print(json.dumps({
      "benchmark": "decoder_step",
      "xla_median_ms": round(xla * 1e3, 2),
      "eager_cpu_median_ms": round(cpu * 1e3, 2),
      "ratio_xla_over_eager": round(xla / cpu, 2),
      "steps": STEPS,
  }))


if __name__ == "__main__":
  main()
