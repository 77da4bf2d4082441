"""The nn ops whose Python rule calls a C++ core builder (torch_xla/csrc/ops:
loss_ops, norm_ops, batch_norm_ops, index_ops, reduction_ops) cross from Python into C++ once per op: the
rule checks arguments and makes ONE _XLAC call that returns the wrapped
'xla' tensor(s). A rule that went back to composing IR in Python (one
_XLAC call per node, then a wrap) fails here. Crossings are counted with
sys.setprofile, as calls of _XLAC functions while the op runs.

Values are compared with eager in test/python/ops (test_losses.py,
test_normalization.py, test_reductions.py, ...); here a few sanity values only."""

import pytest
import torch

import torch_xla
from torch_xla._ops.registry import RULES
from crossing_counter import assert_crosses_once
from crossing_counter import crossings as _crossings

aten = torch.ops.aten
DEV = torch_xla.device()


def _host(t):
  """An 'xla' copy of the cpu tensor `t` (its index range is known)."""
  return t.to(DEV)


def _logits():
  torch.manual_seed(0)
  x = torch.randn(6, 5)
  return x, _host(x.log_softmax(1))


def _cases():
  x, lp = _logits()
  target = _host(torch.tensor([0, 4, 2, 1, 3, 2]))
  weight = _host(torch.rand(5))
  total = _host(torch.tensor(6.0))
  one = _host(torch.tensor(1.0))
  lp4 = _host(torch.randn(2, 5, 3, 3).log_softmax(1))
  target4 = _host(torch.randint(0, 5, (2, 3, 3)))
  y = _host(torch.randn(6, 5))
  probs = _host(torch.rand(6, 5))
  labels = _host(torch.rand(6, 5).round())
  ln_x = _host(torch.randn(4, 3, 8))
  ln_w, ln_b = _host(torch.randn(8)), _host(torch.randn(8))
  mean, rstd = _host(torch.randn(4, 3, 1)), _host(torch.rand(4, 3, 1) + 1)
  table = _host(torch.randn(10, 4))
  idx = _host(torch.randint(0, 10, (3, 5)))
  emb_grad = _host(torch.randn(3, 5, 4))
  r = _host(torch.randn(4, 6))
  flags = _host(torch.randn(4, 6) > 0)
  scalar = _host(torch.tensor(2.5))
  rows = _host(torch.tensor([[0, -1], [3, 2]]))
  cols = _host(torch.tensor([1, -2]))
  grid = _host(torch.randn(4, 5, 6))
  put_values = _host(torch.randn(2, 5, 6))
  put_rows = _host(torch.randn(2, 2, 6))
  bn_x = _host(torch.randn(4, 3, 5))
  bn_w, bn_mean, bn_var = (_host(torch.rand(3) + 0.5) for _ in range(3))
  bn_save = _host(torch.rand(3))
  return {
      "native_batch_norm_training": lambda: aten.native_batch_norm(
          bn_x, bn_w, None, bn_mean, bn_var, True, 0.1, 1e-5),
      "native_batch_norm_eval": lambda: aten.native_batch_norm(
          bn_x, bn_w, bn_w, bn_mean, bn_var, False, 0.1, 1e-5),
      "batch_norm_legit_functional":
          lambda: aten._native_batch_norm_legit_functional(
              bn_x, None, None, bn_mean, bn_var, True, 0.1, 1e-5),
      "batch_norm_with_update": lambda: aten._batch_norm_with_update(
          bn_x, bn_w, None, bn_mean, bn_var, 0.1, 1e-5),
      "native_batch_norm_backward": lambda: aten.native_batch_norm_backward(
          bn_x, bn_x, bn_w, bn_mean, bn_var, bn_save, bn_save, True, 1e-5,
          [True, True, True]),
      "native_group_norm": lambda: aten.native_group_norm(
          bn_x, bn_w, bn_w, 4, 3, 5, 3, 1e-5),
      "native_group_norm_backward": lambda: aten.native_group_norm_backward(
          bn_x, bn_x, bn_save.view(1, 3).expand(4, 3),
          bn_save.view(1, 3).expand(4, 3), bn_w, 4, 3, 5, 3,
          [True, True, True]),
      "index_one_dim": lambda: aten.index.Tensor(grid, [rows]),
      "index_put": lambda: aten.index_put(grid, [cols], put_values),
      "index_put_accumulate_": lambda: aten.index_put_(
          grid, [None, rows], put_rows, True),
      "index_put_bool_accumulate": lambda: aten.index_put(
          flags, [cols], flags[:2], True),
      "index_two_apart": lambda: aten.index.Tensor(grid, [cols, None, cols]),
      "index_adjacent": lambda: aten.index.Tensor(grid, [None, rows, cols]),
      "safe_softmax": lambda: aten._safe_softmax(r, 1),
      "amax": lambda: aten.amax(r, [1]),
      "max": lambda: aten.max(r),
      "vector_norm_2": lambda: aten.linalg_vector_norm(r, 2, [1]),
      "vector_norm_3": lambda: aten.linalg_vector_norm(r, 3.0),
      "max.dim": lambda: aten.max.dim(r, 1),
      "min.dim_keepdim": lambda: aten.min.dim(r, 0, True),
      "max.dim_0d": lambda: aten.max.dim(scalar, 0),
      "argmax": lambda: aten.argmax(r),
      "argmin.dim": lambda: aten.argmin(r, 1, True),
      "var": lambda: aten.var.correction(r, [1]),
      "std": lambda: aten.std.correction(r, None, correction=0),
      "var_mean": lambda: aten.var_mean.correction(r, [0], keepdim=True),
      "std_mean": lambda: aten.std_mean.correction(r, [1]),
      "prod": lambda: aten.prod.dim_int(r, 1),
      "prod_all_ints": lambda: aten.prod(flags),
      "any.dim": lambda: aten.any.dim(flags, 1),
      "all": lambda: aten.all(r),
      "logsumexp": lambda: aten.logsumexp(r, [1]),
      "nll_loss_forward_mean": lambda: aten.nll_loss_forward(
          lp, target, None, 1, -100),
      "nll_loss_forward_weighted_none": lambda: aten.nll_loss_forward(
          lp, target, weight, 0, 2),
      "nll_loss_forward_view_target": lambda: aten.nll_loss_forward(
          lp, target.view(2, 3).view(-1), None, 2, -100),
      "nll_loss2d_forward": lambda: aten.nll_loss2d_forward(
          lp4, target4, None, 1, -100),
      "nll_loss_backward": lambda: aten.nll_loss_backward(
          one, lp, target, weight, 1, -100, total),
      "mse_loss": lambda: aten.mse_loss(lp, y, 1),
      "mse_loss_backward": lambda: aten.mse_loss_backward(
          one, lp, y, 1),
      "native_layer_norm": lambda: aten.native_layer_norm(
          ln_x, [8], ln_w, ln_b, 1e-5),
      "native_layer_norm_no_affine": lambda: aten.native_layer_norm(
          ln_x, [3, 8], None, None, 1e-5),
      "native_layer_norm_backward": lambda: aten.native_layer_norm_backward(
          ln_x, ln_x, [8], mean, rstd, ln_w, ln_b, [True, True, True]),
      "smooth_l1_loss": lambda: aten.smooth_l1_loss(lp, y, 1, 0.5),
      "smooth_l1_loss_beta0": lambda: aten.smooth_l1_loss(lp, y, 2, 0.0),
      "smooth_l1_loss_backward": lambda: aten.smooth_l1_loss_backward(
          one, lp, y, 1, 0.5),
      "huber_loss": lambda: aten.huber_loss(lp, y, 0, 2.0),
      "huber_loss_backward": lambda: aten.huber_loss_backward(
          one, lp, y, 1, 2.0),
      "binary_cross_entropy": lambda: aten.binary_cross_entropy(
          probs, labels, None, 1),
      "binary_cross_entropy_backward":
          lambda: aten.binary_cross_entropy_backward(one, probs, labels,
                                                     weight, 1),
      "binary_cross_entropy_with_logits":
          lambda: aten.binary_cross_entropy_with_logits(
              y, labels, None, weight, 1),
      # CompositeImplicit in ATen: reached when PyTorch does not decompose
      # it first; its rule is called as the dispatcher would call it.
      "fused_rms_norm": lambda: RULES[aten._fused_rms_norm.default](
          ln_x, [8], ln_w, None),
      "fused_rms_norm_backward": lambda: aten._fused_rms_norm_backward(
          ln_x, ln_x, [8], rstd, ln_w, [True, True]),
      "embedding": lambda: aten.embedding(table, idx),
      "embedding_dense_backward": lambda: aten.embedding_dense_backward(
          emb_grad, idx, 10, 2, True),
  }


