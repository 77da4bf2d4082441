"""Losses on 'xla' against eager CPU PyTorch: values, gradients, errors.

Every case runs through op_test_utils.check_op, which also asserts that
nothing fell back to CPU.
"""

import re

import pytest
import torch
import torch.nn.functional as F

import torch_xla  # noqa: F401  (registers the rules)
from op_test_utils import XLA, check_op

REDUCTIONS = ["mean", "sum", "none"]
FLOATS = [torch.float32, torch.bfloat16]


@pytest.fixture(autouse=True)
def _seed():
  torch.manual_seed(0)


def _frozen(t):
  """An input that takes no gradient (targets, class weights)."""
  return t.detach().requires_grad_(False)


def _logits(shape, dtype=torch.float32):
  return torch.randn(shape, dtype=dtype).requires_grad_()


# ---------------------------------------------------------------------------
# nll_loss and cross_entropy.


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore_index", [-100, 2])
@pytest.mark.parametrize("dtype", FLOATS)
def test_nll_loss(reduction, weighted, ignore_index, dtype):
  x = torch.randn(8, 5, dtype=dtype).log_softmax(1).detach().requires_grad_()
  target = _frozen(torch.tensor([0, 2, 4, 1, 2, 3, 2, 0]))
  weight = _frozen(torch.rand(5, dtype=dtype)) if weighted else None
  check_op(
      lambda a, t, w: F.nll_loss(
          a, t, w, reduction=reduction, ignore_index=ignore_index), x, target,
      weight)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_unbatched(reduction):
  x = torch.randn(6).log_softmax(0).detach().requires_grad_()
  check_op(lambda a, t: F.nll_loss(a, t, reduction=reduction), x,
           _frozen(torch.tensor(4)))


def test_nll_loss_all_ignored_mean_is_nan():
  x = _logits((3, 4))
  target = _frozen(torch.tensor([-100, -100, -100]))
  check_op(lambda a, t: F.nll_loss(a, t), x, target, grad=False)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss2d(reduction, weighted):
  x = torch.randn(2, 3, 4, 5).log_softmax(1).detach().requires_grad_()
  target = torch.randint(0, 3, (2, 4, 5))
  target[0, 0, :2] = 1  # a few ignored pixels when ignore_index == 1
  weight = _frozen(torch.rand(3)) if weighted else None
  check_op(
      lambda a, t, w: F.nll_loss(a, t, w, reduction=reduction, ignore_index=1
                                ), x, _frozen(target), weight)


@pytest.mark.parametrize("op_name, shape, target_shape",
                         [("nll_loss_forward", (6, 4), (6,)),
                          ("nll_loss2d_forward", (2, 4, 3, 3), (2, 3, 3))])
def test_nll_loss_ops_return_total_weight(op_name, shape, target_shape):
  x = torch.randn(shape)
  target = torch.randint(0, 4, target_shape)
  weight = torch.rand(4)
  for reduction in (0, 1, 2):
    check_op(
        lambda a, t, w: getattr(torch.ops.aten, op_name)(a, t, w, reduction,
                                                         -100), x, target,
        weight, grad=False)


def test_cross_entropy_batch_runs_without_fallback():
  # The example from the issue: a [8, 10] batch, forward and backward.
  logits = _logits((8, 10))
  target = _frozen(torch.randint(0, 10, (8,)))
  check_op(lambda a, t: F.cross_entropy(a, t), logits, target)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("label_smoothing", [0.0, 0.1])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dtype", FLOATS)
def test_cross_entropy(reduction, label_smoothing, weighted, dtype):
  logits = _logits((8, 10), dtype)
  target = torch.randint(0, 10, (8,))
  target[3] = -100
  weight = _frozen(torch.rand(10, dtype=dtype)) if weighted else None
  check_op(
      lambda a, t, w: F.cross_entropy(
          a, t, w, reduction=reduction, label_smoothing=label_smoothing),
      logits, _frozen(target), weight)


@pytest.mark.parametrize("label_smoothing", [0.0, 0.2])
def test_cross_entropy_probability_targets(label_smoothing):
  probs = _frozen(torch.randn(6, 5).softmax(1))
  check_op(
      lambda a, p: F.cross_entropy(a, p, label_smoothing=label_smoothing),
      _logits((6, 5)), probs)


def test_cross_entropy_spatial():
  check_op(lambda a, t: F.cross_entropy(a, t), _logits((2, 4, 3, 3)),
           _frozen(torch.randint(0, 4, (2, 3, 3))))


def test_cross_entropy_large_logits_are_stable():
  logits = (torch.randn(4, 6) * 1e4).requires_grad_()
  check_op(lambda a, t: F.cross_entropy(a, t), logits,
           _frozen(torch.randint(0, 6, (4,))), rtol=1e-4, atol=1e-3)


# ---------------------------------------------------------------------------
# mse, l1, smooth L1, Huber.


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(), (1,), (4, 5), (2, 3, 4)])
@pytest.mark.parametrize("dtype", FLOATS)
def test_mse_loss(reduction, shape, dtype):
  check_op(lambda a, b: F.mse_loss(a, b, reduction=reduction),
           torch.randn(shape, dtype=dtype), torch.randn(shape, dtype=dtype))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_l1_loss(reduction):
  check_op(lambda a, b: F.l1_loss(a, b, reduction=reduction),
           torch.randn(4, 5), torch.randn(4, 5))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("beta", [1.0, 0.5, 0.0])
