"""Bad input raises as eager does, never a silent wrong answer: numbers a
dtype cannot hold (masked_fill, where, clamp), devices that do not exist,
out-of-range indices from the host, one_hot classes and multinomial
weights (checked on the device when only it knows them). Each case runs in
eager CPU PyTorch and on 'xla', and both must raise, or both give the same
values and dtype. The wide table of bad arguments is
test_bad_input_probe*.py."""

import pytest
import torch

import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.debug.metrics as met
from torch_xla import _XLAC, _ir


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


def test_device_mismatch_message_is_worded_once():
  a = torch.ones(2, 3).to(torch_xla.device())
  b = torch.ones(2, 3)
  message = ("Expected all tensors to be on the same device, but found at "
             "least two devices, xla:0 and cpu! Move the tensor with "
             ".to('xla') first")
  with pytest.raises(RuntimeError) as from_cpp:
    _XLAC._elementwise(_ir.K["add"], [a, b], _ir.F32)
  assert str(from_cpp.value) == message
  with pytest.raises(RuntimeError) as from_rule:
    torch.cat([a, b])
  assert str(from_rule.value) == "torch.cat(): " + message
  # cpu 0-dim tensors mix with xla tensors, as in eager
  torch.testing.assert_close((a + torch.tensor(2.0)).cpu(), torch.full((2, 3),
                                                                        3.0))


# Indices known on the host: checked there, as eager checks them.

_INDEX_CASES = {
    "cpu tensor": lambda d: torch.arange(3, device=d)[torch.tensor([5])],
    "list": lambda d: torch.arange(3, device=d)[[5]],
    "negative": lambda d: torch.arange(3, device=d)[[-4]],
    "first bad named": lambda d: torch.arange(3, device=d)[
        torch.tensor([1, 7, -9])],
    "second dim": lambda d: torch.zeros(3, 2, device=d)[:,
                                                        torch.tensor([2])],
    "uploaded": lambda d: torch.arange(3, device=d)[
        torch.tensor([3], device=d)],
    "index_put": lambda d: torch.zeros(3, device=d).index_put_(
        (torch.tensor([3]),), torch.tensor(1.0)),
    "index_select": lambda d: torch.arange(3, device=d).index_select(
        0, torch.tensor([3], device=d)),
    "index_select negative": lambda d: torch.arange(3, device=d).index_select(
        0, torch.tensor([-1])),
    "embedding": lambda d: torch.nn.functional.embedding(
        torch.tensor([[0, 4]], device=d), torch.ones(4, 2, device=d)),
    "valid negative": lambda d: torch.arange(3, device=d)[[2, -3]],
    "valid edge": lambda d: torch.arange(3, device=d).index_select(
        0, torch.tensor([0, 2])),
}


@pytest.mark.parametrize("name", list(_INDEX_CASES))
def test_host_index_range(name):
  check_like_eager(_INDEX_CASES[name], match="out of")


def test_host_index_written_since_upload_is_not_judged_by_its_old_value():
  """The upload's range is forgotten once the index tensor is written."""
  check_like_eager(lambda d: torch.arange(3, device=d)[
      torch.tensor([5], device=d).sub_(4)])


def test_host_index_check_adds_no_transfer():
  d = torch_xla.device()
  x = torch.arange(3, device=d)
  idx = torch.tensor([2, 0], device=d)
  torch_xla.sync()
  met.clear_all()
  y = x[idx]
  assert met.metric_data("TransferFromDeviceTime") is None
  assert y.cpu().tolist() == [2, 0]


# Integer division by zero gives 0, as eager CUDA (docs/integer_division.md).

_DIVISIONS = {
    "floor": lambda a, b: torch.div(a, b, rounding_mode="floor"),
    "trunc": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "fmod": torch.fmod,
    "floor_divide_": lambda a, b: a.clone().floor_divide_(b),
    "//=": lambda a, b: a.clone().__ifloordiv__(b),
    "fmod_": lambda a, b: a.clone().fmod_(b),
    "fmod_ number": lambda a, b: a.clone().fmod_(0),
    "// number": lambda a, b: a // 0,
    "% number": lambda a, b: a % 0,
}


