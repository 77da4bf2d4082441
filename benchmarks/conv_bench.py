"""Native convolution, pooling and sort on 'xla' vs eager CPU.

1. A small ResNet-style block (conv 3x3, batch norm, ReLU, max pool 3x3/2)
   forward and backward: steady step time on 'xla' (after the compile) and
   in eager CPU, and the peak live device bytes of an 'xla' step.
2. Sorting 2^20 floats (values and indices): steady time per sort on 'xla'
   and eager CPU, and the peak live device bytes of one sort (its input and
   two results, 4x the input; the IR sort needs no n x n buffer).

Prints one JSON line. Runs in well under two minutes on 2 CPU cores.
"""

import json
import time

import torch

import torch_xla
from torch_xla import _XLAC

BATCH, CHANNELS, SIZE = 8, 32, 32
WARMUP, STEPS = 2, 8
SORT_N = 1 << 20


class Block(torch.nn.Module):

  def __init__(self):
    super().__init__()
    self.conv = torch.nn.Conv2d(CHANNELS, CHANNELS, 3, padding=1, bias=False)
    self.bn = torch.nn.BatchNorm2d(CHANNELS)
    self.pool = torch.nn.MaxPool2d(3, 2, 1)

  def forward(self, x):
    return self.pool(torch.relu(self.bn(self.conv(x))))


def _block_step(block, x, sync):
  block.zero_grad(set_to_none=True)
  block(x).square().mean().backward()
  sync()


def _time(fn, warmup, steps):
  for _ in range(warmup):
    fn()
  start = time.perf_counter()
  for _ in range(steps):
    fn()
  return (time.perf_counter() - start) / steps


def main():
  device = torch_xla.device()
  torch.manual_seed(0)
  cpu_block = Block()
  xla_block = Block().to(device)
  xla_block.load_state_dict(cpu_block.state_dict())
  x_cpu = torch.randn(BATCH, CHANNELS, SIZE, SIZE)
  x_xla = x_cpu.to(device)

  def xla_step():
    _block_step(xla_block, x_xla, torch_xla.sync)
    xla_block.conv.weight.grad.cpu()  # wait for the step

  eager_s = _time(lambda: _block_step(cpu_block, x_cpu, lambda: None), WARMUP,
                  STEPS)
  xla_step()  # compile
  _XLAC._runtime.reset_peak_live_device_bytes()
  xla_s = _time(xla_step, WARMUP, STEPS)
  block_peak = _XLAC._runtime.peak_live_device_bytes()
  grad_err = float((xla_block.conv.weight.grad.cpu() -
                    cpu_block.conv.weight.grad).abs().max())

  values = torch.randn(SORT_N)
  v_xla = values.to(device)
  torch_xla.sync()

  def xla_sort():
    out, idx = v_xla.sort()
    torch_xla.sync()
    out[:1].cpu()
    return out, idx

  xla_sort()  # compile
  sort_xla_s = _time(xla_sort, 1, 3)
  # One sort with nothing else alive but its input: input, values, indices.
  _XLAC._runtime.reset_peak_live_device_bytes()
  out, idx = xla_sort()
  sort_peak = _XLAC._runtime.peak_live_device_bytes()
  sort_eager_s = _time(lambda: values.sort(), 1, 3)
  expected = values.sort(stable=True)
  sort_ok = bool(torch.equal(out.cpu(), expected.values) and
                 torch.equal(idx.cpu(), expected.indices))

  print(json.dumps({
      "benchmark": "conv_bench",
      "block": f"conv3x3+bn+relu+maxpool, x=[{BATCH},{CHANNELS},{SIZE},"
               f"{SIZE}], fwd+bwd",
      "block_xla_step_ms": round(xla_s * 1e3, 2),
      "block_eager_step_ms": round(eager_s * 1e3, 2),
      "block_xla_over_eager": round(xla_s / eager_s, 2),
      "block_peak_live_device_bytes": block_peak,
      "block_input_bytes": x_cpu.numel() * 4,
      "block_weight_grad_max_abs_err": grad_err,
      "sort_n": SORT_N,
      "sort_xla_ms": round(sort_xla_s * 1e3, 2),
      "sort_eager_ms": round(sort_eager_s * 1e3, 2),
      "sort_peak_live_device_bytes": sort_peak,
      # input f32 + values f32 + indices s64 = 4x the input.
      "sort_peak_over_input": round(sort_peak / (SORT_N * 4), 2),
      "sort_matches_eager_stable": sort_ok,
  }))


if __name__ == "__main__":
  main()
