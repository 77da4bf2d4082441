"""Steady training step of the decoders on 'xla' next to eager CPU PyTorch
and, with --jax/--anchors, next to the reference systems in the same run.

- demo: the demo decoder (tiny, AdamW, batch 8, seq 32): median of 20 steps,
  ours and eager. Tracing dominates this one.
- reference: the reference decoder (hidden 512, 8 layers, 8 heads, ffn 1376,
  seq 128, batch 4, vocab 1024, SGD), a new batch every step: median step,
  ours and eager, and the bytes sent to the device per steady step (must be
  the batch alone).
- with --jax PYTHON --anchors DIR: ../shared/anchors' B1 loop (the same
  reference decoder) run by our Python and by JAX, and B2's manual loop
  (MLP, 8 micro-batches) likewise; ratios ours / JAX, and how much of our
  step is Python tracing.

Prints one JSON line.

  .venv/bin/python benchmarks/decoder_step_bench.py [--jax PY --anchors DIR]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WARMUP = 3


def step_times(device, reference, steps):
  """Median step seconds and bytes sent to the device per steady step."""
  import torch
  import torch_xla
  import torch_xla.core.xla_model as xm
  import torch_xla.debug.metrics as met
  sys.path.insert(0, os.path.join(HERE, "..", "examples"))
  from decoder import (Decoder, DecoderConfig, next_token_loss,
                       synthetic_batches)

  def sent():
    data = met.metric_data("OutboundData")
    return 0 if data is None else data[1]

  torch.manual_seed(0)
  if reference:
    config = DecoderConfig(vocab_size=1024, dim=512, num_layers=8,
                           num_heads=8, hidden_dim=1376, max_seq_len=128)
    batch, seq = 4, 128
  else:
    config, batch, seq = DecoderConfig(), 8, 32
  model = Decoder(config).to(device)
  optimizer = (torch.optim.SGD(model.parameters(), lr=1e-3) if reference else
               torch.optim.AdamW(model.parameters(), lr=1e-3))
  times, sent_bytes = [], []
  for i, tokens in enumerate(
      synthetic_batches(config, batch, seq, WARMUP + steps)):
    start, before = time.perf_counter(), sent()
    optimizer.zero_grad()
    loss = next_token_loss(model, tokens.to(device))
    loss.backward()
    xm.optimizer_step(optimizer)
    if device != "cpu":
      torch_xla.sync()
    loss.item()
    if i >= WARMUP:
      times.append(time.perf_counter() - start)
      sent_bytes.append(sent() - before)
  return {
      "median_ms": round(statistics.median(times) * 1e3, 2),
      "sent_bytes_per_step": max(sent_bytes),
      "batch_bytes": tokens.numel() * tokens.element_size(),
  }


def worker(name):
  import torch_xla
  reference = name.startswith("reference")
  steps = 10 if reference else 20
  device = "cpu" if name.endswith("eager") else torch_xla.device()
  return step_times(device, reference, steps)


def run_worker(name):
  out = subprocess.run(
      [sys.executable, os.path.abspath(__file__), "--worker", name],
      check=True, capture_output=True, text=True)
  return json.loads(out.stdout.strip().splitlines()[-1])


def main():
  parser = argparse.ArgumentParser(description=__doc__)
  parser.add_argument("--jax", help="python of the JAX reference env")
  parser.add_argument("--anchors", help="folder of ../shared/anchors")
  parser.add_argument("--worker", help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.worker:
    print(json.dumps(worker(args.worker)))
    return

  result = {"benchmark": "decoder_step"}
  for model in ("demo", "reference"):
    ours, eager = run_worker(model), run_worker(model + "_eager")
    result[model] = {
        "xla_median_ms": ours["median_ms"],
        "eager_cpu_median_ms": eager["median_ms"],
        "ratio_xla_over_eager": round(ours["median_ms"] / eager["median_ms"],
                                      2),
        "sent_bytes_per_step": ours["sent_bytes_per_step"],
        "batch_bytes": ours["batch_bytes"],
    }
  if args.jax:
    from anchors import run_anchor, steady_step_s
    for key, script, ours_mode, jax_mode in (
        ("b1_loop", "b1_scan", "loop", "loop"),
        ("b2_manual", "b2_gradacc", "manual", "manual")):
      mine = run_anchor(sys.executable, args.anchors, script + "_txla.py",
                        "--mode", ours_mode)
      jax = run_anchor(args.jax, args.anchors, script + "_jax.py", "--mode",
                       jax_mode)
      result[key] = {
          "ours_s": steady_step_s(mine),
          # The Python tracing part of our step (the rest is sync + wait).
          "ours_trace_s": mine["steady"]["median_trace_s"],
          "jax_s": steady_step_s(jax),
          "ours_over_jax": round(steady_step_s(mine) / steady_step_s(jax), 3),
      }
  print(json.dumps(result))


if __name__ == "__main__":
  main()
