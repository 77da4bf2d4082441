"""The CPU-only transport of collectives between processes.

Design. The CPU PJRT plugin runs no program across processes (docs/pods.md
shows the compile error), so on CPU a collective between processes moves
its payload: the input's pending graph is computed (one execution for all
inputs of the call), the values come to the host, a gloo process group over
the job's store (torch_xla/distributed/_world.py) reduces or exchanges them,
and the result goes back to the device as device data. A list of tensors of
one dtype travels as one flat buffer (one gloo call per dtype).

Only torch_xla/core/collectives.py calls this module, and only when the
device type is CPU: accelerators lower collectives into the program.

Faults: every gloo call waits at most TORCH_XLA_DISTRIBUTED_TIMEOUT
seconds. When one fails, the error names the processes of this host that are
gone (every process records its host and pid in the store when it joins).

`stats()` counts what crossed between processes: the payload bytes this
process handed to gloo and the number of gloo calls. For diagnosis,
`trace_all_reduce()` makes the calling replica (thread) keep the host values
it brought to each all_reduce and the values it got back (`traced()`), on
this route and on the 2 x 2 host route (_cpu_hierarchy.py).
"""

import datetime
import os
import socket
import threading

import torch

_lock = threading.Lock()
_groups = {}  # tuple(group) -> (ProcessGroupGloo, ranks)
_pids = {}  # process index -> (host, pid)
_rendezvous_count = {}
_stats = {"payload_bytes": 0, "calls": 0}
_trace = threading.local()  # .records: this thread's all_reduce trace


def stats() -> dict:
  """{'payload_bytes', 'calls'} handed to gloo by this process so far."""
  return dict(_stats)


def reset_stats() -> None:
  _stats["payload_bytes"] = 0
  _stats["calls"] = 0


def trace_all_reduce(on: bool = True) -> None:
  """Starts (clears) or stops the calling thread's all_reduce trace."""
  _trace.records = [] if on else None


def traced() -> list:
  """The calling thread's all_reduce records since trace_all_reduce():
  [{'op', 'reduce_type', 'scale', 'sent', 'got'}], 'sent' and 'got' one
  flat list of floats per tensor (this replica's host values before and
  after the collective)."""
  return list(getattr(_trace, "records", None) or [])


def _traced(op, reduce_type, scale, sent, got) -> None:
  records = getattr(_trace, "records", None)
  if records is None:
    return
  records.append({
      "op": op, "reduce_type": reduce_type, "scale": scale,
      "sent": [t.detach().double().reshape(-1).tolist() for t in sent],
      "got": [t.detach().double().reshape(-1).tolist() for t in got],
  })


def _count(*tensors) -> None:
  _stats["calls"] += 1
  _stats["payload_bytes"] += sum(t.numel() * t.element_size() for t in tensors)


# ------------------------------------------------------------------ groups


def _record_pids() -> None:
  """Reads the host and pid of every process that has joined (without
  waiting for the others)."""
  import torch_xla.runtime as xr
  from torch_xla.distributed import _world

  store = _world.store()
  for p in range(xr.process_count()):
    key = f"torch_xla/pid/{p}"
    if p not in _pids and store.check([key]):
      host, pid = store.get(key).decode().split(" ")
      _pids[p] = (host, int(pid))


def _group(op, groups):
  """(process group, its member ordinals) for this replica's group; made
  on first use (a gloo connection to every member)."""
  import torch.distributed as dist
  import torch_xla.runtime as xr
  from torch_xla.distributed import _world

  ordinal, world = xr.global_ordinal(), xr.world_size()
  members = list(range(world))
  for g in groups or []:
    if ordinal in g:
      members = list(g)
  key = tuple(members)
  with _lock:
    if key not in _groups:
      _record_pids()
      if len(members) == world:
        group = _run(op, _world.cpu_transport_group)
      else:
        prefix = "torch_xla/cpu_transport/" + "_".join(map(str, members))
        group = _run(op, lambda: dist.ProcessGroupGloo(
            dist.PrefixStore(prefix, _world.store()), members.index(ordinal),
            len(members), datetime.timedelta(seconds=_world.timeout_s())))
      _groups[key] = (group, members)
    return _groups[key]


def _gone_processes():
  """Process indices (with pids) of this host whose process has exited."""
  here = socket.gethostname()
  gone = []
  for index, (host, pid) in sorted(_pids.items()):
    if host != here or pid == os.getpid():
      continue
    try:
      os.kill(pid, 0)
      with open(f"/proc/{pid}/stat") as f:
        if f.read().rsplit(")", 1)[1].split()[0] == "Z":  # a zombie
          gone.append((index, pid))
    except (ProcessLookupError, FileNotFoundError):
      gone.append((index, pid))
    except (PermissionError, IndexError):
      pass
  return gone


def _run(op, work_fn):
  """Runs a gloo call; turns its failure into an error naming lost
  processes."""
  from torch_xla.distributed import _world

  try:
    return work_fn()
  except Exception as e:  # gloo raises RuntimeError / DistError kinds
    gone = _gone_processes()
    if gone:
      who = ", ".join(f"process {i} (pid {pid})" for i, pid in gone)
      raise RuntimeError(
          f"{op}: {who} of the job is gone (crashed or killed), so the "
          f"collective cannot complete; gloo reported: {type(e).__name__}: "
          f"{e}") from e
    raise RuntimeError(
        f"{op}: the collective between processes failed or timed out "
        f"(TORCH_XLA_DISTRIBUTED_TIMEOUT={_world.timeout_s():g} s); every "
        f"replica must call the same collectives, with the same shapes, in "
        f"the same order. gloo reported: {type(e).__name__}: {e}") from e


# ---------------------------------------------------------- host transfers


