"""xm.save: nested data to CPU, then torch.save; reads only, donates
nothing."""

import collections

import torch

import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.debug.metrics as met
from torch_xla import _XLAC

XLA = torch_xla.device()
Pair = collections.namedtuple("Pair", "first second")


def test_nested_data_is_saved_as_cpu_tensors(tmp_path):
  w_cpu = torch.randn(3, 2)
  w = w_cpu.to(XLA)
  pending = w * 2  # not synced yet: saving runs it
  data = {
      "model": collections.OrderedDict(w=w, pending=pending),
      "list": [w, 7, "text"],
      "tuple": (pending,),
      "pair": Pair(w, None),
      "step": 12,
  }
  path = tmp_path / "ckpt.pt"
  xm.save(data, str(path))
  loaded = torch.load(path, weights_only=False)  # a namedtuple: not weights
  assert isinstance(loaded["model"], collections.OrderedDict)
  assert isinstance(loaded["pair"], Pair)
  assert loaded["list"][1:] == [7, "text"] and loaded["step"] == 12
  for t in (loaded["model"]["w"], loaded["list"][0], loaded["pair"].first):
    assert t.device.type == "cpu"
    torch.testing.assert_close(t, w_cpu)
  torch.testing.assert_close(loaded["tuple"][0], w_cpu * 2)
  torch.testing.assert_close(loaded["model"]["pending"], w_cpu * 2)


def test_state_dict_round_trip_and_file_object(tmp_path):
  model = torch.nn.Linear(4, 2).to(XLA)
  path = tmp_path / "model.pt"
  with open(path, "wb") as f:
    xm.save(model.state_dict(), f)
  cpu_model = torch.nn.Linear(4, 2)
  cpu_model.load_state_dict(torch.load(path))
  torch.testing.assert_close(cpu_model.weight, model.weight.cpu())
  # Parameters saved directly stay parameters.
  xm.save([model.weight], str(path))
  loaded = torch.load(path)[0]
  assert isinstance(loaded, torch.nn.Parameter) and loaded.requires_grad


def test_saved_tensors_stay_readable_and_are_not_donated(tmp_path):
  t_cpu = torch.randn(16)
  t = t_cpu.to(XLA)
  torch_xla.sync()
  handle = _XLAC._get_tensors_handle([t])
  met.clear_all()
  xm.save({"t": t}, str(tmp_path / "t.pt"))
  assert not _XLAC._get_buffer_donation(t)
  # A later step that reads t, with the donor config on, keeps t's buffer.
  with torch_xla.alias_with_buffer_donor_config(True):
    out = t + 1
    torch_xla.sync()
  assert not _XLAC._is_placecholder(t)
  assert _XLAC._get_tensors_handle([t]) == handle
  torch.testing.assert_close(t.cpu(), t_cpu)
  torch.testing.assert_close(out.cpu(), t_cpu + 1)
  data = met.metric_data("InputOutputAliasCount")
  assert data is None or data[1] == 0


def test_saving_pending_values_runs_one_execution(tmp_path):
  a = torch.randn(8).to(XLA)
  torch_xla.sync()
  met.clear_all()
  xm.save([a + 1, a * 2, a.sin()], str(tmp_path / "three.pt"))
  assert met.metric_data("ExecuteTime")[0] == 1
