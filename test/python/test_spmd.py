"""Runs the SPMD cases (spmd_cases.py) with 4 and with 8 CPU devices.

SPMD is chosen before the runtime starts, so the cases run in a fresh
process with XLA_USE_SPMD=1 and CPU_NUM_DEVICES set; this test fails with
that run's report when any case fails.
"""

import os
import subprocess
import sys

import pytest

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                     "spmd_cases.py")


@pytest.mark.parametrize("devices", [4, 8])
def test_spmd_cases(devices):
  env = dict(os.environ, XLA_USE_SPMD="1", CPU_NUM_DEVICES=str(devices))
  run = subprocess.run(
      [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", CASES],
      env=env, capture_output=True, text=True, timeout=900)
  report = run.stdout[-20000:] + run.stderr[-5000:]
  assert run.returncode == 0, report
  assert " passed" in run.stdout and "skipped" not in run.stdout.split(
      "\n")[-2], report
