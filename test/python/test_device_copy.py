"""Copies between XLA devices go device to device through PJRT, never
through the host: a copy records a TransferDeviceToDeviceTime sample and no
TransferToDeviceTime / TransferFromDeviceTime sample, and its value matches
eager CPU PyTorch. The checks run in a process with CPU_NUM_DEVICES=4
(device_copy_checks.py); each test reads one check's report."""

import json
import os
import subprocess
import sys

import pytest
import torch

_CHECKS = os.path.join(os.path.dirname(__file__), "device_copy_checks.py")
_DIRECT = {"TransferToDeviceTime": 0, "TransferFromDeviceTime": 0,
           "TransferDeviceToDeviceTime": 1}


@pytest.fixture(scope="module")
def report():
  out = subprocess.run([sys.executable, _CHECKS],
                       env=dict(os.environ, CPU_NUM_DEVICES="4"),
                       capture_output=True, text=True, timeout=300)
  assert out.returncode == 0, out.stderr[-3000:]
  return json.loads(out.stdout.strip().splitlines()[-1])


def _check_value(result, exact=False):
  """Against eager CPU: exact for copies and conversions, within f32
  tolerance where XLA computed (it may fuse a multiply-add)."""
  tolerance = {"rtol": 0, "atol": 0} if exact else {}
  torch.testing.assert_close(torch.tensor(result["value"]),
                             torch.tensor(result["expected"]), **tolerance)


def test_pending_source_runs_then_copies_device_to_device(report):
  result = report["pending_source"]
  assert result["metrics"] == _DIRECT
  assert result["device"] == "xla:3"
  _check_value(result)
  # The copy is bit for bit the source's value, which the source keeps.
  assert result["value"] == result["source"]
  torch.testing.assert_close(torch.tensor(result["source"]),
                             torch.tensor(result["source_expected"]))


def test_copied_data_feeds_a_computation_on_the_target(report):
  result = report["device_data_source_then_compute"]
  assert result["metrics"] == _DIRECT
  assert result["device"] == "xla:2"
  _check_value(result)


def test_dtype_conversion_with_the_copy(report):
  result = report["with_dtype"]
  assert result["metrics"] == _DIRECT
  assert (result["device"], result["dtype"]) == ("xla:2", "torch.int32")
  _check_value(result, exact=True)


def test_copy_into_a_tensor_on_another_device(report):
  result = report["copy_into_other_device"]
  assert result["metrics"] == _DIRECT
  assert (result["device"], result["dtype"]) == ("xla:3", "torch.bfloat16")
  _check_value(result, exact=True)


def test_errors_name_the_tensor_and_device(report):
  messages = report["errors"]
  assert "to device 7: device ordinal 7 is out of range: cpu has 4 devices" \
      in messages.get("out_of_range", "")
  assert "is a placeholder and has no data" in messages.get("placeholder", "")
