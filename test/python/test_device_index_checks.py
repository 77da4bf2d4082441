"""Indices computed on the device are checked on the device: an
out-of-range one raises eager's class (IndexError; RuntimeError for gather
and the scatters), naming the op, at a later sync or read
(as eager CUDA's device-side asserts do), never a silent clamp
(torch_xla/_device_checks.py). In-range indices give eager's values, and
the check rides in the step's own program."""

import pytest
import torch

import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.debug.metrics as met

DEV = torch_xla.device()


def _device_indices(values):
  """Indices the host does not know: computed on the device."""
  base = torch.tensor(values, device=DEV)
  return (base * 3 - base * 2)  # == values, as device arithmetic


def _drain():
  """Forget checks left by an earlier test."""
  try:
    xm.wait_device_ops()
  except (IndexError, RuntimeError):
    pass


@pytest.fixture(autouse=True)
def _clean():
  _drain()
  yield
  _drain()


CASES = {
    "embedding": (lambda w, i: torch.nn.functional.embedding(i, w),
                  "embedding: index out of range in self"),
    "index": (lambda w, i: w[i], "index: an index is out of bounds for "
              "dimension 0 with size 10"),
    "index_select": (lambda w, i: w.index_select(0, i), "index_select"),
    "gather": (lambda w, i: torch.gather(w, 0, i.view(-1, 1).expand(-1, 4)),
               "gather: an index is out of bounds for dimension 0 with "
               "size 10"),
    "scatter_add": (lambda w, i: w.scatter_add(
        0, i.view(-1, 1).expand(-1, 4), torch.ones(i.shape[0], 4,
                                                   device=w.device)),
                    "scatter_add"),
    "index_add": (lambda w, i: w.index_add(0, i, torch.ones(
        i.shape[0], 4, device=w.device)), "index_add_"),
    "index_reduce": (lambda w, i: w.index_reduce(0, i, torch.ones(
        i.shape[0], 4, device=w.device), "amax"), "index_reduce"),
    "take": (lambda w, i: torch.take(w[:, 0], i),
             r"take\(\): out of range: tried to access index i on a tensor "
             r"of 10 elements"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_in_range_indices_match_eager_and_raise_nothing(name):
  fn, _ = CASES[name]
  w = torch.randn(10, 4)
  got = fn(w.to(DEV), _device_indices([0, 9, 3, -1 if name == "index" else 2]))
  want = fn(w, torch.tensor([0, 9, 3, -1 if name == "index" else 2]))
  torch_xla.sync()
  torch_xla.sync()
  torch.testing.assert_close(got.cpu(), want)
  xm.wait_device_ops()


@pytest.mark.parametrize("name", sorted(CASES))
def test_out_of_range_raises_at_the_next_sync_naming_the_op(name):
  fn, message = CASES[name]
  error = RuntimeError if name in ("gather", "scatter_add") else IndexError
  w = torch.randn(10, 4, device=DEV)
  y = fn(w, _device_indices([1, 10]))
  torch_xla.sync()  # this step is enqueued; its check is read later
  with pytest.raises(error, match=message):
    (y * 2).sum()
    torch_xla.sync()
  # The failure was reported once; the next steps run normally.
  ok = fn(w, _device_indices([1, 2]))
  torch_xla.sync()
  torch_xla.sync()
  assert ok.shape == fn(w.cpu(), torch.tensor([1, 2])).shape


def test_out_of_range_raises_at_a_read():
  w = torch.randn(10, 4, device=DEV)
  y = torch.nn.functional.embedding(_device_indices([11]), w)
  torch_xla.sync()
  with pytest.raises(IndexError, match="embedding: index out of range"):
    y.cpu()


def test_a_read_in_the_same_step_raises_too():
  w = torch.randn(10, 4, device=DEV)
  y = torch.nn.functional.embedding(_device_indices([11]), w)
  with pytest.raises(IndexError, match="embedding: index out of range"):
    y.sum().item()


def test_wait_device_ops_reads_this_steps_checks():
  w = torch.randn(10, 4, device=DEV)
  w.index_select(0, _device_indices([-1]))
  with pytest.raises(IndexError, match="index_select"):
    xm.wait_device_ops()


def test_first_failed_check_of_a_step_is_named():
  w = torch.randn(10, 4, device=DEV)
  w.index_select(0, _device_indices([2]))
  torch.nn.functional.embedding(_device_indices([12]), w)
  w[_device_indices([20])]
  with pytest.raises(IndexError, match="^embedding"):
    xm.wait_device_ops()


def test_loss_targets_computed_on_the_device_are_checked():
  logits = torch.randn(3, 4, device=DEV)
  ok = torch.nn.functional.cross_entropy(logits, _device_indices([0, 3, 1]))
  ignored = torch.nn.functional.cross_entropy(
      logits, _device_indices([2, -100, 1]))
  torch_xla.sync()
  xm.wait_device_ops()  # in range, or ignore_index: nothing raises
  torch.testing.assert_close(ok.cpu(), torch.nn.functional.cross_entropy(
      logits.cpu(), torch.tensor([0, 3, 1])))
  assert ignored.isfinite().cpu()
  bad = torch.nn.functional.cross_entropy(logits, _device_indices([0, 4, 1]))
  with pytest.raises(IndexError, match="nll_loss: a target is out of bounds"):
    bad.item()


def test_host_known_indices_raise_at_once():
  w = torch.randn(10, 4, device=DEV)
  with pytest.raises(IndexError, match="index out of range in self"):
    torch.nn.functional.embedding(torch.tensor([10], device=DEV), w)


def test_the_check_adds_no_execution_and_moves_four_bytes_per_step():
  w = torch.randn(10, 4, device=DEV)
  torch_xla.sync()

  def step():
    y = torch.nn.functional.embedding(_device_indices([1, 2, 3]), w)
    return (y * 2).sum()

  for _ in range(2):  # compile, and read the first step's check
    step()
    torch_xla.sync()
  met.clear_metrics()
  for _ in range(3):
    step()
    torch_xla.sync()
  executions = met.metric_data("ExecuteTime")[0]
  assert executions == 3
  moved = met.metric_data("TransferFromDeviceTime")
  assert moved is None or moved[0] == 3  # one s32 code per earlier step


def test_checks_added_from_threads_at_once_are_all_kept():
  # The registry is C++ with one lock (python/device_checks.h): threads
  # that trace at the same time (replica threads) lose no check, and each
  # check keeps its own message.
  import threading
  w = torch.randn(10, 4, device=DEV)
  start = threading.Barrier(4)
  errors = []

  def trace(k):
    try:
      start.wait()
      for i in range(25):
        w.index_select(0, _device_indices([(k + i) % 10]))
      if k == 3:
        w.index_select(0, _device_indices([10 + k]))  # the one bad check
    except Exception as e:  # noqa: BLE001  (reported below)
      errors.append(e)

  threads = [threading.Thread(target=trace, args=(k,)) for k in range(4)]
  for t in threads:
    t.start()
  for t in threads:
    t.join()
  assert not errors
  with pytest.raises(IndexError, match="index_select"):
    xm.wait_device_ops()
  xm.wait_device_ops()  # reported once
