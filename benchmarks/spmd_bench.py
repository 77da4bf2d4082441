"""SPMD on CPU devices: what sharding weights costs, and the sharded decoder.

Prints one JSON line:
  - shard_bytes: bytes sent to the devices to shard a 1 GiB set of weights
    (8 x [8192, 4096] f32) over 4 devices; it must equal the weights' size
    (only shards travel, never a full replica first), and shard_ratio is the
    two's ratio;
  - shard_seconds: the time to move them to the virtual device and shard
    them (wall clock, including the host-side slicing);
  - decoder steady step time (median) of the demo decoder, data x model
    sharded, with 1 and with 4 CPU devices behind the virtual device (each in
    a fresh process, the same global batch). On this 2-core machine 4
    devices share 2 cores, so the figure shows the partitioning overhead,
    not a speed-up.

  .venv/bin/python benchmarks/spmd_bench.py [--steps 6]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def shard_worker():
  import torch
  import torch_xla
  import torch_xla.debug.metrics as met
  import torch_xla.distributed.spmd as xs
  import torch_xla.runtime as xr

  xr.use_spmd()
  devices = xr.global_runtime_device_count()
  mesh = xs.Mesh(range(devices), (devices, 1), ("model", "x"))
  weights = [torch.randn(8192, 4096) for _ in range(8)]
  total = sum(w.numel() * w.element_size() for w in weights)
  warm = torch.ones(devices, 4).to(torch_xla.device())  # first-use setup
  xs.mark_sharding(warm, mesh, ("model", None))
  met.clear_all()
  start = time.perf_counter()
  moved = [w.to(torch_xla.device()) for w in weights]
  for w in moved:
    xs.mark_sharding(w, mesh, ("model", None))
  seconds = time.perf_counter() - start
  sent = met.metric_data("OutboundData")[1]
  return {"weights_bytes": total, "shard_bytes": int(sent),
          "shard_ratio": sent / total, "shard_seconds": round(seconds, 3)}


def decoder_worker(steps):
  import torch
  import torch_xla
  import torch_xla.core.xla_model as xm
  import torch_xla.distributed.spmd as xs
  import torch_xla.runtime as xr

  sys.path.insert(0, os.path.join(HERE, "..", "examples"))
  from decoder import Decoder, DecoderConfig, next_token_loss
  from spmd_decoder import shard_batch, shard_decoder

  xr.use_spmd()
  devices = xr.global_runtime_device_count()
  data = 2 if devices >= 2 else 1
  mesh = xs.Mesh(range(devices), (data, devices // data), ("data", "model"))
  torch.manual_seed(0)
  config = DecoderConfig(dim=256, num_layers=4, num_heads=8, hidden_dim=688,
                         vocab_size=1024, max_seq_len=128)
  device = torch_xla.device()
  model = Decoder(config).to(device)
  shard_decoder(model, mesh)
  optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
  tokens = shard_batch(
      torch.randint(0, config.vocab_size, (8, 128)).to(device), mesh)
  times = []
  for _ in range(steps + 2):
    start = time.perf_counter()
    optimizer.zero_grad()
    loss = next_token_loss(model, tokens)
    loss.backward()
    optimizer.step()
    torch_xla.sync()
    xm.wait_device_ops()
    times.append(time.perf_counter() - start)
  return {"step_seconds": round(statistics.median(times[2:]), 4),
          "loss": loss.item()}


def run(kind, devices, steps):
  env = dict(os.environ, CPU_NUM_DEVICES=str(devices))
  out = subprocess.run(
      [sys.executable, __file__, "--worker", kind, "--steps", str(steps)],
      env=env, capture_output=True, text=True, check=True)
  return json.loads(out.stdout.strip().splitlines()[-1])


def main():
  parser = argparse.ArgumentParser(description=__doc__)
  parser.add_argument("--steps", type=int, default=6)
  parser.add_argument("--worker", choices=["shard", "decoder"])
  args = parser.parse_args()
  if args.worker == "shard":
    print(json.dumps(shard_worker()))
    return
  if args.worker == "decoder":
    print(json.dumps(decoder_worker(args.steps)))
    return
  result = {"benchmark": "spmd"}
  result.update(run("shard", 4, args.steps))
  one = run("decoder", 1, args.steps)
  four = run("decoder", 4, args.steps)
  result["decoder_step_1_device"] = one["step_seconds"]
  result["decoder_step_4_devices"] = four["step_seconds"]
  result["decoder_step_4_vs_1"] = round(four["step_seconds"] /
                                        one["step_seconds"], 3)
  result["same_loss"] = abs(one["loss"] - four["loss"]) < 1e-3
  print(json.dumps(result))


if __name__ == "__main__":
  main()
