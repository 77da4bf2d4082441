"""Worker bodies for torch.distributed sub-groups on the 'xla' backend
(dist.new_group), run inside pods_cases.ddp in every layout of a world of
4: 4 processes x 1 device, 2 processes x 2 devices (a replica thread per
device) and 1 process x 4 replica threads. `cases` is the pods_cases
module the worker runs (passed in, not imported: pods_cases runs as
__main__).

Every value is computed from the ranks' deterministic inputs, so each
member knows the exact answer; a non-member's tensor must stay as it was.
The groups cover the layouts' cases: within a process of a 2 x 2 job
([0, 1], [2, 3]), across its processes ([0, 2], [1, 3], one member in
each), spanning both unevenly ([0, 1, 2], [0, 1, 3]), and groups of one
process's threads running at the same time as other groups.
"""

import json
import os
import warnings

import torch

import torch_xla
import torch_xla.core.xla_model as xm
from torch_xla import _replica_threads


def _untouched(cases, name, group, me, dev, inputs):
  """A non-member's call returns at once and leaves its tensor alone."""
  import torch.distributed as dist

  t = inputs[me].to(dev)
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # torch warns: not in the group
    dist.all_reduce(t, group=group)
  cases._check(f"non-member {name} all_reduce", t, inputs[me])


