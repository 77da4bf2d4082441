"""Worker bodies for the multi-process tests (test_pods_*.py,
test_collectives.py). Run as a script: `python pods_cases.py <case> <outdir>`
starts a launch (or plays one process of a job whose environment the test
set), and each worker writes what it saw to <outdir>/<case>_<index>.json.
The file name keeps pytest from collecting it.

Every value a worker checks is computed from the ranks' deterministic
inputs, so each worker knows the exact answer of every collective.
"""

import json
import os
import signal
import sys
import threading
import time

import torch

import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.runtime as xr
from torch_xla import _replica_threads as replica_threads
from torch_xla.core import _cpu_transport

import pods_subgroup_cases


def code_stamp():
  """{'xlac': mtime of the loaded _XLAC library, 'python': newest mtime of
  torch_xla's Python files}: a run whose tree changed while it ran (a
  rebuild, an edit) may mix code (pods_util.explain_dp_train says so)."""
  import glob

  root = os.path.dirname(torch_xla.__file__)
  files = glob.glob(os.path.join(root, "**", "*.py"), recursive=True)
  return {"xlac": os.path.getmtime(torch_xla._XLAC.__file__),
          "python": max(os.path.getmtime(f) for f in files)}


_LOADED = code_stamp()  # when this process imported torch_xla


def _write(outdir, case, index, data):
  path = os.path.join(outdir, f"{case}_{index}.json")
  with open(path + ".tmp", "w") as f:
    json.dump(data, f)
  os.replace(path + ".tmp", path)


def _input(rank, dtype=torch.float32):
  """Rank r's input: distinct, exactly representable values."""
  return (torch.arange(8, dtype=torch.float32).reshape(2, 4) + 1 +
          10 * rank).to(dtype)


def ordinals(index, outdir):
  # The device is used before any xr query: that use joins the job.
  t = torch.ones(3, device="xla") * (index + 1)
  value = t.cpu().tolist()
  _write(outdir, "ordinals", index, {
      "index": index,
      "world_size": xr.world_size(),
      "global_ordinal": xr.global_ordinal(),
      "local_ordinal": xr.local_ordinal(),
      "process_index": xr.process_index(),
      "code": _LOADED,
      "process_count": xr.process_count(),
      "local_process_count": xr.local_process_count(),
      "addressable_runtime_device_count": xr.addressable_runtime_device_count(),
      "global_runtime_device_count": xr.global_runtime_device_count(),
      "global_devices": torch_xla._XLAC._distributed.global_devices(),
      "device": str(t.device),
      "value": value,
  })


def _check(name, got, want):
  got = got.cpu() if got.device.type == "xla" else got
  if got.dtype != want.dtype or not torch.equal(got, want):
    raise AssertionError(f"{name}: got {got} ({got.dtype}), want {want} "
                         f"({want.dtype})")


