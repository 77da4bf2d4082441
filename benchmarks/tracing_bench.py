"""Tracing overhead and sync of large graphs (issue: PyTorch front end).

Prints one JSON line with, measured in the same run:
  chain_us_per_op:   'xla' tracing of `x = x * 1.0001 + 0.1` on a 1024-element
                     f32 tensor, 10,000 ATen ops, before sync
  eager_us_per_op:   the same chain in eager CPU PyTorch
  layer_us_per_op:   one decoder-layer forward+backward traced on 'xla' (tiny
                     shapes), per ATen op reaching __torch_dispatch__
  layer_eager_us_per_op: the same layer in eager CPU, per op
  ratios and the 3x bar,
  sync_10k_s / compile_10k_s: first sync of the 10,000-op graph and the
                     compile time inside it
  second_trace_sync_s / second_compile_hits: an identical trace + sync again
"""

import json
import os
import sys
import time

import torch
from torch.utils._python_dispatch import TorchDispatchMode

import torch_xla
import torch_xla.debug.metrics as met

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))
from decoder import DecoderConfig, DecoderLayer, rotary_tables  # noqa: E402

OPS = 10_000


def chain(x):
  for _ in range(OPS // 2):
    x = x * 1.0001 + 0.1
  return x


def per_op_us(fn, ops, repeats=3):
  best = float("inf")
  for _ in range(repeats):
    start = time.perf_counter()
    fn()
    best = min(best, time.perf_counter() - start)
  return best / ops * 1e6


def paired_per_op_us(fn_a, fn_b, ops, repeats):
  """Best-of per-op times of two functions measured alternately, so that a
  load change on the machine affects both."""
  best_a = best_b = float("inf")
  for _ in range(repeats):
    start = time.perf_counter()
    fn_a()
    best_a = min(best_a, time.perf_counter() - start)
    start = time.perf_counter()
    fn_b()
    best_b = min(best_b, time.perf_counter() - start)
  return best_a / ops * 1e6, best_b / ops * 1e6


class CountOps(TorchDispatchMode):

  def __init__(self):
    super().__init__()
    self.count = 0

  def __torch_dispatch__(self, func, types, args=(), kwargs=None):
    self.count += 1
    return func(*args, **(kwargs or {}))


def layer_step(layer, x, cos, sin, mask):
  out = layer(x, cos, sin, mask)
  out.sum().backward()


def main():
  # Tiny tensors: intra-op threads only add wake-up latency to eager.
  torch.set_num_threads(1)
  device = torch_xla.device()
  x_cpu = torch.randn(1024)
  x_xla = x_cpu.to(device)
  chain(x_xla)  # warm up the rule paths
  torch_xla.sync()
  eager, traced = paired_per_op_us(lambda: chain(x_cpu),
                                   lambda: chain(x_xla), OPS, repeats=5)

  # A decoder layer on tiny shapes: the cost per op is all overhead.
  config = DecoderConfig(dim=32, num_heads=4, hidden_dim=64)
  torch.manual_seed(0)
  layer_cpu = DecoderLayer(config)
  layer_xla = DecoderLayer(config).to(device)
  cos, sin = rotary_tables(8, 8, 10000.0)
  mask = torch.ones(8, 8, dtype=torch.bool).triu(1)
  inputs_cpu = (torch.randn(2, 8, 32), cos, sin, mask)
  inputs_xla = tuple(t.to(device) for t in inputs_cpu)
  counter = CountOps()
  with counter:
    layer_step(layer_cpu, *inputs_cpu)
  ops = counter.count
  layer_step(layer_xla, *inputs_xla)
  torch_xla.sync()
  layer_eager, layer_traced = paired_per_op_us(
      lambda: layer_step(layer_cpu, *inputs_cpu),
      lambda: layer_step(layer_xla, *inputs_xla), ops, repeats=50)
  torch_xla.sync()

  # Sync of the 10,000-op graph, then the same again (cache hit).
  torch_xla._XLAC._clear_compile_cache()
  met.clear_all()
  y = chain(x_xla)
  start = time.perf_counter()
  torch_xla.sync()
  sync_s = time.perf_counter() - start
  compile_s = met.metric_data("CompileTime")[1] / 1e9
  start = time.perf_counter()
  y = chain(x_xla)
  torch_xla.sync()
  second_s = time.perf_counter() - start

  print(json.dumps({
      "benchmark": "tracing",
      "chain_us_per_op": round(traced, 2),
      "eager_us_per_op": round(eager, 2),
      "chain_ratio": round(traced / eager, 2),
      "layer_ops": ops,
      "layer_us_per_op": round(layer_traced, 2),
      "layer_eager_us_per_op": round(layer_eager, 2),
      "layer_ratio": round(layer_traced / layer_eager, 2),
      "bar_ratio": 3.0,
      "sync_10k_s": round(sync_s, 3),
      "compile_10k_s": round(compile_s, 3),
      "second_trace_sync_s": round(second_s, 3),
      "second_compile_hits": met.counter_value("CachedCompile") or 0,
      "uncached_compiles": met.counter_value("UncachedCompile") or 0,
  }))


if __name__ == "__main__":
  main()
