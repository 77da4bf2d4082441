"""The 'xla' backend of torch.distributed (upstream module path:
torch_xla.distributed.xla_backend).

Importing this module registers the backend and the 'xla://' rendezvous:

  import torch_xla.distributed.xla_backend
  dist.init_process_group('xla', init_method='xla://')

Design. The process group is a thin adapter: each torch.distributed call
on 'xla' tensors becomes the xm collective of the same meaning
(torch_xla/core/collectives.py), over the replicas of the group, so it takes
the same route (in the step's graph for a world of one; gloo between
processes on CPU; in-program collectives on accelerators). The returned
Work is already complete: the results are lazy 'xla' tensors or device
data, and reading them waits for what they need.

Sub-groups: dist.new_group(ranks) gives a group whose collectives are the
xm collectives with groups=[ranks] (upstream's mesh for a plain rank list);
its broadcast root is translated from the group rank to the global rank.
Ranks outside the group get what torch.distributed gives them (its calls
return early there). Among replica threads only the members meet, on the
host (torch_xla/distributed/_thread_groups.py): xm collectives there need
every replica thread of a process, which a member-only call cannot give.

'xla://' joins the job (torch_xla/distributed/_world.py) and hands
torch.distributed the job's own store, rank = xr.global_ordinal() and world
size = xr.world_size() (under SPMD, as upstream: the process index and
count), so no second coordinator is needed.

Replica threads (a process driving several devices, a thread per device:
torch_xla.launch with PJRT_LOCAL_PROCESS_COUNT, or spawn_threads) each call
init_process_group themselves and each get a process group of their own,
rank = their global ordinal: torch.distributed's world is per replica
thread there (torch_xla/distributed/_thread_worlds.py).
"""

import datetime

import torch
import torch.distributed as dist
from torch._C._distributed_c10d import ProcessGroup

from torch_xla.core import collectives as cc


def _done(result):
  future = torch.futures.Future()
  future.set_result(result)
  return torch._C._distributed_c10d._create_work_from_future(future)


_REDUCE_TYPES = {
    dist.ReduceOp.SUM: cc.REDUCE_SUM,
    dist.ReduceOp.PRODUCT: cc.REDUCE_MUL,
    dist.ReduceOp.MIN: cc.REDUCE_MIN,
    dist.ReduceOp.MAX: cc.REDUCE_MAX,
    dist.ReduceOp.BAND: cc.REDUCE_AND,
    dist.ReduceOp.BOR: cc.REDUCE_OR,
}


def _reduce_type(op):
  if op == dist.ReduceOp.AVG:
    return cc.REDUCE_SUM, True
  for key, value in _REDUCE_TYPES.items():
    if op == key:
      return value, False
  raise NotImplementedError(f"xla process group: reduce op {op} is not "
                            f"supported (SUM, AVG, PRODUCT, MIN, MAX, BAND, "
                            f"BOR are)")


