"""SPMD cases. SPMD is chosen before the runtime starts, so these run in a
subprocess with XLA_USE_SPMD=1 and CPU_NUM_DEVICES=N (test_spmd.py starts
it for N = 4 and 8); the file name keeps the main run from collecting them.
"""

import copy
import os
import sys

import pytest
import torch

import torch_xla
import torch_xla.core.xla_builder as xb
import torch_xla.core.xla_model as xm
import torch_xla.debug.metrics as met
import torch_xla.distributed.spmd as xs
import torch_xla.runtime as xr
from torch_xla import _XLAC

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "examples"))
from decoder import Decoder, DecoderConfig  # noqa: E402
from spmd_decoder import shard_batch, shard_decoder  # noqa: E402
from spmd_train import train  # noqa: E402

if os.environ.get("XLA_USE_SPMD") != "1":
  pytest.skip("run through test_spmd.py (needs XLA_USE_SPMD=1 before the "
              "runtime starts)", allow_module_level=True)

N = xr.global_runtime_device_count()
DEVICE = torch_xla.device()


def spec(t):
  return _XLAC._get_xla_sharding_spec(t)


def outbound_bytes():
  data = met.metric_data("OutboundData")
  return 0 if data is None else data[1]


def transfers():
  data = met.metric_data("TransferToDeviceTime")
  return 0 if data is None else data[0]


@pytest.fixture(autouse=True)
def _clean():
  torch_xla.sync()
  met.clear_all()
  yield


def mesh_1d():
  return xs.Mesh(range(N), (N,), ("x",))


