"""What one op costs on the way to a tensor subclass, before any work.

Every op on an 'xla' tensor goes through `__torch_dispatch__`. This
measures, per op and in the same run:
  eager_us:  the op on CPU tensors (PyTorch's own dispatch and kernel);
  xla_us:    the op on 'xla' tensors (the dispatch, our C++ fast rule, the
             IR node and the wrapped result);
  floor_us:  the op on a wrapper subclass whose `__torch_dispatch__` only
             makes an output of the right shape: what any Python subclass
             pays, whatever its rules do.
Each figure is the best of 3 timings of `--calls` calls.

The floor times the ops a B1 step dispatches (1,910 per steady step of
the anchors' loop) is the least host time a step can have with this
front end: docs/execution_pipeline.md, "Where issue 29's bars stand".

Prints one JSON line.

  PJRT_DEVICE=CPU .venv/bin/python benchmarks/dispatch_floor_bench.py
"""

import argparse
import json
import time

import torch

import torch_xla


class OutputOnly(torch.Tensor):
  """A wrapper subclass that answers every op with a new empty wrapper of
  the first argument's shape (no IR, no data): the ops measured keep it."""

  @staticmethod
  def __new__(cls, shape):
    return torch.Tensor._make_wrapper_subclass(cls, shape,
                                               dtype=torch.float32)

  @classmethod
  def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
    return OutputOnly(args[0].shape)


def best_us(fn, calls, repeats=3):
  for _ in range(min(calls, 200)):
    fn()
  best = float("inf")
  for _ in range(repeats):
    start = time.perf_counter()
    for _ in range(calls):
      fn()
    best = min(best, time.perf_counter() - start)
  return round(best / calls * 1e6, 2)


def main():
  p = argparse.ArgumentParser()
  p.add_argument("--calls", type=int, default=20000)
  args = p.parse_args()

  x, y = torch.randn(64, 64), torch.randn(64, 64)
  dev = torch_xla.device()
  xx, yy = x.to(dev), y.to(dev)
  fx, fy = OutputOnly((64, 64)), OutputOnly((64, 64))
  ops = {
      "t": lambda a, b: a.t(),
      "mul": lambda a, b: a * b,
      "add_": lambda a, b: a.add_(b),
      "detach": lambda a, b: a.detach(),
      "mm": lambda a, b: a.mm(b),
  }
  result = {"bench": "dispatch_floor", "calls": args.calls, "ops": {}}
  for name, op in ops.items():
    result["ops"][name] = {
        "eager_us": best_us(lambda: op(x, y), args.calls),
        "xla_us": best_us(lambda: op(xx, yy), args.calls),
        "floor_us": best_us(lambda: op(fx, fy), args.calls),
    }
  # The 'xla' results are never synced: the graph they leave is dropped.
  print(json.dumps(result), flush=True)


if __name__ == "__main__":
  main()
