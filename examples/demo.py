"""Main demo: train a small Llama-style decoder on the default PJRT device.

Prints the devices, a progress bar with the loss going down, and a metrics
summary (compiles, cache hits, bytes moved). Run it with scripts/demo.sh,
which installs everything first.
"""

import argparse
import os
import sys
import time

import torch
from tqdm import tqdm

import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.debug.metrics as met
import torch_xla.runtime as xr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from decoder import Decoder, DecoderConfig, next_token_loss, synthetic_batches  # noqa: E402


def main():
  parser = argparse.ArgumentParser(description=__doc__)
  parser.add_argument("--steps", type=int, default=40)
  parser.add_argument("--batch", type=int, default=8)
  parser.add_argument("--seq", type=int, default=32)
  parser.add_argument("--lr", type=float, default=3e-3)
  parser.add_argument("--scan", action="store_true",
                      help="run the layers as one loop (scan_layers)")
  args = parser.parse_args()

  devices = torch_xla._XLAC._runtime.devices()
  print(f"PJRT device type {xr.device_type()}: {len(devices)} device(s), "
        f"platform {torch_xla._XLAC._runtime.platform_name()}")
  device = torch_xla.device()

  torch.manual_seed(0)
  config = DecoderConfig()
  model = Decoder(config, scan=args.scan).to(device)
  optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
  parameters = sum(p.numel() for p in model.parameters())
  print(f"decoder: {config.num_layers} layers"
        f"{' (scan_layers)' if args.scan else ''}, dim {config.dim}, "
        f"{parameters / 1e3:.0f}K parameters, on {device}")

  met.clear_all()
  losses = []
  start = time.perf_counter()
  bar = tqdm(synthetic_batches(config, args.batch, args.seq, args.steps),
             total=args.steps, desc="training", unit="step")
  for tokens in bar:
    optimizer.zero_grad()
    loss = next_token_loss(model, tokens.to(device))
    loss.backward()
    xm.optimizer_step(optimizer)
    torch_xla.sync()
    losses.append(loss.item())
    bar.set_postfix(loss=f"{losses[-1]:.3f}")
  elapsed = time.perf_counter() - start

  print(f"loss: first {losses[0]:.3f} -> last {losses[-1]:.3f} "
        f"({args.steps} steps in {elapsed:.1f}s)")
  compiles = met.counter_value("UncachedCompile") or 0
  hits = met.counter_value("CachedCompile") or 0
  sent = (met.metric_data("OutboundData") or (0, 0, []))[1]
  received = (met.metric_data("InboundData") or (0, 0, []))[1]
  compile_time = (met.metric_data("CompileTime") or (0, 0, []))[1] / 1e9
  fallbacks = [n for n in met.counter_names() if n.startswith("aten::")]
  print(f"metrics: {compiles} compiles ({compile_time:.1f}s), {hits} cache "
        f"hits, {sent / 1e6:.2f} MB to device, {received / 1e3:.1f} KB from "
        f"device, CPU fallbacks: {fallbacks or 'none'}")
  print(f"device memory in use: {xm.get_memory_info(device)['bytes_used'] / 1e6:.2f} MB")


if __name__ == "__main__":
  main()
