"""Numbers that do not fit where they go give eager's exception, never
garbage or undefined behaviour: fill values out of a dtype's range (fill_,
full, zero_-like factories), NaN/inf into integers, Python ints past int64
as scalars, shapes and attributes, negative and huge sizes. Each case runs
on eager CPU and on 'xla' and must raise the same exception class (or give
the same values). Also: non-contiguous host tensors moved to 'xla'."""

import math

import pytest
import torch

import torch_xla
from torch_xla import _XLAC
from torch_xla._dtypes import to_code

XLA = torch_xla.device()


def outcome(fn, device):
  """('ok', values) or ('raise', exception class) of fn(device)."""
  try:
    result = fn(device)
  except Exception as e:  # noqa: BLE001 - the class is what we compare
    return "raise", type(e), str(e)
  if isinstance(result, torch.Tensor):
    result = result.cpu().tolist()
  return "ok", result, None


def nan_equal(a, b):
  if isinstance(a, list):
    return len(a) == len(b) and all(nan_equal(x, y) for x, y in zip(a, b))
  if isinstance(a, float) and math.isnan(a):
    return isinstance(b, float) and math.isnan(b)
  return a == b


def assert_like_eager(fn):
  expected = outcome(fn, "cpu")
  actual = outcome(fn, XLA)
  assert actual[0] == expected[0], (expected, actual)
  if expected[0] == "raise":
    assert actual[1] is expected[1], (expected, actual)
  else:
    assert nan_equal(actual[1], expected[1]), (expected, actual)
  return actual


INT_DTYPES = [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64]
FLOAT_DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
VALUES = [1e10, -1.0, 3.7, 256, -129, 70000, 2**31, -2**31 - 1, 2**40,
          2**63 - 1, -2**63, 2**63, 1e300, float("nan"), float("inf"),
          float("-inf"), True]


@pytest.mark.parametrize("dtype", INT_DTYPES + FLOAT_DTYPES + [torch.bool],
                         ids=str)
@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_fill_out_of_range_like_eager(dtype, value):
  assert_like_eager(
      lambda d: torch.zeros(3, dtype=dtype, device=d).fill_(value))


def test_fill_int32_overflow_message():
  x = torch.zeros(3, dtype=torch.int32, device=XLA)
  with pytest.raises(RuntimeError,
                     match=r"s32\[3\]: value cannot be converted to type "
                     r"int32 without overflow: got 1e\+10, but int32 holds "
                     r"\[-2147483648, 2147483647\]"):
    x.fill_(1e10)
  # The tensor is unchanged and usable.
  assert x.cpu().tolist() == [0, 0, 0]


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.int32,
                                   torch.int64, torch.float16, torch.bool],
                         ids=str)
@pytest.mark.parametrize("value", [1e10, 300, -1.0, float("nan"), 2**63],
                         ids=repr)
def test_full_out_of_range_like_eager(dtype, value):
  assert_like_eager(lambda d: torch.full((2,), value, dtype=dtype, device=d))


@pytest.mark.parametrize("fn", [
    lambda d: torch.zeros(2, dtype=torch.int32, device=d) + 2**40,
    lambda d: torch.zeros(2, dtype=torch.int8, device=d) + 1000,
    lambda d: torch.zeros(2, dtype=torch.uint8, device=d) - 1,
    lambda d: torch.zeros(2, dtype=torch.uint8, device=d) - 300,
    lambda d: torch.ones(2, dtype=torch.float16, device=d) * 1e10,
    lambda d: torch.ones(2, device=d) + 2**63,
    lambda d: torch.zeros(2, dtype=torch.int64, device=d) + 2**63,
    lambda d: torch.ones(2, device=d) * (2**64 - 1),
    lambda d: torch.ones(2, device=d) + 2**64,
], ids=["i32+2**40", "i8+1000", "u8-1", "u8-300", "f16*1e10", "f32+2**63",
        "i64+2**63", "f32*(2**64-1)", "f32+2**64"])
def test_arithmetic_scalars_wrap_like_eager(fn):
  # Eager's arithmetic with a Python number wraps instead of raising.
  assert_like_eager(fn)


def test_int_beyond_uint64_in_bindings_raises_and_leaves_no_error_set():
  t = torch.ones(2, device=XLA)
  f32 = to_code(torch.float32)
  with pytest.raises(ValueError, match=r"integer 1180591620717411303424 is "
                     r"out of range; numbers must be in \[-2\*\*63, 2\*\*64\)"):
    _XLAC._scalar(2**70, f32, 0)
  with pytest.raises(ValueError, match="out of range"):
    _XLAC._tensor_fill(-2**64, [2], f32, 0)
  with pytest.raises(ValueError, match="out of range"):
    _XLAC._tensor_scalar(2**64, f32, 0)
  # No Python error was left set: the next calls behave normally.
  assert (t + 1).cpu().tolist() == [2.0, 2.0]
  assert _XLAC._tensor_scalar(2**63, f32, 0).dtype == f32


