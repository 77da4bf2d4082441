"""torch_xla.distributed.parallel_loader: MpDeviceLoader and ParallelLoader.

Batches arrive on the device with the host values and structure, in order,
moved by background threads; the threads end with the data, on close() and
when the iterator is dropped; errors reach the reader. The SPMD cases
(input_sharding: shard-only transfers, errors naming key and dimension)
run in a subprocess with 4 CPU devices (loader_spmd_cases.py).
"""

import collections
import gc
import os
import subprocess
import sys
import threading
import time

import pytest
import torch

import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.debug.metrics as met
import torch_xla.distributed.parallel_loader as pl
import torch_xla.utils.utils as xu

DEVICE = torch_xla.device()
Pair = collections.namedtuple("Pair", ["x", "y"])


def loader_threads():
  return [t for t in threading.enumerate()
          if t.name.startswith("xla-loader") and t.is_alive()]


def wait_for(predicate, seconds=20.0):
  """Polls `predicate` (the loader threads work concurrently)."""
  deadline = time.monotonic() + seconds
  while not predicate():
    if time.monotonic() > deadline:
      return False
    time.sleep(0.01)
  return True


@pytest.fixture(autouse=True)
def _no_leaked_threads():
  yield
  gc.collect()
  assert wait_for(lambda: not loader_threads()), loader_threads()


def make_batches(n=7):
  return [{
      "tokens": torch.randint(0, 100, (4, 8)),
      "pair": Pair(torch.randn(4, 3), [torch.randn(2), 3.5]),
      "name": f"batch{i}",
      "meta": {"step": i, "none": None},
  } for i in range(n)]


def check_same(host, device_batch):
  assert device_batch["name"] == host["name"]
  assert device_batch["meta"] == host["meta"]
  assert isinstance(device_batch["pair"], Pair)
  for a, b in [(host["tokens"], device_batch["tokens"]),
               (host["pair"].x, device_batch["pair"].x),
               (host["pair"].y[0], device_batch["pair"].y[0])]:
    assert b.device.type == "xla" and b.dtype == a.dtype
    torch.testing.assert_close(b.cpu(), a, rtol=0, atol=0)
  assert device_batch["pair"].y[1] == 3.5


@pytest.mark.parametrize("threads", [1, 3])
def test_values_structure_and_order(threads):
  batches = make_batches(9)
  loader = pl.MpDeviceLoader(batches, DEVICE, loader_prefetch_size=2,
                             device_prefetch_size=2,
                             host_to_device_transfer_threads=threads)
  assert len(loader) == 9
  got = list(loader)
  assert len(got) == 9
  for host, device_batch in zip(batches, got):
    check_same(host, device_batch)
  # A second pass starts a fresh loader.
  assert [b["name"] for b in loader] == [b["name"] for b in batches]


def test_tensor_and_tuple_batches():
  data = [torch.arange(i, i + 4) for i in range(3)]
  assert [t.cpu().tolist() for t in pl.MpDeviceLoader(data, DEVICE)] == [
      t.tolist() for t in data]
  pairs = xu.SampleGenerator((torch.ones(2), torch.zeros(3)), 4)
  out = list(pl.MpDeviceLoader(pairs, DEVICE))
  assert len(out) == 4 and all(isinstance(b, tuple) for b in out)
  assert out[0][1].cpu().tolist() == [0.0, 0.0, 0.0]


def test_parallel_loader_per_device_loader():
  batches = make_batches(5)
  para = pl.ParallelLoader(batches, [DEVICE])
  per_device = para.per_device_loader(DEVICE)
  assert len(per_device) == 5
  for host, device_batch in zip(batches, per_device):
    check_same(host, device_batch)
  with pytest.raises(ValueError, match="not one of this loader's devices"):
    para.per_device_loader(torch.device("xla", 7))


def test_background_threads_transfer_ahead():
  # After one batch is read, the threads fill the device queue with the
  # next ones without the reader asking.
  data = xu.SampleGenerator(torch.randn(16, 16), 50)
  met.clear_all()
  it = iter(pl.MpDeviceLoader(data, DEVICE, device_prefetch_size=4))
  try:
    next(it)
    # The batch read and the 4 behind it.
    assert wait_for(lambda: (met.metric_data("TransferToDeviceTime") or
                             [0])[0] >= 5)
  finally:
    it.close()


