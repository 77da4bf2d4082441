"""The C++ fast rules (torch_xla/csrc/python/fast_*_rules.cc) against the
Python rules they shortcut.

Every case runs twice on the same inputs: through the installed C++
__torch_dispatch__ (fast rules first) and with Python dispatch only. Both
must build the same graph (equal graph hashes), give the same values, the
same view metadata, and raise the same errors, including where a fast rule
declines to the Python rule. Both paths call the op's one core builder
(torch_xla/csrc/ops), so each case also checks the values against eager
CPU PyTorch: a wrong builder fails there.
"""

import contextlib
import os

import pytest
import torch

import torch_xla
from torch_xla import _XLAC
from torch_xla._ops import registry

# With TORCH_XLA_FAST_RULES=0 no fast rule is installed: nothing to test.
pytestmark = pytest.mark.skipif(
    os.environ.get("TORCH_XLA_FAST_RULES", "1") == "0",
    reason="TORCH_XLA_FAST_RULES=0 installs no fast rule")

XLA = torch.device("xla", 0)


@contextlib.contextmanager
def python_rules_only():
  previous = _XLAC._set_fast_rules_enabled(False)
  try:
    yield
  finally:
    _XLAC._set_fast_rules_enabled(previous)


def _r(*shape, dtype=torch.float32):
  return torch.randn(*shape).to(dtype)


