"""FSDPv2 (torch_xla/experimental/spmd_fully_sharded_data_parallel.py):
runs fsdp_v2_cases.py on 4 CPU devices in a fresh process (SPMD is chosen
before the runtime starts), and checks the argument errors here."""

import os
import subprocess
import sys

import pytest
from torch import nn

import torch_xla.distributed.spmd as xs
from torch_xla.experimental.spmd_fully_sharded_data_parallel import (
    SpmdFullyShardedDataParallel as FSDPv2)

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                     "fsdp_v2_cases.py")


def test_fsdp_v2_cases_on_4_devices():
  env = dict(os.environ, XLA_USE_SPMD="1", CPU_NUM_DEVICES="4")
  run = subprocess.run(
      [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", CASES],
      env=env, capture_output=True, text=True, timeout=900)
  report = run.stdout[-20000:] + run.stderr[-5000:]
  assert run.returncode == 0, report
  assert " passed" in run.stdout and "skipped" not in run.stdout.split(
      "\n")[-2], report


def test_no_mesh_is_a_value_error():
  assert xs.get_global_mesh() is None
  with pytest.raises(ValueError, match="no global mesh"):
    FSDPv2(nn.Linear(4, 4))
