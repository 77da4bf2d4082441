"""Trace-once figures for B1 (the reference decoder, fwd + bwd + SGD): host
time per steady step, steady step and first step of our modes (loop,
scan_layers, assume_pure on every layer, torch.compile of the model, and
torch.compile of the whole training step: b1_compiled_step.py) against
JAX's jitted step (loop and lax.scan), from the anchors in
../shared/anchors.

Each mode runs in its own process; the modes alternate within each round
(ours and JAX's side by side), and the figures are medians over rounds, so
that a shared, noisy host loads every mode alike. Prints one JSON line.

  python benchmarks/trace_once_bench.py --rounds 3 \
      --jax-python /work/anchors/jax/bin/python
"""

import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from anchors import run_anchor  # noqa: E402

OURS = ("loop", "scan", "assume_pure", "compile", "compile_step")
HERE = os.path.dirname(os.path.abspath(__file__))
JAX = ("loop", "scan")


def ours_figures(r):
  steady = r["steady"]
  return {
      "host_s": steady["median_host_s"],
      # The host thread's CPU time, where the run reports it
      # (b1_compiled_step.py): a loaded machine inflates the wall clock.
      "host_cpu_s": steady.get("median_host_cpu_s"),
      "trace_s": steady["median_trace_s"],
      "step_s": steady["median_wall_s"],
      "first_step_s": r["first_step"]["wall_s"],
      "loss_last": r["loss_last"],
  }


def jax_figures(r):
  return {
      "host_s": r["steady"]["median_dispatch_s"],
      "step_s": r["steady"]["median_wall_s"],
      "first_step_s": r["first_step_e2e_s"],
      "compile_s": r.get("compile_s"),
  }


def main():
  p = argparse.ArgumentParser()
  p.add_argument("--anchors", default=os.path.join(
      os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared",
      "anchors"))
  p.add_argument("--jax-python", default="/work/anchors/jax/bin/python")
  p.add_argument("--rounds", type=int, default=3)
  p.add_argument("--steps", type=int, default=8)
  p.add_argument("--modes", default=",".join(OURS))
  args = p.parse_args()
  modes = args.modes.split(",")
  runs = {("ours", m): [] for m in modes}
  runs.update({("jax", m): [] for m in JAX})
  for _ in range(args.rounds):
    for m in modes:
      if m == "compile_step":  # ours: the anchor compiles the forward only
        r = run_anchor(sys.executable, args.anchors,
                       os.path.join(HERE, "b1_compiled_step.py"), "--anchors",
                       os.path.abspath(args.anchors), "--steps",
                       str(args.steps))
      else:
        r = run_anchor(sys.executable, args.anchors, "b1_scan_txla.py",
                       "--mode", m, "--steps", str(args.steps))
      runs[("ours", m)].append(ours_figures(r))
    for m in JAX:
      r = run_anchor(args.jax_python, args.anchors, "b1_scan_jax.py",
                     "--mode", m, "--steps", str(args.steps))
      runs[("jax", m)].append(jax_figures(r))

  def median(side, mode, key):
    values = [r[key] for r in runs[(side, mode)] if r.get(key) is not None]
    return round(statistics.median(values), 5) if values else None

  out = {"bench": "trace_once", "rounds": args.rounds, "modes": {}}
  for (side, m), rs in runs.items():
    out["modes"][f"{side}_{m}"] = {
        k: median(side, m, k) for k in rs[0] if k != "loss_last"
    }
  jax_host = median("jax", "loop", "host_s")
  jax_step = median("jax", "loop", "step_s")
  jax_first = {m: median("jax", m, "first_step_s") for m in JAX}
  ratios = {}
  for m in modes:
    ref = "scan" if m == "scan" else "loop"
    ratios[m] = {
        "host_vs_jax_dispatch": round(
            median("ours", m, "host_s") / median("jax", ref, "host_s"), 1),
        "step_vs_jax": round(
            median("ours", m, "step_s") / median("jax", ref, "step_s"), 2),
        "first_step_vs_jax": round(
            median("ours", m, "first_step_s") / jax_first[ref], 2),
    }
  out["ratios"] = ratios
  out["jax_loop"] = {"host_s": jax_host, "step_s": jax_step}
  print(json.dumps(out), flush=True)


if __name__ == "__main__":
  main()
