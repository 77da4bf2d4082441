"""Collectives across the replicas of a job (re-exported by xla_model as
xm.all_reduce, xm.all_gather, ...; upstream's signatures and semantics).

Design. A replica is one process's default device; `groups` lists replica
ordinals (xr.global_ordinal()), e.g. [[0, 1], [2, 3]]; None or [] means one
group of every replica. Where a collective runs depends on the job:

* One process (world size 1): the collectives are IR ops that lower to
  StableHLO collectives with replica groups (stablehlo.all_reduce, ...),
  traced into the step's one program like any other op; XLA runs them over
  the program's one replica.
* Several processes on CPU: the CPU PJRT plugin cannot run a program across
  processes ("Multiprocess computations aren't implemented on the CPU
  backend", docs/pods.md), so the values travel between processes through
  a gloo process group over the job's store (torch_xla/core/_cpu_transport.py).
  This costs a device->host and a host->device copy of the payload and ends
  the lazy graph at the collective (its inputs are computed first).
* Several processes on CPU, each driving several devices (2 x 2) with a
  replica thread per device (torch_xla._internal.pjrt.spawn_threads): a
  hierarchical host route (torch_xla/core/_cpu_hierarchy.py): the local
  replicas meet and combine on the host, one gloo call crosses between
  processes, and each replica takes its result back to its device.
* Several processes on TPU/GPU: collectives must lower into the program
  (StableHLO collectives with replica groups) and XLA runs them; that
  lowering is not built yet, so they raise NotImplementedError rather than
  silently taking the CPU route.
"""

import io
from typing import Callable, List, Optional, Sequence, Union

import torch

REDUCE_SUM = "sum"
REDUCE_MUL = "mul"
REDUCE_AND = "and"
REDUCE_OR = "or"
REDUCE_MIN = "min"
REDUCE_MAX = "max"
_REDUCE_TYPES = (REDUCE_SUM, REDUCE_MUL, REDUCE_AND, REDUCE_OR, REDUCE_MIN,
                 REDUCE_MAX)


def _xr():
  import torch_xla.runtime as xr

  return xr


def _check_reduce_type(op: str, reduce_type: str) -> None:
  if reduce_type not in _REDUCE_TYPES:
    raise ValueError(
        f"{op}: unknown reduce_type {reduce_type!r}; use one of xm.REDUCE_SUM, "
        f"REDUCE_MUL, REDUCE_AND, REDUCE_OR, REDUCE_MIN, REDUCE_MAX "
        f"({', '.join(repr(r) for r in _REDUCE_TYPES)})")


def _check_tensor(op: str, name: str, value) -> None:
  if not isinstance(value, torch.Tensor):
    raise TypeError(f"{op}: {name} must be a torch.Tensor, got "
                    f"{type(value).__name__}")


def _group_of(op: str, groups, ordinal: int, world: int) -> List[int]:
  """The replica group holding `ordinal`, checked against the world."""
  if not groups:
    return list(range(world))
  seen = set()
  mine = None
  for group in groups:
    for r in group:
      if not 0 <= r < world:
        raise ValueError(
            f"{op}: groups {groups} name replica {r}, but the world has "
            f"{world} replica(s) (ordinals 0..{world - 1})")
      if r in seen:
        raise ValueError(f"{op}: groups {groups} list replica {r} twice")
      seen.add(r)
    if ordinal in group:
      mine = list(group)
  if mine is None:
    raise ValueError(
        f"{op}: groups {groups} do not include this replica (ordinal "
        f"{ordinal}); every replica must be in exactly one group")
  sizes = {len(g) for g in groups}
  if len(sizes) > 1:
    raise ValueError(f"{op}: groups {groups} differ in size; XLA replica "
                     f"groups must all have the same size")
  return mine


def _route(op: str):
  """'local': in the program (a world of one, or replicas as threads of one
  process); 'cpu': through the host between processes (gloo), either one
  replica per process or a replica thread per device of each process."""
  from torch_xla import _replica_threads

  xr = _xr()
  threads = _replica_threads.replica() is not None
  if threads and not _replica_threads.is_multiprocess():
    return "local"
  if xr.world_size() == 1:
    return "local"
  if not threads and xr.addressable_device_count() > 1:
    raise NotImplementedError(
        f"{op}: this process drives {xr.addressable_device_count()} devices in "
        f"a {xr.process_count()}-process job; run a replica thread per device "
        f"(torch_xla._internal.pjrt.spawn_threads(fn)) so that each device is "
        f"a replica, or start one device per process (CPU_NUM_DEVICES=1, as "
        f"torch_xla.launch does), or use SPMD")
  if xr.device_type() == "CPU":
    return "cpu"
  raise NotImplementedError(
      f"{op}: collectives between processes on {xr.device_type()} lower into "
      f"the program as StableHLO collectives, which this build does not do "
      f"yet (docs/pods.md). On CPU they travel through gloo")


