"""Runs a cases file of SPMD tests in a subprocess with several CPU devices.

The device count of a process is fixed when its runtime starts, so tests that
need 4 or 8 devices live in `*_cases.py` files (which the main run does not
collect) and run through `run_cases` in a fresh interpreter.
"""

import os
import subprocess
import sys


def run_cases(file_name: str, devices: int = 4, timeout: int = 900) -> None:
  """Runs test/python/`file_name` under XLA_USE_SPMD=1 with `devices` CPU
  devices; fails with the subprocess's report unless every case passed and
  none was skipped."""
  path = os.path.join(os.path.dirname(os.path.abspath(__file__)), file_name)
  env = dict(os.environ, XLA_USE_SPMD="1", CPU_NUM_DEVICES=str(devices))
  run = subprocess.run(
      [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", path],
      env=env, capture_output=True, text=True, timeout=timeout)
  report = run.stdout[-20000:] + run.stderr[-5000:]
  assert run.returncode == 0, report
  assert " passed" in run.stdout and "skipped" not in run.stdout.split(
      "\n")[-2], report
