"""The one dispatch path: XlaTensor.__torch_dispatch__ is the C++ entry
_XLAC._torch_dispatch, which runs an op's C++ fast rule when one applies,
else the op's Python rule, else the registry's dispatch; torch_xla._ops
registers its registry once with _XLAC._register_dispatch, and
TORCH_XLA_FAST_RULES=0 registers no fast rule."""

import os
import subprocess
import sys

import pytest
import torch

import torch_xla  # noqa: F401
from torch_xla import _XLAC, _dtypes
from torch_xla._ops import registry
from torch_xla._tensor import XlaTensor

XLA = torch.device("xla", 0)
FAST_RULES_ON = os.environ.get("TORCH_XLA_FAST_RULES", "1") != "0"


def _hits(name):
  return _XLAC._fast_rule_hits().get(name, 0)


def _python_calls(func):
  return _XLAC._python_dispatch_calls().get(func, 0)


def test_registry_registers_once():
  with pytest.raises(RuntimeError, match="already registered"):
    _XLAC._register_dispatch(rules=registry.RULES, dispatch=registry.dispatch,
                             fast_rules={})


def test_python_types_register_once():
  with pytest.raises(RuntimeError, match="already registered"):
    _XLAC._register_python_types(tensor_class=XlaTensor,
                                 dtypes=_dtypes.TORCH_DTYPES)


@pytest.mark.skipif(not FAST_RULES_ON, reason="TORCH_XLA_FAST_RULES=0")
def test_fast_rule_handles_the_call_and_python_does_not():
  a, b = torch.randn(3, 4), torch.randn(3, 4)
  hits = _hits("aten::mul.Tensor")
  calls = _python_calls(torch.ops.aten.mul.Tensor)
  out = a.to(XLA) * b.to(XLA)
  assert _hits("aten::mul.Tensor") == hits + 1
  assert _python_calls(torch.ops.aten.mul.Tensor) == calls
  torch.testing.assert_close(out.cpu(), a * b)


def test_python_rule_runs_when_fast_rules_are_off():
  a, b = torch.randn(3, 4), torch.randn(3, 4)
  previous = _XLAC._set_fast_rules_enabled(False)
  try:
    hits = _hits("aten::mul.Tensor")
    calls = _python_calls(torch.ops.aten.mul.Tensor)
    out = a.to(XLA) * b.to(XLA)
    assert _hits("aten::mul.Tensor") == hits
    assert _python_calls(torch.ops.aten.mul.Tensor) == calls + 1
  finally:
    _XLAC._set_fast_rules_enabled(previous)
  torch.testing.assert_close(out.cpu(), a * b)


def test_op_without_a_rule_goes_to_the_registry_dispatch():
  # aten.logaddexp has no rule: the registry decomposes it.
  func = torch.ops.aten.logaddexp.default
  assert func not in registry.RULES
  a, b = torch.randn(5), torch.randn(5)
  calls = _python_calls(func)
  out = torch.logaddexp(a.to(XLA), b.to(XLA))
  assert _python_calls(func) == calls + 1
  torch.testing.assert_close(out.cpu(), torch.logaddexp(a, b))


def test_python_rule_errors_pass_through_unchanged():
  with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
    torch.zeros(6, device=XLA).view(-1, -1)


def test_fast_rules_env_switch_registers_none():
  script = """
import torch, torch_xla
from torch_xla import _XLAC
x = torch.arange(6.).to('xla')
y = (x * 2.0 + 1.0).view(2, 3).sum()
assert y.item() == 36.0, y.item()
assert sum(_XLAC._fast_rule_hits().values()) == 0, _XLAC._fast_rule_hits()
calls = _XLAC._python_dispatch_calls()
assert calls.get(torch.ops.aten.view.default, 0) >= 1, calls
print("ok")
"""
  env = dict(os.environ, TORCH_XLA_FAST_RULES="0")
  result = subprocess.run([sys.executable, "-c", script], env=env,
                          capture_output=True, text=True, timeout=300)
  assert result.returncode == 0, result.stderr
  assert result.stdout.strip().endswith("ok")