def _transport():
  """The CPU host route: one replica per process (_cpu_transport), or a
  replica thread per device of each process (_cpu_hierarchy)."""
  from torch_xla import _replica_threads
  from torch_xla.core import _cpu_hierarchy, _cpu_transport

  if _replica_threads.is_multiprocess():
    return _cpu_hierarchy
  return _cpu_transport


# In-graph collectives: IR ops lowered to StableHLO collectives with replica
# groups (csrc/lowering/collective_lowering.cc), part of the step's program.

_IR_KIND = {REDUCE_SUM: "sum", REDUCE_MUL: "prod", REDUCE_AND: "and",
            REDUCE_OR: "or", REDUCE_MIN: "min", REDUCE_MAX: "max"}


def _replica_groups(groups):
  """IR attributes of `groups` (None: one group of every replica)."""
  world = _xr().world_size()
  groups = [list(g) for g in groups] if groups else [list(range(world))]
  return {"replica_groups": [r for g in groups for r in g],
          "group_size": len(groups[0])}


def _inputs_first(tensors):
  """In a replica thread of one process: computes the pending inputs of a
  collective in their own program (only these tensors, on this thread's
  device) before the collective is traced.

  The program that holds a collective is replicated, and every replica must
  bring the same program text. A sync computes every live tensor, and
  right after loss.backward() autograd's device threads may still be
  releasing backward's temporaries, so one replica's program could hold a
  temporary another's no longer does (docs/pods.md). With its inputs
  computed here, a set of tensors every replica names alike, the
  collective starts from device data and its program at the next sync is
  built from what the step traced after it. A world of one keeps the
  collective inside the step's one program."""
  from torch_xla import _XLAC, _replica_threads
  from torch_xla._tensor import XlaTensor

  if _replica_threads.replica() is None:
    return
  pending = [t for t in tensors if isinstance(t, XlaTensor)]
  if pending:
    _XLAC._sync_for_read(pending)


def _in_graph(kind, value, attrs):
  """The IR op `kind` over an 'xla' tensor; a new lazy 'xla' tensor."""
  from torch_xla import _ir
  from torch_xla._tensor import XlaTensor, wrap, xt_of

  if not isinstance(value, XlaTensor):
    raise TypeError(f"{kind}: expected an 'xla' tensor, got a tensor on "
                    f"{value.device} (move it with .to('xla'))")
  return wrap(_ir._op(_ir.K[kind], [xt_of(value)], attrs))


# ---------------------------------------------------------------- all_reduce


def _graph_reduce(reduce_type, value, scale, groups):
  attrs = {"kind": _IR_KIND[reduce_type], **_replica_groups(groups)}
  if (reduce_type in (REDUCE_AND, REDUCE_OR) and
      value.dtype not in (torch.bool,) and not value.dtype.is_floating_point
      and attrs["group_size"] == 1):
    # XLA's CPU runtime has no bitwise AND/OR cross-replica reduction
    # ("Unsupported reduction computation"); over one replica it is the
    # identity, so the op is left out.
    result = value.clone()
  else:
    result = _in_graph("all_reduce", value, attrs)
  return result if scale == 1.0 else result * scale


