"""scan_layers vs a Python loop over the layers of the reference decoder
(hidden 512, 8 heads, ffn 1376, seq 128, batch 4, vocab 1024; RMSNorm,
causal softmax attention, SiLU-gated MLP, rotary embeddings), one training
step = forward + backward + SGD.

Prints one JSON line: per mode, the first step split into trace / compile /
execute, the median steady step, Python trace ms per steady step, bytes
sent to the device while tracing (staging out must send none), and the
compile seconds of the first step for 8, 16 and 32 layers. Every
measurement runs in a fresh process; modes alternate.

  .venv/bin/python benchmarks/scan_bench.py [--steps 10] [--layers 8,16,32]
      [--jax PYTHON --anchors DIR]   # also b1_scan_jax.py, same run
      [--plot docs/scan_compile.svg]

With --jax, the JAX reference (`b1_scan_jax.py --mode loop|scan`) runs
between ours and the ratios are reported.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from anchors import run_anchor, steady_step_s

HERE = os.path.dirname(os.path.abspath(__file__))


def worker(mode, layers, steps):
  import torch
  import torch_xla
  import torch_xla.core.xla_model as xm
  import torch_xla.debug.metrics as met
  sys.path.insert(0, os.path.join(HERE, "..", "examples"))
  from decoder import Decoder, DecoderConfig

  def total(name):
    data = met.metric_data(name)
    return 0 if data is None else data[1]

  device = torch_xla.device()
  torch.manual_seed(0)
  config = DecoderConfig(vocab_size=1024, dim=512, num_layers=layers,
                         num_heads=8, hidden_dim=1376, max_seq_len=128)
  model = Decoder(config, scan=(mode == "scan")).to(device)
  optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
  tokens = torch.randint(0, 1024, (4, 128)).to(device)
  labels = torch.randint(0, 1024, (4, 128)).to(device)
  loss_fn = torch.nn.CrossEntropyLoss()
  torch_xla.sync()
  xm.wait_device_ops()

  def step():
    sent = total("OutboundData")
    start = time.perf_counter()
    optimizer.zero_grad()
    loss = loss_fn(model(tokens).view(-1, 1024), labels.view(-1))
    loss.backward()
    optimizer.step()
    traced = time.perf_counter()
    staged_bytes = total("OutboundData") - sent
    compile_ns = total("CompileTime")
    torch_xla.sync()
    xm.wait_device_ops()
    done = time.perf_counter()
    compile_s = (total("CompileTime") - compile_ns) / 1e9
    return loss, traced - start, done - traced, compile_s, staged_bytes

  met.clear_all()
  loss, trace_s, sync_s, compile_s, staged = step()
  result = {
      "first_step": {
          "trace_s": round(trace_s, 4),
          "compile_s": round(compile_s, 4),
          "execute_s": round(sync_s - compile_s, 4),
      },
      "staged_bytes": staged,
      "loss_first": loss.item(),
  }
  walls, traces = [], []
  for _ in range(steps):
    loss, trace_s, sync_s, _, staged = step()
    walls.append(trace_s + sync_s)
    traces.append(trace_s)
    result["staged_bytes"] += staged
  if steps:
    result.update({
        "steady_step_s": round(statistics.median(walls), 4),
        "trace_ms_per_step": round(statistics.median(traces) * 1e3, 2),
        "loss_last": loss.item(),
        "compiles_after_first": met.counter_value("UncachedCompile") - 1,
    })
  return result


def run(args):
  command = [sys.executable, os.path.abspath(__file__)] + args
  out = subprocess.run(command, check=True, capture_output=True, text=True)
  return json.loads(out.stdout.strip().splitlines()[-1])


def write_plot(path, by_mode):
  """An SVG line chart of compile seconds vs layers, one line per mode."""
  width, height, pad = 480, 300, 50
  layers = sorted({n for series in by_mode.values() for n in series})
  top = max(v for series in by_mode.values() for v in series.values()) * 1.1
  x = lambda n: pad + (width - 2 * pad) * (n - layers[0]) / max(
      1, layers[-1] - layers[0])
  y = lambda v: height - pad - (height - 2 * pad) * v / top
  parts = [
      f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
      f'height="{height}" font-family="sans-serif" font-size="12">',
      f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" '
      f'y2="{height - pad}" stroke="black"/>',
      f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}" '
      f'stroke="black"/>',
      f'<text x="{width / 2}" y="{height - 12}" text-anchor="middle">'
      f'layers</text>',
      f'<text x="14" y="{height / 2}" transform="rotate(-90 14 '
      f'{height / 2})" text-anchor="middle">compile seconds</text>',
  ]
  for n in layers:
    parts.append(f'<text x="{x(n)}" y="{height - pad + 16}" '
                 f'text-anchor="middle">{n}</text>')
  for tick in range(0, int(top) + 1, max(1, int(top) // 5)):
    parts.append(f'<text x="{pad - 6}" y="{y(tick) + 4}" '
                 f'text-anchor="end">{tick}</text>')
  for (mode, series), color in zip(sorted(by_mode.items()),
                                   ("#d62728", "#1f77b4")):
    points = " ".join(f"{x(n)},{y(series[n])}" for n in sorted(series))
    parts.append(f'<polyline points="{points}" fill="none" stroke="{color}" '
                 f'stroke-width="2"/>')
    last = max(series)
    parts.append(f'<text x="{x(last) - 4}" y="{y(series[last]) - 8}" '
                 f'fill="{color}" text-anchor="end">{mode}</text>')
  parts.append("</svg>")
  with open(path, "w") as f:
    f.write("\n".join(parts) + "\n")


def main():
  parser = argparse.ArgumentParser(description=__doc__)
  parser.add_argument("--plot", help="also write compile time vs layers as "
                      "an SVG here (docs/scan_compile.svg)")
  parser.add_argument("--steps", type=int, default=10)
  parser.add_argument("--layers", default="8,16,32")
  parser.add_argument("--jax", help="python of the JAX reference env")
  parser.add_argument("--anchors", help="folder of b1_scan_jax.py")
  parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.worker:
    mode, layers, steps = args.worker
    print(json.dumps(worker(mode, int(layers), int(steps))))
    return

  modes = ("loop", "scan")
  result = {"bench": "scan_bench", "modes": {m: {} for m in modes}}
  for mode in modes:
    result["modes"][mode] = run(["--worker", mode, "8", str(args.steps)])
    if args.jax:
      result.setdefault("jax", {})[mode] = run_anchor(
          args.jax, args.anchors, "b1_scan_jax.py", "--mode", mode, "--steps",
          str(args.steps))
  for layers in (int(n) for n in args.layers.split(",")):
    for mode in modes:
      first = run(["--worker", mode, str(layers), "0"])["first_step"]
      result["modes"][mode].setdefault("compile_s_by_layers",
                                       {})[layers] = first["compile_s"]
  loop, scan = result["modes"]["loop"], result["modes"]["scan"]
  by_layers = scan["compile_s_by_layers"]
  result["scan_vs_loop_step"] = round(
      scan["steady_step_s"] / loop["steady_step_s"], 3)
  if 8 in by_layers and 32 in by_layers:
    result["scan_compile_32_vs_8"] = round(by_layers[32] / by_layers[8], 3)
  if args.jax:
    jax_step = steady_step_s(result["jax"]["scan"])
    if jax_step:
      result["scan_vs_jax_scan_step"] = round(scan["steady_step_s"] / jax_step,
                                              3)
  if args.plot:
    write_plot(args.plot, {
        mode: {int(n): s for n, s in m["compile_s_by_layers"].items()}
        for mode, m in result["modes"].items()
    })
  print(json.dumps(result))


if __name__ == "__main__":
  main()
