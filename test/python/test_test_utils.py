"""torch_xla.test.test_utils: progress lines and summary helpers."""

import re

import pytest
import torch

import torch_xla
import torch_xla.debug.metrics as met
import torch_xla.test.test_utils as test_utils


class FakeWriter:

  def __init__(self):
    self.scalars = []
    self.closed = False

  def add_scalar(self, name, value, step=None):
    self.scalars.append((name, value, step))

  def flush(self):
    pass

  def close(self):
    self.closed = True


def test_print_training_and_test_updates(capsys):
  device = torch_xla.device()
  test_utils.print_training_update(device, 20, torch.tensor(0.123456), 10.0,
                                   9.5, epoch=1)
  test_utils.print_test_update(device, 97.5, epoch=1)
  test_utils.print_test_update(device, None)
  lines = capsys.readouterr().out.splitlines()
  assert re.fullmatch(r"\| Training Device=xla:0/0 Epoch=1 Step=20 "
                      r"Loss=0\.12346 Rate=10\.00 GlobalRate=9\.50 "
                      r"Time=\d\d:\d\d:\d\d", lines[0])
  assert re.fullmatch(r"\| Test Device=xla:0/0 Epoch=1 Accuracy=97\.50 "
                      r"Time=\d\d:\d\d:\d\d", lines[1])
  assert re.fullmatch(r"\| Test Device=xla:0/0 Time=\S+", lines[2])


def test_summary_helpers_write_scalars_and_xla_metrics():
  test_utils.write_to_summary(None, 1, {"loss": 1.0})  # no writer: no-op
  test_utils.close_summary_writer(None)
  assert test_utils.get_summary_writer(None) is None
  x = torch.ones(3).to(torch_xla.device())
  met.clear_all()
  (x * 2).cpu()
  writer = FakeWriter()
  test_utils.write_to_summary(writer, 5, {"loss": 0.5},
                              write_xla_metrics=True)
  names = {name for name, _, _ in writer.scalars}
  assert ("loss", 0.5, 5) in writer.scalars
  # The compile may be cached by an earlier test: either counter is written.
  assert {"ExecuteTime", "aten_ops_sum"} <= names
  assert names & {"UncachedCompile", "CachedCompile"}
  assert ("aten_ops_sum", 0, 5) in writer.scalars
  test_utils.print_training_update("xla:0", 1, 0.5, 1.0, 1.0,
                                   summary_writer=writer)
  assert ("examples/sec", 1.0, None) in writer.scalars
  test_utils.close_summary_writer(writer)
  assert writer.closed


def test_summary_writer_without_tensorboard_is_a_clear_error(tmp_path,
                                                             monkeypatch):
  import builtins
  real_import = builtins.__import__

  def no_tensorboard(name, *args, **kwargs):
    if name in ("tensorboardX", "torch.utils.tensorboard"):
      raise ImportError(name)
    return real_import(name, *args, **kwargs)

  monkeypatch.setattr(builtins, "__import__", no_tensorboard)
  with pytest.raises(ImportError, match="needs TensorBoard: pip install "
                     "tensorboardX"):
    test_utils.get_summary_writer(str(tmp_path))
