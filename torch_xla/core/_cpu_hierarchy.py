"""Collectives of a CPU job whose processes drive several devices each
(2 processes x 2 devices), one replica thread per device
(torch_xla._internal.pjrt.spawn_threads in every process).

Design. The replicas are global (ordinals over every device of the job) and
keep the semantics of 1 process x 4 devices and 4 processes x 1. The CPU
plugin runs no program across processes (docs/pods.md), so a collective
takes a two-level host route:

1. each replica thread computes its inputs and brings them to the host
   (its own device's execution; no replicated program is involved);
2. the process's replica threads meet (_replica_threads.combine); the last
   to arrive works for all of them:
   * all_reduce: it reduces the local replicas' values of each replica
     group on the host, then one gloo all_reduce per set of processes that
     the groups span (the partial sums of every group spanning the same
     processes travel together, one buffer per dtype), so a full-world
     reduction is one gloo call carrying one process's worth of payload;
     groups that lie within the process need no gloo call at all;
   * the gathers (all_gather, all_to_all, collective_permute, broadcast)
     exchange the replicas' values with a gloo all_gather per set of
     processes and pick what each replica receives;
   * rendezvous: the processes' payloads meet in the job's store;
3. each thread takes its replica's result and moves it to its device.

The gloo groups are process-level (rank = process index), made over the
job's store on first use; torch_xla/core/_cpu_transport.py counts their
payload (`stats()`) and names lost processes in errors.

A float SUM adds the local replicas first and the processes' partial sums
next, so it rounds like ((a0 + a1) + (a2 + a3)): the order is fixed by the
groups (global ordinals), never by which thread arrives last or which
process reaches gloo first (gloo adds the two processes' partial sums, and
a + b == b + a in floating point), so a launch repeats its bits exactly.

Diagnosis: `_cpu_transport.trace_all_reduce()` makes each replica keep the
host values it brought to every all_reduce and what it got back
(test/python/pods_util.py explains a wrong training run from them).
"""

import datetime
import pickle
import threading

import torch

from torch_xla import _replica_threads
from torch_xla.core import _cpu_transport as _transport

_lock = threading.Lock()
_groups = {}  # tuple(process indices) -> ProcessGroupGloo
_generations = {}  # rendezvous key -> count (run by one thread a meeting)
_local = threading.local()

_HOST_REDUCE = {
    "sum": torch.add, "mul": torch.mul, "min": torch.minimum,
    "max": torch.maximum, "and": torch.bitwise_and, "or": torch.bitwise_or,
}

# ------------------------------------------------------------------ layout


def _process_of():
  """The process index of every global replica ordinal."""
  from torch_xla import _XLAC

  return [d["process_index"] for d in _XLAC._distributed.global_devices()]


def _my_process():
  import torch_xla.runtime as xr

  return xr.process_index()


def _local_ordinals():
  """{local index: global ordinal} of this process's replica threads."""
  import torch_xla.runtime as xr

  base = xr.global_ordinal() - _replica_threads.replica()[0]
  return {i: base + i for i in range(_replica_threads.replica()[1])}


def _full_groups(groups, world):
  return [list(g) for g in groups] if groups else [list(range(world))]


def _process_group(op, processes):
  """The gloo group over `processes` (sorted process indices)."""
  import torch.distributed as dist
  from torch_xla.distributed import _world

  key = tuple(processes)
  with _lock:
    if key not in _groups:
      with _transport._lock:
        _transport._record_pids()
      if len(key) == len(set(_process_of())):
        group = _transport._run(op, _world.cpu_transport_group)
      else:
        prefix = "torch_xla/cpu_hierarchy/" + "_".join(map(str, key))
        group = _transport._run(op, lambda: dist.ProcessGroupGloo(
            dist.PrefixStore(prefix, _world.store()), key.index(_my_process()),
            len(key), datetime.timedelta(seconds=_world.timeout_s())))
      _groups[key] = group
    return _groups[key]


def _by_process_set(groups, owner, local):
  """[(process set, [group index])] for the groups holding a local replica,
  in the order of the groups list (the same on every process)."""
  sets = {}
  for gi, group in enumerate(groups):
    if any(r in local for r in group):
      span = tuple(sorted({owner[r] for r in group}))
      sets.setdefault(span, []).append(gi)
  return list(sets.items())


