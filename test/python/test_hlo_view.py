"""_XLAC._get_xla_tensors_hlo: the compiled program in XLA's HLO text
(upstream's view), next to _get_stablehlo / xm.get_stablehlo, the StableHLO
module it is compiled from. The HLO view compiles without running: no
transfer, no execution, and the graph stays pending."""

import re

import torch
import torch.nn as nn

import torch_xla
import torch_xla.core.xla_builder as xb
import torch_xla.core.xla_model as xm
import torch_xla.debug.metrics as met
from torch_xla import _XLAC
from torch_xla.experimental.scan import scan
from torch_xla.experimental.scan_layers import scan_layers

XLA = torch_xla.device()


def computations(hlo):
  """{name: (signature result, body text)} of each computation."""
  found = {}
  for m in re.finditer(
      r"^(?:ENTRY )?%(\S+) \(([^\n]*)\) -> ([^\n]*) \{\n(.*?)^\}", hlo,
      re.M | re.S):
    found[m.group(1)] = (m.group(3), m.group(4))
  return found


def test_matmul_shows_the_compiled_dot_and_runs_nothing():
  a, b = torch.randn(3, 4), torch.randn(4, 2)
  xa, xb_ = a.to(XLA), b.to(XLA)
  torch_xla.sync()
  met.clear_all()
  y = torch.sin(xa @ xb_)
  hlo = _XLAC._get_xla_tensors_hlo([y])
  assert hlo.startswith("HloModule ")
  # The dot, with its operands' shapes and contraction, and the sine.
  # As XLA's default text, operands are printed with their shapes.
  assert re.search(r"= f32\[3,2\]\{1,0\} dot\(f32\[3,4\]\{1,0\} %\S+, "
                   r"f32\[4,2\]\{1,0\} %\S+\), lhs_contracting_dims=\{1\}, "
                   r"rhs_contracting_dims=\{0\}", hlo), hlo
  assert re.search(r" sine\(f32\[3,2\]\{1,0\} %", hlo), hlo
  entry = re.search(r"^ENTRY %\S+ \((.*)\) -> (.*) \{$", hlo, re.M)
  assert entry and entry.group(2) == "f32[3,2]", hlo
  assert re.fullmatch(r"\S+: f32\[3,4\], \S+: f32\[4,2\]", entry.group(1))
  # A view: nothing moved or ran, and y is still pending.
  assert not met.metric_data("TransferToDeviceTime")
  assert not met.metric_data("ExecuteTime")
  assert "sine" in _XLAC._get_xla_tensors_text([y])
  # The StableHLO it was compiled from is still there.
  module = xm.get_stablehlo([y])
  assert "stablehlo.dot_general" in module and "stablehlo.sine" in module
  assert _XLAC._get_stablehlo([y]).decode() == module
  assert xm.get_stablehlo(y) == module
  assert "stablehlo.sine" in xm.get_stablehlo()  # every live tensor
  torch.testing.assert_close(y.cpu(), torch.sin(a @ b), rtol=1e-5, atol=1e-5)


def test_scan_layers_compiles_to_a_while_loop():
  layers = [nn.Linear(8, 8).to(XLA) for _ in range(4)]
  out = scan_layers(layers, torch.randn(2, 8).to(XLA))
  hlo = _XLAC._get_xla_tensors_hlo([out])
  loop = re.search(r" while\(.* %\S+\), condition=%(\S+), body=%([^\s,]+)",
                   hlo)
  assert loop, hlo
  found = computations(hlo)
  condition, body = found[loop.group(1)], found[loop.group(2)]
  # The condition answers a predicate; the body maps the state to itself.
  assert condition[0] == "pred[]", condition
  assert body[0].startswith("("), body
  assert " dot(" in body[1] or "calls=%" in body[1], body[1]
  assert "stablehlo.while" in xm.get_stablehlo([out])


def test_scan_backward_sines_are_counted_in_the_compiled_program():
  def fn(carry, x):
    y = torch.sin(carry) * x
    return y, y

  init = torch.randn(4, requires_grad=True, device=XLA)
  xs = torch.randn(6, 4, requires_grad=True, device=XLA)
  carry, ys = scan(fn, init, xs)
  hlo = _XLAC._get_xla_tensors_hlo([carry, ys])
  assert len(re.findall(r" sine\(f32\b", hlo)) >= 1, hlo
  assert " while(" in hlo


def test_placeholder_graph_lists_its_parameters_in_the_entry_signature():
  met.clear_all()
  p1 = xb.create_placeholder_tensor((2, 3), torch.bfloat16)
  p2 = xb.create_placeholder_tensor((3, 4), torch.bfloat16)
  b = (torch.sin(p1) @ p2) @ p2.T
  hlo = _XLAC._get_xla_tensors_hlo([b])
  entry = re.search(r"^ENTRY %\S+ \((.*)\) -> (.*) \{$", hlo, re.M)
  assert entry, hlo
  params = sorted(re.findall(r": (bf16\[[\d,]*\])", entry.group(1)))
  assert params == ["bf16[2,3]", "bf16[3,4]"], entry.group(0)
  assert "bf16[2,3]" in entry.group(2)
  assert not met.metric_data("TransferToDeviceTime")


def test_bad_input_is_a_python_error():
  try:
    _XLAC._get_stablehlo([], "cpu:0")
  except (RuntimeError, ValueError) as e:
    assert "cpu:0" in str(e) and "xla:N" in str(e)
  else:
    raise AssertionError("a non-XLA device was accepted")
