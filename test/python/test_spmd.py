"""Runs the SPMD cases (spmd_cases.py) with 4 and with 8 CPU devices.

SPMD is chosen before the runtime starts, so the cases run in a fresh
process with XLA_USE_SPMD=1 and CPU_NUM_DEVICES set; this test fails with
that run's report when any case fails.
"""

import os
import subprocess
import sys

import pytest

import spmd_subprocess

@pytest.mark.parametrize("devices", [4, 8])
def test_spmd_cases(devices):
  spmd_subprocess.run_cases("spmd_cases.py", devices=devices, timeout=900)


def test_mark_sharding_needs_spmd_mode():
  import torch
  import torch_xla
  import torch_xla.distributed.spmd as xs
  t = torch.ones(4, 4).to(torch_xla.device())
  mesh = xs.Mesh([0], (1, 1))
  with pytest.raises(RuntimeError, match="needs SPMD mode.*use_spmd"):
    xs.mark_sharding(t, mesh, (0, None))


def test_use_spmd_after_device_data_is_an_error():
  code = ("import torch, torch_xla, torch_xla.runtime as xr\n"
          "t = torch.ones(4).to(torch_xla.device()); torch_xla.sync()\n"
          "try:\n"
          "  xr.use_spmd()\n"
          "except RuntimeError as e:\n"
          "  print('error:', e)\n"
          "print('spmd', xr.is_spmd())\n")
  env = {k: v for k, v in os.environ.items() if k != "XLA_USE_SPMD"}
  run = subprocess.run([sys.executable, "-c", code], env=env,
                       capture_output=True, text=True, timeout=300)
  assert run.returncode == 0, run.stderr[-3000:]
  assert "error: use_spmd() must be called before" in run.stdout
  assert "spmd False" in run.stdout
