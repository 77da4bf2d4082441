"""torch_xla.utils.utils: the helpers training scripts import."""

import gc
import os

import pytest
import torch

import torch_xla.utils.utils as xu


def test_getenv_as(monkeypatch):
  monkeypatch.delenv("TXLA_TEST_VAR", raising=False)
  assert xu.getenv_as("TXLA_TEST_VAR", int, 7) == 7
  assert xu.getenv_as("TXLA_TEST_VAR", str) is None
  monkeypatch.setenv("TXLA_TEST_VAR", "12")
  assert xu.getenv_as("TXLA_TEST_VAR", int, 7) == 12
  assert xu.getenv_as("TXLA_TEST_VAR", float) == 12.0
  for text, value in (("1", True), ("0", False), ("True", True),
                      ("no", False)):
    monkeypatch.setenv("TXLA_TEST_VAR", text)
    assert xu.getenv_as("TXLA_TEST_VAR", bool) is value
  monkeypatch.setenv("TXLA_TEST_VAR", "maybe")
  with pytest.raises(ValueError, match="TXLA_TEST_VAR='maybe' is not a "
                     "boolean"):
    xu.getenv_as("TXLA_TEST_VAR", bool)
  with pytest.raises(ValueError, match="TXLA_TEST_VAR='maybe' is not a "
                     "valid int"):
    xu.getenv_as("TXLA_TEST_VAR", int)


def test_parse_xla_device():
  assert xu.parse_xla_device("xla:1") == ("xla", 1)
  assert xu.parse_xla_device(torch.device("xla", 0)) == ("xla", 0)
  assert xu.parse_xla_device("TPU:3") == ("TPU", 3)
  with pytest.raises(ValueError, match="'xla' is not a device name"):
    xu.parse_xla_device("xla")


def test_tmp_folder_and_cleaner():
  with xu.TmpFolder() as tmp:
    name = tmp.name
    open(os.path.join(name, "f"), "w").close()
    assert os.path.isdir(name)
  assert not os.path.exists(name)
  tmp = xu.TmpFolder()
  name = tmp.name
  del tmp
  gc.collect()
  assert not os.path.exists(name)
  calls = []
  cleaner = xu.Cleaner(lambda: calls.append(1))
  del cleaner
  gc.collect()
  assert calls == [1]


def test_data_generators_repeat_and_restart():
  gen = xu.SampleGenerator(("x", "y"), 3)
  assert len(gen) == 3 and list(gen) == [("x", "y")] * 3
  assert len(list(gen)) == 3  # iterating again starts over
  fn_gen = xu.FnDataGenerator(lambda d: d.sum(1), 4, torch.randn, dims=[5],
                              count=2)
  batches = list(fn_gen)
  assert len(fn_gen) == 2 and len(batches) == 2
  data, target = batches[0]
  assert data.shape == (4, 5)
  torch.testing.assert_close(target, data.sum(1))


def test_nesting_helpers():
  assert xu.as_list(3) == [3] and xu.as_list((1, 2)) == (1, 2)
  assert xu.shape([(1, 2), (3, 4), (5, 6)]) == [3, 2]
  with pytest.raises(ValueError, match="ragged"):
    xu.shape([(1, 2), (3,)])
  assert xu.flatten_nested_tuple((1, [2, (3, 4)], 5)) == (1, 2, 3, 4, 5)
  base = [1]
  assert xu.list_copy_append(base, 2) == [1, 2] and base == [1]
  found = []
  xu.for_each_instance({"a": [1, (2.0, 3)], 4: {5}}, int, found.append)
  assert sorted(found) == [1, 3, 4, 5]


def test_print_helpers(capsys, monkeypatch):
  assert xu.get_print_fn(debug=0) is xu.null_print
  assert xu.get_print_fn(debug=1) is xu.eprint
  monkeypatch.setenv("DEBUG", "1")
  assert xu.get_print_fn() is xu.eprint
  assert xu.timed(lambda: 42, msg="took ") == 42
  with xu.TimedScope(msg="scope "):
    pass
  with xu.TimedScope(msg="failed ") as scope:
    scope.set_error("boom")
  err = capsys.readouterr().err
  assert err.startswith("took ") and "\nscope " in err and err.endswith("ms\n")
  assert "failed" not in err