def test_smooth_l1_loss(reduction, beta):
  check_op(lambda a, b: F.smooth_l1_loss(a, b, reduction=reduction, beta=beta),
           torch.randn(4, 5), torch.randn(4, 5))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("delta", [1.0, 0.3, 2.5])
def test_huber_loss(reduction, delta):
  check_op(lambda a, b: F.huber_loss(a, b, reduction=reduction, delta=delta),
           torch.randn(4, 5), torch.randn(4, 5))


# ---------------------------------------------------------------------------
# Binary cross entropy.


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("pos_weighted", [False, True])
@pytest.mark.parametrize("dtype", FLOATS)
def test_binary_cross_entropy_with_logits(reduction, weighted, pos_weighted,
                                          dtype):
  x = torch.randn(6, 4, dtype=dtype) * 4
  target = torch.rand(6, 4, dtype=dtype)
  weight = _frozen(torch.rand(6, 4, dtype=dtype)) if weighted else None
  pos_weight = _frozen(torch.rand(4, dtype=dtype) * 3) if pos_weighted else None
  # Eager rounds every intermediate to bf16, and (1 - t) x - log_sigmoid(x)
  # cancels for large |x|; the rule computes in f32 (see the accuracy test
  # below), so bf16 values may differ from eager's by a few bf16 ulps.
  atol = 5e-2 if dtype == torch.bfloat16 else None
  check_op(
      lambda a, t, w, p: F.binary_cross_entropy_with_logits(
          a, t, w, reduction=reduction, pos_weight=p), x.requires_grad_(),
      target.requires_grad_(), weight, pos_weight, atol=atol)


def test_binary_cross_entropy_with_logits_bf16_is_accurate():
  x = torch.randn(64, dtype=torch.bfloat16) * 8
  target = torch.rand(64, dtype=torch.bfloat16)
  exact = F.binary_cross_entropy_with_logits(
      x.double(), target.double(), reduction="none")
  ours = F.binary_cross_entropy_with_logits(
      x.to(XLA), target.to(XLA), reduction="none").cpu().double()
  eager = F.binary_cross_entropy_with_logits(x, target,
                                             reduction="none").double()
  assert (ours - exact).abs().max() <= (eager - exact).abs().max()
  assert (ours - exact).abs().max() <= 2 ** -8 * exact.abs().max()


def test_binary_cross_entropy_with_logits_extreme_logits():
  x = torch.tensor([-200.0, -30.0, 0.0, 30.0, 200.0]).requires_grad_()
  target = _frozen(torch.tensor([1.0, 0.0, 0.5, 1.0, 0.0]))
  check_op(lambda a, t: F.binary_cross_entropy_with_logits(a, t), x, target)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy(reduction, weighted):
  p = torch.rand(5, 3) * 0.98 + 0.01
  target = torch.rand(5, 3)
  weight = _frozen(torch.rand(5, 3)) if weighted else None
  check_op(
      lambda a, t, w: F.binary_cross_entropy(a, t, w, reduction=reduction),
      p.requires_grad_(), _frozen(target), weight)


def test_binary_cross_entropy_target_gradient():
  # Autograd's target formula goes through aten.logit (a decomposition).
  p = torch.rand(5, 3) * 0.98 + 0.01
  check_op(lambda a, t: F.binary_cross_entropy(a, t), p.requires_grad_(),
           torch.rand(5, 3).requires_grad_())


def test_binary_cross_entropy_clamps_log_at_minus_100():
  p = torch.tensor([0.0, 1.0, 0.5, 1e-30]).requires_grad_()
  target = _frozen(torch.tensor([1.0, 0.0, 1.0, 1.0]))
  check_op(lambda a, t: F.binary_cross_entropy(a, t, reduction="none"), p,
           target)


# ---------------------------------------------------------------------------
# Errors.


def _assert_same_error(fn, *cpu_inputs):
  with pytest.raises(Exception) as expected:
    fn(*cpu_inputs)
  xla_inputs = [x.to(XLA) for x in cpu_inputs]
  with pytest.raises(type(expected.value),
                     match=re.escape(str(expected.value))):
    fn(*xla_inputs)


def test_nll_loss_batch_size_mismatch():
  _assert_same_error(F.nll_loss, torch.randn(8, 10),
                     torch.zeros(7, dtype=torch.long))


def test_nll_loss_float_target():
  _assert_same_error(F.nll_loss, torch.randn(8, 10), torch.zeros(8))


def test_cross_entropy_batch_size_mismatch():
  _assert_same_error(F.cross_entropy, torch.randn(8, 10),
                     torch.zeros(3, dtype=torch.long))


def test_smooth_l1_negative_beta():
  _assert_same_error(lambda a, b: F.smooth_l1_loss(a, b, beta=-1.0),
                     torch.randn(3), torch.randn(3))
