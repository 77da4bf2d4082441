"""FSDPv2 (torch_xla/experimental/spmd_fully_sharded_data_parallel.py):
runs fsdp_v2_cases.py on 4 CPU devices in a fresh process (SPMD is chosen
before the runtime starts), and checks the argument errors here."""

import spmd_subprocess

import pytest
from torch import nn

import torch_xla.distributed.spmd as xs
from torch_xla.experimental.spmd_fully_sharded_data_parallel import (
    SpmdFullyShardedDataParallel as FSDPv2)


def test_fsdp_v2_cases_on_4_devices():
  spmd_subprocess.run_cases("fsdp_v2_cases.py", timeout=900)


def test_no_mesh_is_a_value_error():
  assert xs.get_global_mesh() is None
  with pytest.raises(ValueError, match="no global mesh"):
    FSDPv2(nn.Linear(4, 4))