def sub_groups(cases, me, dev, inputs):
  """Collectives among a group's members only, with exact values."""
  import torch.distributed as dist

  check = cases._check
  odd = dist.new_group([1, 3])  # every rank takes part in creating groups
  low = dist.new_group([0, 1, 2])
  pairs = [dist.new_group([0, 1]), dist.new_group([2, 3])]
  evens = dist.new_group([0, 2])
  uneven = dist.new_group([0, 1, 3])

  # A pair: in a 2 x 2 job, the replica threads of one process.
  ranks = [[0, 1], [2, 3]][me // 2]
  pair, k = pairs[me // 2], ranks.index(me)
  t = inputs[me].to(dev) * 1
  dist.all_reduce(t, group=pair)
  check("pair all_reduce", t, inputs[ranks[0]] + inputs[ranks[1]])
  t = inputs[me].to(dev)
  dist.all_reduce(t, op=dist.ReduceOp.AVG, group=pair)
  check("pair all_reduce avg", t, (inputs[ranks[0]] + inputs[ranks[1]]) / 2)
  outs = [torch.zeros(2, 4, device=dev) for _ in range(2)]
  dist.all_gather(outs, inputs[me].to(dev), group=pair)
  check("pair all_gather[0]", outs[0], inputs[ranks[0]])
  check("pair all_gather[1]", outs[1], inputs[ranks[1]])
  b = inputs[me].to(dev)
  dist.broadcast(b, src=ranks[1], group=pair)
  check("pair broadcast", b, inputs[ranks[1]])
  out = torch.zeros(2, 4, device=dev)
  dist.all_to_all_single(out, inputs[me].to(dev), group=pair)
  check("pair all_to_all_single", out,
        torch.stack([inputs[m][k] for m in ranks]))
  dist.barrier(group=pair)
  if _replica_threads.replica() is not None:
    # Members of one process that bring different shapes: a clear error in
    # both (one replica per process: gloo's own error).
    try:
      dist.all_reduce(torch.zeros(2 + k, device=dev), group=pair)
      message = "no error"
    except ValueError as e:
      message = str(e)
    if "same shapes" not in message or str(ranks) not in message:
      raise AssertionError(f"pair all_reduce of different shapes: {message}")

  # Strided: [0, 2] and [1, 3] cross the processes of a 2 x 2 job, and a
  # process works for both groups at once.
  ranks = [[0, 2], [1, 3]][me % 2]
  strided, k = (evens, odd)[me % 2], ranks.index(me)
  t = inputs[me].to(dev)
  dist.all_reduce(t, op=dist.ReduceOp.MIN, group=strided)
  check("strided all_reduce min", t,
        torch.minimum(inputs[ranks[0]], inputs[ranks[1]]))
  flat = torch.zeros(16, device=dev)
  dist.all_gather_into_tensor(flat, inputs[me].reshape(-1).to(dev),
                              group=strided)
  check("strided all_gather_into_tensor", flat,
        torch.cat([inputs[r].reshape(-1) for r in ranks]))
  piece = torch.zeros(4, device=dev)
  dist.reduce_scatter_tensor(piece, inputs[me].reshape(-1).to(dev),
                             group=strided)
  check("strided reduce_scatter_tensor", piece,
        (inputs[ranks[0]] + inputs[ranks[1]]).reshape(-1)[4 * k:4 * k + 4])

  # [1, 3] and [0, 1, 2], as in one replica per process.
  if me in (1, 3):
    k = [1, 3].index(me)
    b = inputs[me].to(dev)
    dist.broadcast(b, src=3, group=odd)  # src is a global rank
    check("odd broadcast", b, inputs[3])
    pieces = [inputs[me].to(dev) * (j + 1) for j in range(2)]
    out = torch.zeros(2, 4, device=dev)
    dist.reduce_scatter(out, pieces, group=odd)
    check("odd reduce_scatter", out, (inputs[1] + inputs[3]) * (k + 1))
    dist.barrier(group=odd)
  else:
    _untouched(cases, "[1, 3]", odd, me, dev, inputs)
  if me in (0, 1, 2):
    t = inputs[me].to(dev)
    dist.all_reduce(t, op=dist.ReduceOp.MAX, group=low)
    check("low all_reduce max", t, inputs[2])
    outs = [torch.zeros(2, 4, device=dev) for _ in range(3)]
    dist.all_gather(outs, inputs[me].to(dev) * 1, group=low)
    for r in range(3):
      check(f"low all_gather[{r}]", outs[r], inputs[r])
    dist.barrier(group=low)
  else:
    _untouched(cases, "[0, 1, 2]", low, me, dev, inputs)

  # Uneven over a 2 x 2 job's processes (two members in one, one in the
  # other): a product, a bitwise AND and a broadcast from the lone member.
  if me in (0, 1, 3):
    t = inputs[me].to(dev)
    dist.all_reduce(t, op=dist.ReduceOp.PRODUCT, group=uneven)
    check("uneven all_reduce product", t, inputs[0] * inputs[1] * inputs[3])
    ints = torch.tensor([me + 1, 6, 7], dtype=torch.int32).to(dev)
    dist.all_reduce(ints, op=dist.ReduceOp.BAND, group=uneven)
    check("uneven all_reduce band", ints,
          torch.tensor([1 & 2 & 4, 6, 7], dtype=torch.int32))
    b = inputs[me].to(dev)
    dist.broadcast(b, src=3, group=uneven)
    check("uneven broadcast", b, inputs[3])
  else:
    _untouched(cases, "[0, 1, 3]", uneven, me, dev, inputs)
  dist.barrier()


def _pair_rows(pair, member):
  """Rows of the global batch that `member` (0 or 1) of `pair` trains on:
  pair p takes half p of the batch, each member half of that."""
  return slice(4 * pair + 2 * member, 4 * pair + 2 * member + 2)


def group_ddp(cases, index, outdir, steps=3):
  """DistributedDataParallel(process_group=) of a pair ([0, 1] or [2, 3]):
  each pair trains its own model on its half of the global batch."""
  import torch.distributed as dist
  from torch.nn.parallel import DistributedDataParallel as DDP

  me = dist.get_rank()
  dev = torch_xla.device()
  groups = [dist.new_group([0, 1]), dist.new_group([2, 3])]
  p = me // 2
  model = DDP(cases.tiny_model().to(dev), process_group=groups[p],
              gradient_as_bucket_view=True)
  opt = torch.optim.SGD(model.parameters(), lr=0.1)
  losses = []
  for step in range(steps):
    x, y = cases.global_batch(step)
    rows = _pair_rows(p, me % 2)
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x[rows].to(dev)),
                                        y[rows].to(dev))
    loss.backward()
    opt.step()
    torch_xla.sync()
    mine = loss.item()
    both = xm.mesh_reduce("pair loss", mine, list)  # every replica's
    losses.append((both[2 * p] + both[2 * p + 1]) / 2)
  path = os.path.join(outdir, f"group_ddp_{index}.json")
  with open(path, "w") as f:
    json.dump({"pair": p, "losses": losses,
               "weight": model.module.fc1.weight.detach().cpu().tolist()}, f)


def pair_reference(cases, pair, steps=3):
  """Losses and fc1 weight of eager CPU training on pair `pair`'s half of
  each global batch."""
  model = cases.tiny_model()
  opt = torch.optim.SGD(model.parameters(), lr=0.1)
  losses = []
  for step in range(steps):
    x, y = cases.global_batch(step)
    rows = slice(4 * pair, 4 * pair + 4)
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x[rows]), y[rows])
    loss.backward()
    opt.step()
    losses.append(loss.item())
  return losses, model.fc1.weight.detach()
