"""Where B1's first compile goes, ours against JAX's, in one run.

For each mode (the decoder loop, and scan_layers against lax.scan) it runs:
  * our first step (../shared/anchors/b1_scan_txla.py, the module it compiles
    dumped by TORCH_XLA_DUMP_HLO_DIR) and JAX's (b1_scan_jax.py, its module
    text captured at `Lowered.compile`);
  * each of the two modules compiled by each of the two compilers: our
    runtime (the PJRT CPU plugin, through `_XLAC._run_stablehlo`) and JAX's
    XLA (`compile_and_load`). The 2 x 2 table splits a gap into the module
    (same compiler, other text) and the compiler (same text, other
    compiler);
  * XLA's HLO passes for each module under our runtime (their summed time,
    from XLA's pass log) against the whole compile: the rest is the
    plugin's parse and LLVM's code generation of the kernels, whose count
    comes from XLA's dump (`--xla_dump_to`, one object file per kernel).

Compile figures are wall seconds and CPU seconds (every thread of the
process: XLA generates kernels on a thread pool). Ours run
`_run_stablehlo`, which compiles and then runs: its CPU time is the first
call's minus a second, cached call's. On a shared host CPU seconds drift
less than wall seconds. Prints one JSON line.

  python benchmarks/first_compile_bench.py --rounds 2 \
      --jax-python /work/anchors/jax/bin/python --anchors ../shared/anchors
"""

import argparse
import glob
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = ("loop", "scan")
B1 = dict(hidden=512, layers=8, heads=8, ffn=1376, seq=128, batch=4,
          vocab=1024)


def cpu_s():
  usage = resource.getrusage(resource.RUSAGE_SELF)
  return usage.ru_utime + usage.ru_stime


def main_signature(text):
  """The (shape, element type) of each argument of the module's main."""
  found = re.search(r"func\.func (?:public )?@main\((.*?)\)\s*->", text,
                    re.S)
  shapes = []
  for spec in re.findall(r"%[\w.]+: tensor<([^>]*)>", found.group(1)):
    *dims, element = spec.split("x")
    shapes.append(([int(d) for d in dims], element))
  return shapes


def role_ours_compile(path):
  """Compiles (and runs on zeros) a module with our runtime."""
  import torch
  import torch_xla
  import torch_xla.debug.metrics as met
  from torch_xla import _XLAC

  dtypes = {"f32": torch.float32, "bf16": torch.bfloat16, "i32": torch.int32,
            "i64": torch.int64, "i1": torch.bool, "ui8": torch.uint8,
            "ui32": torch.int32}
  text = open(path).read()
  device = torch_xla.device()
  inputs = [torch.zeros(s, dtype=dtypes[e]).to(device)
            for s, e in main_signature(text)]
  torch_xla.sync()

  def run():
    c0, t0 = cpu_s(), time.perf_counter()
    out = _XLAC._run_stablehlo(text, inputs, 0)
    out[0].cpu()  # waits for the run
    return time.perf_counter() - t0, cpu_s() - c0

  met.clear_all()
  wall, cpu = run()
  compile_s = met.metric_data("CompileTime")[1] / 1e9
  _, cached_cpu = run()  # the same run without its compile
  return {"compile_s": round(compile_s, 3),
          "compile_cpu_s": round(cpu - cached_cpu, 3),
          "first_call_s": round(wall, 3)}


def role_jax_compile(path):
  import jax
  from jax.extend import backend

  text = open(path).read()
  cpu_backend = backend.get_backend("cpu")
  c0, t0 = cpu_s(), time.perf_counter()
  cpu_backend.compile_and_load(text, [jax.devices("cpu")[0]])
  return {"compile_s": round(time.perf_counter() - t0, 3),
          "compile_cpu_s": round(cpu_s() - c0, 3)}


def role_jax_first_step(mode, anchors, path):
  """JAX's first step (b1_scan_jax.py), writing the module it compiles."""
  import jax.stages

  compile = jax.stages.Lowered.compile

  def capture(self, *args, **kwargs):
    with open(path, "w") as f:
      f.write(self.as_text())
    return compile(self, *args, **kwargs)

  jax.stages.Lowered.compile = capture
  sys.path.insert(0, anchors)
  import b1_scan_jax

  r = b1_scan_jax.run_one(types.SimpleNamespace(mode=mode, steps=1, **B1))
  return {"first_step_s": r["first_step_e2e_s"],
          "trace_lower_s": r["trace_lower_s"], "compile_s": r["compile_s"]}


def role_ours_first_step(mode, anchors, dump_dir):
  os.environ["TORCH_XLA_DUMP_HLO_DIR"] = dump_dir
  sys.path.insert(0, anchors)
  import b1_scan_txla

  args = types.SimpleNamespace(mode=mode, steps=1, zero_grad_none=1, **B1)
  first = b1_scan_txla.run_one(args)["first_step"]
  return {"first_step_s": first["wall_s"], "trace_s": first["trace_s"],
          "compile_s": round(
              first["metrics"]["CompileTime"]["total_ms"] / 1e3, 3)}


