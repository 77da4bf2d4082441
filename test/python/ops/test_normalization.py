"""Softmax, layer/batch/RMS norm on 'xla' against eager CPU PyTorch.

Every case runs through op_test_utils.check_op (values, gradients, no CPU
fallback); batch norm also compares the running statistics it updates.
"""

import math
import re

import pytest
import torch
import torch.nn.functional as F

import torch_xla
from op_test_utils import XLA, check_op, fallback_counters

FLOATS = [torch.float32, torch.bfloat16]


@pytest.fixture(autouse=True)
def _seed():
  torch.manual_seed(0)


# ---------------------------------------------------------------------------
# Softmax.


@pytest.mark.parametrize("shape, dim", [((), 0), ((), -1), ((1,), 0),
                                        ((5,), -1), ((3, 1), 1), ((3, 1), 0),
                                        ((2, 3, 4), 1), ((2, 3, 4), -1),
                                        ((2, 3, 4), -3)])
@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
@pytest.mark.parametrize("dtype", FLOATS)
def test_softmax(shape, dim, fn, dtype):
  check_op(lambda a: fn(a, dim), torch.randn(shape, dtype=dtype))


@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
def test_softmax_dtype_argument(fn):
  check_op(lambda a: fn(a, -1, dtype=torch.float32),
           torch.randn(3, 5, dtype=torch.bfloat16))


@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
def test_softmax_is_stable_for_large_logits(fn):
  x = torch.tensor([[1e4, 1e4 + 1.0, 1e4 - 3.0], [-1e4, 0.0, 88.0]])
  out = check_op(lambda a: fn(a, 1), x)
  assert torch.isfinite(out.cpu()).all()


def test_softmax_with_masked_entries():
  x = torch.randn(3, 4)
  x[0, 1] = x[2, 0] = x[2, 3] = -math.inf
  check_op(lambda a: F.softmax(a, 1), x)
  check_op(lambda a: F.log_softmax(a, 1), x, grad=False)


@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
def test_softmax_rows_with_nan_and_inf_like_eager(fn):
  # The row max is XLA's plain max reduction: a NaN or +inf must still
  # reach its whole row through the sum, as in eager.
  x = torch.randn(6, 5)
  x[0, 2] = math.nan
  x[1, 0] = math.inf
  x[2] = -math.inf
  x[3, 4] = math.nan
  x[3, 1] = math.inf
  x[4, 3] = -math.inf
  out = check_op(lambda a: fn(a, 1), x, grad=False)
  assert out.cpu()[:4].isnan().all() and out.cpu()[4:].isfinite().sum() > 0


def test_safe_softmax_zeroes_fully_masked_rows():
  x = torch.randn(3, 4)
  x[1] = -math.inf
  out = check_op(lambda a: torch.ops.aten._safe_softmax(a, -1), x,
                 grad=False)
  assert out.cpu()[1].eq(0).all()


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_backward_ops_directly(dim):
  y = torch.softmax(torch.randn(3, 5), dim)
  g = torch.randn(3, 5)
  check_op(
      lambda gg, yy: torch.ops.aten._softmax_backward_data(
          gg, yy, dim, torch.float32), g, y, grad=False)
  ly = torch.log_softmax(torch.randn(3, 5), dim)
  check_op(
      lambda gg, yy: torch.ops.aten._log_softmax_backward_data(
          gg, yy, dim, torch.float32), g, ly, grad=False)


# ---------------------------------------------------------------------------
# Layer norm and RMS norm.

LAYER_NORM_CASES = [((4, 10), (10,)), ((2, 3, 4), (3, 4)), ((2, 3, 4), (4,)),
                    ((5,), (5,)), ((3, 1), (1,)), ((2, 3, 4), (2, 3, 4))]


@pytest.mark.parametrize("shape, normalized", LAYER_NORM_CASES)
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("dtype", FLOATS)
def test_layer_norm(shape, normalized, affine, dtype):
  x = torch.randn(shape, dtype=dtype) * 3 + 1
  # With one normalized element x - mean is exactly 0 here; eager's is a
  # rounding residue, which reaches the weight gradient.
  atol = 1e-4 if normalized == (1,) else None
  if affine:
    check_op(lambda a, w, b: F.layer_norm(a, normalized, w, b, eps=1e-5), x,
             torch.randn(normalized, dtype=dtype),
             torch.randn(normalized, dtype=dtype), atol=atol)
  else:
    check_op(lambda a: F.layer_norm(a, normalized), x, atol=atol)


