"""assume_pure on a sharded module (run by test_assume_pure.py in a fresh
process with XLA_USE_SPMD=1 and CPU_NUM_DEVICES=4): values and gradients
against eager CPU, mark_sharding inside the function, one trace."""

import copy

import numpy as np
import torch
import torch.nn as nn

import torch_xla
import torch_xla.debug.metrics as met
import torch_xla.distributed.spmd as xs
import torch_xla.runtime as xr
from torch_xla.experimental.assume_pure import assume_pure


def close(a, b):
  torch.testing.assert_close(a.detach().cpu(), b.detach().cpu(), rtol=2e-4,
                             atol=2e-4)


def main():
  assert xr.is_spmd() and xr.global_runtime_device_count() == 4
  dev = torch_xla.device()
  mesh = xs.Mesh(np.arange(4), (2, 2), ("data", "model"))

  class Mlp(nn.Module):

    def __init__(self):
      super().__init__()
      self.up = nn.Linear(16, 32)
      self.down = nn.Linear(32, 16)

    def forward(self, x):
      h = torch.relu(self.up(x))
      if h.device.type == "xla":
        xs.mark_sharding(h, mesh, ("data", "model"))
      return self.down(h)

  torch.manual_seed(0)
  ref = Mlp()
  m = copy.deepcopy(ref).to(dev)
  xs.mark_sharding(m.up.weight, mesh, ("model", None))
  xs.mark_sharding(m.down.weight, mesh, (None, "model"))
  pure = assume_pure(m)
  met.clear_counters()
  for _ in range(2):
    x = torch.randn(8, 16)
    xr_ = x.clone().requires_grad_(True)
    xx = x.to(dev)
    xs.mark_sharding(xx, mesh, ("data", None))
    xx.requires_grad_(True)
    got = pure(xx)
    want = ref(xr_)
    got.pow(2).sum().backward()
    want.pow(2).sum().backward()
    torch_xla.sync()
    close(got, want)
    close(xx.grad, xr_.grad)
    for p, q in zip(m.parameters(), ref.parameters()):
      close(p.grad, q.grad)
  assert met.counter_value("AssumePureTrace") == 1, met.counter_value(
      "AssumePureTrace")
  spec = torch_xla._XLAC._get_xla_sharding_spec(m.up.weight.grad)
  assert "devices=[2,1" in spec or "devices=[2,1,2]" in spec, spec
  # Upstream's pattern: mark_sharding of an input inside the function
  # shards the result.
  x = torch.randn(8, 4).to(dev)
  result = assume_pure(xs.mark_sharding)(x, mesh, ("data", None))
  torch_xla.sync()
  spec = torch_xla._XLAC._get_xla_sharding_spec(
      getattr(result, "global_tensor", result))
  assert "devices=[2,1,2]" in spec, spec
  close(result, x)
  print("ok")


if __name__ == "__main__":
  main()