@pytest.mark.parametrize("dtype", [torch.int8, torch.int32, torch.int64])
@pytest.mark.parametrize("name", list(_DIVISIONS))
def test_integer_division_by_zero(name, dtype):
  fn = _DIVISIONS[name]
  a = torch.tensor([7, -7, 0, 9, -9, 5]).to(dtype)
  b = torch.tensor([0, 0, 0, 2, 2, -3]).to(dtype)
  ours = fn(a.to(torch_xla.device()), b.to(torch_xla.device())).cpu()
  nonzero = b != 0
  if "number" in name:
    assert ours.tolist() == [0] * 6
    return
  assert ours[~nonzero].tolist() == [0, 0, 0]
  assert torch.equal(ours[nonzero], fn(a[nonzero], b[nonzero]))
  assert ours.dtype == dtype


@pytest.mark.parametrize("name,fn", [
    ("index_copy", lambda d: torch.zeros(3, 2, device=d).index_copy(
        0, torch.tensor([3]), torch.ones(1, 2, device=d))),
    ("index_copy negative", lambda d: torch.zeros(3, 2, device=d).index_copy(
        0, torch.tensor([-1]), torch.ones(1, 2, device=d))),
    ("index_fill", lambda d: torch.zeros(3, 2, device=d).index_fill(
        1, torch.tensor([2]), 1.0)),
    ("index_fill negative wraps", lambda d: torch.zeros(3, 2, device=d)
     .index_fill(0, torch.tensor([-1, -3]), 1.0)),
    ("index_fill too negative", lambda d: torch.zeros(3, 2, device=d)
     .index_fill(0, torch.tensor([-4]), 1.0)),
    ("index_fill overflow", lambda d: torch.zeros(3, dtype=torch.int8,
                                                  device=d).index_fill(
        0, torch.tensor([0]), 300)),
])
def test_index_copy_and_fill_like_eager(name, fn):
  check_like_eager(fn)


_X23 = lambda d: torch.arange(6.0, device=d).view(2, 3)  # noqa: E731


@pytest.mark.parametrize("name,fn", [
    ("gather", lambda d: torch.gather(_X23(d), 1, torch.tensor(
        [[0, 5], [1, 2]], device=d))),
    ("gather negative", lambda d: torch.gather(_X23(d), 1, torch.tensor(
        [[0, -1], [1, 2]], device=d))),
    ("scatter", lambda d: torch.zeros(2, 3, device=d).scatter(
        1, torch.tensor([[0, 7]], device=d), 1.0)),
    ("scatter_add", lambda d: torch.zeros(2, 3, device=d).scatter_add(
        1, torch.tensor([[0, 7]], device=d), torch.ones(1, 2, device=d))),
    ("scatter_reduce", lambda d: torch.zeros(3, device=d).scatter_reduce(
        0, torch.tensor([4], device=d), torch.ones(1, device=d), "sum")),
    ("take", lambda d: torch.take(_X23(d), torch.tensor([9], device=d))),
    ("take negative", lambda d: torch.take(_X23(d), torch.tensor(
        [-7], device=d))),
    ("put_", lambda d: torch.zeros(6, device=d).put_(
        torch.tensor([9], device=d), torch.ones(1, device=d))),
    ("take in range", lambda d: torch.take(_X23(d), torch.tensor(
        [-6, 5], device=d))),
])
def test_gather_scatter_take_put_indices_like_eager(name, fn):
  # Host-known indices: eager's error class and text at once.
  check_like_eager(fn, match="out of")


_LOGITS = lambda d: torch.arange(6.0, device=d).view(2, 3) / 7  # noqa: E731


@pytest.mark.parametrize("name,fn,match", [
    ("cross_entropy target", lambda d: torch.nn.functional.cross_entropy(
        _LOGITS(d), torch.tensor([0, 5], device=d)), "Target 5 is out"),
    ("nll_loss negative", lambda d: torch.nn.functional.nll_loss(
        _LOGITS(d), torch.tensor([0, -2], device=d)), "Target -2 is out"),
    ("ignore_index is fine", lambda d: torch.nn.functional.cross_entropy(
        _LOGITS(d), torch.tensor([2, -100], device=d)), None),
    ("softmax of ints", lambda d: torch.softmax(torch.tensor(
        [1, 2], device=d), 0), "not implemented for 'Long'"),
    ("where int condition", lambda d: torch.where(torch.tensor(
        [1, 0], device=d), 1.0, 2.0), "boolean tensor"),
])
def test_loss_targets_softmax_and_where_like_eager(name, fn, match):
  check_like_eager(fn, match=match)


def test_cpu_loss_targets_name_the_devices():
  # Eager on an accelerator refuses cpu targets; they never reach the IR.
  with pytest.raises(RuntimeError, match="same device.*xla:0 and cpu"):
    torch.nn.functional.cross_entropy(
        _LOGITS(torch_xla.device()), torch.tensor([-100, 1]))


