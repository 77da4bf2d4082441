"""Optimizer math on 'xla': lerp, addcmul, addcdiv, the `_foreach_*` ops,
and whole torch.optim steps (SGD with momentum, Adam, AdamW; foreach on and
off; clip_grad_norm_) against the same steps in eager CPU PyTorch, with no
CPU fallback and no recompiles when the learning rate changes.
"""

import copy
import re

import pytest
import torch

import torch_xla
import torch_xla.debug.metrics as met
from torch_xla import _XLAC
from op_test_utils import XLA, check_op, fallback_counters

FLOATS = [torch.float32, torch.bfloat16]


# lerp / addcmul / addcdiv -----------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("weight", [0.0, 0.3, 0.5, 0.9, -0.2, 1.7])
def test_lerp_scalar(weight, dtype):
  check_op(lambda a, b: torch.lerp(a, b, weight),
           torch.randn(3, 4, dtype=dtype), torch.randn(3, 4, dtype=dtype))
  check_op(lambda a, b: a.clone().lerp_(b, weight),
           torch.randn(3, 4, dtype=dtype), torch.randn(4, dtype=dtype))


@pytest.mark.parametrize("dtype", FLOATS)
def test_lerp_tensor_weight(dtype):
  w = torch.tensor([-0.5, 0.0, 0.25, 0.49, 0.5, 0.75, 1.0, 2.0], dtype=dtype)
  check_op(torch.lerp, torch.randn(3, 8, dtype=dtype),
           torch.randn(8, dtype=dtype), w)
  check_op(lambda a, b, w: a.clone().lerp_(b, w),
           torch.randn(3, 8, dtype=dtype), torch.randn(3, 8, dtype=dtype), w)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("value", [1, 0.5, -2.0])
def test_addcmul_addcdiv(value, dtype):
  s, a, b = (torch.randn(3, 4, dtype=dtype), torch.randn(4, dtype=dtype),
             torch.rand(3, 1, dtype=dtype) + 0.5)
  check_op(lambda s, a, b: torch.addcmul(s, a, b, value=value), s, a, b)
  check_op(lambda s, a, b: torch.addcdiv(s, a, b, value=value), s, a, b)
  check_op(lambda s, a, b: s.clone().addcmul_(a, b, value=value), s, a, b)
  check_op(lambda s, a, b: s.clone().addcdiv_(a, b, value=value), s, a, b)


def test_addcmul_integer_and_addcdiv_integer_error():
  ints = [torch.randint(-5, 5, (3, 4)) for _ in range(3)]
  check_op(lambda s, a, b: torch.addcmul(s, a, b, value=3), *ints)
  message = "Integer division with addcdiv is no longer supported"
  with pytest.raises(RuntimeError, match=message):
    torch.addcdiv(*ints)
  with pytest.raises(RuntimeError, match=message):
    torch.addcdiv(*[t.to(XLA) for t in ints])


def test_lerp_dtype_error():
  message = "expected dtype float for `end` but got dtype double"
  with pytest.raises(RuntimeError, match=re.escape(message)):
    torch.lerp(torch.randn(3), torch.randn(3).double(), 0.5)
  with pytest.raises(RuntimeError, match=re.escape(message)):
    torch.lerp(torch.randn(3).to(XLA), torch.randn(3).double().to(XLA), 0.5)


def test_inplace_shape_error():
  with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
    torch.randn(4).to(XLA).addcmul_(torch.randn(3, 4).to(XLA),
                                    torch.randn(4).to(XLA))


# _foreach_* -------------------------------------------------------------------

SHAPES = [(3,), (2, 3), (4, 1, 2)]


def _tensors(positive=False):
  ts = [torch.randn(s) for s in SHAPES]
  return [t.abs() + 0.5 for t in ts] if positive else ts


def _check_foreach(fn, *lists, inplace=False):
  """fn on lists of cpu tensors and on their xla copies; compares the
  result lists, or, for in-place ops, the first list after the call."""
  xla_lists = [[t.to(XLA) for t in lst] if isinstance(lst, list) else lst
               for lst in lists]
  before = fallback_counters()
  cpu_lists = [[t.clone() for t in lst] if isinstance(lst, list) else lst
               for lst in lists]
  expected = fn(*cpu_lists)
  actual = fn(*xla_lists)
  assert fallback_counters() == before, "a foreach op fell back to CPU"
  if inplace:
    assert actual is None or actual == [] or all(
        a is x for a, x in zip(actual, xla_lists[0]))
    expected, actual = cpu_lists[0], xla_lists[0]
  assert len(expected) == len(actual)
  for e, a in zip(expected, actual):
    assert a.device.type == "xla"
    torch.testing.assert_close(a.cpu(), e, atol=1e-5, rtol=1.3e-5)


BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "clamp_min",
          "clamp_max", "pow"]


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("name", BINARY)
def test_foreach_binary(name, inplace):
  fn = getattr(torch, f"_foreach_{name}{'_' if inplace else ''}")
  positive = name == "pow"
  _check_foreach(fn, _tensors(positive), _tensors(), inplace=inplace)
  _check_foreach(lambda a: fn(a, 1.5), _tensors(positive), inplace=inplace)
  _check_foreach(lambda a: fn(a, [0.5, -2.0, 3.0]), _tensors(positive),
                 inplace=inplace)
  if name in ("add", "sub"):
    _check_foreach(lambda a, b: fn(a, b, alpha=-0.25), _tensors(),
                   _tensors(), inplace=inplace)
  if name in ("add", "mul", "div"):
    scalar = torch.tensor(0.75).to(XLA)
    _check_foreach(lambda a: fn(a, scalar if a[0].device.type == "xla" else
                                scalar.cpu()), _tensors(), inplace=inplace)


def test_foreach_pow_scalar_and_tensor():
  _check_foreach(lambda e: torch._foreach_pow(2.0, e), _tensors())


UNARY = ["sqrt", "neg", "abs", "exp", "log", "reciprocal", "sigmoid", "sign",
         "tanh", "sin", "cos", "floor", "ceil", "round", "trunc", "expm1",
         "log1p", "erf"]


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("name", UNARY)
def test_foreach_unary(name, inplace):
  fn = getattr(torch, f"_foreach_{name}{'_' if inplace else ''}")
  positive = name in ("sqrt", "log", "reciprocal", "log1p")
  _check_foreach(fn, _tensors(positive), inplace=inplace)


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_foreach_addcmul_addcdiv(name, inplace):
  fn = getattr(torch, f"_foreach_{name}{'_' if inplace else ''}")
  _check_foreach(fn, _tensors(), _tensors(), _tensors(True), inplace=inplace)
  _check_foreach(lambda s, a, b: fn(s, a, b, value=-0.5), _tensors(),
                 _tensors(), _tensors(True), inplace=inplace)
  _check_foreach(lambda s, a, b: fn(s, a, b, [0.5, 2.0, -1.0]), _tensors(),
                 _tensors(), _tensors(True), inplace=inplace)
  _check_foreach(lambda s, a, b: fn(s, a, b, torch.tensor([0.5, 2.0, -1.0])),
                 _tensors(), _tensors(), _tensors(True), inplace=inplace)


@pytest.mark.parametrize("inplace", [False, True])
def test_foreach_lerp(inplace):
  fn = torch._foreach_lerp_ if inplace else torch._foreach_lerp
  _check_foreach(lambda a, b: fn(a, b, 0.3), _tensors(), _tensors(),
                 inplace=inplace)
  _check_foreach(lambda a, b: fn(a, b, [0.1, 0.6, 0.9]), _tensors(),
                 _tensors(), inplace=inplace)
  weights = [torch.rand(s) for s in SHAPES]
  _check_foreach(fn, _tensors(), _tensors(), weights, inplace=inplace)


@pytest.mark.parametrize("ord", [2, 1, 3, float("inf"), 0])
def test_foreach_norm(ord):
  _check_foreach(lambda a: torch._foreach_norm(a, ord), _tensors())


def test_foreach_max_zero_copy():
  _check_foreach(torch._foreach_max, _tensors())
  _check_foreach(torch._foreach_zero_, _tensors(), inplace=True)
  _check_foreach(torch._foreach_copy_, _tensors(), _tensors(), inplace=True)


def test_foreach_list_length_error():
  with pytest.raises(RuntimeError, match="Tensor lists must have the same "
                     "number of tensors, got 1 and 2"):
    torch._foreach_add([torch.randn(3).to(XLA)],
                       [torch.randn(3).to(XLA), torch.randn(3).to(XLA)])


# Whole optimizer steps --------------------------------------------------------


