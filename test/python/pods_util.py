"""Helpers for the multi-process tests: run test/python/pods_cases.py as a
launch or as the processes of a job whose environment we set, and read what
the workers wrote. (Not a test module: pytest collects test_*.py only.)"""

import json
import os
import socket
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "pods_cases.py")
# Generous hang guards: a launch that works ends long before.
GUARD_S = 240


def free_port():
  with socket.socket() as s:
    s.bind(("localhost", 0))
    return s.getsockname()[1]


def base_env(**extra):
  env = dict(os.environ)
  for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE",
               "PJRT_LOCAL_PROCESS_RANK", "PJRT_LOCAL_PROCESS_COUNT",
               "MASTER_ADDR", "XLA_COORDINATOR_PORT", "XLA_USE_SPMD",
               "TORCHELASTIC_RUN_ID"):
    env.pop(name, None)
  env.update({k: str(v) for k, v in extra.items()})
  return env


def launch(case, outdir, devices, **env):
  """`torch_xla.launch` of `case` with CPU_NUM_DEVICES=devices (and
  PJRT_LOCAL_PROCESS_COUNT=processes in `env` for several devices per
  process)."""
  return subprocess.run(
      [sys.executable, CASES, case, str(outdir)],
      env=base_env(CPU_NUM_DEVICES=devices, **env), capture_output=True,
      text=True, timeout=GUARD_S)


def run_threads(case, outdir, devices):
  """`case` in one process with a replica thread per device
  (torch_xla._internal.pjrt.spawn_threads), CPU_NUM_DEVICES=devices."""
  return subprocess.run(
      [sys.executable, CASES, case, str(outdir), "threads"],
      env=base_env(CPU_NUM_DEVICES=devices), capture_output=True, text=True,
      timeout=GUARD_S)