def test_layer_norm_weight_only():
  check_op(lambda a, w: F.layer_norm(a, (6,), w), torch.randn(3, 6),
           torch.randn(6))


def test_layer_norm_module_training_step():
  torch.manual_seed(1)
  norm = torch.nn.LayerNorm(8)
  check_op(lambda a, w, b: F.layer_norm(a, (8,), w, b, norm.eps),
           torch.randn(4, 8), norm.weight.detach(), norm.bias.detach())


@pytest.mark.parametrize("shape, normalized", LAYER_NORM_CASES)
@pytest.mark.parametrize("eps", [None, 1e-6])
@pytest.mark.parametrize("dtype", FLOATS)
def test_rms_norm(shape, normalized, eps, dtype):
  x = torch.randn(shape, dtype=dtype)
  check_op(lambda a, w: F.rms_norm(a, normalized, w, eps), x,
           torch.randn(normalized, dtype=dtype))
  check_op(lambda a: F.rms_norm(a, normalized, eps=eps), x)


@pytest.mark.parametrize("weight", [True, False])
def test_fused_rms_norm_ops_directly(weight):
  x = torch.randn(3, 4, 6)
  w = torch.randn(6) if weight else None
  check_op(lambda a, ww: torch.ops.aten._fused_rms_norm(a, [6], ww, 1e-5), x,
           w, grad=False)
  # The backward op has no CPU kernel: compare with autograd through the
  # composite rms_norm on CPU.
  g = torch.randn(3, 4, 6)
  xr = x.clone().requires_grad_()
  wr = w.clone().requires_grad_() if weight else None
  expected = torch.autograd.grad(
      F.rms_norm(xr, [6], wr, 1e-5), [xr] + ([wr] if weight else []), g)
  _, rstd = torch.ops.aten._fused_rms_norm(x, [6], w, 1e-5)
  before = fallback_counters()
  gx, gw = torch.ops.aten._fused_rms_norm_backward(
      g.to(XLA), x.to(XLA), [6], rstd.to(XLA),
      w.to(XLA) if weight else None, [True, weight])
  torch.testing.assert_close(gx.cpu(), expected[0])
  if weight:
    torch.testing.assert_close(gw.cpu(), expected[1])
  else:
    assert gw is None
  assert fallback_counters() == before


@pytest.mark.parametrize("fn", [
    lambda a: F.softmax(a, 2), lambda a: F.log_softmax(a, -3),
    lambda a: F.layer_norm(a, (5,)), lambda a: F.rms_norm(a, (3, 4))
],
                         ids=["softmax", "log_softmax", "layer_norm",
                              "rms_norm"])
def test_errors_match_eager(fn):
  x = torch.randn(4, 6)
  with pytest.raises(Exception) as expected:
    fn(x)
  with pytest.raises(type(expected.value),
                     match=re.escape(str(expected.value))):
    fn(x.to(XLA))


def test_eps_is_a_scalar_parameter():
  # A different eps must not change the graph (no recompilation).
  x = torch.randn(4, 6).to(XLA)
  hashes = {
      torch_xla._XLAC._get_graph_hash([F.layer_norm(x, (6,), eps=eps)])
      for eps in (1e-5, 1e-6)
  }
  assert len(hashes) == 1


# ---------------------------------------------------------------------------
# Batch norm.


def _batch_norm_case(shape, affine, dtype=torch.float32):
  channels = shape[1]
  x = torch.randn(shape, dtype=dtype) * 2 + 0.5
  params = [torch.randn(channels), torch.randn(channels)] if affine else []
  stats = (torch.randn(channels) * 0.1, torch.rand(channels) + 0.5)
  return x, params, stats


@pytest.mark.parametrize("shape", [(8, 3), (4, 3, 5), (2, 3, 4, 5),
                                   (1, 2, 3, 3)])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("momentum", [0.1, 0.5])