class ProcessGroupXla(ProcessGroup):
  """torch.distributed process group over the job's XLA replicas.

  Args:
    prefix_store: the store torch.distributed made for the group (kept).
    rank, size: this replica's rank and the group size.
    timeout: kept for torch.distributed; the collectives' own timeout is
      TORCH_XLA_DISTRIBUTED_TIMEOUT.
  """

  def __init__(self, prefix_store, rank, size, timeout, ranks=None):
    super().__init__(rank, size)
    self.prefix_store = prefix_store
    self.timeout = timeout
    self._group_name = None
    # The global ranks (xm replica ordinals) of the group, in group-rank
    # order; None for the default group (every replica).
    self._ranks = list(ranks) if ranks else None
    # A sub-group made in a replica thread: its members meet on the host
    # (torch_xla/distributed/_thread_groups.py); None otherwise.
    self._members = None

  def _meet_members_only(self, name):
    """Called at creation: a sub-group among replica threads gets its
    member-only channel."""
    import torch_xla.runtime as xr
    from torch_xla import _replica_threads
    from torch_xla.distributed import _thread_groups

    if (self._ranks is not None and
        self._ranks != list(range(xr.world_size())) and
        _replica_threads.replica() is not None):
      self._members = _thread_groups.Channel(name, self._ranks)

  def getBackendName(self):
    return "xla"

  def _set_group_name(self, name: str) -> None:
    self._group_name = name

  @property
  def group_name(self):
    return self._group_name

  def _groups(self):
    """The xm replica groups of this group: None for every replica, else
    [ranks] (upstream's mesh for a group made by dist.new_group(ranks)).
    Only members call a group's collectives (torch.distributed returns
    early on the others), so one group is enough: on CPU the transport
    connects its members only."""
    import torch_xla.runtime as xr

    if self._ranks is None or self._ranks == list(range(xr.world_size())):
      return None
    return [self._ranks]

  def _global_rank(self, group_rank):
    return group_rank if self._ranks is None else self._ranks[group_rank]

  # Reductions.

  def allreduce(self, tensors, opts=None):
    op = opts.reduceOp if opts is not None else dist.ReduceOp.SUM
    reduce_type, average = _reduce_type(op)
    scale = 1.0 / self.size() if average else 1.0
    if self._members is not None:
      results = self._members.all_reduce(reduce_type, list(tensors), scale)
      with torch.no_grad():
        for t, r in zip(tensors, results):
          t.copy_(r)
      return _done(tensors)
    cc.all_reduce(reduce_type, list(tensors), scale=scale,
                  groups=self._groups())
    return _done(tensors)

  def allreduce_coalesced(self, tensors, opts=None):
    return self.allreduce(tensors, opts)

  def reduce_scatter(self, output_tensors, input_tensors_lists, opts=None):
    op = opts.reduceOp if opts is not None else dist.ReduceOp.SUM
    reduce_type, average = _reduce_type(op)
    scale = 1.0 / self.size() if average else 1.0
    for out, inputs in zip(output_tensors, input_tensors_lists):
      stacked = torch.cat([t.reshape(1, *t.shape) for t in inputs])
      piece = self._reduce_scatter(reduce_type, stacked, scale)
      with torch.no_grad():
        out.copy_(piece.reshape(out.shape))
    return _done(output_tensors)

  def _reduce_scatter_base(self, output, input, opts=None):
    op = opts.reduceOp if opts is not None else dist.ReduceOp.SUM
    reduce_type, average = _reduce_type(op)
    scale = 1.0 / self.size() if average else 1.0
    piece = self._reduce_scatter(reduce_type, input.reshape(-1), scale)
    with torch.no_grad():
      output.copy_(piece.reshape(output.shape))
    return _done([output])

  def _reduce_scatter(self, reduce_type, value, scale):
    """This rank's piece (along dim 0) of `value` reduced over the group."""
    if self._members is None:
      return cc.reduce_scatter(reduce_type, value, scale, 0, self.size(),
                               groups=self._groups())
    size = value.shape[0]
    if size % self.size():
      raise ValueError(
          f"reduce_scatter: input of shape {list(value.shape)} does not split "
          f"into {self.size()} equal pieces along dim 0 (the group size)")
    (reduced,) = self._members.all_reduce(reduce_type, [value], scale)
    piece = size // self.size()
    return reduced.narrow(0, self.rank() * piece, piece)

  # Gathers and copies.

  def allgather(self, output_tensors_lists, input_tensors, opts=None):
    for outputs, value in zip(output_tensors_lists, input_tensors):
      gathered = self._all_gather(value)
      with torch.no_grad():
        for i, out in enumerate(outputs):
          out.copy_(gathered[i])
    return _done([t for outs in output_tensors_lists for t in outs])

  def _all_gather(self, value):
    """Every rank's `value`, stacked along a new dim 0 in group-rank
    order."""
    if self._members is None:
      return cc.all_gather(value.reshape(1, *value.shape), dim=0,
                           groups=self._groups())
    return torch.stack(self._members.all_gather(value))

  def _allgather_base(self, output, input, opts=None):
    gathered = self._all_gather(input)
    if gathered.numel() != output.numel():
      raise ValueError(
          f"all_gather_into_tensor: output of shape {list(output.shape)} "
          f"cannot hold {self.size()} inputs of shape {list(input.shape)}")
    with torch.no_grad():
      output.copy_(gathered.reshape(output.shape))
    return _done([output])

  def broadcast(self, tensors, opts=None):
    root = self._global_rank(opts.rootRank if opts is not None else 0)
    if self._members is not None:
      results = self._members.broadcast(list(tensors), root)
      with torch.no_grad():
        for t, r in zip(tensors, results):
          t.copy_(r)
      return _done(tensors)
    cc.collective_broadcast(list(tensors), root_ordinal=root,
                            groups=self._groups())
    return _done(tensors)

  def alltoall_base(self, output, input, output_split_sizes,
                    input_split_sizes, opts=None):
    if output_split_sizes or input_split_sizes:
      raise NotImplementedError(
          "xla process group: all_to_all_single with split sizes is not "
          "supported (equal splits are)")
    if self._members is not None:
      if input.shape[0] % self.size():
        raise ValueError(
            f"all_to_all_single: input of shape {list(input.shape)} does not "
            f"split into {self.size()} equal pieces along dim 0 (the group "
            f"size)")
      result = torch.cat(self._members.all_to_all(
          list(input.chunk(self.size(), dim=0))))
    else:
      result = cc.all_to_all(input, 0, 0, self.size(), groups=self._groups())
    with torch.no_grad():
      output.copy_(result)
    return _done([output])

  # torch.distributed's newer names for the single-tensor forms.
  all_gather_single = _allgather_base
  reduce_scatter_single = _reduce_scatter_base
  all_to_all_single = alltoall_base

  def barrier(self, opts=None):
    import torch_xla

    if self._members is not None:
      # No step-wide sync here: among replica threads it would wait for
      # every replica thread, members or not.
      self._members.barrier()
      return _done([])
    torch_xla.sync()
    cc.rendezvous("torch_xla.distributed.xla_backend.barrier",
                  replicas=self._ranks or ())
    return _done([])


