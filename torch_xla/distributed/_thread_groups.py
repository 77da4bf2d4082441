"""torch.distributed sub-groups among replica threads: the collectives of a
`dist.new_group(ranks)` group whose members are replica threads (a 2 x 2
CPU launch, or 1 process x 4 replica threads via spawn_threads).

Design. torch.distributed lets only a group's members call its
collectives (its calls return at once on the others). xm collectives with
`groups=` instead need every replica to take part, with groups that
partition the world: in one process the replica threads run one replicated
program, and on the 2 x 2 host route every replica thread of a process
meets. Neither fits a call that only some replicas make, so a sub-group's
collective meets its members only, on the host:

1. each member thread computes its inputs (its own device's execution, only
   these tensors: no step-wide sync, which would wait for every replica
   thread) and brings them to the host;
2. the members in this process meet (`_replica_threads.combine` with the
   group's local members as participants; non-members never wait); the
   last to arrive works for all of them:
   * reductions fold the local members' values in group-rank order, then
     one gloo all_reduce among the member processes (if the group spans
     several) adds the processes' partial results;
   * gathers exchange the members' values with one gloo all_gather among
     the member processes; broadcast sends the root's with one gloo
     broadcast; barrier is a gloo barrier among them;
3. each member takes its result back to its device (device data).

The gloo group of a sub-group spans exactly its member processes and is
its own (made on first use, keyed by the group's name and ranks), so
sub-groups that run at the same time, e.g. [0, 2] and [1, 3] in a 2 x 2
job, where each process works for both, never share a gloo channel. Each
is set up through a store connection of its own: two groups of a process
setting up at once over one connection deadlock (one waits in the store
for its peer process while holding the connection that the other group's
announcement needs). A group within one process needs no gloo at all. Each member
thread counts its meetings per group, so consecutive collectives of a
group never mix; members must call a group's collectives in the same order
(torch.distributed's rule), else they time out with an error naming who
did not arrive.

Only torch_xla/distributed/xla_backend.py uses this module; xm collectives
keep their own routes (torch_xla/core/collectives.py).
"""

import datetime
import threading

import torch

from torch_xla.core import _cpu_transport as _transport

_lock = threading.Lock()
_gloo = {}  # (group name, ranks) -> ProcessGroupGloo over member processes

_HOST_REDUCE = {
    "sum": torch.add, "mul": torch.mul, "min": torch.minimum,
    "max": torch.maximum, "and": torch.bitwise_and, "or": torch.bitwise_or,
}


def _owners(world):
  """The process index of every global replica ordinal."""
  import torch_xla.runtime as xr
  from torch_xla import _XLAC

  if xr.process_count() == 1:
    return [0] * world
  return [d["process_index"] for d in _XLAC._distributed.global_devices()]