def _meet(op, payload, run, participants=None):
  """The local half of every collective (see the module docstring)."""
  from torch_xla.distributed import _world

  count = _replica_threads.replica()[1]
  participants = tuple(range(count)) if participants is None else \
      tuple(participants)
  counts = getattr(_local, "counts", None)
  if counts is None:
    counts = _local.counts = {}
  generation = counts.get((op, participants), 0)
  counts[(op, participants)] = generation + 1
  return _replica_threads.combine((op, participants, generation),
                                  participants, payload, run,
                                  _world.timeout_s())


# --------------------------------------------------------------- all_reduce


def all_reduce(reduce_type, tensors, scale, groups):
  """Reduced device copies of this replica's `tensors` (same order), times
  `scale`, over its replica group."""
  import torch.distributed as dist
  import torch_xla.runtime as xr

  host = _transport._to_host(tensors)
  world = xr.world_size()

  def run(payloads):
    ordinals = _local_ordinals()
    local = {o: i for i, o in ordinals.items()}
    owner = _process_of()
    full = _full_groups(groups, world)
    dtypes = []
    for t in payloads[0]:
      if t.dtype not in dtypes:
        dtypes.append(t.dtype)
    flat = {}  # (local index, dtype) -> flat wire buffer
    for i, values in payloads.items():
      for dtype in dtypes:
        flat[i, dtype] = torch.cat([
            _transport._wire(t).reshape(-1) for t in values
            if t.dtype == dtype])
    combine = _HOST_REDUCE[reduce_type]
    reduced = {}  # (group index, dtype) -> reduced buffer
    for dtype in dtypes:
      options = dist.AllreduceOptions()
      options.reduceOp = _transport._reduce_op(reduce_type, dtype)
      for span, gis in _by_process_set(full, owner, local):
        partials = []
        for gi in gis:
          part = None
          for r in full[gi]:
            if r in local:
              v = flat[local[r], dtype]
              part = v.clone() if part is None else combine(part, v)
          partials.append(part)
        if len(span) > 1:
          buf = torch.cat(partials)
          group = _process_group("all_reduce", span)
          _transport._count(buf)
          _transport._run("all_reduce",
                          lambda: group.allreduce([buf], options).wait())
          partials = list(buf.split([p.numel() for p in partials]))
        for gi, part in zip(gis, partials):
          reduced[gi, dtype] = part if scale == 1.0 else part * scale
    results = {}
    for i in payloads:
      gi = next(g for g, group in enumerate(full) if ordinals[i] in group)
      offsets = {dtype: 0 for dtype in dtypes}
      out = []
      for t in payloads[i]:
        n = t.numel()
        start = offsets[t.dtype]
        piece = reduced[gi, t.dtype][start:start + n].reshape(t.shape)
        offsets[t.dtype] = start + n
        out.append(piece.to(t.dtype) if t.dtype == torch.bool else piece)
      results[i] = out
    return results

  results = _meet("all_reduce", host, run)
  _transport._traced("all_reduce", reduce_type, scale, host, results)
  return [r.to(t.device) for r, t in zip(results, tensors)]


# ------------------------------------------------------------------ gathers


def _exchange(op, values, groups, world):
  """{ordinal: value} for every member of every group that holds a local
  replica, from `values` ({local index: host tensor}, one shape and dtype
  on every replica). Runs in the meeting's working thread."""
  local = {o: i for i, o in _local_ordinals().items()}
  owner = _process_of()
  me = _my_process()
  out = {o: _transport._wire(values[i]) for o, i in local.items()}
  sample = next(iter(out.values()))
  for span, gis in _by_process_set(groups, owner, local):
    if len(span) == 1:
      continue
    members = sorted({r for gi in gis for r in groups[gi]})
    per_process = {p: [r for r in members if owner[r] == p] for p in span}
    width = max(len(v) for v in per_process.values())
    send = torch.zeros((width,) + tuple(sample.shape), dtype=sample.dtype)
    for k, r in enumerate(per_process[me]):
      send[k] = out[r]
    recv = [torch.empty_like(send) for _ in span]
    group = _process_group(op, span)
    _transport._count(send)
    _transport._run(op, lambda: group.allgather([recv], [send]).wait())
    for p, got in zip(span, recv):
      for k, r in enumerate(per_process[p]):
        out[r] = got[k]
  return out


