"""torch.distributed.checkpoint planners for 'xla' tensors, sharded or not
(upstream names: SPMDSavePlanner, SPMDLoadPlanner).

Design. torch.distributed.checkpoint (DCP) saves chunks: each WriteItem is
one box of a tensor, and the checkpoint's metadata lists every tensor's
global size and its chunks. Each process plans its own part; DCP agrees
the global plan over its process group (in a job of several processes a
CPU group, `dist.init_process_group('gloo', init_method='xla://')`, whose
ranks are the process indices under SPMD). Here:

* Saving: a sharded 'xla' tensor contributes one chunk per distinct shard
  of this process, read from its own device only (`_get_local_shards`: no
  gather, no execution); DCP's global plan keeps one copy of a chunk that
  several devices or processes hold, and each process writes its chunks to
  its own file. An unsharded 'xla' tensor is written whole from one host
  copy (host data, or any one replica).
* Loading: a sharded target reads only the saved chunks that overlap its
  own shards (DCP's resharding read items, one per overlap), into a host
  buffer of its global shape of which only those boxes are filled; the
  buffer then goes to the devices with the target's sharding, which sends
  each device of this process its own box only, and the target takes that
  device data in place (its tensor ID, alias ID and sharding stay). So the
  saved mesh and the target's need not agree. An unsharded target reads
  the whole tensor.
* Nothing here compiles or executes a program: both directions move device
  data only. In a job of several processes a pending value (an IR value)
  would need a program over the processes (which the CPU plugin refuses),
  so it is refused up front with an error naming the tensor. A single
  process computes pending values first (one execution).

Everything that is not an 'xla' tensor takes DCP's default path.
"""

import dataclasses
import io
import re

import torch
from torch.distributed.checkpoint._nested_dict import flatten_state_dict
from torch.distributed.checkpoint._traverse import set_element
from torch.distributed.checkpoint.default_planner import (DefaultLoadPlanner,
                                                          DefaultSavePlanner)
from torch.distributed.checkpoint.metadata import (ChunkStorageMetadata,
                                                   MetadataIndex,
                                                   TensorProperties,
                                                   TensorStorageMetadata)
from torch.distributed.checkpoint.planner import (TensorWriteData, WriteItem,
                                                  WriteItemType)
from torch.distributed.checkpoint.planner_helpers import (
    create_read_items_for_chunk_list)

from torch_xla import _XLAC


def _is_xla(value) -> bool:
  return isinstance(value, torch.Tensor) and value.device.type == "xla"


def _is_sharded(value) -> bool:
  return _is_xla(value) and bool(_XLAC._get_xla_sharding_spec(value))


def _process_count() -> int:
  import torch_xla.runtime as xr

  return xr.process_count()


def check_saveable(fqn, t, role):
  """Refuses, naming the tensor (`fqn`), an 'xla' tensor to save or to load
  into that has no value (a placeholder, a donated buffer), or whose value
  only a program could produce when this process is one of several (such a
  program spans the processes; the CPU plugin runs none). `role` names the
  caller in the error."""
  state = t._xt.state
  if state in ("placeholder", "deleted"):
    raise RuntimeError(f"{role}: {fqn} ({list(t.shape)}, {t.dtype}) is a "
                       f"{state} tensor and has no value to checkpoint")
  count = _process_count()
  if state == "IR value" and count > 1:
    raise RuntimeError(
        f"{role}: {fqn} ({list(t.shape)}, {t.dtype}) holds a pending "
        f"computation, not device data. In a job of {count} processes "
        f"computing it is a program across the processes, which the CPU "
        f"PJRT plugin does not run (docs/pods.md), so a checkpoint moves "
        f"device data only: save values that a completed step left on the "
        f"devices (after torch_xla.sync()) or that mark_sharding placed, and "
        f"load into such tensors")


def _distinct_shards(t):
  """This process's shards of `t`, one per distinct box: [(starts, sizes,
  handle)], empty (padding-only) boxes left out. No transfer."""
  (shards,) = _XLAC._get_local_shards([t])
  seen = {}
  for handle, box, _ in shards:
    starts = tuple(a for a, _ in box)
    sizes = tuple(max(0, b - a) for a, b in box)
    if starts not in seen and 0 not in sizes:
      seen[starts] = (starts, sizes, handle)
  return list(seen.values())


_SPEC = re.compile(
    r"\{devices=\[([0-9,]+)\]([0-9,]+)( last_tile_dim_replicate)?\}")


def op_sharding(t):
  """The OpSharding of 'xla' tensor `t` (over every device of the job,
  not only this process's), from its HLO sharding text."""
  text = _XLAC._get_xla_sharding_spec(t)
  if text == "{replicated}":
    return _XLAC.OpSharding.replicated()
  match = _SPEC.fullmatch(text)
  if match is None:
    raise ValueError(f"distributed_checkpoint: cannot rebuild the sharding "
                     f"{text!r} of a {list(t.shape)} tensor")
  tiles = [int(n) for n in match.group(1).split(",")]
  devices = [int(n) for n in match.group(2).split(",")]
  return _XLAC.OpSharding(tiles, devices,
                          replicate_last_dim=bool(match.group(3)))


