"""MpDeviceLoader under SPMD: input_sharding sends each device its shard.

Run by test_parallel_loader.py in a subprocess with XLA_USE_SPMD=1 and
CPU_NUM_DEVICES=4 (the file name keeps the main run from collecting it).
Bytes are counted with the OutboundData metric, as for mark_sharding.
"""

import os

import pytest
import torch

import torch_xla
import torch_xla.debug.metrics as met
import torch_xla.distributed.parallel_loader as pl
import torch_xla.distributed.spmd as xs
import torch_xla.runtime as xr
from torch_xla import _XLAC

if os.environ.get("XLA_USE_SPMD") != "1":
  pytest.skip("run through test_parallel_loader.py (needs XLA_USE_SPMD=1)",
              allow_module_level=True)

N = xr.global_runtime_device_count()
DEVICE = torch_xla.device()
MESH = xs.Mesh(range(N), (N,), ("data",))


def outbound_bytes():
  data = met.metric_data("OutboundData")
  return 0 if data is None else data[1]


@pytest.fixture(autouse=True)
def _clean():
  torch_xla.sync()
  met.clear_all()
  yield


def test_each_device_receives_only_its_shard():
  assert N == 4
  batches = [torch.randn(8, 16) for _ in range(3)]
  loader = pl.MpDeviceLoader(batches, DEVICE,
                             input_sharding=xs.ShardingSpec(MESH,
                                                            ("data", None)))
  got = list(loader)
  # Every byte once: the shards, not N copies of the batch.
  assert outbound_bytes() == 3 * 8 * 16 * 4
  for host, device_batch in zip(batches, got):
    assert "devices=[4,1]" in _XLAC._get_xla_sharding_spec(device_batch)
    torch.testing.assert_close(device_batch.cpu(), host, rtol=0, atol=0)


def test_per_key_input_sharding():
  batch = {"ids": torch.randint(0, 9, (4, 6)), "mask": torch.ones(3),
           "tag": "x"}
  spec = {"ids": xs.ShardingSpec(MESH, ("data", None)), "mask": None}
  (got,) = list(pl.MpDeviceLoader([batch], DEVICE, input_sharding=spec))
  assert got["tag"] == "x"
  assert "devices=[4,1]" in _XLAC._get_xla_sharding_spec(got["ids"])
  # ids: its shards, once; mask (no sharding) stays on the host until a
  # graph uses it, then goes to every device.
  assert outbound_bytes() == 4 * 6 * 8
  got["mask"].sum().item()
  assert outbound_bytes() == 4 * 6 * 8 + N * 3 * 4
  torch.testing.assert_close(got["ids"].cpu(), batch["ids"], rtol=0, atol=0)
  torch.testing.assert_close(got["mask"].cpu(), batch["mask"])


def test_a_training_step_on_sharded_batches_matches_cpu():
  torch.manual_seed(0)
  model = torch.nn.Linear(16, 1)
  cpu_model = torch.nn.Linear(16, 1)
  cpu_model.load_state_dict(model.state_dict())
  model.to(DEVICE)
  batches = [(torch.randn(8, 16), torch.randn(8, 1)) for _ in range(3)]
  spec = xs.ShardingSpec(MESH, ("data", None))
  opt = torch.optim.SGD(model.parameters(), lr=0.1)
  cpu_opt = torch.optim.SGD(cpu_model.parameters(), lr=0.1)
  losses = []
  for x, y in pl.MpDeviceLoader(batches, DEVICE, input_sharding=spec):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    losses.append(loss)
  for x, y in batches:
    cpu_opt.zero_grad()
    loss = torch.nn.functional.mse_loss(cpu_model(x), y)
    loss.backward()
    cpu_opt.step()
    torch.testing.assert_close(losses.pop(0).cpu(), loss.detach())
  torch.testing.assert_close(model.weight.cpu(), cpu_model.weight.detach())


def test_a_spec_of_another_rank_names_the_key():
  it = iter(pl.MpDeviceLoader([{"ids": torch.zeros(8)}], DEVICE,
                              input_sharding={"ids": xs.ShardingSpec(
                                  MESH, ("data", None))}))
  with pytest.raises(ValueError, match=r"does not fit batch\['ids'\]: the "
                     r"spec has 2 entries but the tensor has rank 1"):
    next(it)


def test_a_batch_that_does_not_divide_is_padded_per_device():
  # 6 rows on N devices: each device receives ceil(6 / N) rows (padding
  # included), never the whole batch; the values read back are the batch.
  host = torch.randn(6, 2)
  spec = {"ids": xs.ShardingSpec(MESH, ("data", None))}
  it = iter(pl.MpDeviceLoader([{"ids": host}], DEVICE, input_sharding=spec))
  batch = next(it)
  rows = -(-6 // N)
  assert outbound_bytes() == N * rows * 2 * 4
  assert list(batch["ids"].shape) == [6, 2]
  torch.testing.assert_close(batch["ids"].cpu(), host)


def test_missing_key_in_per_key_sharding():
  it = iter(pl.MpDeviceLoader([{"a": torch.zeros(4), "b": torch.zeros(4)}],
                              DEVICE,
                              input_sharding={"a": xs.ShardingSpec(
                                  MESH, ("data",))}))
  with pytest.raises(KeyError, match=r"no entry for batch\['b'\]"):
    next(it)