def test_batch_norm(shape, training, affine, momentum):
  x, params, (mean0, var0) = _batch_norm_case(shape, affine)
  stats = {}

  def fn(a, *wb):
    device = a.device
    mean, var = mean0.clone().to(device), var0.clone().to(device)
    out = F.batch_norm(a, mean, var, *wb, training=training,
                       momentum=momentum, eps=1e-5)
    stats[device.type] = (mean, var)
    return out

  check_op(fn, x, *params)
  for cpu, xla in zip(stats["cpu"], stats["xla"]):
    torch.testing.assert_close(xla.cpu(), cpu)


def test_batch_norm_without_running_stats():
  x, (w, b), _ = _batch_norm_case((6, 4, 3), True)
  check_op(lambda a, ww, bb: F.batch_norm(a, None, None, ww, bb, True), x, w,
           b)


def test_batch_norm_bf16_input_with_f32_params():
  x, (w, b), (mean, var) = _batch_norm_case((6, 4), True, torch.bfloat16)
  out = check_op(
      lambda a, ww, bb: torch.ops.aten.native_batch_norm(
          a, ww, bb, None, None, True, 0.1, 1e-5), x, w, b)
  assert [t.dtype for t in out] == [torch.bfloat16, torch.float32,
                                    torch.float32]


def test_batch_norm_module_updates_running_stats():
  torch.manual_seed(2)
  cpu = torch.nn.BatchNorm2d(3)
  xla = torch.nn.BatchNorm2d(3).to(XLA)
  xla.load_state_dict(cpu.state_dict())
  for step in range(3):
    x = torch.randn(4, 3, 5, 5)
    cpu(x).sum().backward()
    xla(x.to(XLA)).sum().backward()
  for name, value in cpu.state_dict().items():
    torch.testing.assert_close(xla.state_dict()[name].cpu(), value)
  torch.testing.assert_close(xla.weight.grad.cpu(), cpu.weight.grad)
  torch.testing.assert_close(xla.bias.grad.cpu(), cpu.bias.grad)
  cpu.eval()
  xla.eval()
  x = torch.randn(2, 3, 5, 5)
  torch.testing.assert_close(xla(x.to(XLA)).cpu(), cpu(x))


@pytest.mark.parametrize("op_name", [
    "_native_batch_norm_legit_functional", "_native_batch_norm_legit",
    "_native_batch_norm_legit_no_training", "_batch_norm_with_update",
    "_batch_norm_with_update_functional", "_batch_norm_no_update"
])
def test_batch_norm_variants(op_name):
  # The overloads that torch.export / torch.compile graphs call directly.
  x, (w, b), (mean0, var0) = _batch_norm_case((4, 3, 2), True)
  fn = getattr(torch.ops.aten, op_name)
  results = {}

  def run(a, ww, bb):
    mean, var = mean0.clone().to(a.device), var0.clone().to(a.device)
    if "legit" in op_name and "no_training" not in op_name:
      out = fn(a, ww, bb, mean, var, True, 0.1, 1e-5)
    else:
      out = fn(a, ww, bb, mean, var, 0.1, 1e-5)
    results[a.device.type] = (mean, var)
    return out

  check_op(run, x, w, b, grad=False)
  for cpu, xla in zip(results["cpu"], results["xla"]):
    torch.testing.assert_close(xla.cpu(), cpu)


def test_batch_norm_eval_without_running_stats_raises():
  # (Eager CPU crashes on _batch_norm_no_update without stats; we raise.)
  x = torch.randn(4, 3).to(XLA)
  with pytest.raises(RuntimeError, match="running_mean and running_var must "
                     "be defined in evaluation mode"):
    torch.ops.aten._batch_norm_no_update(x, None, None, None, None, 0.1, 1e-5)
  with pytest.raises(RuntimeError, match="evaluation mode"):
    torch.ops.aten.native_batch_norm(x, None, None, None, None, False, 0.1,
                                     1e-5)


def test_batch_norm_backward_op_directly():
  x, (w, _), (mean, var) = _batch_norm_case((4, 3, 2), True)
  g = torch.randn(4, 3, 2)
  _, save_mean, save_invstd = torch.ops.aten.native_batch_norm(
      x, w, None, None, None, True, 0.1, 1e-5)
  for train in (True, False):
    check_op(
        lambda gg, a, ww, m, v, sm, si: torch.ops.aten.
        native_batch_norm_backward(gg, a, ww, m, v, sm, si, train, 1e-5,
                                   [True, True, True]),
        g, x, w, mean, var, save_mean, save_invstd, grad=False)