def collectives(index, outdir):
  world = xr.world_size()
  me = xr.global_ordinal()
  dev = torch_xla.device()
  inputs = [_input(r) for r in range(world)]
  x = inputs[me].to(dev) * 1  # a pending value, not device data

  # all_reduce: every op, scale, the list (in-place) form.
  stacked = torch.stack(inputs)
  _check("sum", xm.all_reduce(xm.REDUCE_SUM, x), stacked.sum(0))
  _check("sum*0.5", xm.all_reduce(xm.REDUCE_SUM, x, scale=0.5),
         stacked.sum(0) * 0.5)
  _check("mul", xm.all_reduce(xm.REDUCE_MUL, x), stacked.prod(0))
  _check("min", xm.all_reduce(xm.REDUCE_MIN, x), stacked.min(0).values)
  _check("max", xm.all_reduce(xm.REDUCE_MAX, x), stacked.max(0).values)
  ints = [torch.tensor([r + 1, 3, 12 >> r], dtype=torch.int32)
          for r in range(world)]
  want_and, want_or = ints[0].clone(), ints[0].clone()
  for t in ints[1:]:
    want_and &= t
    want_or |= t
  xi = ints[me].to(dev)
  if replica_threads.replica() is None or xr.process_count() > 1:
    # XLA's CPU runtime has no integer AND/OR cross-replica reduction; the
    # host route between processes has.
    _check("and", xm.all_reduce(xm.REDUCE_AND, xi), want_and)
    _check("or", xm.all_reduce(xm.REDUCE_OR, xi), want_or)
  bools = [torch.tensor([True, r == 0, r % 2 == 1]) for r in range(world)]
  _check("bool and", xm.all_reduce(xm.REDUCE_AND, bools[me].to(dev)),
         torch.stack(bools).all(0))
  _check("bool or", xm.all_reduce(xm.REDUCE_OR, bools[me].to(dev)),
         torch.stack(bools).any(0))
  a, b = x.clone(), (x * 2).to(torch.bfloat16)
  out = xm.all_reduce(xm.REDUCE_SUM, [a, b], scale=0.25)
  if out[0] is not a or out[1] is not b:
    raise AssertionError("the list form must return its own list")
  _check("list a", a, stacked.sum(0) * 0.25)
  _check("list b", b,
         (torch.stack([(i * 2).to(torch.bfloat16) for i in inputs]).sum(0) *
          0.25).to(torch.bfloat16))

  # groups: pairs of neighbours.
  groups = [[r, r + 1] for r in range(0, world, 2)]
  mine = [g for g in groups if me in g][0]
  _check("groups", xm.all_reduce(xm.REDUCE_SUM, x, groups=groups),
         inputs[mine[0]] + inputs[mine[1]])

  # all_gather, reduce_scatter, all_to_all.
  _check("all_gather dim0", xm.all_gather(x, dim=0), torch.cat(inputs, 0))
  _check("all_gather dim1", xm.all_gather(x, dim=1), torch.cat(inputs, 1))
  _check("all_gather groups", xm.all_gather(x, groups=groups),
         torch.cat([inputs[r] for r in mine], 0))
  # groups across the processes of a 2 x 2 job: [[0, 2], [1, 3]].
  if world == 4:
    strided = [[0, 2], [1, 3]]
    pair = strided[me % 2]
    _check("strided groups max", xm.all_reduce(xm.REDUCE_MAX, x,
                                               groups=strided),
           torch.maximum(inputs[pair[0]], inputs[pair[1]]))
    _check("strided all_gather", xm.all_gather(x, dim=1, groups=strided),
           torch.cat([inputs[r] for r in pair], 1))
    _check("strided reduce_scatter",
           xm.reduce_scatter(xm.REDUCE_SUM, x, 1.0, 1, 2, groups=strided),
           (inputs[pair[0]] + inputs[pair[1]])[:, 2 * pair.index(me):][:, :2])
    # Groups within a 2 x 2 job's processes and across them, for the rest.
    rows2 = [torch.arange(6, dtype=torch.float32).reshape(2, 3) + 100 * r
             for r in range(world)]
    for name, split in (("pairs", groups), ("strided", strided)):
      g = [grp for grp in split if me in grp][0]
      k = g.index(me)
      _check(f"{name} reduce_scatter",
             xm.reduce_scatter(xm.REDUCE_SUM, x, 1.0, 1, 2, groups=split),
             (inputs[g[0]] + inputs[g[1]])[:, 2 * k:2 * k + 2])
      _check(f"{name} all_to_all",
             xm.all_to_all(rows2[me].to(dev), 0, 0, 2, groups=split),
             torch.stack([rows2[m][k] for m in g]))
      y = x.clone()
      xm.collective_broadcast([y], root_ordinal=g[1], groups=split)
      _check(f"{name} broadcast", y, inputs[g[1]])
  big = [torch.arange(4 * world, dtype=torch.float32) * (r + 1)
         for r in range(world)]
  total = torch.stack(big).sum(0)
  _check("reduce_scatter",
         xm.reduce_scatter(xm.REDUCE_SUM, big[me].to(dev), 2.0, 0, world),
         (total * 2.0)[4 * me:4 * me + 4])
  rows = [torch.arange(world * 3, dtype=torch.float32).reshape(world, 3) +
          100 * r for r in range(world)]
  _check("all_to_all", xm.all_to_all(rows[me].to(dev), 0, 0, world),
         torch.stack([rows[r][me] for r in range(world)]))

  # collective_permute: a ring; then one pair (others receive zeros).
  ring = [[r, (r + 1) % world] for r in range(world)]
  _check("permute ring", xm.collective_permute(x, ring),
         inputs[(me - 1) % world])
  want = inputs[0] if me == 1 else torch.zeros(2, 4)
  _check("permute pair", xm.collective_permute(x, [[0, 1]]), want)

  # collective_broadcast, rendezvous, mesh_reduce.
  y = x.clone()
  xm.collective_broadcast([y], root_ordinal=world - 1)
  _check("broadcast", y, inputs[world - 1])
  got = xm.rendezvous("meet", f"from {me}".encode())
  if got != [f"from {r}".encode() for r in range(world)]:
    raise AssertionError(f"rendezvous: {got}")
  if xm.mesh_reduce("sum", me + 1, sum) != world * (world + 1) // 2:
    raise AssertionError("mesh_reduce")
  _write(outdir, "collectives", me, {"ok": True})


