"""IR building through the bindings, and lowering + hashing a large graph.

Prints one JSON line:
  ns_per_node: nanoseconds per IR node created from Python (_XLAC._op)
  lower_hash_10k_ms: time to lower (StableHLO text) and hash a 10,000-node graph
  hash_10k_ms: time to walk and hash it alone (what a cache hit costs)
"""

import json
import time

import torch

import torch_xla  # noqa: F401
from torch_xla import _XLAC, _ir

N = 10_000


def main():
  x = torch.randn(1024)
  base = _XLAC._tensor_from_host(x.data_ptr(), [1024], _ir.F32, 0)
  scale = _XLAC._tensor_scalar(1.0001, _ir.F32, 0)
  scale = _ir.broadcast_in_dim(scale, [1024], [])
  add, mul = _ir.K["add"], _ir.K["multiply"]
  op = _XLAC._op

  best = float("inf")
  for _ in range(3):
    value = base
    start = time.perf_counter_ns()
    for i in range(N // 2):
      value = op(mul, [value, scale])
      value = op(add, [value, base])
    best = min(best, (time.perf_counter_ns() - start) / N)

  start = time.perf_counter()
  text = _XLAC._get_stablehlo([value]).decode()
  lower_ms = (time.perf_counter() - start) * 1e3
  start = time.perf_counter()
  _XLAC._get_graph_hash([value])
  hash_ms = (time.perf_counter() - start) * 1e3
  print(json.dumps({
      "benchmark": "ir_build",
      "ns_per_node": round(best, 1),
      "nodes": N,
      "lower_hash_10k_ms": round(lower_ms, 2),
      "hash_10k_ms": round(hash_ms, 2),
      "hlo_bytes": len(text),
  }))


if __name__ == "__main__":
  main()