def mesh_2d():
  return xs.Mesh(range(N), (2, N // 2), ("data", "model"))


# --- the virtual device -------------------------------------------------


def test_runtime_reports_spmd():
  assert xr.is_spmd()
  assert N == int(os.environ["CPU_NUM_DEVICES"])
  assert xr.addressable_runtime_device_count() == N
  assert str(DEVICE) == "xla:0"


def test_to_device_keeps_data_on_host_until_sharded():
  cpu = torch.randn(N * 4, 8)
  t = cpu.to(DEVICE)
  assert transfers() == 0 and outbound_bytes() == 0
  assert met.counter_value("VirtualDeviceUsage") == 1
  info = _XLAC._get_xla_tensor_debug_info(t)
  assert f"Tensor on host: with size [{N * 4}, 8]" in info
  xs.mark_sharding(t, mesh_1d(), ("x", None))
  # Each device received only its shard: the tensor's bytes, once.
  assert outbound_bytes() == cpu.numel() * 4
  assert transfers() == N
  info = _XLAC._get_xla_tensor_debug_info(t)
  assert "XLAShardedData" in info
  assert f"OpSharding: {{devices=[{N},1]{','.join(map(str, range(N)))}}}" in info
  assert f"NumShards: {N}" in info
  torch.testing.assert_close(t.cpu(), cpu)


def test_unsharded_tensor_is_sent_replicated_once():
  cpu = torch.randn(64, 64)
  t = cpu.to(DEVICE)
  (t * 2).sum().item()
  first = outbound_bytes()
  # The tensor once to every device (plus a few bytes of packed scalars).
  assert N * cpu.numel() * 4 <= first < N * cpu.numel() * 4 + 1024
  for _ in range(2):
    (t * 2).sum().item()
  assert outbound_bytes() == first
  assert spec(t) == "{replicated}"


def test_host_tensor_goes_to_the_devices_when_an_op_reads_it():
  cpu = torch.randn(8, 8)
  t = cpu.to(DEVICE)
  info = _XLAC._get_xla_tensor_debug_info(t)
  assert "Tensor on host: with size [8, 8]" in info
  doubled = t + t  # traced: t is sent now, replicated, once per device
  info = _XLAC._get_xla_tensor_debug_info(t)
  assert "Tensor on host: None" in info and "xla::device_data" in info
  assert transfers() == N and outbound_bytes() == N * cpu.numel() * 4
  assert spec(t) == "{replicated}"
  torch_xla.sync()
  # The step sent nothing more for it; later steps read the same buffers.
  assert transfers() == N
  torch.testing.assert_close(doubled.cpu(), cpu + cpu)
  t *= 3  # an in-place update of the uploaded buffer still aliases it
  torch_xla.sync()
  # Only the packed scalar 3 travelled, not the tensor again.
  assert outbound_bytes() < N * cpu.numel() * 4 + 1024
  assert met.metric_data("InputOutputAliasCount")[1] == 1
  torch.testing.assert_close(t.cpu(), cpu * 3)


def test_local_shards_hold_their_box_without_transfer():
  cpu = torch.arange(N * 2 * 6, dtype=torch.float32).reshape(N * 2, 6)
  st = xs.mark_sharding(cpu.to(DEVICE), mesh_1d(), ("x", None))
  met.clear_all()
  shards = st.local_shards
  assert met.metric_data("TransferFromDeviceTime") is None
  assert [s.device for s in shards] == [f"xla:{d}" for d in range(N)]
  for d, shard in enumerate(shards):
    assert shard.indices == (slice(2 * d, 2 * d + 2), slice(0, 6))
    torch.testing.assert_close(shard.data.cpu(), cpu[shard.indices])


# --- sharded computations equal eager -------------------------------------


@pytest.mark.parametrize("partition", [("x", None), (None, "x")])
def test_elementwise_and_reductions(partition):
  a, b = torch.randn(N * 2, N * 3), torch.randn(N * 2, N * 3)
  xa, xb = a.to(DEVICE), b.to(DEVICE)
  xs.mark_sharding(xa, mesh_1d(), partition)
  xs.mark_sharding(xb, mesh_1d(), partition)
  out = [torch.sin(xa) * xb + 1, xa.sum(0), xa.amax(1), (xa * xb).mean()]
  torch_xla.sync()
  want = [torch.sin(a) * b + 1, a.sum(0), a.amax(1), (a * b).mean()]
  for got, expected in zip(out, want):
    torch.testing.assert_close(got.cpu(), expected, rtol=1e-5, atol=1e-5)
  assert spec(out[0]) == spec(xa)  # elementwise keeps the layout


@pytest.mark.parametrize("mesh_kind,x_spec,w_spec", [
    ("1d", ("x", None), (None, None)),   # rows
    ("1d", (None, None), (None, "x")),   # columns
    ("1d", (None, "x"), ("x", None)),    # contraction dim: a reduction
    ("2d", ("data", None), (None, "model")),
    ("2d", ("data", "model"), ("model", None)),
])
def test_matmul(mesh_kind, x_spec, w_spec):
  mesh = mesh_1d() if mesh_kind == "1d" else mesh_2d()
  x, w = torch.randn(N * 2, N * 4), torch.randn(N * 4, N * 2)
  xx, xw = x.to(DEVICE), w.to(DEVICE)
  xs.mark_sharding(xx, mesh, x_spec)
  xs.mark_sharding(xw, mesh, w_spec)
  y = xx @ xw
  torch_xla.sync()
  torch.testing.assert_close(y.cpu(), x @ w, rtol=1e-4, atol=1e-4)


def test_pending_value_is_annotated_and_output_keeps_it():
  a = torch.randn(N * 2, 8)
  x = a.to(DEVICE) + 1
  xs.mark_sharding(x, mesh_1d(), ("x", None))
  hlo = _XLAC._get_stablehlo([x]).decode()
  assert "stablehlo.custom_call" in hlo and '@Sharding' in hlo.replace(
      'call_target_name = "Sharding"', "@Sharding")
  torch_xla.sync()
  assert spec(x) == f"{{devices=[{N},1]{','.join(map(str, range(N)))}}}"
  torch.testing.assert_close(x.cpu(), a + 1)


# --- spec strings -----------------------------------------------------------


def test_spec_strings():
  ids = ",".join(map(str, range(N)))
  t = torch.randn(8, 8 * N).to(DEVICE)
  xs.mark_sharding(t, mesh_1d(), (None, "x"))
  assert spec(t) == f"{{devices=[1,{N}]{ids}}}"
  xs.mark_sharding(t, mesh_2d(), ("data", "model"))
  assert spec(t) == f"{{devices=[2,{N // 2}]{ids}}}"
  # The model axis splits dimension 0: devices in transposed mesh order.
  xs.mark_sharding(t, mesh_2d(), ("model", "data"))
  order = [d for col in range(N // 2) for d in (col, col + N // 2)]
  assert spec(t) == (f"{{devices=[{N // 2},2]"
                     f"{','.join(map(str, order))}}}")
  # Partial replication: the unused "model" axis replicates.
  xs.mark_sharding(t, mesh_2d(), ("data", None))
  assert spec(t) == f"{{devices=[2,1,{N // 2}]{ids} last_tile_dim_replicate}}"
  xs.mark_sharding(t, mesh_2d(), (None, None))
  assert spec(t) == "{replicated}"
  # Two mesh axes on one dimension.
  xs.mark_sharding(t, mesh_2d(), (None, ("data", "model")))
  assert spec(t) == f"{{devices=[1,{N}]{ids}}}"
  st = xs.mark_sharding(t, mesh_1d(), ("x", None))
  assert st.sharding_type == xs.ShardingType.TILED
  assert st.sharding_spec == spec(t)


def test_sharding_survives_clone_deepcopy_sync_and_clear():
  cpu = torch.randn(N * 2, 4)
  t = cpu.to(DEVICE)
  xs.mark_sharding(t, mesh_1d(), ("x", None))
  want = spec(t)
  assert spec(t.clone()) == want
  assert spec(copy.deepcopy(t)) == want
  t.add_(1)  # in place: the result keeps the layout
  torch_xla.sync()
  assert spec(t) == want
  xs.clear_sharding(t)
  assert spec(t) == ""
  torch.testing.assert_close(t.cpu(), cpu + 1)


# --- LoweringContext mappings ------------------------------------------------


def test_parameter_mappings_with_and_without_gathering():
  cpu = torch.randn(N * 2, 4)
  t = cpu.to(DEVICE)
  xs.mark_sharding(t, mesh_1d(), ("x", None))
  ctx = _XLAC.lowering.LoweringContext("spmd")
  ctx.build([t * 2])
  assert "mhlo.sharding" in ctx.hlo_text()
  met.clear_all()
  device_map = ctx.device_parameter_id_tensor_mapping()
  (mapped,) = [v for v in device_map.values() if v.shape == t.shape]
  assert spec(mapped) == spec(t)
  assert met.metric_data("TransferFromDeviceTime") is None
  assert met.counter_value("ReplicateShardedData") in (None, 0)
  host_map = ctx.parameter_id_tensor_mapping()
  (gathered,) = [v for v in host_map.values() if v.shape == t.shape]
  assert gathered.device.type == "cpu"
  torch.testing.assert_close(gathered, cpu)
  assert met.counter_value("ReplicateShardedData") == 1


def test_sharded_placeholder_stages_out_with_no_data():
  p = xb.create_placeholder_tensor((N * 2, 8), torch.float32)
  xs.mark_sharding(p, mesh_1d(), ("x", None))
  assert spec(p) == f"{{devices=[{N},1]{','.join(map(str, range(N)))}}}"
  ctx = _XLAC.lowering.LoweringContext("staged")
  ctx.build([p.sin()])
  assert f'mhlo.sharding = "{spec(p)}"' in ctx.hlo_text()
  assert transfers() == 0 and outbound_bytes() == 0
  with pytest.raises(RuntimeError, match="placeholder"):
    p.cpu()
  q = xb.create_placeholder_tensor((4, N * 2), torch.bfloat16,
                                   sharding=xs.ShardingSpec(mesh_1d(),
                                                            (None, "x")))
  assert spec(q) == f"{{devices=[1,{N}]{','.join(map(str, range(N)))}}}"


# --- training, donation, gradients ---------------------------------------------


def test_in_place_update_of_sharded_weight_aliases_its_buffers():
  w = torch.randn(N * 2, 8).to(DEVICE)
  xs.mark_sharding(w, mesh_1d(), ("x", None))
  torch_xla.sync()
  met.clear_all()
  w.mul_(2).add_(1)
  torch_xla.sync()
  count, total, _ = met.metric_data("InputOutputAliasCount")
  assert count == 1 and total >= 1
  assert spec(w).startswith(f"{{devices=[{N},1]")


def test_mark_sharding_after_in_place_update_of_unsharded_data():
  # The update's result is marked sharded, its old buffer is whole: they
  # differ per device, so the result must not reuse (alias) that buffer.
  host = torch.randn(N * 2, 8)
  t = host.to(DEVICE)
  t.add_(1)
  torch_xla.sync()
  t.mul_(2)
  xs.mark_sharding(t, mesh_1d(), ("x", None))
  torch_xla.sync()
  assert spec(t).startswith(f"{{devices=[{N},1]")
  torch.testing.assert_close(t.cpu(), (host + 1) * 2)


def test_mark_sharding_with_gradients_shards_the_gradient():
  w = torch.randn(N * 2, 4).to(DEVICE).requires_grad_()
  y = xs.mark_sharding_with_gradients(w, mesh_1d(), ("x", None))
  (y * 3).sum().backward()
  torch_xla.sync()
  assert spec(w.grad).startswith(f"{{devices=[{N},1]")
  torch.testing.assert_close(w.grad.cpu(), torch.full((N * 2, 4), 3.0))


def test_send_cpu_data_to_device_with_input_sharding():
  data = [torch.randn(N * 2, 3), torch.randn(N * 2)]
  sharding = xs.ShardingSpec(mesh_1d(), ("x", None))
  (moved,) = xm.send_cpu_data_to_device(data[0], DEVICE,
                                        input_sharding=sharding)
  assert spec(moved) == f"{{devices=[{N},1]{','.join(map(str, range(N)))}}}"
  torch.testing.assert_close(moved.cpu(), data[0])
  assert outbound_bytes() == data[0].numel() * 4


@pytest.mark.parametrize("parallel", ["data", "tensor", "2d"])
def test_decoder_training_matches_one_device(parallel):
  torch.manual_seed(0)
  config = DecoderConfig(dim=32, num_layers=2, num_heads=4, hidden_dim=64,
                         vocab_size=64, max_seq_len=16)
  reference = Decoder(config)
  batches = [torch.randint(0, config.vocab_size, (N, 16)) for _ in range(3)]
  expected = train(copy.deepcopy(reference), batches, lr=0.1)

  model = copy.deepcopy(reference).to(DEVICE)
  if parallel == "data":
    mesh = xs.Mesh(range(N), (N, 1), ("data", "model"))
  elif parallel == "tensor":
    mesh = xs.Mesh(range(N), (1, N), ("data", "model"))
  else:
    mesh = mesh_2d()
  if parallel != "data":
    assert shard_decoder(model, mesh) == 2 * 7 + 2
  xla_batches = [shard_batch(t.to(DEVICE), mesh) for t in batches]
  losses = train(model, xla_batches, lr=0.1, step_fn=torch_xla.sync)
  torch.testing.assert_close(torch.tensor(losses), torch.tensor(expected),
                             rtol=1e-4, atol=1e-4)
  wq = model.layers[0].attention.wq.weight
  if parallel != "data":
    assert spec(wq) != "" and spec(wq) != "{replicated}"
    assert spec(wq) == spec(wq) and "devices=" in spec(wq)


# --- bad input ------------------------------------------------------------------


def test_mesh_errors():
  with pytest.raises(ValueError, match="do not fill a mesh"):
    xs.Mesh(range(N), (N + 1,))
  with pytest.raises(ValueError, match="unique"):
    xs.Mesh([0] * N, (N,))
  with pytest.raises(ValueError, match="out of range"):
    xs.Mesh(range(1, N + 1), (N,))
  with pytest.raises(ValueError, match="axis names must be unique"):
    xs.Mesh(range(N), (2, N // 2), ("a", "a"))


def test_mark_sharding_errors():
  t = torch.randn(N * 2, 6).to(DEVICE)
  with pytest.raises(ValueError, match="unknown mesh axis name 'y'"):
    xs.mark_sharding(t, mesh_1d(), ("y", None))
  with pytest.raises(ValueError, match="rank 2"):
    xs.mark_sharding(t, mesh_1d(), ("x", None, None))
  with pytest.raises(ValueError, match="3 entries but the tensor has rank 2"):
    xs.mark_sharding(t, mesh_2d(), ("data", "model", None))
  small = xs.Mesh(range(N // 2), (N // 2,), ("x",))
  with pytest.raises(ValueError, match="use a mesh of all devices"):
    xs.mark_sharding(t, small, ("x", None))
  with pytest.raises(ValueError, match="'xla' tensor"):
    xs.mark_sharding(torch.randn(4, 4), mesh_1d(), ("x", None))


def test_use_spmd_after_device_data_is_fine_when_already_on():
  xr.use_spmd()  # idempotent
  assert xr.is_spmd()


# --- staged loops keep weights sharded ------------------------------------------


def test_gradient_accumulation_on_sharded_weights():
  from torch_xla.experimental.gradient_accumulation import gradient_accumulation
  torch.manual_seed(0)
  reference = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                                  torch.nn.Linear(32, 16))
  model = copy.deepcopy(reference).to(DEVICE)
  xs.mark_sharding(model[0].weight, mesh_1d(), ("x", None))
  xs.mark_sharding(model[2].weight, mesh_1d(), (None, "x"))
  x, y = torch.randn(4, 8, 16), torch.randn(4, 8, 16)

  def step(a, b):
    return torch.nn.functional.mse_loss(model(a), b)

  loss = gradient_accumulation(step, (x.to(DEVICE), y.to(DEVICE)), model)
  torch_xla.sync()
  want = 0.0
  for i in range(4):
    part = torch.nn.functional.mse_loss(reference(x[i]), y[i]) / 4
    part.backward()
    want += part.item()
  assert abs(loss.item() - want) < 1e-5
  for got, expected in zip(model.parameters(), reference.parameters()):
    torch.testing.assert_close(got.grad.cpu(), expected.grad, rtol=1e-4,
                               atol=1e-5)
  assert spec(model[0].weight.grad) == spec(model[0].weight)
  assert spec(model[2].weight.grad) == spec(model[2].weight)


def test_scan_layers_on_sharded_weights():
  from torch_xla.experimental.scan_layers import scan_layers
  torch.manual_seed(0)
  reference = torch.nn.ModuleList(torch.nn.Linear(16, 16) for _ in range(3))
  layers = copy.deepcopy(reference).to(DEVICE)
  for layer in layers:
    xs.mark_sharding(layer.weight, mesh_1d(), ("x", None))
  inp = torch.randn(8, 16)
  out = scan_layers(layers, inp.to(DEVICE))
  out.sum().backward()
  torch_xla.sync()
  want = inp
  for layer in reference:
    want = layer(want)
  want.sum().backward()
  torch.testing.assert_close(out.cpu(), want, rtol=1e-4, atol=1e-5)
  for got, expected in zip(layers, reference):
    torch.testing.assert_close(got.weight.grad.cpu(), expected.weight.grad,
                               rtol=1e-4, atol=1e-5)
    assert spec(got.weight.grad) == spec(got.weight)


# Uneven shards, the XLA way: a dimension that does not divide by its tile
# count is split into ceil(dim / tiles) rows per device, the last devices'
# buffers padded; each device receives only its rows plus padding, and
# what is read back has the true shape.


def test_uneven_mark_sharding_sends_each_device_its_rows():
  host = torch.randn(3, 3)
  t = host.to(DEVICE)
  met.clear_all()
  xs.mark_sharding(t, mesh_1d(), ("x", None))
  rows = -(-3 // N)  # ceil
  # N transfers of one padded shard each: rows x 3 floats per device.
  assert transfers() == N
  assert outbound_bytes() == N * rows * 3 * 4
  assert spec(t) == "{devices=[%d,1]%s}" % (N, ",".join(map(str, range(N))))
  torch.testing.assert_close(t.cpu(), host)
  shards = xs.XLAShardedTensor(t).local_shards
  for d, shard in enumerate(shards):
    assert list(shard.data.shape) == [rows, 3]
    start = min(d * rows, 3)
    stop = min(start + rows, 3)
    assert shard.indices[0] == slice(start, stop)
    torch.testing.assert_close(shard.unpadded_data.cpu(), host[start:stop])


def test_uneven_shards_compute_like_eager():
  torch.manual_seed(1)
  a, b = torch.randn(3, 5), torch.randn(5, 7)
  xa, xb = a.to(DEVICE), b.to(DEVICE)
  xs.mark_sharding(xa, mesh_1d(), ("x", None))
  xs.mark_sharding(xb, mesh_1d(), (None, "x"))
  out = torch.sin(xa) @ xb + 1
  torch.testing.assert_close(out.cpu(), torch.sin(a) @ b + 1, rtol=1e-5,
                             atol=1e-5)
  torch.testing.assert_close(xa.sum(0).cpu(), a.sum(0), rtol=1e-5, atol=1e-5)
  torch_xla.sync()
  assert list(out.shape) == [3, 7]
  torch.testing.assert_close(out.cpu(), torch.sin(a) @ b + 1, rtol=1e-5,
                             atol=1e-5)


def test_uneven_input_sharding_and_donation():
  host = torch.randn(3, 3)
  sharding = xs.ShardingSpec(mesh_1d(), ("x", None))
  (t,) = xm.send_cpu_data_to_device([host], DEVICE, input_sharding=sharding)
  assert spec(t).startswith("{devices=[%d,1]" % N)
  torch_xla.sync()
  met.clear_all()
  t.mul_(2)  # the sharded buffers are donated to the update
  torch_xla.sync()
  assert met.metric_data("InputOutputAliasCount")[1] == 1
  torch.testing.assert_close(t.cpu(), host * 2)
  assert spec(t).startswith("{devices=[%d,1]" % N)


def test_uneven_sharded_placeholder():
  p = xb.create_placeholder_tensor((3, 5), torch.float32)
  xs.mark_sharding(p, mesh_1d(), (None, "x"))
  assert spec(p) == "{devices=[1,%d]%s}" % (N, ",".join(map(str, range(N))))


def test_debug_info_names_the_virtual_device():
  t = torch.randn(5, 5).to(DEVICE)
  info = _XLAC._get_xla_tensor_debug_info(t)
  assert "Device: SPMD:0" in info and "Tensor on host: with size [5, 5]" in info
  xs.mark_sharding(t, mesh_1d(), ("x", None))
  info = _XLAC._get_xla_tensor_debug_info(t)
  assert "Tensor on host: None" in info and "XLAShardedData" in info


def test_scanned_gradients_take_their_weights_sharding():
  from torch_xla.experimental.scan_layers import scan_layers
  mesh = mesh_2d()

  class Block(torch.nn.Module):

    def __init__(self):
      super().__init__()
      self.up = torch.nn.Linear(16, 32, bias=False)
      self.down = torch.nn.Linear(32, 16, bias=False)

    def forward(self, h):
      h = xs.mark_sharding_with_gradients(h, mesh, ("data", None, "model"))
      h = torch.sin(self.up(h))
      h = xs.mark_sharding_with_gradients(h, mesh, ("data", None, "model"))
      return self.down(h)

  torch.manual_seed(0)
  blocks = torch.nn.ModuleList(Block() for _ in range(3))
  reference = copy.deepcopy(blocks)
  blocks = xs.apply_xla_patch_to_nn_linear(blocks.to(DEVICE))
  for block in blocks:
    xs.mark_sharding(block.up.weight, mesh, ("model", "data"))
    xs.mark_sharding(block.down.weight, mesh, ("data", "model"))
  h = torch.randn(3, 5, 16)
  out = scan_layers(blocks, h.to(DEVICE))
  out.sum().backward()
  torch_xla.sync()
  want = h
  for block in reference:
    want = block.down(torch.sin(block.up(want)))
  want.sum().backward()
  torch.testing.assert_close(out.cpu(), want, rtol=1e-4, atol=1e-4)
  for block, ref in zip(blocks, reference):
    # The gradient of a scanned weight is a view of the stacked gradient
    # (re-derived after the sync); its spec is the layout it has, the
    # weight's 2-d one.
    assert spec(block.up.weight.grad) == spec(block.up.weight)
    torch.testing.assert_close(block.up.weight.grad.cpu(), ref.up.weight.grad,
                               rtol=1e-4, atol=1e-4)