def test_each_batch_is_a_step_boundary():
  # Reading the next batch syncs (as upstream): the pending work of the
  # step runs and its step closures see the values.
  x = torch.ones(3, device=DEVICE)
  seen = []
  it = iter(pl.MpDeviceLoader([torch.zeros(1)] * 3, DEVICE))
  next(it)
  y = x * 2
  xm.add_step_closure(lambda t: seen.append(t.cpu().tolist()), args=(y,))
  assert "device data" not in torch_xla._XLAC._get_xla_tensor_debug_info(y)
  next(it)
  assert "State: device data" in torch_xla._XLAC._get_xla_tensor_debug_info(y)
  assert seen == [[2.0, 2.0, 2.0]]
  it.close()


def test_batches_per_execution_syncs_every_n():
  x = torch.ones(2, device=DEVICE)
  it = iter(pl.MpDeviceLoader([torch.zeros(1)] * 6, DEVICE,
                              batches_per_execution=3))
  states = []
  for _ in range(5):
    y = x + 1
    next(it)
    states.append("State: device data" in
                  torch_xla._XLAC._get_xla_tensor_debug_info(y))
  # Syncs before batches 0 and 3.
  assert states == [True, False, False, True, False]
  it.close()


def test_unknown_option_is_a_type_error():
  with pytest.raises(TypeError, match="unexpected keyword argument 'prefetch'"):
    pl.MpDeviceLoader([], DEVICE, prefetch=4)
  with pytest.raises(ValueError, match="device_prefetch_size must be a "
                     "positive int"):
    pl.ParallelLoader([], [DEVICE], device_prefetch_size=0)


def test_threads_end_when_exhausted_closed_or_dropped():
  data = xu.SampleGenerator(torch.randn(4), 1000)
  list(pl.MpDeviceLoader(make_batches(3), DEVICE))
  assert wait_for(lambda: not loader_threads())
  # Closed early.
  it = iter(pl.MpDeviceLoader(data, DEVICE))
  next(it)
  assert loader_threads()
  it.close()
  assert not loader_threads()
  # Dropped early (a loop that breaks, as itertools.islice does).
  loader = pl.MpDeviceLoader(data, DEVICE, device_prefetch_size=2)
  for i, _ in enumerate(loader):
    if i == 2:
      break
  assert loader_threads()
  gc.collect()
  assert wait_for(lambda: not loader_threads())


def test_host_loader_error_reaches_the_reader():

  def failing():
    yield torch.ones(2)
    yield torch.ones(2)
    raise ValueError("host loader failed at batch 2")

  it = iter(pl.MpDeviceLoader(failing(), DEVICE))
  assert len([next(it), next(it)]) == 2
  with pytest.raises(ValueError, match="host loader failed at batch 2") as info:
    next(it)
  # The traceback reaches the line that raised in the host loader.
  assert any(entry.name == "failing" for entry in info.traceback)
  assert wait_for(lambda: not loader_threads())


def test_transfer_error_reaches_the_reader():
  # Without SPMD mode, sharding the batch fails on the transfer thread.
  import torch_xla.distributed.spmd as xs
  spec = xs.ShardingSpec(xs.Mesh([0], (1, 1)), (0, None))
  it = iter(pl.MpDeviceLoader([torch.ones(4, 4)] * 3, DEVICE,
                              input_sharding=spec))
  with pytest.raises(RuntimeError, match="SPMD mode"):
    next(it)


def test_multiple_devices_round_robin():
  code = (
      "import torch, torch_xla, torch_xla.distributed.parallel_loader as pl\n"
      "ds = [torch.device('xla', 0), torch.device('xla', 1)]\n"
      "data = [torch.full((2,), float(i)) for i in range(5)]\n"
      "para = pl.ParallelLoader(data, ds)\n"
      "for d in ds:\n"
      "  got = [(str(b.device), b.cpu()[0].item()) for b in "
      "para.per_device_loader(d)]\n"
      "  print(d, got)\n")
  env = dict(os.environ, CPU_NUM_DEVICES="2")
  env.pop("XLA_USE_SPMD", None)
  run = subprocess.run([sys.executable, "-c", code], env=env,
                       capture_output=True, text=True, timeout=300)
  assert run.returncode == 0, run.stderr[-3000:]
  # Batch i goes to device i % 2; the odd last batch is dropped.
  assert "xla:0 [('xla:0', 0.0), ('xla:0', 2.0)]" in run.stdout
  assert "xla:1 [('xla:1', 1.0), ('xla:1', 3.0)]" in run.stdout


def test_spmd_input_sharding_cases():
  cases = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "loader_spmd_cases.py")
  env = dict(os.environ, XLA_USE_SPMD="1", CPU_NUM_DEVICES="4")
  run = subprocess.run(
      [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", cases],
      env=env, capture_output=True, text=True, timeout=600)
  report = run.stdout[-20000:] + run.stderr[-5000:]
  assert run.returncode == 0, report
  assert " passed" in run.stdout and "skipped" not in run.stdout, report