class _MLP(torch.nn.Module):

  def __init__(self):
    super().__init__()
    self.fc1 = torch.nn.Linear(6, 16)
    self.fc2 = torch.nn.Linear(16, 3)

  def forward(self, x):
    return self.fc2(torch.tanh(self.fc1(x)))


OPTIMIZERS = {
    "sgd_momentum": lambda p, foreach: torch.optim.SGD(
        p, lr=0.1, momentum=0.9, foreach=foreach),
    "sgd_nesterov_wd": lambda p, foreach: torch.optim.SGD(
        p, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01,
        foreach=foreach),
    "adam": lambda p, foreach: torch.optim.Adam(p, lr=0.01, foreach=foreach),
    "adam_wd": lambda p, foreach: torch.optim.Adam(
        p, lr=0.01, weight_decay=0.1, foreach=foreach),
    "adamw": lambda p, foreach: torch.optim.AdamW(
        p, lr=0.01, weight_decay=0.03, foreach=foreach),
    "adamw_amsgrad": lambda p, foreach: torch.optim.AdamW(
        p, lr=0.01, weight_decay=0.03, amsgrad=True, foreach=foreach),
}

# The first steps compile: step 1 creates the optimizer state, and the
# buffer aliasing of in-place state updates settles by step 3 (a momentum
# buffer cloned from a gradient shares that gradient's data at first, so
# its first in-place update cannot reuse the buffer). From then on, the
# graph must not change when the learning rate does (steps 4 and 5).
LRS = [0.01, 0.01, 0.01, 0.005, 0.02]
STEADY = 3


def _train(name, foreach, clip, optimizers=OPTIMIZERS):
  torch.manual_seed(0)
  _XLAC._clear_compile_cache()  # count this test's compiles only
  cpu_model = _MLP()
  xla_model = copy.deepcopy(cpu_model).to(XLA)
  runs = []
  for model in (cpu_model, xla_model):
    runs.append((model, optimizers[name](model.parameters(), bool(foreach))))
  batches = [(torch.randn(8, 6), torch.randn(8, 3)) for _ in LRS]
  fallbacks = fallback_counters()
  compiles = []
  for step, ((x, y), lr) in enumerate(zip(batches, LRS)):
    for model, opt in runs:
      for group in opt.param_groups:
        group["lr"] = lr * (10 if name.startswith("sgd") else 1)
      device = next(model.parameters()).device
      opt.zero_grad()
      loss = (model(x.to(device)) - y.to(device)).square().mean()
      loss.backward()
      if clip:
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5,
                                       foreach=foreach)
      opt.step()
    before = met.counter_value("UncachedCompile") or 0
    torch_xla.sync()
    compiles.append((met.counter_value("UncachedCompile") or 0) - before)
    for (n, p_cpu), p_xla in zip(cpu_model.named_parameters(),
                                 xla_model.parameters()):
      torch.testing.assert_close(p_xla.detach().cpu(), p_cpu.detach(),
                                 atol=1e-5, rtol=1e-5,
                                 msg=lambda m: f"step {step + 1}, {n}: {m}")
  assert fallback_counters() == fallbacks, "an op fell back to CPU"
  assert compiles[STEADY:] == [0, 0], f"compiles per step: {compiles}"


@pytest.mark.parametrize("foreach", [True, False])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_optimizer_steps_match_eager(name, foreach):
  _train(name, foreach, clip=False)


# clip_grad_norm_(foreach=True) refuses devices outside torch's foreach
# list (cuda, xpu, privateuse1) before any op runs; None picks the per-tensor
# path on 'xla', like upstream PyTorch/XLA.
@pytest.mark.parametrize("foreach", [None, False])
@pytest.mark.parametrize("name", ["sgd_momentum", "adamw"])
def test_clip_grad_norm_then_step(name, foreach):
  _train(name, foreach, clip=True)


# AdamW's 1 - lr * weight_decay equals beta2 (0.999) for lr=0.01, wd=0.1 and
# differs once lr changes: scalars are never shared by value, so the graph's
# structure stays the same and nothing recompiles.
def test_adamw_lr_change_when_a_scalar_coincides_with_beta2():
  _train("adamw", True, clip=False, optimizers={
      "adamw": lambda p, foreach: torch.optim.AdamW(
          p, lr=0.01, weight_decay=0.1, foreach=foreach)})
