"""xm.add_step_closure, RateTracker, master_print, is_master_ordinal."""

import threading
import time

import pytest
import torch

import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.debug.metrics as met

DEVICE = torch_xla.device()


def state(t):
  return torch_xla._XLAC._get_xla_tensor_debug_info(t)


@pytest.fixture(autouse=True)
def _clean():
  torch_xla.sync()
  yield
  xm.wait_device_ops()


def test_closures_run_after_the_sync_in_order_with_values_readable():
  seen = []
  x = torch.arange(4.0).to(DEVICE)
  loss = (x * 3).sum()

  def report(name, value):
    # The step's graph already ran: the value is device data.
    assert "State: device data" in state(value)
    seen.append((name, value.item()))

  xm.add_step_closure(report, args=("first", loss))
  xm.add_step_closure(report, args=("second", loss + 0))
  assert seen == []  # nothing runs before the sync
  met.clear_all()
  xm.mark_step()
  assert seen == [("first", 18.0), ("second", 18.0)]
  # One execution for the step; the closures' reads added none.
  assert met.metric_data("ExecuteTime")[0] == 1
  xm.mark_step()
  assert len(seen) == 2  # each closure runs once


def test_exception_in_a_closure_reaches_the_sync_with_its_traceback():

  def failing_report():
    raise ValueError("closure failed")

  ran = []
  xm.add_step_closure(failing_report)
  xm.add_step_closure(lambda: ran.append(1))
  with pytest.raises(ValueError, match="closure failed") as info:
    torch_xla.sync()
  assert any(entry.name == "failing_report" for entry in info.traceback)
  # The closures of that step are dropped; the next steps are clean.
  torch_xla.sync()
  assert ran == []


def test_async_closures_run_in_order_off_the_training_thread():
  seen = []
  threads = set()
  x = torch.ones(3, device=DEVICE)
  for i in range(5):
    y = x * i
    xm.add_step_closure(
        lambda i, v: (threads.add(threading.current_thread().name),
                      seen.append((i, v.sum().item()))),
        args=(i, y), run_async=True)
    xm.mark_step()
  xm.wait_device_ops()  # waits for the asynchronous closures too
  assert seen == [(i, 3.0 * i) for i in range(5)]
  assert threads == {"xla-step-closures"}


def test_async_closure_exception_is_raised_by_the_next_sync():

  def failing_async():
    raise KeyError("async closure failed")

  xm.add_step_closure(failing_async, run_async=True)
  xm.mark_step()
  with pytest.raises(RuntimeError, match="asynchronous step closure raised "
                     "KeyError") as info:
    xm.wait_device_ops()
  assert isinstance(info.value.__cause__, KeyError)
  xm.mark_step()  # reported once


def test_bad_arguments():
  with pytest.raises(TypeError, match="args must be a tuple"):
    xm.add_step_closure(print, args=[1])
  with pytest.raises(TypeError, match="closure must be callable"):
    xm.add_step_closure(3)


def test_rate_tracker():
  tracker = xm.RateTracker(smooth_factor=0.0)
  tracker.add(100)
  time.sleep(0.05)
  rate = tracker.rate()
  assert 0 < rate <= 100 / 0.05
  tracker.add(50)
  assert tracker.global_rate() > 0
  smoothed = xm.RateTracker(smooth_factor=1.0)
  smoothed.add(10)
  time.sleep(0.01)
  first = smoothed.rate()
  smoothed.add(1000)
  time.sleep(0.01)
  assert smoothed.rate() == first  # factor 1 keeps the previous report


def test_master_print_and_ordinals(capsys):
  assert xm.is_master_ordinal() and xm.is_master_ordinal(local=False)
  xm.master_print("hello", 3)
  assert capsys.readouterr().out == "hello 3\n"