class _Tiny(torch.nn.Module):

  def __init__(self):
    super().__init__()
    self.fc1 = torch.nn.Linear(4, 8)
    self.fc2 = torch.nn.Linear(8, 1)

  def forward(self, x):
    return self.fc2(torch.tanh(self.fc1(x)))


_model_lock = threading.Lock()


def tiny_model():
  # torch's generator is per process: replica threads take turns.
  with _model_lock:
    torch.manual_seed(0)
    return _Tiny()


def global_batch(step, batch=8):
  g = torch.Generator().manual_seed(100 + step)
  x = torch.randn(batch, 4, generator=g)
  y = torch.randn(batch, 1, generator=g)
  return x, y


def single_process_reference(steps=3):
  """Losses and fc1 weight of eager CPU training on the whole batch."""
  model = tiny_model()
  opt = torch.optim.SGD(model.parameters(), lr=0.1)
  losses = []
  for step in range(steps):
    x, y = global_batch(step)
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    losses.append(loss.item())
  return losses, model.fc1.weight.detach()


def dp_train(index, outdir, steps=3):
  """Data parallel: each replica takes its slice of the global batch;
  xm.optimizer_step averages the gradients."""
  world, me = xr.world_size(), xr.global_ordinal()
  dev = torch_xla.device()
  model = tiny_model().to(dev)
  opt = torch.optim.SGD(model.parameters(), lr=0.1)
  losses, moved, local_losses, grad_sums, params = [], [], [], [], []
  # For diagnosis (pods_util.explain_dp_train): the gradients each replica
  # sends and gets back, and its parameters after each step.
  _cpu_transport.trace_all_reduce()
  for step in range(steps):
    x, y = global_batch(step)
    per = x.shape[0] // world
    rows = slice(me * per, (me + 1) * per)
    xs, ys = x[rows].to(dev), y[rows].to(dev)
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(xs), ys)
    loss.backward()
    # No sync here: in replica threads the collective computes its inputs
    # in their own program first, so backward's temporaries, which
    # autograd's device threads may still be releasing, cannot make the
    # replicas' collective programs differ (docs/pods.md).
    _cpu_transport.reset_stats()
    xm.optimizer_step(opt)
    moved.append(_cpu_transport.stats())
    torch_xla.sync()
    local_losses.append(loss.item())
    losses.append(
        xm.mesh_reduce("loss", local_losses[-1], lambda v: sum(v) / len(v)))
    # For diagnosis only (read after the step's sync: no extra program):
    # the averaged gradients each replica applied.
    grad_sums.append([float(p.grad.detach().cpu().double().sum())
                      for p in model.parameters()])
    params.append([p.detach().cpu().double().reshape(-1).tolist()
                   for p in model.parameters()])
  trace = _cpu_transport.traced()
  _cpu_transport.trace_all_reduce(False)
  _write(outdir, "dp_train", me, {
      "losses": losses,
      "local_losses": local_losses,
      "grad_sums": grad_sums,
      "params": params,
      "trace": trace,
      "process_index": xr.process_index(),
      "weight": model.fc1.weight.detach().cpu().tolist(),
      "moved": moved,
      "gradient_bytes": sum(p.numel() * 4 for p in model.parameters()),
  })


def ddp(index, outdir, steps=3):
  """torch.distributed over 'xla': dist collectives, then DDP training on
  each replica's slice of the global batch."""
  import torch.distributed as dist
  import torch_xla.distributed.xla_backend  # noqa: F401  (registers 'xla')
  from torch.nn.parallel import DistributedDataParallel as DDP

  dist.init_process_group("xla", init_method="xla://")
  world, me = dist.get_world_size(), dist.get_rank()
  if (world, me) != (xr.world_size(), xr.global_ordinal()):
    raise AssertionError(f"rank {me} / world {world} differ from xr's")
  dev = torch_xla.device()
  inputs = [_input(r) for r in range(world)]
  t = inputs[me].to(dev)
  dist.all_reduce(t)
  _check("dist.all_reduce", t, torch.stack(inputs).sum(0))
  t = inputs[me].to(dev)
  dist.all_reduce(t, op=dist.ReduceOp.MAX)
  _check("dist.all_reduce max", t, torch.stack(inputs).max(0).values)
  outs = [torch.zeros(2, 4, device=dev) for _ in range(world)]
  dist.all_gather(outs, inputs[me].to(dev))
  for r in range(world):
    _check(f"dist.all_gather[{r}]", outs[r], inputs[r])
  b = inputs[me].to(dev)
  dist.broadcast(b, src=1)
  _check("dist.broadcast", b, inputs[1])
  dist.barrier()
  if world == 4:  # in every layout: 4 x 1, 2 x 2, 1 process x 4 threads
    pods_subgroup_cases.sub_groups(sys.modules[__name__], me, dev, inputs)

  model = DDP(tiny_model().to(dev), gradient_as_bucket_view=True)
  opt = torch.optim.SGD(model.parameters(), lr=0.1)
  losses = []
  for step in range(steps):
    x, y = global_batch(step)
    per = x.shape[0] // world
    rows = slice(me * per, (me + 1) * per)
    xs, ys = x[rows].to(dev), y[rows].to(dev)
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(xs), ys)
    loss.backward()
    opt.step()
    torch_xla.sync()
    losses.append(
        xm.mesh_reduce("loss", loss.item(), lambda v: sum(v) / len(v)))
  _write(outdir, "ddp", index, {
      "losses": losses,
      "weight": model.module.fc1.weight.detach().cpu().tolist(),
  })
  if world == 4:  # DDP over a sub-group: each pair trains its own model
    pods_subgroup_cases.group_ddp(sys.modules[__name__], index, outdir)
  dist.destroy_process_group()