# Values checked on the device (docs/device_checks.md, "Value checks").

def _computed(values, dtype=torch.int64):
  base = torch.tensor(values, dtype=dtype, device=torch_xla.device())
  return base * 2 - base  # == values, computed on the device


def _drain():
  try:
    xm.wait_device_ops()
  except RuntimeError:
    pass


def test_one_hot_of_uploaded_values_reads_nothing_from_the_device():
  x = torch.tensor([0, 2, 1], device=torch_xla.device())
  torch_xla.sync()
  met.clear_all()
  y = torch.nn.functional.one_hot(x, 3)
  assert met.metric_data("TransferFromDeviceTime") is None
  assert y.cpu().tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]
  with pytest.raises(RuntimeError, match="^Class values must be smaller"):
    torch.nn.functional.one_hot(x, 2)


def test_one_hot_inferring_the_class_count_reads_once():
  x = _computed([3, 0])
  torch_xla.sync()
  met.clear_all()
  y = torch.nn.functional.one_hot(x)
  assert met.metric_data("TransferFromDeviceTime")[0] == 1
  assert y.shape == (2, 4)
  with pytest.raises(RuntimeError, match="^Class values must be non-neg"):
    torch.nn.functional.one_hot(_computed([3, -1]))


def test_one_hot_of_computed_values_raises_at_the_read_naming_the_op():
  _drain()
  y = torch.nn.functional.one_hot(_computed([[0, 3]]), 3)
  with pytest.raises(RuntimeError, match=r"^one_hot: Class values must be "
                     r"smaller than num_classes\. \(a device-side check"):
    y.cpu()
  # Reported once: the next step runs normally.
  ok = torch.nn.functional.one_hot(_computed([2]), 3)
  assert ok.cpu().tolist() == [[0, 0, 1]]


def test_one_hot_of_computed_negative_values_names_the_minimum_first():
  # Eager CPU checks the minimum first: a negative value is named even
  # when another value is too large.
  for values in ([[1, -2]], [[7, -2]]):
    _drain()
    y = torch.nn.functional.one_hot(_computed(values), 3)
    with pytest.raises(RuntimeError, match=r"^one_hot: Class values must be "
                       r"non-negative\. \(a device-side check"):
      y.cpu()


def test_one_hot_under_inference_mode_is_checked_too():
  # aten::one_hot then reaches __torch_dispatch__ itself (no Autograd key).
  _drain()
  with torch.inference_mode():
    with pytest.raises(RuntimeError, match="Class values must be smaller"):
      torch.nn.functional.one_hot(_computed([4]), 3).cpu()


def test_multinomial_check_adds_no_execution():
  _drain()
  probs = torch.tensor([[0.2, 0.8], [1.0, 0.0]], device=torch_xla.device())
  torch_xla.sync()
  for _ in range(2):  # compile, and read the first step's check
    torch.multinomial(probs, 1)
    torch_xla.sync()
  met.clear_metrics()
  for _ in range(3):
    sample = torch.multinomial(probs, 1)
    torch_xla.sync()
  assert met.metric_data("ExecuteTime")[0] == 3
  assert sample[1].item() == 0
  xm.wait_device_ops()  # valid weights: nothing raises


@pytest.mark.parametrize("probs,replacement,match", [
    ([[0.5, -0.5]], False, "element < 0"),
    ([[0.5, float("nan")]], True, r"entry < 0\)"),
    ([[0.5, float("inf")]], True, r"entry = infinity or NaN\)"),
    ([[0.5, 0.5], [0.0, 0.0]], False, r"sum of probabilities <= 0\)"),
])
def test_multinomial_weights_raise_eager_text(probs, replacement, match):
  _drain()
  p = torch.tensor(probs, device=torch_xla.device())
  with pytest.raises(RuntimeError, match=match):
    torch.multinomial(p, 2, replacement=replacement).cpu()


def test_one_hot_under_torch_compile_traces_pytorchs_decomposition():
  # Fake tensors reach the AutogradXLA kernel while tracing: they take
  # PyTorch's decomposition (the compiled graph carries no check).
  compiled = torch.compile(
      lambda x: torch.nn.functional.one_hot(x, 4).sum(0), backend="openxla")
  x = torch.tensor([0, 3, 1], device=torch_xla.device())
  assert compiled(x).cpu().tolist() == [1, 1, 0, 1]
