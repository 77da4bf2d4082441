"""Copies between XLA devices, run by test_device_copy.py in a process with
CPU_NUM_DEVICES=4 (one PJRT client per process, so the device count cannot
change inside the test process). Prints one JSON object: for each check, the
metrics the copy recorded, where the result lives and its value next to
eager CPU PyTorch's."""

import json

import torch

import torch_xla
import torch_xla.debug.metrics as met
from torch_xla.core import xla_builder

_METRICS = ("TransferToDeviceTime", "TransferFromDeviceTime",
            "TransferDeviceToDeviceTime")


def _samples():
  """Samples recorded per metric since the last clear_all (0 when none)."""
  counts = {}
  for name in _METRICS:
    data = met.metric_data(name)
    counts[name] = 0 if data is None else data[0]
  return counts


def _copied(make_copy):
  """Runs make_copy() with cleared metrics; the metrics of the copy alone
  (reading the result back for the value comes after)."""
  met.clear_all()
  out = make_copy()
  return out, _samples()


def _result(out, metrics, expected, source=None, source_expected=None):
  result = {
      "device": str(out.device),
      "dtype": str(out.dtype),
      "metrics": metrics,
      "value": out.cpu().float().tolist(),
      "expected": expected.float().tolist(),
  }
  if source is not None:
    result["source"] = source.cpu().tolist()
    result["source_expected"] = source_expected.tolist()
  return result


def pending_source():
  # The source holds pending IR on xla:1: it runs there, then is copied.
  # (No Python scalars in it: they would be uploaded when the graph runs.)
  x = torch.randn(4, 5)
  a = x.to("xla:1")
  b = a * a + a
  c, metrics = _copied(lambda: b.to("xla:3"))
  return _result(c, metrics, x * x + x, source=b, source_expected=x * x + x)


def device_data_source_then_compute():
  # A copied tensor feeds a computation on the target device.
  x = torch.randn(4, 5)
  a = x.to("xla:1")
  ones = torch.ones(4, 5).to("xla:2")
  torch_xla.sync()
  c, metrics = _copied(lambda: a.to("xla:2"))
  return _result(c * 3 - ones, metrics, x * 3 - 1)


def with_dtype():
  x = torch.randn(4, 5) * 8
  b = x.to("xla:1") + 0.5
  torch_xla.sync()  # uploads the scalar 0.5: not part of the copy
  c, metrics = _copied(lambda: b.to(device="xla:2", dtype=torch.int32))
  return _result(c, metrics, (x + 0.5).to(torch.int32))


def copy_into_other_device():
  # copy_ broadcasts and converts to the destination's dtype.
  x = torch.randn(4, 5)
  src = x.to("xla:1") - 0.25
  torch_xla.sync()  # uploads the scalar 0.25: not part of the copy
  dst = torch.zeros(3, 4, 5, dtype=torch.bfloat16, device="xla:3")
  expected = torch.zeros(3, 4, 5, dtype=torch.bfloat16)
  expected.copy_(x - 0.25)
  out, metrics = _copied(lambda: dst.copy_(src))
  return _result(out, metrics, expected)


def errors():
  messages = {}
  b = torch.ones(2).to("xla:1")
  try:
    b.to("xla:7")
  except IndexError as e:
    messages["out_of_range"] = str(e)
  p = xla_builder.create_placeholder_tensor((2, 3), torch.float32)
  try:
    p.to("xla:2")
  except RuntimeError as e:
    messages["placeholder"] = str(e)
  return messages


def main():
  checks = [pending_source, device_data_source_then_compute, with_dtype,
            copy_into_other_device, errors]
  print(json.dumps({check.__name__: check() for check in checks}))


if __name__ == "__main__":
  main()
