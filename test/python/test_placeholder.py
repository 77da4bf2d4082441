"""Placeholder tensors and the LoweringContext API (issue: stage out
computations without touching the device)."""

import os
import re
import sys

import pytest
import torch

import torch_xla
import torch_xla.core.xla_builder as xb
import torch_xla.debug.metrics as met
from torch_xla import _XLAC

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "examples"))
from decoder import DecoderConfig, DecoderLayer, rotary_tables  # noqa: E402

XLA = torch_xla.device()


def transfers():
  data = met.metric_data("TransferToDeviceTime")
  return 0 if data is None else data[0]


def parameter_types(hlo):
  signature = re.search(r"func\.func public @main\((.*?)\) ->", hlo).group(1)
  return re.findall(r"%arg\d+: (tensor<[^>]*>)", signature)


def result_types(hlo):
  return re.search(r"\) -> \((.*?)\) \{", hlo).group(1).split(", ")


def test_create_placeholder_transfers_and_allocates_nothing():
  met.clear_all()
  live = _XLAC._runtime.live_device_bytes()
  p = xb.create_placeholder_tensor((2, 3), torch.bfloat16)
  assert p.shape == (2, 3) and p.dtype == torch.bfloat16
  assert p.device == XLA
  assert _XLAC._is_placecholder(p)
  assert transfers() == 0
  assert _XLAC._runtime.live_device_bytes() == live


def test_low_level_constructor_takes_a_shape():
  p = _XLAC._xla_create_placeholder_tensor("s32[4,5]")
  assert p.shape == (4, 5) and p.dtype == torch.int32
  assert _XLAC._is_placecholder(p)


def test_matmul_chain_lowers_with_two_parameters_and_no_transfer():
  met.clear_all()
  p1 = xb.create_placeholder_tensor((2, 3), torch.bfloat16)
  p2 = xb.create_placeholder_tensor((3, 4), torch.bfloat16)
  result = torch.sin(p1) @ p2 @ p2.T
  ctx = _XLAC.lowering.LoweringContext("MatmulChain")
  ctx.build([result])
  hlo = ctx.hlo_text()
  assert "MatmulChain" in hlo
  assert parameter_types(hlo) == ["tensor<2x3xbf16>", "tensor<3x4xbf16>"]
  assert result_types(hlo) == ["tensor<2x3xbf16>"]
  assert ctx.tensor_parameter_id(p1) == 0
  assert ctx.tensor_parameter_id(p2) == 1
  assert ctx.tensor_parameter_id(result) == -1
  assert transfers() == 0
  assert met.counter_value("IrValueTensorToXlaData") in (None, 0)


def test_placeholder_used_twice_is_one_parameter_two_equal_are_two():
  p = xb.create_placeholder_tensor((4,), torch.float32)
  q = xb.create_placeholder_tensor((4,), torch.float32)
  ctx = _XLAC.lowering.LoweringContext("dedupe")
  ctx.build([p * p + p])
  assert len(parameter_types(ctx.hlo_text())) == 1
  ctx = _XLAC.lowering.LoweringContext("two")
  ctx.build([p + q])
  assert len(parameter_types(ctx.hlo_text())) == 2


def test_handles_are_distinct_per_placeholder():
  p = xb.create_placeholder_tensor((4,), torch.float32)
  q = xb.create_placeholder_tensor((4,), torch.float32)
  a, b = _XLAC._get_tensors_handle([p, q])
  assert a != b
  assert _XLAC._get_tensors_handle([p]) == [a]


@pytest.mark.parametrize("read", [
    lambda p: p.cpu(),
    lambda p: p.item(),
    lambda p: print(p),
    lambda p: p.tolist(),
    lambda p: (p + 1).cpu(),
],
                         ids=["cpu", "item", "print", "tolist", "graph"])
def test_reading_a_placeholder_is_a_clear_error(read):
  p = xb.create_placeholder_tensor((), torch.float32)
  with pytest.raises(RuntimeError, match="is a placeholder and has no data"):
    read(p)


def test_sync_needing_a_placeholder_fails_and_leaves_others_intact():
  real = torch.arange(4.0).to(XLA)
  pending = real * 2
  p = xb.create_placeholder_tensor((4,), torch.float32)
  needs_p = p + 1
  with pytest.raises(RuntimeError, match="placeholder"):
    _XLAC._xla_sync_multi([needs_p, pending])
  assert pending._xt.state == "IR value"  # untouched by the failed sync
  # The step-wide sync runs what it can; the staged-out tensor stays pending.
  torch_xla.sync()
  assert pending._xt.state == "device data"
  assert needs_p._xt.state == "IR value"
  torch.testing.assert_close(pending.cpu(), torch.arange(4.0) * 2)
  with pytest.raises(RuntimeError, match="is a placeholder"):
    needs_p.cpu()


def test_parameter_mappings_on_mixed_graph():
  met.clear_all()
  weight_cpu = torch.randn(3, 3)
  weight = weight_cpu.to(XLA)
  sent = transfers()
  p = xb.create_placeholder_tensor((3,), torch.float32)
  out = weight.sum(0) * p
  ctx = _XLAC.lowering.LoweringContext("mixed")
  ctx.build([out])
  weight_id = ctx.tensor_parameter_id(weight)
  assert weight_id >= 0 and ctx.tensor_parameter_id(p) >= 0

  device_map = ctx.device_parameter_id_tensor_mapping()
  assert transfers() == sent  # no transfer for the device mapping
  assert ctx.tensor_parameter_id(p) not in device_map
  mapped = device_map[weight_id]
  assert mapped.device.type == "xla"
  assert _XLAC._get_tensors_handle([mapped]) == _XLAC._get_tensors_handle(
      [weight])

  host_map = ctx.parameter_id_tensor_mapping()
  assert ctx.tensor_parameter_id(p) not in host_map
  assert host_map[weight_id].device.type == "cpu"
  torch.testing.assert_close(host_map[weight_id], weight_cpu)


def test_decoder_layer_forward_backward_on_placeholders_moves_nothing():
  config = DecoderConfig(dim=64, num_heads=4, hidden_dim=128)
  layer = DecoderLayer(config)
  met.clear_all()
  # Weights as placeholders too: swap every parameter for one.
  for module in layer.modules():
    for name, param in list(module.named_parameters(recurse=False)):
      placeholder = xb.create_placeholder_tensor(param.shape, param.dtype)
      placeholder.requires_grad_(True)
      setattr(module, name, torch.nn.Parameter(placeholder))
  x = xb.create_placeholder_tensor((2, 8, 64), torch.float32)
  x.requires_grad_(True)
  cos, sin = (t.to(XLA) for t in rotary_tables(16, 8, 10000.0))
  sent = transfers()
  mask = torch.ones(8, 8, dtype=torch.bool, device=XLA).triu(1)
  out = layer(x, cos, sin, mask)
  grads = torch.autograd.grad(out.sum(), [x] + list(layer.parameters()))
  ctx = _XLAC.lowering.LoweringContext("decoder_layer")
  ctx.build([out] + list(grads))
  assert "decoder_layer" in ctx.hlo_text()
  assert transfers() == sent
  assert (met.metric_data("OutboundData") or (0, 0, []))[1] == sum(
      t.numel() * 4 for t in (cos, sin))  # only the two tables, moved above