def all_reduce(reduce_type: str,
               inputs: Union[torch.Tensor, List[torch.Tensor]],
               scale: float = 1.0,
               groups: Optional[List[List[int]]] = None,
               pin_layout: bool = True):
  """Reduces `inputs` over the replicas of each group; the result is
  multiplied by `scale`.

  Args:
    reduce_type: xm.REDUCE_SUM, REDUCE_MUL, REDUCE_AND, REDUCE_OR,
      REDUCE_MIN or REDUCE_MAX (AND/OR: bitwise on integers, logical on bool).
    inputs: a tensor (a new reduced tensor is returned) or a list of tensors
      (reduced in place; the list is returned).
    scale: multiplies the reduced value (e.g. 1 / world_size for a mean).
    groups: replica groups, e.g. [[0, 1], [2, 3]]; None: all replicas.
    pin_layout: accepted for upstream compatibility (layouts are XLA's).

  Returns:
    The reduced tensor, or `inputs` reduced in place.
  """
  del pin_layout
  _check_reduce_type("all_reduce", reduce_type)
  single = isinstance(inputs, torch.Tensor)
  tensors = [inputs] if single else list(inputs)
  for i, t in enumerate(tensors):
    _check_tensor("all_reduce", f"inputs[{i}]", t)
  xr = _xr()
  _group_of("all_reduce", groups, xr.global_ordinal(), xr.world_size())
  if _route("all_reduce") == "local":
    _inputs_first(tensors)
    if single:
      return _graph_reduce(reduce_type, inputs, scale, groups)
    with torch.no_grad():
      for t in tensors:
        t.copy_(_graph_reduce(reduce_type, t, scale, groups))
    return inputs
  results = _transport().all_reduce(reduce_type, tensors, scale, groups)
  if single:
    return results[0]
  with torch.no_grad():
    for t, r in zip(tensors, results):
      t.copy_(r)
  return inputs


# ------------------------------------------------- gathers, scatters, moves


def all_gather(value: torch.Tensor,
               dim: int = 0,
               groups: Optional[List[List[int]]] = None,
               output: Optional[torch.Tensor] = None,
               pin_layout: bool = True,
               channel_id=None,
               use_global_device_ids=None) -> torch.Tensor:
  """Concatenates `value` of every replica of the group along `dim`, in
  group order.

  Args:
    value: this replica's tensor (same shape on all replicas).
    dim: the gather dimension.
    groups: replica groups; None: all replicas.
    output: optional tensor that receives the result (copied in).
    pin_layout, channel_id, use_global_device_ids: accepted for upstream
      compatibility.

  Returns:
    The gathered tensor (`output` when given).
  """
  del pin_layout, channel_id, use_global_device_ids
  if isinstance(value, (list, tuple)):
    return [all_gather(v, dim, groups, None) for v in value]
  _check_tensor("all_gather", "value", value)
  if value.dim() == 0:
    raise ValueError("all_gather: value is a scalar (0-d) tensor; gather "
                     "along a dimension needs at least one (reshape it to [1])")
  dim = dim % value.dim()
  xr = _xr()
  group = _group_of("all_gather", groups, xr.global_ordinal(), xr.world_size())
  if _route("all_gather") == "local":
    _inputs_first([value])
    result = _in_graph("all_gather", value,
                       {"dim": dim, **_replica_groups(groups)})
  else:
    result = _transport().all_gather(value, dim, groups, len(group))
  if output is not None:
    with torch.no_grad():
      output.copy_(result)
    return output
  return result


def reduce_scatter(reduce_type: str,
                   input: Union[torch.Tensor, List[torch.Tensor]],
                   scale: float,
                   scatter_dim: int,
                   shard_count: int,
                   groups: Optional[List[List[int]]] = None,
                   output=None,
                   pin_layout: bool = True,
                   channel_id=None,
                   use_global_device_ids=None):
  """Reduces `input` over the group, then gives replica i of the group the
  i-th of `shard_count` equal pieces along `scatter_dim` (times `scale`).

  Args:
    reduce_type: as for all_reduce.
    input: a tensor, or a list of tensors (each reduced and scattered).
    scale: multiplies the result.
    scatter_dim: the dimension split into shard_count pieces.
    shard_count: the group size.
    groups: replica groups; None: all replicas.
    output: optional tensor (or list, for a list input) receiving the result.

  Returns:
    This replica's piece (or a list of them; `output` when given).
  """
  del pin_layout, channel_id, use_global_device_ids
  _check_reduce_type("reduce_scatter", reduce_type)
  if isinstance(input, (list, tuple)):
    outs = output if output is not None else [None] * len(input)
    if len(outs) != len(input):
      raise ValueError(f"reduce_scatter: output has {len(outs)} tensors for "
                       f"{len(input)} inputs")
    return [
        reduce_scatter(reduce_type, t, scale, scatter_dim, shard_count, groups,
                       o) for t, o in zip(input, outs)
    ]
  _check_tensor("reduce_scatter", "input", input)
  xr = _xr()
  group = _group_of("reduce_scatter", groups, xr.global_ordinal(),
                    xr.world_size())
  if shard_count != len(group):
    raise ValueError(
        f"reduce_scatter: shard_count is {shard_count} but the replica group "
        f"{group} has {len(group)} members")
  scatter_dim = scatter_dim % input.dim()
  size = input.shape[scatter_dim]
  if size % shard_count:
    raise ValueError(
        f"reduce_scatter: input of shape {list(input.shape)} has size {size} "
        f"along scatter_dim {scatter_dim}, not divisible by shard_count "
        f"{shard_count}")
  if _route("reduce_scatter") == "local":
    _inputs_first([input])
    result = _in_graph("reduce_scatter", input, {
        "kind": _IR_KIND[reduce_type], "scatter_dim": scatter_dim,
        **_replica_groups(groups)})
    if scale != 1.0:
      result = result * scale
  else:
    reduced = _transport().all_reduce(reduce_type, [input], scale, groups)[0]
    piece = size // shard_count
    index = group.index(xr.global_ordinal())
    result = reduced.narrow(scatter_dim, index * piece, piece).clone()
  if output is not None:
    with torch.no_grad():
      output.copy_(result)
    return output
  return result