def _gather_meeting(op, value, groups, pick):
  """Meets the local replicas with their host `value`; pick(ordinal,
  {ordinal: value}) gives a replica's result (a host tensor)."""
  import torch_xla.runtime as xr

  world = xr.world_size()
  full = _full_groups(groups, world)

  def run(payloads):
    dtype = payloads[0].dtype
    everyone = _exchange(op, payloads, full, world)
    everyone = {o: v.to(dtype) for o, v in everyone.items()}
    return {i: pick(o, everyone) for i, o in _local_ordinals().items()}

  return _meet(op, value, run)


def _group_with(ordinal, groups, world):
  for g in _full_groups(groups, world):
    if ordinal in g:
      return list(g)
  raise ValueError(f"replica {ordinal} is in none of the groups {groups}")


def all_gather(value, dim, groups, count):
  """The group's values concatenated along `dim`, on value's device."""
  import torch_xla.runtime as xr

  del count
  world = xr.world_size()
  (host,) = _transport._to_host([value])

  def pick(o, everyone):
    return torch.cat([everyone[m] for m in _group_with(o, groups, world)],
                     dim=dim)

  return _gather_meeting("all_gather", host, groups, pick).to(value.device)


def all_to_all(pieces, concat_dim, groups, count):
  """pieces[j] goes to the group's j-th member; the received pieces,
  concatenated along `concat_dim`, on the pieces' device."""
  import torch_xla.runtime as xr

  del count
  world = xr.world_size()
  host = torch.stack(_transport._to_host(pieces))

  def pick(o, everyone):
    group = _group_with(o, groups, world)
    k = group.index(o)
    return torch.cat([everyone[m][k] for m in group], dim=concat_dim)

  return _gather_meeting("all_to_all", host, groups,
                         pick).to(pieces[0].device)


def collective_permute(value, pairs):
  """What this replica receives under `pairs` (zeros if nothing)."""
  (host,) = _transport._to_host([value])
  source = {dst: src for src, dst in pairs}

  def pick(o, everyone):
    if o in source:
      return everyone[source[o]].clone()
    return torch.zeros_like(everyone[o])

  return _gather_meeting("collective_permute", host, None,
                         pick).to(value.device)


def broadcast(tensors, root_ordinal, groups):
  """Device copies of the root replica's `tensors`. Each group has its own
  root (groups=[[0, 2], [1, 3]] puts two roots in one process), so the
  meeting hands each replica its group's values and it takes its root's."""
  import torch_xla.runtime as xr

  world = xr.world_size()

  def pick(o, everyone):  # run once for all: must not use this root
    return {m: everyone[m] for m in _group_with(o, groups, world)}

  out = []
  for t in _transport._to_host(tensors):
    out.append(_gather_meeting("broadcast", t, groups, pick)[root_ordinal])
  return [o.to(t.device) for o, t in zip(out, tensors)]


# -------------------------------------------------------------- rendezvous


def rendezvous(tag, payload, members):
  """Everyone's payload, in member order: the local members meet, then
  their processes through the job's store."""
  from torch_xla.distributed import _world

  local_of = {o: i for i, o in _local_ordinals().items()}
  participants = sorted(local_of[m] for m in members if m in local_of)
  me = _my_process()

  def run(payloads):
    owner = _process_of()
    mine = {_local_ordinals()[i]: p for i, p in payloads.items()}
    processes = sorted({owner[m] for m in members})
    key = (tag, tuple(members))
    generation = _generations.get(key, 0)
    _generations[key] = generation + 1
    everyone = dict(mine)
    if len(processes) > 1:
      store = _world.store()
      base = (f"torch_xla/rendezvous_threads/{tag}/"
              f"{'_'.join(map(str, members))}/{generation}/")
      blob = pickle.dumps(mine)
      _transport._count(torch.empty(len(blob), dtype=torch.uint8))

      def meet():
        store.set(base + str(me), blob)
        keys = [base + str(p) for p in processes]
        store.wait(keys, datetime.timedelta(seconds=_world.timeout_s()))
        return [store.get(k) for k in keys]

      with _transport._lock:
        _transport._record_pids()
      for blob_p in _transport._run(f"rendezvous {tag!r}", meet):
        everyone.update(pickle.loads(blob_p))
    ordered = [everyone[m] for m in members]
    return {i: ordered for i in payloads}

  return _meet(f"rendezvous {tag}", payload, run, participants)
