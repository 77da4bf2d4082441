"""FSDPv2 cases on N CPU devices. SPMD is chosen before the runtime starts,
so these run in a subprocess with XLA_USE_SPMD=1 and CPU_NUM_DEVICES=4
(test_fsdp_v2.py starts it); the file name keeps the main run from
collecting them."""

import copy
import functools
import os
import sys

import pytest
import torch
from torch import nn

import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.debug.metrics as met
import torch_xla.distributed.spmd as xs
import torch_xla.runtime as xr
from torch_xla import _XLAC
from torch_xla.distributed.fsdp import checkpoint_module
from torch_xla.distributed.fsdp.wrap import (size_based_auto_wrap_policy,
                                             transformer_auto_wrap_policy)
from torch_xla.experimental.spmd_fully_sharded_data_parallel import (
    SpmdFullyShardedDataParallel as FSDPv2)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "examples"))
from decoder import Decoder, DecoderConfig, DecoderLayer, next_token_loss  # noqa: E402

if os.environ.get("XLA_USE_SPMD") != "1":
  pytest.skip("run through test_fsdp_v2.py (needs XLA_USE_SPMD=1 before "
              "the runtime starts)", allow_module_level=True)

N = xr.global_runtime_device_count()
XLA = torch_xla.device()


def spec(t):
  return _XLAC._get_xla_sharding_spec(t)


def device_bytes():
  return [xm.get_memory_info(torch.device("xla", i))["bytes_used"]
          for i in range(N)]


def fsdp_mesh():
  return xs.Mesh(range(N), (N, 1), ("fsdp", "model"))


def policy():
  return functools.partial(transformer_auto_wrap_policy,
                           transformer_layer_cls={DecoderLayer})


@pytest.fixture(autouse=True)
def _clean():
  xs.set_global_mesh(None)
  torch_xla.sync()
  met.clear_all()
  yield
  xs.set_global_mesh(None)


def test_each_device_holds_a_quarter_of_every_weight():
  assert N == 4
  model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 8))
  total = sum(p.numel() * p.element_size() for p in model.parameters())
  before = device_bytes()
  model = FSDPv2(model, mesh=fsdp_mesh())
  torch_xla.sync()
  after = device_bytes()
  assert [a - b for a, b in zip(after, before)] == [total // N] * N
  # Sharded on each weight's largest dimension.
  assert spec(model.module[0].weight) == "{devices=[4,1]0,1,2,3}"
  assert spec(model.module[2].weight) == "{devices=[1,4]0,1,2,3}"
  assert spec(model.module[0].bias) == "{devices=[4]0,1,2,3}"


def test_decoder_trains_like_one_device():
  torch.manual_seed(0)
  config = DecoderConfig(dim=32, num_layers=2, num_heads=4, hidden_dim=64,
                         vocab_size=64, max_seq_len=16)
  reference = Decoder(config)
  mesh = fsdp_mesh()
  xs.set_global_mesh(mesh)
  model = FSDPv2(copy.deepcopy(reference), auto_wrap_policy=policy())
  layers = model.module.layers
  assert all(isinstance(layer, FSDPv2) for layer in layers)
  for name, p in model.named_parameters():
    assert "devices=[" in spec(p) and ",".join(map(str, range(N))) in spec(
        p), name
    dims = [int(d) for d in spec(p).split("[")[1].split("]")[0].split(",")]
    assert sorted(dims) == [1] * (p.dim() - 1) + [N], (name, spec(p))

  optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
  ref_optimizer = torch.optim.AdamW(reference.parameters(), lr=1e-2)
  generator = torch.Generator().manual_seed(1)
  losses, ref_losses, compiles = [], [], []
  for _ in range(4):
    tokens = torch.randint(0, config.vocab_size, (2 * N, 9),
                           generator=generator)
    batch = tokens.to(XLA)
    xs.mark_sharding(batch, mesh, ("fsdp", None))
    optimizer.zero_grad()
    hidden = layers[0](model.module.embedding(batch[:, :-1]))
    # Activations are sharded on the batch dimension.
    assert spec(hidden) == "{devices=[4,1,1]0,1,2,3}"
    loss = next_token_loss(model, batch)
    loss.backward()
    optimizer.step()
    torch_xla.sync()
    compiles.append(met.counter_value("UncachedCompile"))
    losses.append(loss.item())
    ref_optimizer.zero_grad()
    ref_loss = next_token_loss(reference, tokens)
    ref_loss.backward()
    ref_optimizer.step()
    ref_losses.append(ref_loss.item())
  torch.testing.assert_close(losses, ref_losses, rtol=1e-5, atol=1e-5)
  assert compiles[2:] == [compiles[1]] * 2, compiles
  assert not [n for n in met.counter_names() if n.startswith("aten::")]
  for (name, p), q in zip(model.named_parameters(), reference.parameters()):
    torch.testing.assert_close(p.cpu(), q.detach(), rtol=1e-4, atol=1e-5,
                               msg=name)


def test_output_sharded_and_equal_to_unsharded():
  torch.manual_seed(0)
  model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 8))
  expected = model(torch.ones(8, 16))
  mesh = fsdp_mesh()
  wrapped = FSDPv2(model, mesh=mesh)
  x = torch.ones(8, 16).to(XLA)
  xs.mark_sharding(x, mesh, ("fsdp", None))
  out = wrapped(x)
  assert spec(out) == "{devices=[4,1]0,1,2,3}"
  torch.testing.assert_close(out.cpu(), expected, rtol=1e-5, atol=1e-5)
  # Attribute and index access reach the wrapped module.
  assert wrapped[0] is model[0]
  assert wrapped.module is model


