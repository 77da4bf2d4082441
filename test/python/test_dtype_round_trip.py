"""Each dtype the core supports carries its values to the device and back,
and ops compute in it (replaces a test that restated the dtype table)."""

import pytest
import torch

import torch_xla  # noqa: F401

XLA = torch.device("xla", 0)


@pytest.mark.parametrize("dtype", [
    torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.int64,
    torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool,
    torch.uint32, torch.uint64], ids=str)
def test_each_dtype_round_trips_with_its_values(dtype):
  """A value of each dtype goes to the device and back unchanged, and an op
  on it computes in that dtype (an int8 sum wraps as eager's does)."""
  values = torch.tensor([[0, 1, 127], [3, 100, 5]]).to(dtype)
  x = values.to(XLA)
  assert x.dtype == dtype
  back = x.cpu()
  assert back.dtype == dtype and torch.equal(back, values)
  if dtype in (torch.int8, torch.int16, torch.int32, torch.int64,
               torch.float32, torch.float64):
    assert torch.equal((x + x).cpu(), values + values)