def _to_host(tensors):
  """CPU copies of 'xla' tensors, computed by one execution."""
  from torch_xla import _XLAC
  from torch_xla._tensor import XlaTensor

  pending = [t for t in tensors if isinstance(t, XlaTensor)]
  if pending:
    _XLAC._sync_for_read(pending)
  return [t.detach().cpu().contiguous() for t in tensors]


def _wire(t):
  """gloo reduces no bool: carry it as uint8."""
  return t.to(torch.uint8) if t.dtype == torch.bool else t


def _reduce_op(reduce_type, dtype):
  import torch.distributed as dist

  ops = {
      "sum": dist.ReduceOp.SUM, "mul": dist.ReduceOp.PRODUCT,
      "min": dist.ReduceOp.MIN, "max": dist.ReduceOp.MAX,
      "and": dist.ReduceOp.BAND, "or": dist.ReduceOp.BOR,
  }
  if reduce_type in ("and", "or") and dtype.is_floating_point:
    raise TypeError(f"all_reduce: REDUCE_{reduce_type.upper()} needs integer "
                    f"or bool tensors, got {dtype}")
  return ops[reduce_type]


# -------------------------------------------------------------- operations


def all_reduce(reduce_type, tensors, scale, groups):
  """Reduced device copies of `tensors` (same order), times `scale`."""
  import torch.distributed as dist

  group, _ = _group("all_reduce", groups)
  host = _to_host(tensors)
  results = [None] * len(host)
  by_dtype = {}
  for i, t in enumerate(host):
    by_dtype.setdefault(t.dtype, []).append(i)
  for dtype, indices in by_dtype.items():
    flat = torch.cat([_wire(host[i]).reshape(-1) for i in indices])
    options = dist.AllreduceOptions()
    options.reduceOp = _reduce_op(reduce_type, dtype)
    _count(flat)
    _run("all_reduce", lambda: group.allreduce([flat], options).wait())
    if scale != 1.0:
      flat = flat * scale
    offset = 0
    for i in indices:
      n = host[i].numel()
      piece = flat[offset:offset + n].reshape(host[i].shape)
      results[i] = piece.to(dtype) if dtype == torch.bool else piece
      offset += n
  _traced("all_reduce", reduce_type, scale, host, results)
  return [r.to(t.device) for r, t in zip(results, tensors)]


def all_gather(value, dim, groups, count):
  """The group's values concatenated along `dim`, on value's device."""
  group, _ = _group("all_gather", groups)
  (host,) = _to_host([value])
  wire = _wire(host)
  outs = [torch.empty_like(wire) for _ in range(count)]
  _count(wire)
  _run("all_gather", lambda: group.allgather([outs], [wire]).wait())
  return torch.cat(outs, dim=dim).to(host.dtype).to(value.device)


def all_to_all(pieces, concat_dim, groups, count):
  """Sends pieces[j] to the group's j-th member; the received pieces
  concatenated along `concat_dim`, on the pieces' device."""
  import torch.distributed as dist

  group, _ = _group("all_to_all", groups)
  host = _to_host(pieces)
  dtype = host[0].dtype
  send = torch.stack([_wire(p) for p in host])
  recv = torch.empty_like(send)
  _count(send)
  _run("all_to_all", lambda: group.alltoall_base(
      recv, send, [], [], dist.AllToAllOptions()).wait())
  out = torch.cat(list(recv.unbind(0)), dim=concat_dim).to(dtype)
  return out.to(pieces[0].device)


def collective_permute(value, pairs):
  """What this replica receives under `pairs` (zeros if nothing)."""
  import torch_xla.runtime as xr

  group, _ = _group("collective_permute", None)
  me = xr.global_ordinal()
  (host,) = _to_host([value])
  wire = _wire(host)
  received = torch.zeros_like(wire)
  works = []

  def exchange():
    for src, dst in pairs:
      if src == me and dst == me:
        received.copy_(wire)
      elif src == me:
        _count(wire)
        works.append(group.send([wire], dst, 0))
    for src, dst in pairs:
      if dst == me and src != me:
        works.append(group.recv([received], src, 0))
    for w in works:
      w.wait()

  _run("collective_permute", exchange)
  return received.to(host.dtype).to(value.device)


def broadcast(tensors, root_ordinal, groups):
  """Device copies of the root replica's `tensors`."""
  import torch.distributed as dist

  group, members = _group("broadcast", groups)
  host = _to_host(tensors)
  out = []
  for t in host:
    wire = _wire(t)
    options = dist.BroadcastOptions()
    options.rootRank = members.index(root_ordinal)
    _count(wire)
    _run("broadcast", lambda: group.broadcast([wire], options).wait())
    out.append(wire.to(t.dtype))
  return [o.to(t.device) for o, t in zip(out, tensors)]


def barrier(groups=None):
  group, _ = _group("barrier", groups)
  _run("barrier", lambda: group.barrier().wait())


def rendezvous(tag, payload, members):
  """Everyone's payload, in member order, through the store."""
  import torch_xla.runtime as xr
  from torch_xla.distributed import _world

  store = _world.store()
  me = xr.global_ordinal()
  key = (tag, tuple(members))
  generation = _rendezvous_count.get(key, 0)
  _rendezvous_count[key] = generation + 1
  base = f"torch_xla/rendezvous/{tag}/{'_'.join(map(str, members))}/" \
         f"{generation}/"
  _count(torch.empty(len(payload), dtype=torch.uint8))

  def meet():
    store.set(base + str(me), payload)
    keys = [base + str(m) for m in members]
    store.wait(keys, datetime.timedelta(seconds=_world.timeout_s()))
    return [store.get(k) for k in keys]

  with _lock:
    _record_pids()
  return _run(f"rendezvous {tag!r}", meet)
