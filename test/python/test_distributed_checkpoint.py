"""Runs the sharded checkpoint cases (checkpoint_cases.py) with 4 CPU
devices in SPMD mode (chosen before the runtime starts, so in a fresh
process); fails with that run's report when any case fails."""

import spmd_subprocess


def test_checkpoint_cases():
  spmd_subprocess.run_cases("checkpoint_cases.py", timeout=600)