NAMES = sorted(_cases())

@pytest.mark.parametrize("name", NAMES)
def test_op_crosses_into_cpp_once(name):
  # Fresh inputs: the host remembers the range of only the newest uploads
  # (index_util.HOST_RANGE_LIMIT), and an index it no longer knows gets a
  # device-side check (its own crossings: test_device_check_crossings).
  assert_crosses_once(name, _cases()[name])


def test_device_check_crossings():
  # Indices computed on the device: the binding registers the check
  # (predicate and fold into the step's code) in the op's one call
  # (python/device_checks.h).
  table = _host(torch.randn(10, 4))
  idx = _host(torch.tensor([1, 2])) * 2
  _, names = _crossings(lambda: aten.embedding(table, idx))
  assert names == ["_embedding"]
  logits = _host(torch.randn(2, 5)).log_softmax(1)
  target = _host(torch.tensor([1, 2])) * 2
  _, names = _crossings(lambda: aten.nll_loss_forward(logits, target, None,
                                                      1, -100))
  assert names == ["_nll_loss"]
  import torch_xla.core.xla_model as xm
  xm.wait_device_ops()  # reads (and passes) the checks


def test_values_through_the_builders_match_eager():
  x, lp = _logits()
  t = torch.tensor([0, 4, 2, 1, 3, 2])
  loss = torch.nn.functional.nll_loss(lp, _host(t).view(-1))
  torch.testing.assert_close(loss.cpu(),
                             torch.nn.functional.nll_loss(
                                 x.log_softmax(1), t))
  table = torch.randn(10, 4)
  idx = torch.tensor([[1, 9], [2, 2]])
  torch.testing.assert_close(
      torch.nn.functional.embedding(_host(idx), _host(table)).cpu(),
      torch.nn.functional.embedding(idx, table))


def test_safe_softmax_gives_zero_for_fully_masked_rows():
  x = torch.randn(3, 4)
  x[1] = float("-inf")
  out = aten._safe_softmax(_host(x), 1).cpu()
  torch.testing.assert_close(out, aten._safe_softmax(x, 1))
  assert out[1].eq(0).all()


def test_a_view_of_uploaded_targets_with_a_bad_value_is_still_checked():
  # The root's range includes 7 (outside 5 classes): the view that skips
  # it cannot be cleared on the host, and the one that holds it raises.
  _, lp = _logits()
  root = _host(torch.tensor([0, 4, 2, 1, 3, 2, 7, 0]))
  torch.nn.functional.nll_loss(lp, root[:6]).cpu()  # in range: no error
  with pytest.raises(IndexError, match="nll_loss: a target is out of bounds"):
    torch.nn.functional.nll_loss(lp, root[2:]).cpu()