def _read_regions(boxes):
  """The regions to read for this process's distinct shard boxes: their
  bounding box when they tile it (a process's devices usually hold one
  block), so that a saved chunk overlapping several of them is read once;
  else the boxes themselves."""
  if len(boxes) < 2:
    return boxes
  rank = len(boxes[0][0])
  lo = [min(s[d] for s, _ in boxes) for d in range(rank)]
  hi = [max(s[d] + n[d] for s, n in boxes) for d in range(rank)]
  sizes = [b - a for a, b in zip(lo, hi)]
  if _volume(sizes) == sum(_volume(n) for _, n in boxes):
    return [(tuple(lo), tuple(sizes))]
  return boxes


def _volume(sizes) -> int:
  n = 1
  for s in sizes:
    n *= s
  return n


class SPMDSavePlanner(DefaultSavePlanner):
  """Saves 'xla' tensors: sharded ones shard by shard, each distinct shard
  of this process once; others whole. Use with
  torch.distributed.checkpoint.save(state_dict, storage_writer=...,
  planner=SPMDSavePlanner()); in a job of several processes pass a CPU
  process group (default: torch.distributed's default group)."""

  def __init__(self):
    super().__init__()
    self._sharded = {}  # fqn -> tensor
    self._shards = {}  # fqn -> {starts: handle}

  def set_up_planner(self, state_dict, storage_meta=None,
                     is_coordinator=False):
    from torch_xla.core.xla_model import _to_cpu_tree

    _require_world("SPMDSavePlanner")
    flat, mappings = flatten_state_dict(state_dict)
    for fqn, value in flat.items():
      if _is_xla(value):
        check_saveable(fqn, value, "SPMDSavePlanner")
    self._sharded = {k: v for k, v in flat.items() if _is_sharded(v)}
    rest = {k: v for k, v in flat.items() if k not in self._sharded}
    rest = _to_cpu_tree(rest)  # unsharded 'xla' tensors: host copies
    super().set_up_planner(rest, storage_meta, is_coordinator)
    self.mappings = mappings

  def create_local_plan(self):
    plan = super().create_local_plan()
    items = list(plan.items)
    self._shards = {}
    for fqn, t in self._sharded.items():
      properties = TensorProperties(dtype=t.dtype)
      shards = _distinct_shards(t)
      self._shards[fqn] = {starts: handle for starts, _, handle in shards}
      for starts, sizes, _ in shards:
        items.append(WriteItem(
            index=MetadataIndex(fqn, torch.Size(starts)),
            type=WriteItemType.SHARD,
            tensor_data=TensorWriteData(
                chunk=ChunkStorageMetadata(offsets=torch.Size(starts),
                                           sizes=torch.Size(sizes)),
                properties=properties, size=t.shape)))
    self.plan = dataclasses.replace(plan, items=items)
    return self.plan

  def resolve_data(self, write_item):
    fqn = write_item.index.fqn
    if fqn not in self._sharded:
      return super().resolve_data(write_item)
    from torch_xla import _tensor

    starts = tuple(write_item.tensor_data.chunk.offsets)
    sizes = tuple(write_item.tensor_data.chunk.sizes)
    handle = self._shards[fqn].get(starts)
    if handle is None:
      raise RuntimeError(f"SPMDSavePlanner: {fqn} has no shard at {starts} "
                         f"on this process")
    data = _tensor.wrap(handle).cpu()  # this shard only (padding cut below)
    return data[tuple(slice(0, n) for n in sizes)].contiguous()


