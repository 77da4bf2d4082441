"""Runs the sharded checkpoint cases (checkpoint_cases.py) with 4 CPU
devices in SPMD mode (chosen before the runtime starts, so in a fresh
process); fails with that run's report when any case fails."""

import os
import subprocess
import sys

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                     "checkpoint_cases.py")


def test_checkpoint_cases():
  env = dict(os.environ, XLA_USE_SPMD="1", CPU_NUM_DEVICES="4")
  run = subprocess.run(
      [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", CASES],
      env=env, capture_output=True, text=True, timeout=600)
  report = run.stdout[-20000:] + run.stderr[-5000:]
  assert run.returncode == 0, report
  assert " passed" in run.stdout and "skipped" not in run.stdout.split(
      "\n")[-2], report