def _create_xla_process_group(options, pg_options=None):
  """torch.distributed's creator (extended API: `options` carries the
  group's global ranks, [] for the default group)."""
  del pg_options
  import torch_xla.runtime as xr

  if xr.is_spmd():
    raise RuntimeError(
        "the 'xla' process group takes one replica per process; under SPMD "
        "use a CPU process group ('gloo') for host-side coordination")
  group = ProcessGroupXla(options.store, options.group_rank,
                          options.group_size, options.timeout,
                          ranks=list(options.global_ranks_in_group))
  group._meet_members_only(options.group_id)
  return group


def _xla_rendezvous(url, timeout=datetime.timedelta(minutes=30), **kwargs):
  """'xla://': the job's store, rank and world size (no second
  coordinator)."""
  del url, timeout, kwargs
  import torch_xla.runtime as xr
  from torch_xla.distributed import _world

  _world.join()
  store = _world.store()
  if store is None:
    store = dist.HashStore()
  if xr.is_spmd():
    # Under SPMD a process is one participant, whatever devices it drives
    # (upstream: rank = process index, world size = process count); a CPU
    # group ('gloo') over it coordinates host work such as checkpoints.
    yield store, xr.process_index(), xr.process_count()
    return
  yield store, xr.global_ordinal(), xr.world_size()


dist.Backend.register_backend("xla", _create_xla_process_group,
                              extended_api=True, devices=["xla"])
dist.register_rendezvous_handler("xla", _xla_rendezvous)
