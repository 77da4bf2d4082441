"""examples/train_decoder_upstream_style.py runs (one device, and SPMD on 4
CPU devices), its loss falls, and both runs print the same losses."""

import os
import re
import subprocess
import sys

import pytest

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "examples", "train_decoder_upstream_style.py")


def run(*flags, devices=1):
  env = dict(os.environ, CPU_NUM_DEVICES=str(devices))
  env.pop("XLA_USE_SPMD", None)
  result = subprocess.run(
      [sys.executable, EXAMPLE, "--steps", "12", "--log-every", "4", *flags],
      env=env, capture_output=True, text=True, timeout=600)
  assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
  return result.stdout


def losses(out):
  return [float(v) for v in re.findall(r"loss (\d+\.\d+)  rate", out)]


def test_one_device_and_spmd_train_alike():
  single = run()
  assert "one device: first loss" in single
  # The step compiles once: its first graph equals the later ones.
  assert re.search(r"compiles 1\b", single), single
  spmd = run("--spmd", devices=4)
  assert "spmd: first loss" in spmd
  assert len(losses(single)) == 4
  assert losses(spmd) == pytest.approx(losses(single), rel=1e-3)
