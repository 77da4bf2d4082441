"""Smoke test of an installed torch_xla wheel (scripts/wheel_smoke_test.sh
runs it in a fresh venv, outside the source tree): tensors, three training
steps, a metric."""

import os
import sys

import torch

import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.debug.metrics as met
import torch_xla.runtime as xr

prefix = os.path.realpath(sys.prefix)
for module in (torch_xla, torch):
  where = os.path.realpath(module.__file__)
  assert where.startswith(prefix), f"{module.__name__} from {where}, not {prefix}"
plugin = os.path.realpath(xr.plugin_path())
assert plugin.startswith(prefix), f"plugin {plugin} is not the venv's"

device = torch_xla.device()
x = torch.arange(6.0).reshape(2, 3).to(device)
assert (x * 2).sum().item() == 30.0

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(),
                            torch.nn.Linear(16, 1)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs = torch.randn(32, 8).to(device)
target = inputs.sum(1, keepdim=True)
met.clear_all()
losses = []
for step in range(3):
  optimizer.zero_grad()
  loss = torch.nn.functional.mse_loss(model(inputs), target)
  loss.backward()
  xm.optimizer_step(optimizer, barrier=True)
  losses.append(loss.item())
executions = met.metric_data("ExecuteTime")[0]
assert losses[-1] < losses[0], losses
assert executions >= 3, executions
print(f"wheel smoke test: torch_xla {os.path.dirname(torch_xla.__file__)}, "
      f"plugin {plugin}, device {xr.device_type()}, "
      f"losses {[round(l, 4) for l in losses]}, ExecuteTime samples "
      f"{executions}: OK")
