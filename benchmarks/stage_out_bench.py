"""Staging out one decoder layer's forward + backward (hidden size 4096,
Llama-7B shapes) on placeholder tensors: trace + lower, no execution.

The weights are placeholders too, so nothing is ever allocated for them.
Prints one JSON line: bytes transferred (must be 0), peak process memory
growth next to the size of the weights, parameter count of the lowered
module, and the time taken.
"""

import json
import os
import resource
import sys
import time

import torch

import torch_xla
import torch_xla.core.xla_builder as xb
import torch_xla.debug.metrics as met
from torch_xla import _XLAC

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))
from decoder import DecoderConfig, DecoderLayer  # noqa: E402


def peak_rss_bytes():
  return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def main():
  config = DecoderConfig(dim=4096, num_heads=32, hidden_dim=11008)
  batch, seq = 1, 128
  with torch.device("meta"):
    layer = DecoderLayer(config)  # shapes only, no memory
  met.clear_all()
  rss_before = peak_rss_bytes()
  start = time.perf_counter()

  weight_bytes = 0
  for module in layer.modules():
    for name, param in list(module.named_parameters(recurse=False)):
      placeholder = xb.create_placeholder_tensor(param.shape, param.dtype)
      placeholder.requires_grad_(True)
      setattr(module, name, torch.nn.Parameter(placeholder))
      weight_bytes += param.numel() * param.element_size()
  head_dim = config.dim // config.num_heads
  x = xb.create_placeholder_tensor((batch, seq, config.dim), torch.float32)
  x.requires_grad_(True)
  cos = xb.create_placeholder_tensor((seq, head_dim), torch.float32)
  sin = xb.create_placeholder_tensor((seq, head_dim), torch.float32)
  mask = torch.ones(seq, seq, dtype=torch.bool, device="xla").triu(1)

  out = layer(x, cos, sin, mask)
  grads = torch.autograd.grad(out.sum(), [x] + list(layer.parameters()))
  traced = time.perf_counter()
  ctx = _XLAC.lowering.LoweringContext("decoder_layer_fwd_bwd")
  ctx.build([out] + list(grads))
  hlo = ctx.hlo_text()
  lowered = time.perf_counter()

  sent = met.metric_data("OutboundData")
  transfers = met.metric_data("TransferToDeviceTime")
  print(json.dumps({
      "benchmark": "stage_out_decoder_layer",
      "hidden": config.dim,
      "weight_bytes": weight_bytes,
      "bytes_transferred": int(sent[1]) if sent else 0,
      "transfer_count": transfers[0] if transfers else 0,
      "peak_rss_growth_bytes": peak_rss_bytes() - rss_before,
      "rss_growth_over_weights": round(
          (peak_rss_bytes() - rss_before) / weight_bytes, 4),
      "module_parameters": hlo.split("->")[0].count("%arg"),
      "hlo_chars": len(hlo),
      "trace_seconds": round(traced - start, 3),
      "lower_seconds": round(lowered - traced, 3),
  }))


if __name__ == "__main__":
  main()