def all_to_all(value: torch.Tensor,
               split_dimension: int,
               concat_dimension: int,
               split_count: int,
               groups: Optional[List[List[int]]] = None,
               pin_layout: bool = True) -> torch.Tensor:
  """Splits `value` into `split_count` pieces along `split_dimension`, sends
  piece j to the group's j-th replica, and concatenates the pieces received
  (in group order) along `concat_dimension`.

  Returns:
    The concatenated tensor.
  """
  del pin_layout
  _check_tensor("all_to_all", "value", value)
  xr = _xr()
  group = _group_of("all_to_all", groups, xr.global_ordinal(), xr.world_size())
  if split_count != len(group):
    raise ValueError(
        f"all_to_all: split_count is {split_count} but the replica group "
        f"{group} has {len(group)} members")
  split_dimension %= value.dim()
  concat_dimension %= value.dim()
  if value.shape[split_dimension] % split_count:
    raise ValueError(
        f"all_to_all: value of shape {list(value.shape)} has size "
        f"{value.shape[split_dimension]} along split_dimension "
        f"{split_dimension}, not divisible by split_count {split_count}")
  if _route("all_to_all") == "local":
    _inputs_first([value])
    return _in_graph("all_to_all", value, {
        "split_dimension": split_dimension,
        "concat_dimension": concat_dimension, **_replica_groups(groups)})
  pieces = list(value.chunk(split_count, dim=split_dimension))
  return _transport().all_to_all(pieces, concat_dimension, groups,
                                 len(group))


def collective_permute(value: torch.Tensor,
                       pairs: List[List[int]]) -> torch.Tensor:
  """Sends `value` from each pair's source replica to its target replica.

  Args:
    value: this replica's tensor.
    pairs: [[source, target], ...]; a replica is the target of at most one
      pair. A replica that is no pair's target receives zeros.

  Returns:
    The tensor this replica received.
  """
  _check_tensor("collective_permute", "value", value)
  xr = _xr()
  world = xr.world_size()
  targets = set()
  for pair in pairs:
    if len(pair) != 2 or not all(0 <= r < world for r in pair):
      raise ValueError(
          f"collective_permute: pair {list(pair)} is not [source, target] "
          f"with ordinals in 0..{world - 1}")
    if pair[1] in targets:
      raise ValueError(f"collective_permute: replica {pair[1]} is the target "
                       f"of several pairs in {pairs}")
    targets.add(pair[1])
  if _route("collective_permute") == "local":
    _inputs_first([value])
    return _in_graph("collective_permute", value, {
        "source_target_pairs": [r for p in pairs for r in p]})
  return _transport().collective_permute(value, [list(p) for p in pairs])


def collective_broadcast(tensors: List[torch.Tensor],
                         root_ordinal: int = 0,
                         groups: Optional[List[List[int]]] = None,
                         pin_layout: bool = True) -> None:
  """Copies the root replica's `tensors` into every replica's, in place."""
  del pin_layout
  tensors = list(tensors)
  xr = _xr()
  group = _group_of("collective_broadcast", groups, xr.global_ordinal(),
                    xr.world_size())
  if root_ordinal not in group:
    raise ValueError(f"collective_broadcast: root_ordinal {root_ordinal} is "
                     f"not in this replica's group {group}")
  if _route("collective_broadcast") == "local":
    if xr.world_size() == 1:
      return
    # In the program: the root keeps its values, the others contribute
    # zeros, and a sum over the group gives everyone the root's.
    keep = 1 if xr.global_ordinal() == root_ordinal else 0
    _inputs_first(tensors)
    with torch.no_grad():
      for t in tensors:
        t.copy_(_graph_reduce(REDUCE_SUM, t * keep, 1.0, groups))
    return
  results = _transport().broadcast(tensors, root_ordinal, groups)
  with torch.no_grad():
    for t, r in zip(tensors, results):
      t.copy_(r)