class SPMDLoadPlanner(DefaultLoadPlanner):
  """Loads into 'xla' tensors in place, whatever mesh the checkpoint was
  saved from: a sharded target reads only the saved chunks that overlap
  its own shards, and only its own shards go to its devices. Use with
  torch.distributed.checkpoint.load(state_dict, storage_reader=...,
  planner=SPMDLoadPlanner())."""

  def __init__(self):
    super().__init__()
    self._targets = {}  # fqn -> (xla tensor, host buffer)
    self._boxes = {}  # sharded fqn -> [(starts, sizes)] of this process
    self._pending = {}  # fqn -> elements still to read
    self._user_state_dict = None
    self._user_mappings = None

  def set_up_planner(self, state_dict, metadata=None, is_coordinator=False):
    _require_world("SPMDLoadPlanner")
    flat, mappings = flatten_state_dict(state_dict)
    self._user_state_dict, self._user_mappings = state_dict, mappings
    self._targets, self._boxes = {}, {}
    host = {}
    for fqn, value in flat.items():
      if not _is_xla(value):
        host[fqn] = value
        continue
      check_saveable(fqn, value, "SPMDLoadPlanner")
      buffer = torch.empty(value.shape, dtype=value.dtype)
      self._targets[fqn] = (value, buffer)
      if _is_sharded(value):
        self._boxes[fqn] = [(s, n) for s, n, _ in _distinct_shards(value)]
      else:
        host[fqn] = buffer
    super().set_up_planner(host, metadata, is_coordinator)

  def create_local_plan(self):
    plan = super().create_local_plan()
    items = list(plan.items)
    for fqn, boxes in self._boxes.items():
      target = self._targets[fqn][0]
      md = self.metadata.state_dict_metadata.get(fqn)
      if not isinstance(md, TensorStorageMetadata):
        raise RuntimeError(
            f"SPMDLoadPlanner: the checkpoint has no tensor {fqn} (it holds "
            f"{sorted(self.metadata.state_dict_metadata)})")
      if tuple(md.size) != tuple(target.shape):
        raise ValueError(f"SPMDLoadPlanner: {fqn} was saved with shape "
                         f"{list(md.size)}, the target has "
                         f"{list(target.shape)}")
      chunks = [ChunkStorageMetadata(offsets=torch.Size(s),
                                     sizes=torch.Size(n))
                for s, n in _read_regions(boxes)]
      reads = create_read_items_for_chunk_list(fqn, md, chunks)
      covered = sum(_volume(r.lengths) for r in reads)
      needed = sum(_volume(n) for _, n in boxes)
      if covered != needed:
        raise RuntimeError(f"SPMDLoadPlanner: the checkpoint's chunks of "
                           f"{fqn} cover {covered} of the {needed} elements "
                           f"of this process's shards")
      items.extend(reads)
    self._pending = {}
    for item in items:
      fqn = item.dest_index.fqn
      if fqn in self._targets:
        self._pending[fqn] = self._pending.get(fqn, 0) + _volume(item.lengths)
    for fqn, (target, _) in self._targets.items():
      if not target.numel() or fqn in self._pending:
        continue
      if fqn in self._boxes and not self._boxes[fqn]:
        # This process's devices hold only padding of `fqn` (a small
        # tensor over many devices): nothing to read, but they still take
        # the new value's (padding-only) shards.
        self._place(fqn)
        continue
      raise RuntimeError(f"SPMDLoadPlanner: the checkpoint has no data "
                         f"for {fqn}")
    self.plan = dataclasses.replace(plan, items=items)
    return self.plan

  def resolve_tensor(self, read_item):
    fqn = read_item.dest_index.fqn
    if fqn not in self._boxes:
      return super().resolve_tensor(read_item)
    # A box of the global host buffer: the local chunk's offset plus the
    # read item's offset inside it.
    buffer = self._targets[fqn][1]
    origin = read_item.dest_index.offset or [0] * buffer.dim()
    view = buffer
    for dim, (start, off, length) in enumerate(
        zip(origin, read_item.dest_offsets, read_item.lengths)):
      view = view.narrow(dim, start + off, length)
    return view

  def load_bytes(self, read_item, value: io.BytesIO):
    # A non-tensor value goes into the caller's (nested) state dict.
    fqn = read_item.dest_index.fqn
    loaded = torch.load(value, weights_only=False)
    self.state_dict[fqn] = loaded
    set_element(self._user_state_dict, self._user_mappings[fqn], loaded)

  def commit_tensor(self, read_item, tensor):
    super().commit_tensor(read_item, tensor)
    fqn = read_item.dest_index.fqn
    if fqn not in self._targets:
      return
    self._pending[fqn] -= _volume(read_item.lengths)
    if self._pending[fqn] == 0:
      self._place(fqn)

  def _place(self, fqn):
    """The target takes the loaded value as device data: its own shards
    only (mark_sharding of host data sends each device of this process its
    box), no program."""
    target, buffer = self._targets[fqn]
    if fqn in self._boxes:
      import torch_xla

      value = buffer.to(torch_xla.device())  # host data until sharded
      _XLAC._xla_mark_sharding(value, op_sharding(target))
    else:
      value = buffer.to(target.device)
    _XLAC._set_ir_value(target, value)
    self._targets[fqn] = (target, None)  # the host buffer can go


def _require_world(role):
  """Several processes must plan together over torch.distributed: without
  it each would write as rank 0 into the same files."""
  import torch.distributed as dist

  count = _process_count()
  if count > 1 and not dist.is_initialized():
    raise RuntimeError(
        f"{role}: this process is one of {count} in the job, but "
        f"torch.distributed is not initialized, so the processes cannot "
        f"agree on one checkpoint. Call dist.init_process_group('gloo', "
        f"init_method='xla://') in every process first (a CPU group; "
        f"under SPMD its ranks are the process indices)")