# (name, function of the xla inputs, cpu inputs, fast overloads covered)
CASES = [
    ("view", lambda x: x.view(4, 6), [_r(2, 3, 4)], ["aten::view"]),
    ("view_of_transpose", lambda x: x.t().view(-1), [_r(4, 1)],
     ["aten::view", "aten::t"]),
    ("view_bad_size", lambda x: x.view(5, 5), [_r(2, 3, 4)], []),
    ("unsafe_view", lambda x: torch.ops.aten._unsafe_view(x, [3, 8]),
     [_r(2, 3, 4)], ["aten::_unsafe_view"]),
    ("unsqueeze", lambda x: x.t().unsqueeze(1), [_r(3, 4)],
     ["aten::unsqueeze"]),
    ("t", lambda x: x.t(), [_r(3, 5)], ["aten::t"]),
    ("t_3d", lambda x: x.t(), [_r(3, 5, 2)], []),
    ("transpose", lambda x: x.transpose(0, -1), [_r(2, 3, 4)],
     ["aten::transpose.int"]),
    ("transpose_bad_dim", lambda x: x.transpose(0, 5), [_r(2, 3)], []),
    ("permute", lambda x: x.permute(2, 0, 1), [_r(2, 3, 4)],
     ["aten::permute"]),
    ("permute_duplicate", lambda x: x.permute(0, 0, 1), [_r(2, 3, 4)], []),
    ("expand", lambda x: x.expand(2, 3, 4), [_r(3, 1)], ["aten::expand"]),
    ("expand_bad", lambda x: x.expand(2, 5), [_r(3, 1)], []),
    ("slice", lambda x: x[:, 1:-1], [_r(3, 5)], ["aten::slice.Tensor"]),
    ("slice_step", lambda x: x[:, ::2], [_r(3, 5)], []),
    ("slice_inplace", lambda x: x[1:].add_(1.0), [_r(3, 5)],
     ["aten::add_.Tensor"]),
    ("view_chain_inplace", lambda x: x.t()[1:].mul_(2.0), [_r(3, 4)],
     ["aten::mul_.Tensor"]),
    ("mm", lambda a, b: a @ b, [_r(3, 4), _r(4, 5)], ["aten::mm"]),
    ("mm_bf16", lambda a, b: a @ b,
     [_r(3, 4, dtype=torch.bfloat16), _r(4, 5, dtype=torch.bfloat16)], []),
    ("mm_mismatch", lambda a, b: a @ b, [_r(3, 4), _r(5, 5)], []),
    ("mm_int", lambda a, b: torch.mm(a, b),
     [torch.arange(6).view(2, 3), torch.arange(6).view(3, 2)], []),
    ("bmm", lambda a, b: torch.bmm(a, b), [_r(2, 3, 4), _r(2, 4, 5)],
     ["aten::bmm"]),
    ("add", lambda a, b: a + b, [_r(3, 4), _r(4)], ["aten::add.Tensor"]),
    ("add_alpha", lambda a, b: torch.add(a, b, alpha=2), [_r(3), _r(3)], []),
    ("add_scalar", lambda a: torch.ops.aten.add.Scalar(a, 2), [_r(3)],
     ["aten::add.Scalar"]),
    ("add_promote", lambda a, b: a + b,
     [_r(3), torch.arange(3, dtype=torch.int32)], []),
    ("sub", lambda a, b: a - b, [_r(3, 4), _r(3, 4)], ["aten::sub.Tensor"]),
    ("sub_scalar", lambda a: torch.ops.aten.sub.Scalar(a, 1.5), [_r(3)],
     ["aten::sub.Scalar"]),
    ("mul", lambda a: a * 3, [torch.arange(4)], ["aten::mul.Tensor"]),
    ("mul_scalar", lambda a: torch.ops.aten.mul.Scalar(a, 0.5), [_r(3)],
     ["aten::mul.Scalar"]),
    ("mul_bool", lambda a, b: a * b,
     [torch.tensor([True, False]), torch.tensor([True, True])], []),
    ("div", lambda a, b: a / b, [_r(3, 4), _r(3, 1)], ["aten::div.Tensor"]),
    ("div_scalar", lambda a: torch.ops.aten.div.Scalar(a, 4.0), [_r(3)],
     ["aten::div.Scalar"]),
    ("div_int", lambda a: a / 2, [torch.arange(4)], []),
    ("add_", lambda a, b: a.add_(b), [_r(3, 4), _r(4)], ["aten::add_.Tensor"]),
    ("add_alpha_", lambda a, b: a.add_(b, alpha=-0.1), [_r(3, 4), _r(3, 4)],
     ["aten::add_.Tensor"]),
    ("add_alpha_int_bf16_", lambda a, b: a.add_(b, alpha=2),
     [_r(3, 4, dtype=torch.bfloat16), _r(3, 4, dtype=torch.bfloat16)],
     ["aten::add_.Tensor"]),
    ("sub_alpha_", lambda a, b: a.sub_(b, alpha=0.5), [_r(5), _r(5)],
     ["aten::sub_.Tensor"]),
    ("add_alpha_broadcast_error", lambda a, b: a.add_(b, alpha=0.5),
     [_r(4), _r(3, 4)], []),
    ("add_alpha_int_tensor", lambda a, b: a.add_(b, alpha=0.5),
     [_r(4).int(), _r(4).int()], []),
    ("add_bool_alpha", lambda a, b: torch.add(a, b, alpha=True),
     [_r(4), _r(4)], []),
    ("sub_float_alpha_int", lambda a, b: torch.sub(a, b, alpha=1.5),
     [_r(4).long(), _r(4).long()], []),
    ("add_scalar_", lambda a: torch.ops.aten.add_.Scalar(a, 1), [_r(3)],
     ["aten::add_.Scalar"]),
    ("add_broadcast_error", lambda a, b: a.add_(b), [_r(4), _r(3, 4)], []),
    ("sub_", lambda a, b: a.sub_(b), [_r(3), _r(3)], ["aten::sub_.Tensor"]),
    ("mul_scalar_", lambda a: torch.ops.aten.mul_.Scalar(a, 3), [_r(3)],
     ["aten::mul_.Scalar"]),
    ("clone", lambda x: x.t().clone(memory_format=torch.contiguous_format),
     [_r(2, 3)], ["aten::clone"]),
    ("detach", lambda x: x.detach(), [_r(2, 3)], ["aten::detach"]),
    ("detach_of_view", lambda x: x.t()[1:].detach(), [_r(3, 4)],
     ["aten::detach"]),
    ("alias", lambda x: torch.ops.aten.alias(x.t()), [_r(3, 4)],
     ["aten::alias"]),
    ("exp", torch.exp, [_r(3)], ["aten::exp"]),
    ("log", lambda x: torch.log(x.abs()), [_r(3)], ["aten::log"]),
    ("sqrt", lambda x: torch.sqrt(x.abs()), [_r(3)], ["aten::sqrt"]),
    ("rsqrt", lambda x: torch.rsqrt(x.abs()), [_r(3)], ["aten::rsqrt"]),
    ("sin", torch.sin, [_r(3)], ["aten::sin"]),
    ("cos", torch.cos, [_r(3)], ["aten::cos"]),
    ("tanh", torch.tanh, [_r(3)], ["aten::tanh"]),
    ("sigmoid", torch.sigmoid, [_r(3)], ["aten::sigmoid"]),
    ("neg", torch.neg, [_r(3, dtype=torch.bfloat16)], ["aten::neg"]),
    ("neg_int", torch.neg, [torch.arange(3)], []),
    ("exp_int", torch.exp, [torch.arange(3)], []),
    ("square", lambda x: x**2, [_r(3)], ["aten::pow.Tensor_Scalar"]),
    ("cube", lambda x: x**3, [_r(3)], []),
    ("sum", torch.sum, [_r(3, 4)], ["aten::sum"]),
    ("sum_dim", lambda x: x.sum((0, -1), keepdim=True), [_r(2, 3, 4)],
     ["aten::sum.dim_IntList"]),
    ("sum_bf16", lambda x: x.sum(1), [_r(3, 4, dtype=torch.bfloat16)], []),
    ("sum_dtype", lambda x: x.sum(1, dtype=torch.float64), [_r(3, 4)], []),
    ("mean", lambda x: x.mean(-1), [_r(3, 4)], ["aten::mean.dim"]),
    ("mean_bf16_keepdim", lambda x: x.mean(0, keepdim=True),
     [_r(3, 4, dtype=torch.bfloat16)], []),
    ("mean_int", lambda x: x.mean(0), [torch.arange(4)], []),
    ("softmax", lambda x: torch.softmax(x, -1), [_r(2, 3, 4)],
     ["aten::_softmax"]),
    ("softmax_nan", lambda x: torch.softmax(x / 0, 0), [_r(3)], []),
    ("softmax_backward",
     lambda g, y: torch.ops.aten._softmax_backward_data(
         g, y, 1, torch.float32), [_r(2, 3), _r(2, 3).softmax(1)],
     ["aten::_softmax_backward_data"]),
    ("masked_fill",
     lambda x, m: x.masked_fill(m, -1e9), [_r(2, 4, 4),
                                           torch.ones(4, 4).triu(1).bool()],
     ["aten::masked_fill.Scalar"]),
    ("masked_fill_int", lambda x, m: x.masked_fill(m, 7),
     [torch.arange(4), torch.tensor([True, False, True, False])], []),
    ("slice_backward",
     lambda g: torch.ops.aten.slice_backward(g, [5, 3], 0, 1, 4, 1),
     [_r(3, 3)], ["aten::slice_backward"]),
    ("lerp_small", lambda a, b: a.lerp_(b, 0.3), [_r(3, 4), _r(3, 4)],
     ["aten::lerp_.Scalar"]),
    ("lerp_large_bf16", lambda a, b: a.lerp_(b, 0.9),
     [_r(5, dtype=torch.bfloat16), _r(5, dtype=torch.bfloat16)], []),
    ("lerp_broadcast", lambda a, b: a.lerp_(b, 0.5), [_r(3, 4), _r(4)], []),
    ("addcmul_", lambda a, b, c: a.addcmul_(b, c, value=0.25),
     [_r(3), _r(3), _r(3)], ["aten::addcmul_"]),
    ("addcmul_default", lambda a, b, c: a.addcmul_(b, c),
     [_r(3, dtype=torch.bfloat16), _r(3, dtype=torch.bfloat16),
      _r(3, dtype=torch.bfloat16)], []),
    ("addcdiv_", lambda a, b, c: a.addcdiv_(b, c.abs() + 1, value=-0.5),
     [_r(2, 3), _r(2, 3), _r(2, 3)], ["aten::addcdiv_"]),
    ("addcdiv_mixed", lambda a, b, c: a.addcdiv_(b, c),
     [_r(3), _r(3, dtype=torch.float64), _r(3)], []),
    ("slice_backward_step",
     lambda g: torch.ops.aten.slice_backward(g, [6, 3], 0, 1, 6, 2),
     [_r(3, 3)], []),
]


