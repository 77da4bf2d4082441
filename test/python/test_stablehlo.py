"""torch_xla.stablehlo: exported programs lowered through the op rules,
run on the XLA device, saved, and loaded again in a fresh process; the
errors for an op without a lowering and for inputs of the wrong signature.
"""

import os
import subprocess
import sys

import pytest
import torch

import torch_xla
import torch_xla.debug.metrics as met
from torch_xla.stablehlo import (StableHLOExportOptions, StableHLOGraphModule,
                                 exported_program_to_stablehlo,
                                 save_as_stablehlo)


class Model(torch.nn.Module):
  """Weights, a bf16 buffer, a constant tensor, a kwarg, a specialized int
  and a tensor made inside the graph."""

  def __init__(self):
    super().__init__()
    self.linear = torch.nn.Linear(3, 4)
    self.register_buffer("shift", torch.randn(4).to(torch.bfloat16))
    self.table = torch.tensor([2.0, -1.0, 0.5, 3.0])

  def forward(self, x, n, y=None):
    h = torch.acos(torch.tanh(self.linear(x))) * n + self.shift.float()
    return h + self.table + y + torch.zeros(4), torch.logical_xor(
        x.int(), y.int().sum())


def _inputs():
  torch.manual_seed(0)
  return (torch.randn(5, 3), 3), {"y": torch.randn(4)}


def _assert_matches(actual, expected):
  assert len(actual) == len(expected)
  for a, e in zip(actual, expected):
    assert a.device.type == "xla"
    assert a.dtype == e.dtype
    torch.testing.assert_close(a.cpu(), e, atol=1e-5, rtol=1e-5)


def test_export_runs_on_xla_and_matches_eager():
  model = Model()
  args, kwargs = _inputs()
  exported = torch.export.export(model, args, kwargs)
  met.clear_all()
  program = exported_program_to_stablehlo(exported)
  # A lowering on placeholders: nothing ran, nothing moved to the device.
  assert met.metric_data("CompileTime") is None
  assert met.metric_data("TransferToDeviceTime") is None
  text = program.get_stablehlo_text()
  assert "func.func public @main" in text and "chlo.acos" in text
  assert program.get_stablehlo_bytecode() == text.encode("utf-8")
  _assert_matches(program(*args, **kwargs), model(*args, **kwargs))
  # New values of the same signature run the same module.
  x2, y2 = torch.randn(5, 3), torch.randn(4)
  _assert_matches(program(x2, 3, y=y2), model(x2, 3, y=y2))


def test_saved_program_runs_in_a_fresh_process(tmp_path):
  model = Model()
  args, kwargs = _inputs()
  save_as_stablehlo(torch.export.export(model, args, kwargs), str(tmp_path))
  assert os.path.exists(tmp_path / "functions" / "forward.mlir")
  torch.save((args, kwargs, model(*args, **kwargs)), tmp_path / "ref.pt")
  script = f"""
import torch, torch_xla
from torch_xla.stablehlo import StableHLOGraphModule
args, kwargs, expected = torch.load({str(tmp_path / "ref.pt")!r})
program = StableHLOGraphModule.load({str(tmp_path)!r})
for a, e in zip(program(*args, **kwargs), expected):
  assert a.device.type == "xla" and a.dtype == e.dtype, (a.device, a.dtype)
  torch.testing.assert_close(a.cpu(), e, atol=1e-5, rtol=1e-5)
print("loaded ok")
"""
  result = subprocess.run([sys.executable, "-c", script], capture_output=True,
                          text=True, timeout=300)
  assert "loaded ok" in result.stdout, result.stderr[-3000:]


def test_loaded_program_checks_its_inputs(tmp_path):
  model = Model()
  args, kwargs = _inputs()
  program = exported_program_to_stablehlo(
      torch.export.export(model, args, kwargs))
  program.save(str(tmp_path))
  loaded = StableHLOGraphModule.load(str(tmp_path))
  assert loaded.get_stablehlo_text() == program.get_stablehlo_text()
  with pytest.raises(ValueError, match=r"input 'x' is float32\[6, 3\] but "
                     r"the program was exported for float32\[5, 3\]"):
    loaded(torch.randn(6, 3), 3, y=torch.randn(4))
  with pytest.raises(ValueError, match=r"input 'y' is float64\[4\]"):
    loaded(args[0], 3, y=torch.randn(4, dtype=torch.float64))
  with pytest.raises(ValueError, match=r"input 'n' is 4, but the program "
                     r"was specialized to 3"):
    loaded(args[0], 4, y=kwargs["y"])
  with pytest.raises(ValueError, match=r"(?s)the inputs' structure .* is not "
                     r"the exported program's"):
    loaded(args[0])


def test_export_without_text_or_weights(tmp_path):
  model = Model()
  args, kwargs = _inputs()
  options = StableHLOExportOptions(include_human_readable_text=False,
                                   save_weights=False)
  program = exported_program_to_stablehlo(
      torch.export.export(model, args, kwargs), options)
  assert "func.func" in program.get_stablehlo_text()  # from the bytecode
  program.save(str(tmp_path), options)
  assert not os.path.exists(tmp_path / "functions" / "forward.mlir")
  loaded = StableHLOGraphModule.load(str(tmp_path))
  with pytest.raises(ValueError, match=r"needs weight 'linear\.(weight|bias)'"):
    loaded(*args, **kwargs)


@torch.library.custom_op("stablehlo_test::mystery", mutates_args=())
def _mystery(x: torch.Tensor) -> torch.Tensor:
  return x + 1


@_mystery.register_fake
def _(x):
  return torch.empty_like(x)


def test_unlowerable_op_fails_at_export_naming_it():

  class Uses(torch.nn.Module):

    def forward(self, x):
      return torch.ops.stablehlo_test.mystery(x.sin()) * 2

  exported = torch.export.export(Uses(), (torch.randn(3),))
  with pytest.raises(NotImplementedError,
                     match=r"stablehlo_test\.mystery\.default .*inputs "
                     r"float32\[3\]\) has no lowering"):
    exported_program_to_stablehlo(exported)


def test_core_aten_op_exports(tmp_path):
  """An op the issue found falling back (cdist) exports and runs."""

  class Dist(torch.nn.Module):

    def forward(self, a, b):
      return torch.cdist(a, b, p=1.0), torch.histc(a, bins=4)

  a, b = torch.randn(6, 3), torch.randn(5, 3)
  program = exported_program_to_stablehlo(torch.export.export(Dist(), (a, b)))
  _assert_matches(program(a, b), Dist()(a, b))