def start_process(case, outdir, rank, processes, port, devices, **env):
  """Process `rank` of a job started as torchrun would (RANK, WORLD_SIZE,
  MASTER_ADDR, XLA_COORDINATOR_PORT) with `devices` CPU devices."""
  return subprocess.Popen(
      [sys.executable, CASES, case, str(outdir), "env"],
      env=base_env(RANK=rank, WORLD_SIZE=processes, LOCAL_RANK=rank,
                   PJRT_LOCAL_PROCESS_RANK=rank,
                   PJRT_LOCAL_PROCESS_COUNT=processes,
                   MASTER_ADDR="localhost", XLA_COORDINATOR_PORT=port,
                   CPU_NUM_DEVICES=devices, **env),
      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def start_job(case, outdir, processes, devices_per_process, **env):
  """Every process of such a job. Returns the Popen objects."""
  port = free_port()
  return [
      start_process(case, outdir, rank, processes, port, devices_per_process,
                    **env) for rank in range(processes)
  ]


def finish(procs):
  """Waits for every process; their outputs."""
  outputs = []
  for p in procs:
    try:
      out, _ = p.communicate(timeout=GUARD_S)
    except subprocess.TimeoutExpired:
      p.kill()
      out, _ = p.communicate()
    outputs.append(out)
  return outputs


def results(outdir, case, count):
  out = []
  for i in range(count):
    with open(os.path.join(outdir, f"{case}_{i}.json")) as f:
      out.append(json.load(f))
  return out


_shared = {}


def four_worker_launch(tmp_path_factory):
  """One launch of 4 workers x 1 CPU device running the 'pods' case
  (ordinals, collectives, data parallel, torch.distributed + DDP), shared
  by every test module of the session: interpreter start-ups dominate."""
  if "pods" not in _shared:
    outdir = tmp_path_factory.mktemp("pods")
    run = launch("pods", outdir, 4)
    _shared["pods"] = (outdir, run)
  outdir, run = _shared["pods"]
  assert run.returncode == 0, run.stderr[-4000:]
  return outdir


def two_by_two_launch(tmp_path_factory):
  """One `torch_xla.launch` of 2 processes x 2 CPU devices
  (CPU_NUM_DEVICES=4, PJRT_LOCAL_PROCESS_COUNT=2: a replica thread per
  device) running the same 'pods' case as four_worker_launch, shared by
  every test module of the session."""
  if "pods_2x2" not in _shared:
    outdir = tmp_path_factory.mktemp("pods_2x2")
    run = launch("pods", outdir, 4, PJRT_LOCAL_PROCESS_COUNT=2)
    _shared["pods_2x2"] = (outdir, run)
  outdir, run = _shared["pods_2x2"]
  assert run.returncode == 0, run.stderr[-4000:]
  return outdir


# ------------------------------------------------ training checks, diagnosis


def _eager_slice_step(weights, step, replica, world):
  """(loss, [grads]) of eager CPU on replica `replica`'s slice of step
  `step`'s global batch, from the model parameters `weights` (flat lists
  in model.parameters() order)."""
  import torch

  import pods_cases

  model = pods_cases.tiny_model()
  with torch.no_grad():
    for p, w in zip(model.parameters(), weights):
      p.copy_(torch.tensor(w, dtype=torch.float64).reshape(p.shape))
  x, y = pods_cases.global_batch(step)
  per = x.shape[0] // world
  rows = slice(replica * per, (replica + 1) * per)
  loss = torch.nn.functional.mse_loss(model(x[rows]), y[rows])
  loss.backward()
  return loss.item(), [p.grad.reshape(-1) for p in model.parameters()]


def _max_diff(a, b):
  import torch

  return max(float((torch.tensor(x, dtype=torch.float64) -
                    torch.as_tensor(y, dtype=torch.float64)).abs().max())
             for x, y in zip(a, b))


def explain_dp_train(seen, tol=1e-5):
  """Which stage of a data-parallel run (pods_cases.dp_train, one record
  per replica in ordinal order) first left the single-process result:
  a replica's forward/backward on its slice (its loss and the gradients
  it sent, against eager CPU from the parameters it held), the reduction
  (what each replica got back, against the sum of what every replica
  sent, in the host route's order ((g0 + g1) + (g2 + g3)) for a 2 x 2
  job, bit for bit), or the update (parameters after the step, against
  before - lr * got). Returns lines of text."""
  import torch

  import pods_cases

  world = len(seen)
  start = [p.detach().double().reshape(-1).tolist()
           for p in pods_cases.tiny_model().parameters()]
  lines = [f"layout: process of each replica "
           f"{[r.get('process_index') for r in seen]}"]
  now = pods_cases.code_stamp()
  stamps = [r.get("code") for r in seen]
  if any(c != now for c in stamps):
    lines.append(f"the tree changed during or after the run (a rebuild or an "
                 f"edit; its code may be mixed): the workers loaded {stamps}, "
                 f"the tree now has {now}")
  hierarchical = [r.get("process_index") for r in seen] == [0, 0, 1, 1]
  if not all(r.get("trace") for r in seen):
    return lines + ["no all_reduce trace (in-program collectives): only "
                    "losses and parameters are compared"]
  for step in range(len(seen[0]["losses"])):
    sent = []
    for me, r in enumerate(seen):
      before = start if step == 0 else r["params"][step - 1]
      want_loss, want_grads = _eager_slice_step(before, step, me, world)
      rec = r["trace"][step]
      dl = abs(r["local_losses"][step] - want_loss)
      dg = _max_diff(rec["sent"], want_grads)
      sent.append(rec["sent"])
      flag = "  <-- WRONG" if dl > tol or dg > tol else ""
      lines.append(f"step {step} replica {me}: local loss "
                   f"{r['local_losses'][step]!r} (eager {want_loss!r}), sent "
                   f"gradients max |diff| {dg:.3g}{flag}")
    scale = seen[0]["trace"][step]["scale"]
    for me, r in enumerate(seen):
      got = r["trace"][step]["got"]
      exact = []
      for k in range(len(sent[0])):
        g = [torch.tensor(s[k], dtype=torch.float32) for s in sent]
        total = (g[0] + g[1]) + (g[2] + g[3]) if hierarchical else \
            torch.stack(g).sum(0)
        exact.append(total if scale == 1.0 else total * scale)
      d = _max_diff(got, exact)
      bad = d > 0 if hierarchical else d > tol
      order = "((g0+g1)+(g2+g3))" if hierarchical else "sum"
      lines.append(f"step {step} replica {me}: reduced gradients vs "
                   f"{order}*{scale:g} max |diff| {d:.3g}"
                   f"{'  <-- WRONG' if bad else ''}")
      before = start if step == 0 else r["params"][step - 1]
      want = [(torch.tensor(b, dtype=torch.float32) -
               0.1 * torch.tensor(g, dtype=torch.float32)).tolist()
              for b, g in zip(before, got)]
      du = _max_diff(r["params"][step], want)
      lines.append(f"step {step} replica {me}: parameters after the step vs "
                   f"before - 0.1 * reduced max |diff| {du:.3g}"
                   f"{'  <-- WRONG' if du > tol else ''}")
  return lines


def check_trains_as_one_process(outdir, case, count):
  """Every replica's losses (rel 1e-6) and fc1 weight (1e-6) equal one
  eager process training on the whole batch; on a mismatch the error
  carries explain_dp_train of the launch's dp_train records."""
  import pytest
  import torch

  import pods_cases

  want_losses, want_weight = pods_cases.single_process_reference()
  seen = results(outdir, case, count)
  bad = []
  for i, r in enumerate(seen):
    if r["losses"] != pytest.approx(want_losses, rel=1e-6) or not \
        torch.allclose(torch.tensor(r["weight"]), want_weight, rtol=1e-6,
                       atol=1e-6):
      w = (torch.tensor(r["weight"]) - want_weight).abs().max().item()
      bad.append(f"{case} replica {i}: losses {r['losses']} (one process "
                 f"{want_losses}), fc1 weight max |diff| {w:.3g}")
  if bad:
    lines = bad
    if os.path.exists(os.path.join(outdir, f"dp_train_{count - 1}.json")):
      lines += explain_dp_train(results(outdir, "dp_train", count))
    raise AssertionError("training differs from one process:\n" +
                         "\n".join(lines))


def check_pairs_train_as_eager(outdir, count):
  """DDP over a sub-group (pods_subgroup_cases.group_ddp: pairs [0, 1] and
  [2, 3] each train their own model): every replica's pair losses (rel
  1e-6) and fc1 weight (1e-6) equal eager CPU training on its pair's half
  of the batch."""
  import pytest
  import torch

  import pods_cases
  import pods_subgroup_cases

  want = {p: pods_subgroup_cases.pair_reference(pods_cases, p)
          for p in (0, 1)}
  bad = []
  for i, r in enumerate(results(outdir, "group_ddp", count)):
    if r["pair"] != i // 2:
      bad.append(f"replica {i}: pair {r['pair']}, want {i // 2}")
      continue
    losses, weight = want[r["pair"]]
    w = (torch.tensor(r["weight"]) - weight).abs().max().item()
    if r["losses"] != pytest.approx(losses, rel=1e-6) or w > 1e-6:
      bad.append(f"replica {i} (pair {r['pair']}): losses {r['losses']} "
                 f"(eager {losses}), fc1 weight max |diff| {w:.3g}")
  assert not bad, "DDP over a sub-group differs from eager:\n" + \
      "\n".join(bad)