def role_passes(path):
  """XLA's pass time and kernel count for a module under our runtime: runs
  role_ours_compile in a child with XLA's pass log and dump on."""
  with tempfile.TemporaryDirectory() as dump:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="0",
               TF_CPP_VMODULE="hlo_pass_pipeline=1",
               XLA_FLAGS=(os.environ.get("XLA_FLAGS", "") +
                          f" --xla_dump_to={dump}").strip())
    out = subprocess.run(
        [sys.executable, __file__, "--role", "ours_compile", path],
        capture_output=True, text=True, env=env, check=True)
    passes_us = sum(int(m) for m in re.findall(
        r"HLO pass: \S+ time: .*?\((\d+) us\)", out.stderr))
    kernels = len(glob.glob(os.path.join(dump, "*obj-file*")))
  compiled = json.loads(out.stdout.strip().splitlines()[-1])
  return {"hlo_passes_s": round(passes_us / 1e6, 3), "kernels": kernels,
          "compile_s": compiled["compile_s"]}


def child(python, *args):
  env = dict(os.environ, JAX_PLATFORMS="cpu", PJRT_DEVICE="CPU")
  out = subprocess.run([python, __file__, "--role", *args],
                       capture_output=True, text=True, env=env)
  if out.returncode != 0:
    raise RuntimeError(f"{' '.join(args)} failed:\n{out.stderr[-3000:]}")
  return json.loads(out.stdout.strip().splitlines()[-1])


def median_dicts(dicts):
  return {k: round(statistics.median(d[k] for d in dicts), 3)
          for k in dicts[0]}


def main():
  p = argparse.ArgumentParser()
  p.add_argument("--anchors", default=os.path.join(HERE, "..", "..",
                                                   "shared", "anchors"))
  p.add_argument("--jax-python", default="/work/anchors/jax/bin/python")
  p.add_argument("--rounds", type=int, default=1)
  p.add_argument("--modes", default=",".join(MODES))
  p.add_argument("--role", nargs="+", help=argparse.SUPPRESS)
  args = p.parse_args()
  if args.role:
    role, *rest = args.role
    print(json.dumps(globals()[f"role_{role}"](*rest)), flush=True)
    return

  anchors = os.path.abspath(args.anchors)
  ours, jax = sys.executable, args.jax_python
  out = {"bench": "first_compile", "rounds": args.rounds, "modes": {}}
  with tempfile.TemporaryDirectory() as work:
    for mode in args.modes.split(","):
      runs = {k: [] for k in ("ours_first", "jax_first", "ours_rt_ours_text",
                              "ours_rt_jax_text", "jax_xla_ours_text",
                              "jax_xla_jax_text")}
      for r in range(args.rounds):
        dump = os.path.join(work, f"{mode}_{r}")
        os.makedirs(dump)
        jax_text = os.path.join(work, f"jax_{mode}_{r}.mlir")
        runs["ours_first"].append(
            child(ours, "ours_first_step", mode, anchors, dump))
        runs["jax_first"].append(
            child(jax, "jax_first_step", mode, anchors, jax_text))
        (our_text,) = glob.glob(os.path.join(dump, "*.mlir"))
        for rt, python in (("ours_rt", ours), ("jax_xla", jax)):
          compile_role = "ours_compile" if rt == "ours_rt" else "jax_compile"
          for name, text in (("ours_text", our_text), ("jax_text", jax_text)):
            runs[f"{rt}_{name}"].append(child(python, compile_role, text))
      figures = {k: median_dicts(v) for k, v in runs.items()}
      figures["passes_ours_text"] = child(ours, "passes", our_text)
      figures["passes_jax_text"] = child(ours, "passes", jax_text)
      figures["text_chars"] = {"ours": len(open(our_text).read()),
                               "jax": len(open(jax_text).read())}
      ours_rt, jax_rt = figures["ours_rt_ours_text"], figures["ours_rt_jax_text"]
      figures["ratios"] = {
          "first_step_vs_jax": round(figures["ours_first"]["first_step_s"] /
                                     figures["jax_first"]["first_step_s"], 2),
          # Same compiler, other module: what our module costs.
          "module_ours_vs_jax_cpu": round(
              ours_rt["compile_cpu_s"] / jax_rt["compile_cpu_s"], 2),
          # Same module, other compiler: what our plugin costs.
          "compiler_ours_vs_jax_cpu": round(
              jax_rt["compile_cpu_s"] /
              figures["jax_xla_jax_text"]["compile_cpu_s"], 2),
      }
      out["modes"][mode] = figures
  print(json.dumps(out), flush=True)


if __name__ == "__main__":
  main()
