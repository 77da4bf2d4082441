"""Trains the demo decoder the way upstream's example trainers do:
a torch DataLoader wrapped in pl.MpDeviceLoader, a torch_xla.compile'd
step (full_graph: the whole step is one graph), step closures that print
the loss with xm.RateTracker's rate, and no explicit sync in the loop.

  .venv/bin/python examples/train_decoder_upstream_style.py
  CPU_NUM_DEVICES=4 .venv/bin/python \
      examples/train_decoder_upstream_style.py --spmd   # or --fsdpv2

--spmd: SPMD over all devices on a (data, model) mesh: the loader shards
each batch over `data` (each device receives only its rows), the weights
are split over `model` (examples/spmd_decoder.py). --fsdpv2: the weights
are fully sharded over an `fsdp` axis by FSDPv2
(torch_xla.experimental.spmd_fully_sharded_data_parallel), the batch too.
All three print the same losses.

At the end it prints the first and last loss and the compile count (one
program for the step after the first steps).
"""

import argparse
import os
import sys

import torch

import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.debug.metrics as met
import torch_xla.distributed.parallel_loader as pl
import torch_xla.runtime as xr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from decoder import Decoder, DecoderConfig, next_token_loss, synthetic_batches  # noqa: E402


def parse_args():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--steps", type=int, default=30)
  parser.add_argument("--batch", type=int, default=8)
  parser.add_argument("--seq", type=int, default=32)
  parser.add_argument("--lr", type=float, default=3e-3)
  parser.add_argument("--log-every", type=int, default=10)
  group = parser.add_mutually_exclusive_group()
  group.add_argument("--spmd", action="store_true")
  group.add_argument("--fsdpv2", action="store_true")
  return parser.parse_args()


def make_loader(config, args):
  """A plain torch DataLoader of token batches (CPU tensors)."""
  rows = torch.cat(list(synthetic_batches(config, args.batch, args.seq,
                                          args.steps)))
  dataset = torch.utils.data.TensorDataset(rows)
  return torch.utils.data.DataLoader(dataset, batch_size=args.batch,
                                     shuffle=False, drop_last=True)


def main():
  args = parse_args()
  if args.spmd or args.fsdpv2:
    xr.use_spmd()
  import torch_xla.distributed.spmd as xs

  torch.manual_seed(0)
  torch_xla.manual_seed(0)
  device = torch_xla.device()
  config = DecoderConfig(max_seq_len=args.seq)
  model = Decoder(config).to(device)
  loader_options = {}
  if args.spmd:
    from spmd_decoder import shard_decoder
    n = xr.global_runtime_device_count()
    mesh = xs.Mesh(range(n), (n // 2, 2) if n % 2 == 0 else (n, 1),
                   ("data", "model"))
    shard_decoder(model, mesh)
    loader_options["input_sharding"] = xs.ShardingSpec(mesh, ("data", None))
  elif args.fsdpv2:
    from torch_xla.experimental.spmd_fully_sharded_data_parallel import (
        SpmdFullyShardedDataParallel as FSDPv2)
    n = xr.global_runtime_device_count()
    mesh = xs.Mesh(range(n), (n, 1), ("fsdp", "model"))
    xs.set_global_mesh(mesh)
    model = FSDPv2(model)
    loader_options["input_sharding"] = xs.ShardingSpec(mesh, ("fsdp", None))
  optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
  device_loader = pl.MpDeviceLoader(make_loader(config, args), device,
                                    **loader_options)

  @torch_xla.compile(full_graph=True, name="train_step")
  def train_step(tokens):
    optimizer.zero_grad()
    loss = next_token_loss(model, tokens)
    loss.backward()
    optimizer.step()
    return loss

  losses = []

  def report(step, loss, tracker):
    losses.append(loss.item())
    xm.master_print(f"step {step:3d}  loss {losses[-1]:.4f}  "
                    f"rate {tracker.rate():.1f} samples/s")

  tracker = xm.RateTracker()
  model.train()
  for step, (tokens,) in enumerate(device_loader):
    loss = train_step(tokens)
    tracker.add(args.batch)
    if step % args.log_every == 0 or step == args.steps - 1:
      xm.add_step_closure(report, args=(step, loss, tracker))
  xm.wait_device_ops()
  mode = "fsdpv2" if args.fsdpv2 else "spmd" if args.spmd else "one device"
  print(f"{mode}: first loss {losses[0]:.4f}, last loss {losses[-1]:.4f}, "
        f"compiles {met.counter_value('UncachedCompile')}")
  if not losses[-1] < losses[0]:
    raise SystemExit("the loss did not fall")


if __name__ == "__main__":
  main()