class Channel:
  """One replica thread's end of a sub-group.

  Args:
    name: the group's name (torch.distributed gives every member the same).
    ranks: the group's global ranks (replica ordinals) in group-rank order.
  """

  def __init__(self, name, ranks):
    from torch_xla import _replica_threads

    ordinal, world = _replica_threads.ordinal()
    index, count = _replica_threads.replica()
    self.name = str(name)
    self.ranks = list(ranks)
    self.me = ordinal
    self.base = ordinal - index  # ordinal of this process's first replica
    owner = _owners(world)
    self.owner = owner
    self.process = owner[ordinal]
    self.local = [r for r in self.ranks if self.base <= r < self.base + count]
    self.processes = sorted({owner[r] for r in self.ranks})
    self.meetings = 0

  # --------------------------------------------------------------- meeting

  def _meet(self, op, payload, run):
    """Meets this process's members with `payload`; run({ordinal:
    payload}) -> {ordinal: result} runs once, in the last to arrive."""
    from torch_xla import _replica_threads
    from torch_xla.distributed import _world

    key = (f"{op} of the torch.distributed group of ranks {self.ranks}",
           self.name, self.meetings)
    self.meetings += 1
    participants = sorted(r - self.base for r in self.local)

    def by_index(payloads):
      out = run({self.base + i: p for i, p in payloads.items()})
      return {r - self.base: v for r, v in out.items()}

    return _replica_threads.combine(key, participants, payload, by_index,
                                    _world.timeout_s())

  def _gloo_group(self, op):
    """The gloo group among the member processes (made on first use)."""
    import torch.distributed as dist
    from torch_xla.distributed import _world

    key = (self.name, tuple(self.ranks))
    with _lock:
      group = _gloo.get(key)
    if group is None:
      prefix = (f"torch_xla/dist_subgroup/{self.name}/"
                f"{'_'.join(map(str, self.ranks))}/")
      with _transport._lock:
        _transport._record_pids()
      # Its own store connection: other groups of this process may be
      # waiting in the store for their peers at the same time.
      group = _transport._run(op, lambda: dist.ProcessGroupGloo(
          dist.PrefixStore(prefix, _world.store_client()),
          self.processes.index(self.process), len(self.processes),
          datetime.timedelta(seconds=_world.timeout_s())))
      with _lock:
        _gloo[key] = group
    return group

  def _check_alike(self, op, values):
    """Every local member brought tensors of the same shapes and dtypes."""
    shapes = {r: [(tuple(t.shape), t.dtype) for t in v]
              for r, v in values.items()}
    first = shapes[min(shapes)]
    for r, s in shapes.items():
      if s != first:
        raise ValueError(
            f"{op} on the torch.distributed group of ranks {self.ranks}: rank "
            f"{r} brought {s}, rank {min(shapes)} {first}; every member "
            f"must bring tensors of the same shapes and dtypes")

  def _exchange(self, op, values):
    """{ordinal: host tensor} of every member, from the local members'
    `values` ({ordinal: host tensor}, one shape and dtype)."""
    dtype = next(iter(values.values())).dtype
    everyone = {r: _transport._wire(v) for r, v in values.items()}
    if len(self.processes) > 1:
      sample = everyone[self.local[0]]
      per_process = {p: [r for r in self.ranks if self.owner[r] == p]
                     for p in self.processes}
      width = max(len(v) for v in per_process.values())
      send = torch.zeros((width,) + tuple(sample.shape), dtype=sample.dtype)
      for k, r in enumerate(per_process[self.process]):
        send[k] = everyone[r]
      recv = [torch.empty_like(send) for _ in self.processes]
      group = self._gloo_group(op)
      _transport._count(send)
      _transport._run(op, lambda: group.allgather([recv], [send]).wait())
      for p, got in zip(self.processes, recv):
        for k, r in enumerate(per_process[p]):
          everyone[r] = got[k]
    return {r: v.to(dtype) for r, v in everyone.items()}

  # ----------------------------------------------------------- operations

  def all_reduce(self, reduce_type, tensors, scale):
    """Device copies of `tensors` reduced over the group, times `scale`."""
    import torch.distributed as dist

    host = _transport._to_host(tensors)

    def run(values):
      self._check_alike("all_reduce", values)
      sample = values[self.local[0]]
      dtypes = []
      for t in sample:
        if t.dtype not in dtypes:
          dtypes.append(t.dtype)
      combine = _HOST_REDUCE[reduce_type]
      reduced = {}
      for dtype in dtypes:
        options = dist.AllreduceOptions()
        options.reduceOp = _transport._reduce_op(reduce_type, dtype)
        part = None
        for r in self.local:  # group-rank order
          flat = torch.cat([_transport._wire(t).reshape(-1)
                            for t in values[r] if t.dtype == dtype])
          part = flat.clone() if part is None else combine(part, flat)
        if len(self.processes) > 1:
          group = self._gloo_group("all_reduce")
          _transport._count(part)
          _transport._run("all_reduce",
                          lambda: group.allreduce([part], options).wait())
        reduced[dtype] = part if scale == 1.0 else part * scale
      out, offsets = [], {dtype: 0 for dtype in dtypes}
      for t in sample:
        start, n = offsets[t.dtype], t.numel()
        piece = reduced[t.dtype][start:start + n].reshape(t.shape)
        offsets[t.dtype] = start + n
        out.append(piece.to(t.dtype) if t.dtype == torch.bool else piece)
      return {r: out for r in values}

    results = self._meet("all_reduce", host, run)
    return [r.to(t.device) for r, t in zip(results, tensors)]

  def all_gather(self, value):
    """Device copies of every member's `value`, in group-rank order."""
    (host,) = _transport._to_host([value])

    def run(values):
      self._check_alike("all_gather", {r: [v] for r, v in values.items()})
      everyone = self._exchange("all_gather", values)
      ordered = [everyone[r] for r in self.ranks]
      return {r: ordered for r in values}

    return [v.to(value.device) for v in self._meet("all_gather", host, run)]

  def all_to_all(self, pieces):
    """pieces[k] goes to the group's k-th member; the pieces this member
    received, in group-rank order, on the pieces' device."""
    host = torch.stack(_transport._to_host(pieces))

    def run(values):
      self._check_alike("all_to_all", {r: [v] for r, v in values.items()})
      everyone = self._exchange("all_to_all", values)
      return {r: [everyone[m][self.ranks.index(r)] for m in self.ranks]
              for r in values}

    return [v.to(pieces[0].device)
            for v in self._meet("all_to_all", host, run)]

  def broadcast(self, tensors, root):
    """Device copies of the `root` member's `tensors` (root: a global
    rank in the group)."""
    import torch.distributed as dist

    if root not in self.ranks:
      raise ValueError(f"broadcast: src {root} is not a rank of the "
                       f"torch.distributed group of ranks {self.ranks}")
    host = _transport._to_host(tensors)

    def run(values):
      self._check_alike("broadcast", values)
      if root in values:
        out = [_transport._wire(t).clone() for t in values[root]]
      else:
        out = [torch.empty_like(_transport._wire(t))
               for t in values[self.local[0]]]
      if len(self.processes) > 1:
        group = self._gloo_group("broadcast")
        options = dist.BroadcastOptions()
        options.rootRank = self.processes.index(self.owner[root])
        for wire in out:
          if root in values:
            _transport._count(wire)
          _transport._run("broadcast",
                          lambda: group.broadcast([wire], options).wait())
      out = [o.to(t.dtype) for o, t in zip(out, values[self.local[0]])]
      return {r: out for r in values}

    results = self._meet("broadcast", host, run)
    return [r.to(t.device) for r, t in zip(results, tensors)]

  def barrier(self):
    """Returns once every member has reached it."""

    def run(values):
      if len(self.processes) > 1:
        group = self._gloo_group("barrier")
        _transport._run("barrier", lambda: group.barrier().wait())
      return {r: None for r in values}

    self._meet("barrier", None, run)