def _run(fn, cpu_inputs):
  """(result or exception text, graph hash, metadata, input values)."""
  inputs = [x.to(XLA) for x in cpu_inputs]
  try:
    out = fn(*inputs)
  except Exception as e:  # both paths must fail alike
    return f"{type(e).__name__}: {e}", None, None, None
  meta = (tuple(out.shape), out.dtype, out.stride(), out.storage_offset())
  graph = _XLAC._get_graph_hash([out] + inputs)
  return out.cpu(), graph, meta, [x.cpu() for x in inputs]


def _eager(fn, cpu_inputs):
  """(result or None if eager raises, input values after fn) on cpu."""
  inputs = [x.clone() for x in cpu_inputs]
  try:
    return fn(*inputs), inputs
  except Exception:  # noqa: BLE001 - eager's text may differ from ours
    return None, inputs


def _assert_close_to_eager(actual, expected):
  # The fast and Python paths build one graph (an op's IR is written once,
  # in torch_xla/csrc/ops): this catches a wrong builder, which both share.
  tol = dict(rtol=2e-2, atol=2e-2) if expected.dtype in (
      torch.bfloat16, torch.float16) else dict(rtol=1e-5, atol=1e-5)
  torch.testing.assert_close(actual, expected, equal_nan=True, **tol)


