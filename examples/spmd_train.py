"""Trains the demo decoder with SPMD on a 2x2 mesh (data x model) of CPU
devices and checks every loss against the same training on one device
(eager CPU PyTorch, the reference the single-device run also matches).

  CPU_NUM_DEVICES=4 .venv/bin/python examples/spmd_train.py
"""

import argparse
import copy
import os
import sys

os.environ.setdefault("CPU_NUM_DEVICES", "4")

import torch  # noqa: E402

import torch_xla  # noqa: E402
import torch_xla.debug.metrics as met  # noqa: E402
import torch_xla.distributed.spmd as xs  # noqa: E402
import torch_xla.runtime as xr  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from decoder import Decoder, DecoderConfig, next_token_loss, synthetic_batches  # noqa: E402
from spmd_decoder import shard_batch, shard_decoder  # noqa: E402


def train(model, batches, lr, step_fn=None):
  optimizer = torch.optim.SGD(model.parameters(), lr=lr)
  losses = []
  for tokens in batches:
    optimizer.zero_grad()
    loss = next_token_loss(model, tokens)
    loss.backward()
    optimizer.step()
    if step_fn is not None:
      step_fn()
    losses.append(loss.item())
  return losses


def main():
  parser = argparse.ArgumentParser(description=__doc__)
  parser.add_argument("--steps", type=int, default=5)
  parser.add_argument("--batch", type=int, default=4)
  parser.add_argument("--seq", type=int, default=16)
  parser.add_argument("--lr", type=float, default=0.1)
  args = parser.parse_args()

  xr.use_spmd()
  count = xr.global_runtime_device_count()
  if count != 4:
    sys.exit(f"needs 4 devices for a 2x2 mesh, have {count} "
             f"(set CPU_NUM_DEVICES=4)")
  mesh = xs.Mesh(range(4), (2, 2), ("data", "model"))

  torch.manual_seed(0)
  config = DecoderConfig()
  reference = Decoder(config)
  batches = list(synthetic_batches(config, args.batch, args.seq, args.steps))
  expected = train(copy.deepcopy(reference), batches, args.lr)

  device = torch_xla.device()
  model = copy.deepcopy(reference).to(device)
  sharded = shard_decoder(model, mesh)
  met.clear_all()
  xla_batches = [shard_batch(t.to(device), mesh) for t in batches]
  losses = train(model, xla_batches, args.lr, step_fn=torch_xla.sync)

  print(f"{sharded} weights sharded over mesh {mesh.mesh_shape} "
        f"{mesh.axis_names}")
  for step, (got, want) in enumerate(zip(losses, expected)):
    print(f"step {step}: loss {got:.5f} (one device: {want:.5f})")
  worst = max(abs(a - b) for a, b in zip(losses, expected))
  spec = torch_xla._XLAC._get_xla_sharding_spec(
      model.layers[0].attention.wq.weight)
  print(f"wq sharding after training: {spec}; compiles "
        f"{met.counter_value('UncachedCompile')}, executions "
        f"{met.metric_data('ExecuteReplicatedTime')[0]}")
  if worst > 1e-4:
    sys.exit(f"SPMD losses differ from one device by {worst:.2e}")
  print(f"losses match one device (max difference {worst:.1e})")


if __name__ == "__main__":
  main()