def pods(index, outdir):
  """One launch, several checks: it saves the interpreter start-ups."""
  ordinals(index, outdir)
  collectives(index, outdir)
  dp_train(index, outdir)
  ddp(index, outdir)


def replica_threads_pods(index, outdir):
  """One process, a replica thread per device: the same checks (each
  replica thread is a torch.distributed rank of its own)."""
  collectives(index, outdir)
  dp_train(index, outdir)
  ddp(index, outdir)


def by_hand_2x2(index, outdir):
  """One process of a job started by hand (RANK/WORLD_SIZE) whose
  processes drive two devices each: its ordinals; a collective outside the
  replica threads is refused; a replica thread that raises stops its
  partner waiting in a collective, and spawn_threads reports the raising
  thread's own error."""
  from torch_xla._internal import pjrt

  ordinals(index, outdir)
  try:  # the process itself is no replica: it drives two devices
    xm.all_reduce(xm.REDUCE_SUM, torch.ones(2, device="xla"))
    message = "no error"
  except NotImplementedError as e:
    message = str(e)
  _write(outdir, "no_threads", index, {"error": message})

  def one_raises(ordinal):  # its partner waits in the collective, then stops
    if ordinal % 2 == 1:
      raise ValueError(f"boom in replica {xr.global_ordinal()}")
    xm.all_reduce(xm.REDUCE_SUM, torch.ones(2, device=torch_xla.device()),
                  groups=[[0, 1], [2, 3]]).cpu()

  try:
    pjrt.spawn_threads(one_raises)
    message = "no error"
  except Exception as e:  # the failed thread's own error, not its partner's
    message = f"{type(e).__name__}: {e}"
  _write(outdir, "one_raises", index, {"error": message})


def raises(index, outdir):
  """The last replica raises once replica 0 runs; every other one sleeps
  (computing, not waiting in a collective): the launch must stop them."""
  _write(outdir, "raises", index, {"pid": os.getpid()})
  if index == xr.world_size() - 1:
    for _ in range(600):
      if os.path.exists(os.path.join(outdir, "raises_0.json")):
        break
      time.sleep(0.1)
    raise ValueError(f"boom from worker {index}")
  time.sleep(600)  # the launch must stop this one (longer than GUARD_S)


def killed(index, outdir):
  """Worker 1 dies; worker 0's collective must fail naming it."""
  torch.ones(1, device="xla").cpu()
  xm.rendezvous("both started")
  if index == 1:
    os.kill(os.getpid(), signal.SIGKILL)
  time.sleep(1.0)
  try:
    xm.all_reduce(xm.REDUCE_SUM, torch.ones(4, device="xla")).cpu()
    message = "no error"
  except RuntimeError as e:
    message = str(e)
  _write(outdir, "killed", index, {"error": message})


def unreachable(index, outdir):
  try:
    xr.process_count()
    message = "no error"
  except RuntimeError as e:
    message = str(e)
  _write(outdir, "unreachable", index, {"error": message})


CASES = {f.__name__: f for f in (ordinals, collectives, dp_train, ddp, pods,
                                 replica_threads_pods, by_hand_2x2, raises,
                                 killed, unreachable)}

if __name__ == "__main__":
  case, outdir = sys.argv[1], sys.argv[2]
  mode = sys.argv[3] if len(sys.argv) > 3 else "launch"
  if mode == "launch":
    torch_xla.launch(CASES[case], args=(outdir,))
  elif mode == "threads":  # one process, a replica thread per device
    from torch_xla._internal import pjrt
    pjrt.spawn_threads(CASES[case], args=(outdir,))
  else:  # this process is one of a job the environment describes
    CASES[case](int(os.environ.get("RANK", "0")), outdir)