@pytest.mark.parametrize("name,fn,inputs,covers", CASES,
                         ids=[c[0] for c in CASES])
def test_fast_rule_matches_python_rule(name, fn, inputs, covers):
  before = _XLAC._fast_rule_hits()
  fast = _run(fn, inputs)
  after = _XLAC._fast_rule_hits()
  for rule in covers:  # the C++ rule really handled the case
    assert after.get(rule, 0) > before.get(rule, 0), f"{rule} declined"
  with python_rules_only():
    slow = _run(fn, inputs)
  expected, eager_inputs = _eager(fn, inputs)
  if isinstance(slow[0], str):
    assert fast[0] == slow[0]
    assert expected is None, f"eager gives a result, 'xla' raised {slow[0]}"
    return
  assert not isinstance(fast[0], str), fast[0]
  _assert_close_to_eager(fast[0], expected)
  for a, b in zip(fast[3], eager_inputs):
    _assert_close_to_eager(a, b)
  assert fast[1] == slow[1], "the two paths built different graphs"
  assert fast[2] == slow[2]
  torch.testing.assert_close(fast[0], slow[0], rtol=0, atol=0,
                             equal_nan=True)
  for a, b in zip(fast[3], slow[3]):  # in-place updates of the inputs
    torch.testing.assert_close(a, b, rtol=0, atol=0, equal_nan=True)


def test_every_fast_rule_has_a_case():
  covered = {name for case in CASES for name in case[3]}
  assert set(_XLAC._fast_rule_names()) <= covered


def test_fast_views_write_back_through_storage_views():
  # A chain mixing fast-rule steps (t, slice) and a storage view's step
  # (diagonal, whose rule is Python).
  base = torch.zeros(4, 4)
  x = base.to(XLA)
  x.t()[1:].diagonal().add_(1.0)
  base.t()[1:].diagonal().add_(1.0)
  torch.testing.assert_close(x.cpu(), base)
  y = x.view(16)
  x.mul_(3.0)  # the root moves: the view re-derives
  torch.testing.assert_close(y.cpu(), base.view(16) * 3)


def test_decoder_layer_step_needs_no_python_rule_for_hot_ops():
  # The ops that dominate a decoder layer's trace all take the fast path:
  # the Python rule runs only for the few the fast rules do not cover.
  import sys
  sys.path.insert(
      0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
  from decoder import DecoderConfig, DecoderLayer, rotary_tables

  config = DecoderConfig(dim=32, num_heads=4, hidden_dim=64)
  layer = DecoderLayer(config).to(XLA)
  cos, sin = rotary_tables(8, 8, 10000.0)
  mask = torch.ones(8, 8, dtype=torch.bool).triu(1)
  inputs = [t.to(XLA) for t in (torch.randn(2, 8, 32), cos, sin, mask)]
  before = _XLAC._python_dispatch_calls()
  layer(*inputs).sum().backward()
  after = _XLAC._python_dispatch_calls()
  calls = {str(func): n - before.get(func, 0) for func, n in after.items()
           if n != before.get(func, 0)}
  # About 235 ops reach dispatch; 21 reach a Python rule today (cat,
  # detach, silu, fills, pow with exponent -0.5 ...).
  assert sum(calls.values()) <= 25, calls
  torch_xla.sync()