def test_int_past_int64_in_shapes_and_attributes():
  t = torch.ones(2, device=XLA)
  with pytest.raises(ValueError, match=r"shape: integer 9223372036854775808 "
                     r"does not fit in int64"):
    _XLAC._xla_create_placeholder_tensor([2**63])
  with pytest.raises(ValueError, match="dimension '99999999999999999999' is "
                     "not an integer"):
    _XLAC._xla_create_placeholder_tensor("f32[99999999999999999999]")
  reshape = _XLAC._op_kind("reshape")
  with pytest.raises(ValueError, match=r"attribute 'dims': integer "
                     r"18446744073709551616 is out of range"):
    _XLAC._op(reshape, [t._xt], {"dims": [2**64]})
  with pytest.raises(ValueError, match=r"attribute 'dims': integer "
                     r"9223372036854775808 does not fit in int64"):
    _XLAC._op(reshape, [t._xt], {"dims": 2**63})
  with pytest.raises(TypeError, match="attribute 'dims': expected an int, "
                     "got str"):
    _XLAC._op(reshape, [t._xt], {"dims": ["2"]})
  assert (t * 3).cpu().tolist() == [3.0, 3.0]


@pytest.mark.parametrize("fn", [
    lambda d: torch.zeros(-1, device=d),
    lambda d: torch.empty(3, -2, device=d),
    lambda d: torch.ones(4, device=d).view(-2, 2),
    lambda d: torch.ones(4, device=d).reshape(-3, 2),
    lambda d: torch.ones(2, device=d).expand(-2, 2),
    lambda d: torch.ones(2, device=d).new_zeros((-1,)),
], ids=["zeros", "empty", "view", "reshape", "expand", "new_zeros"])
def test_negative_sizes_like_eager(fn):
  kind = assert_like_eager(fn)[0]
  assert kind == "raise"


@pytest.mark.parametrize("fn", [
    lambda d: torch.zeros(2**62, 4, device=d),
    lambda d: torch.zeros(2**63, device=d),
    lambda d: torch.ones(2, device=d).reshape(2**62, 2),
    lambda d: torch.ones(2, device=d).expand(2**62, 2),
    lambda d: torch.ones(4, device=d)[2**63],
    lambda d: torch.ones(4, device=d).sum(2**63),
], ids=["zeros", "zeros_2**63", "reshape", "expand", "index", "sum_dim"])
def test_huge_sizes_like_eager(fn):
  kind = assert_like_eager(fn)[0]
  assert kind == "raise"


def test_huge_sizes_in_bindings():
  f32 = to_code(torch.float32)
  with pytest.raises(ValueError, match=r"f32\[4611686018427387904,4\]: its "
                     r"byte size overflows int64"):
    _XLAC._tensor_fill(0, [2**62, 4], f32, 0)
  with pytest.raises(ValueError, match=r"dimensions must be >= 0"):
    _XLAC._tensor_placeholder([3, -1], f32, 0)
  with pytest.raises(ValueError, match="unknown element type code 12"):
    _XLAC._tensor_fill(0, [2], 12, 0)
  with pytest.raises(ValueError, match="unknown element type code -1"):
    _XLAC._tensor_scalar(0, -1, 0)


@pytest.mark.parametrize("make", [
    lambda: torch.arange(12.).reshape(3, 4).t(),
    lambda: torch.arange(24.).reshape(4, 6)[:, ::2],
    lambda: torch.arange(24.).reshape(4, 6)[1:3, 2:5],
    lambda: torch.arange(3.).reshape(3, 1).expand(3, 4),
    lambda: torch.arange(24.).reshape(1, 2, 3, 4).to(
        memory_format=torch.channels_last),
    lambda: torch.arange(10, dtype=torch.int32)[::3],
    lambda: torch.arange(6.).reshape(2, 3).t()[1],
], ids=["transposed", "strided", "offset", "expanded", "channels_last",
        "int_step", "row_of_transpose"])
def test_non_contiguous_host_tensors_to_xla(make):
  cpu = make()
  assert not cpu.is_contiguous() or cpu.storage_offset() != 0 or \
      cpu.dim() == 4
  x = cpu.to(XLA)
  assert x.dtype == cpu.dtype and tuple(x.shape) == tuple(cpu.shape)
  assert torch.equal(x.cpu(), cpu)
  # copy_ from a non-contiguous host tensor into an 'xla' tensor, too.
  y = torch.zeros(cpu.shape, dtype=cpu.dtype, device=XLA)
  y.copy_(cpu)
  assert torch.equal(y.cpu(), cpu)
  # and arithmetic on it matches eager.
  assert torch.equal((x * 2).cpu(), cpu * 2)


@pytest.mark.parametrize("fn", [
    lambda d: torch.ones(2, device=d).clone().addcmul_(
        torch.ones(2, device=d), torch.ones(2, device=d), value=2**63),
    lambda d: torch.ones(2, device=d).clone().lerp_(torch.ones(2, device=d),
                                                    2**63),
    lambda d: torch.ones(2, device=d).pow(2**64),
], ids=["addcmul_value", "lerp_weight", "pow_2**64"])
def test_python_ints_past_int64_in_op_arguments(fn):
  assert_like_eager(fn)
  assert (torch.ones(2, device=XLA) + 1).cpu().tolist() == [2.0, 2.0]


def test_pow_by_an_int_past_int64_like_eager():
  # The pow fast rule reads its exponent without leaving an error set.
  assert_like_eager(lambda d: torch.ones(2, device=d).pow(2**63))