def test_custom_shard_output_and_tuple_outputs():
  mesh = fsdp_mesh()

  class Pair(nn.Module):

    def __init__(self):
      super().__init__()
      self.fc = nn.Linear(8, 8)

    def forward(self, x):
      y = self.fc(x)
      return y, y * 2

  calls = []

  def shard_second(output, mesh):
    calls.append(1)
    xs.mark_sharding(output[1], mesh, ("fsdp", None))

  first, second = FSDPv2(Pair(), mesh=mesh, shard_output=shard_second)(
      torch.ones(8, 8).to(XLA))
  assert calls == [1] and spec(second) == "{devices=[4,1]0,1,2,3}"
  with pytest.warns(UserWarning, match="only its first element"):
    first, _ = FSDPv2(Pair(), mesh=mesh)(torch.ones(8, 8).to(XLA))
  assert spec(first) == "{devices=[4,1]0,1,2,3}"


def test_size_based_policy_and_wrapper_callable():
  mesh = fsdp_mesh()
  model = nn.Sequential(nn.Linear(16, 64), nn.Linear(64, 2), nn.Linear(2, 2))
  wrapped = FSDPv2(model, mesh=mesh, auto_wrap_policy=functools.partial(
      size_based_auto_wrap_policy, min_num_params=200))
  kinds = [type(m).__name__ for m in wrapped.module]
  assert kinds == ["SpmdFullyShardedDataParallel",
                   "Linear", "Linear"], kinds
  seen = []

  def callable_(m, **kwargs):
    seen.append((type(m).__name__, sorted(kwargs)))
    return m

  decoder = Decoder(DecoderConfig(dim=32, num_layers=2, num_heads=4,
                                  hidden_dim=64, vocab_size=64))
  FSDPv2(decoder, mesh=mesh, auto_wrap_policy=policy(),
         auto_wrapper_callable=callable_)
  assert seen == [("DecoderLayer", ["mesh", "shard_output"])] * 2
  assert not isinstance(decoder.layers[0], FSDPv2)


def test_checkpoint_module_under_fsdp_matches():
  torch.manual_seed(0)
  config = DecoderConfig(dim=32, num_layers=2, num_heads=4, hidden_dim=64,
                         vocab_size=64, max_seq_len=16)
  reference = Decoder(config)
  mesh = fsdp_mesh()
  model = copy.deepcopy(reference)
  for layer in model.layers:
    checkpoint_module(layer)
  model = FSDPv2(model, mesh=mesh, auto_wrap_policy=policy())
  tokens = torch.randint(0, config.vocab_size, (N, 9))
  batch = tokens.to(XLA)
  xs.mark_sharding(batch, mesh, ("fsdp", None))
  next_token_loss(model, batch).backward()
  next_token_loss(reference, tokens).backward()
  torch_xla.sync()
  for (name, p), q in zip(model.named_parameters(), reference.parameters()):
    torch.testing.assert_close(p.grad.cpu(), q.grad, rtol=1e-4, atol=1e-5,
                               msg=name)


def test_bad_meshes_raise_value_error():
  with pytest.raises(ValueError, match="no global mesh"):
    FSDPv2(nn.Linear(4, 4))
  with pytest.raises(ValueError, match="axis named 'fsdp'"):
    FSDPv2(nn.Linear(4, 4), mesh=xs.Mesh(range(N), (N, 1), ("data", "model")))
  xs.set_global_mesh(xs.Mesh(range(N), (N,)))
  with pytest.raises(ValueError, match="axis named 'fsdp'"):
    FSDPv2(nn.Linear(4, 4))
  with pytest.raises(ValueError, match="ddp axis is not in the mesh"):
    FSDPv2(nn.Linear(4, 4), mesh=fsdp_mesh(), extra_data_axis="ddp")
  with pytest.raises(RuntimeError, match="defines no forward"):
    FSDPv2(nn.ModuleList([nn.Linear(4, 4)]), mesh=fsdp_mesh())
  inner = FSDPv2(nn.Linear(4, 4), mesh=fsdp_mesh())
  with pytest.raises(RuntimeError, match="already wrapped"):
    FSDPv2(inner, mesh=fsdp_mesh())
