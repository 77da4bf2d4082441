"""Bad input raises as eager does, never a silent wrong answer: numbers a
dtype cannot hold (masked_fill, where, clamp), devices that do not exist,
out-of-range indices from the host. Each case runs in eager CPU PyTorch and
on 'xla', and both must raise, or both give the same values and dtype."""

import pytest
import torch

import torch_xla
import torch_xla.debug.metrics as met


def _outcome(fn, device):
  try:
    out = fn(device)
  except (RuntimeError, IndexError) as e:
    return "raise", type(e), str(e)
  return "ok", out.cpu() if out.device.type != "cpu" else out, None


def check_like_eager(fn, match=None):
  """fn(device) -> tensor, run on cpu and on xla: same values (NaN equal)
  and dtype, or an error of the same class (containing `match`)."""
  cpu = _outcome(fn, "cpu")
  xla = _outcome(fn, torch_xla.device())
  assert cpu[0] == xla[0], f"eager: {cpu}, xla: {xla}"
  if cpu[0] == "raise":
    assert cpu[1] is xla[1], f"eager: {cpu}, xla: {xla}"
    if match is not None:
      assert match in xla[2], xla[2]
  else:
    assert cpu[1].dtype == xla[1].dtype
    torch.testing.assert_close(xla[1], cpu[1], equal_nan=True, rtol=0,
                               atol=0)


def _x(dtype):
  return lambda d: torch.tensor([1, 2, 3], device=d).to(dtype)


def _mask(d):
  return torch.tensor([True, False, True], device=d)


_OVERFLOW = "without overflow"

# (dtype, value): eager raises for some, wraps uint8 negatives down to -255,
# and lets bf16/f16 where() round to inf.
_SCALAR_CASES = [
    (torch.int8, 300), (torch.int8, -129), (torch.int8, 127),
    (torch.int8, -1), (torch.int8, 255), (torch.int8, 1.5),
    (torch.int8, float("inf")), (torch.int8, float("nan")),
    (torch.uint8, -1), (torch.uint8, -255), (torch.uint8, -256),
    (torch.uint8, 256), (torch.int16, 40000), (torch.int32, 1e10),
    (torch.int64, 1e39), (torch.int64, 2**63 - 1), (torch.bool, 300),
    (torch.float16, 70000.0), (torch.float16, 1e39),
    (torch.float16, float("inf")), (torch.bfloat16, 1e39),
    (torch.float32, 1e39), (torch.float32, -1e39), (torch.float32, 70000),
]


@pytest.mark.parametrize("dtype,value", _SCALAR_CASES)
def test_masked_fill_scalar_range(dtype, value):
  x = _x(dtype)
  check_like_eager(lambda d: x(d).masked_fill(_mask(d), value))
  check_like_eager(lambda d: x(d).masked_fill_(_mask(d), value))


@pytest.mark.parametrize("dtype,value", _SCALAR_CASES)
def test_where_scalar_range(dtype, value):
  x = _x(dtype)
  check_like_eager(lambda d: torch.where(_mask(d), x(d), value))
  check_like_eager(lambda d: torch.where(_mask(d), value, x(d)))


@pytest.mark.parametrize("dtype,value", [
    c for c in _SCALAR_CASES if c[0] is not torch.bool])
def test_clamp_scalar_range(dtype, value):
  x = _x(dtype)
  check_like_eager(lambda d: torch.clamp(x(d), min=value))
  check_like_eager(lambda d: torch.clamp(x(d), max=value))
  check_like_eager(lambda d: torch.clamp_min(x(d), value))
  check_like_eager(lambda d: x(d).clamp_(value))


def test_masked_fill_overflow_message():
  x = torch.zeros(3, dtype=torch.int8, device=torch_xla.device())
  with pytest.raises(RuntimeError,
                     match="value cannot be converted to type int8 without "
                     "overflow: got 300"):
    x.masked_fill(x == 0, 300)


@pytest.mark.parametrize("make", [
    lambda: torch.zeros(2, device="xla:99"),
    lambda: torch.tensor([1, 2], device="xla:7"),
    lambda: torch.ones(2).to("xla:3"),
])
def test_missing_device_raises_at_creation(make):
  with pytest.raises(RuntimeError,
                     match=r"device xla:\d+ does not exist: this process "
                     r"has 1 XLA device \(xla:0\)"):
    make()


def test_existing_device_still_works():
  t = torch.zeros(2, device="xla:0") + 1
  assert t.device == torch.device("xla", 0)
  assert t.cpu().tolist() == [1.0, 1.0]