# -------------------------------------------------------- out-of-graph meets


def rendezvous(tag: str, payload: bytes = b"",
               replicas: Sequence[int] = ()) -> List[bytes]:
  """Waits until every replica (or those in `replicas`) reaches the named
  rendezvous, and exchanges `payload`.

  Returns:
    The payloads of the participating replicas, in ordinal order.
  """
  if not isinstance(payload, (bytes, bytearray)):
    raise TypeError(f"rendezvous: payload must be bytes, got "
                    f"{type(payload).__name__}")
  xr = _xr()
  world = xr.world_size()
  members = sorted(replicas) if replicas else list(range(world))
  if xr.global_ordinal() not in members:
    raise ValueError(f"rendezvous {tag!r}: replicas {list(replicas)} do not "
                     f"include this replica ({xr.global_ordinal()})")
  if world == 1:
    return [bytes(payload)]
  from torch_xla import _replica_threads

  if (_replica_threads.replica() is not None and
      not _replica_threads.is_multiprocess()):
    everyone = _replica_threads.exchange(bytes(payload))
    return [everyone[m] for m in members]
  return _transport().rendezvous(tag, bytes(payload), members)


def mesh_reduce(tag: str, data, reduce_fn: Callable):
  """Gathers `data` (any picklable value; 'xla' tensors are moved to the
  CPU) from every replica and returns reduce_fn(list_of_data), the list in
  ordinal order. Runs outside the graph."""
  from torch_xla.core.xla_model import _to_cpu_tree

  cpu_data = _to_cpu_tree(data)
  buffer = io.BytesIO()
  torch.save(cpu_data, buffer)
  payloads = rendezvous(tag, buffer.getvalue())
  values = [torch.load(io.BytesIO(p), weights_only=False) for p in payloads]
  return reduce_fn(values)


# -------------------------------------------------------------- optimizers


def _gradients(optimizer) -> List[torch.Tensor]:
  grads = []
  for group in optimizer.param_groups:
    for p in group["params"]:
      if p.grad is not None:
        grads.append(p.grad)
  return grads


def reduce_gradients(optimizer, groups=None, pin_layout: bool = True) -> None:
  """Averages the gradients of `optimizer`'s parameters over the replicas
  (sum times 1 / world size, as upstream). No-op for a world of one."""
  world = _xr().world_size()
  if world == 1:
    return
  grads = _gradients(optimizer)
  if grads:
    all_reduce(REDUCE_SUM, grads, scale=1.0 / world, groups=groups,
               pin_layout=pin_layout)


def optimizer_step(optimizer, barrier: bool = False, optimizer_args=None,
                   groups=None, pin_layout: bool = True):
  """Averages the gradients over the replicas (reduce_gradients), then
  optimizer.step(**optimizer_args); with barrier=True also mark_step().

  Returns:
    What optimizer.step returns (the loss for closures).
  """
  import torch_xla

  reduce_gradients(optimizer, groups=groups, pin_layout=pin_layout)
  loss = optimizer.step(**(optimizer_args or {}))
  if barrier:
    torch_xla.sync()
  return loss


# ------------------------------------------------------------ replica info


def xrt_world_size(defval: int = 1) -> int:
  """Number of replicas (xr.world_size(); upstream's older name)."""
  del defval
  return _xr().world_size()


def get_ordinal(defval: int = 0) -> int:
  """This replica's global ordinal (xr.global_ordinal())."""
  del defval
  return _xr().global_ordinal()


def get_local_ordinal(defval: int = 0) -> int:
  """This replica's ordinal on its host (xr.local_ordinal())."""
  del defval
  return _xr().local_ordinal()


def is_master_ordinal(local: bool = True) -> bool:
  """True on replica 0 of the host (local=True) or of the job."""
  return (get_local_ordinal() if local else get_ordinal()) == 0
