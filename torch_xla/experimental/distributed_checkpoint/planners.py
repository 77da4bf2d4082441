"""torch.distributed.checkpoint planners for 'xla' tensors, sharded or not
(upstream names: SPMDSavePlanner, SPMDLoadPlanner).

Design. torch.distributed.checkpoint (DCP) saves chunks: each WriteItem is
one box of a tensor, and the checkpoint's metadata lists every tensor's
global size and its chunks. Here:

* Saving: a sharded 'xla' tensor contributes one chunk per distinct shard
  of this process (replicas of a box are written once), read from its own
  device only (`XLAShardedTensor.local_shards`: no gather); a process
  writes only its own shards, the storage writer puts them in its own file.
  An unsharded 'xla' tensor is written whole, from one host copy.
* Loading: each target 'xla' tensor gets a host buffer of its global
  shape; DCP fills it from whatever chunks the checkpoint has, so the saved
  mesh and the target's need not agree (resharding). When a buffer is
  complete, it goes to the device with the target's own sharding (shards
  only) and is copied into the target in place.

Everything that is not an 'xla' tensor takes DCP's default path.
"""

import dataclasses
import io
import itertools

import torch
from torch.distributed.checkpoint._nested_dict import flatten_state_dict
from torch.distributed.checkpoint._traverse import set_element
from torch.distributed.checkpoint.default_planner import (DefaultLoadPlanner,
                                                          DefaultSavePlanner)
from torch.distributed.checkpoint.metadata import (ChunkStorageMetadata,
                                                   MetadataIndex,
                                                   TensorProperties)
from torch.distributed.checkpoint.planner import (TensorWriteData, WriteItem,
                                                  WriteItemType)

from torch_xla import _XLAC


def _is_xla(value) -> bool:
  return isinstance(value, torch.Tensor) and value.device.type == "xla"


def _is_sharded(value) -> bool:
  return _is_xla(value) and bool(_XLAC._get_xla_sharding_spec(value))


def _distinct_shards(t):
  """This process's shards of `t`, one per distinct box: [(starts, sizes,
  handle)]."""
  (shards,) = _XLAC._get_local_shards([t])
  seen = {}
  for handle, box, _ in shards:
    starts = tuple(a for a, _ in box)
    sizes = tuple(max(0, b - a) for a, b in box)
    if starts not in seen:
      seen[starts] = (starts, sizes, handle)
  return list(seen.values())


def sharding_of(t):
  """The OpSharding `t` has, rebuilt from its shards' boxes and devices."""
  (shards,) = _XLAC._get_local_shards([t])
  rank = t.dim()
  starts = [sorted({box[d][0] for _, box, _ in shards}) for d in range(rank)]
  tiles = [len(s) for s in starts]
  owners = {}
  for _, box, device in shards:
    tile = tuple(starts[d].index(box[d][0]) for d in range(rank))
    owners.setdefault(tile, []).append(device)
  replicas = len(shards) // max(1, len(owners))
  if len(owners) == 1:
    return _XLAC.OpSharding.replicated()
  devices = []
  for tile in itertools.product(*(range(n) for n in tiles)):
    devices.extend(sorted(owners[tile]))
  if replicas > 1:
    return _XLAC.OpSharding(tiles + [replicas], devices,
                            replicate_last_dim=True)
  return _XLAC.OpSharding(tiles, devices)


class SPMDSavePlanner(DefaultSavePlanner):
  """Saves 'xla' tensors: sharded ones shard by shard, each distinct shard
  of this process once; others whole. Use with
  torch.distributed.checkpoint.save(state_dict, storage_writer=...,
  planner=SPMDSavePlanner())."""

  def __init__(self):
    super().__init__()
    self._sharded = {}

  def set_up_planner(self, state_dict, storage_meta=None,
                     is_coordinator=False):
    from torch_xla.core.xla_model import _to_cpu_tree

    flat, mappings = flatten_state_dict(state_dict)
    self._sharded = {k: v for k, v in flat.items() if _is_sharded(v)}
    rest = {k: v for k, v in flat.items() if k not in self._sharded}
    rest = _to_cpu_tree(rest)  # unsharded 'xla' tensors: one execution
    super().set_up_planner(rest, storage_meta, is_coordinator)
    self.mappings = mappings

  def create_local_plan(self):
    plan = super().create_local_plan()
    items = list(plan.items)
    for fqn, t in self._sharded.items():
      properties = TensorProperties(dtype=t.dtype)
      for starts, sizes, _ in _distinct_shards(t):
        if 0 in sizes:
          continue  # an empty padding-only shard
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
    starts = tuple(write_item.tensor_data.chunk.offsets)
    sizes = tuple(write_item.tensor_data.chunk.sizes)
    for shard_starts, _, handle in _distinct_shards(self._sharded[fqn]):
      if shard_starts == starts:
        from torch_xla import _tensor

        data = _tensor.wrap(handle).cpu()  # this shard only
        return data[tuple(slice(0, n) for n in sizes)].contiguous()
    raise RuntimeError(f"SPMDSavePlanner: {fqn} has no shard at {starts}")


class SPMDLoadPlanner(DefaultLoadPlanner):
  """Loads into 'xla' tensors in place, whatever mesh the checkpoint was
  saved from: each target gets its global value assembled on the host from
  the saved chunks, then only its own shards go to its devices. Use with
  torch.distributed.checkpoint.load(state_dict, storage_reader=...,
  planner=SPMDLoadPlanner())."""

  def __init__(self):
    super().__init__()
    self._targets = {}  # fqn -> (xla tensor, host buffer)
    self._pending = {}  # fqn -> elements still to read
    self._user_state_dict = None
    self._user_mappings = None

  def set_up_planner(self, state_dict, metadata=None, is_coordinator=False):
    flat, mappings = flatten_state_dict(state_dict)
    self._user_state_dict, self._user_mappings = state_dict, mappings
    self._targets = {}
    host = {}
    for fqn, value in flat.items():
      if _is_xla(value):
        buffer = torch.empty(value.shape, dtype=value.dtype)
        self._targets[fqn] = (value, buffer)
        host[fqn] = buffer
      else:
        host[fqn] = value
    super().set_up_planner(host, metadata, is_coordinator)

  def create_local_plan(self):
    plan = super().create_local_plan()
    self._pending = {}
    for item in plan.items:
      fqn = item.dest_index.fqn
      if fqn in self._targets:
        n = 1
        for length in item.lengths:
          n *= length
        self._pending[fqn] = self._pending.get(fqn, 0) + n
    for fqn, (target, _) in self._targets.items():
      if target.numel() and fqn not in self._pending:
        raise RuntimeError(f"SPMDLoadPlanner: the checkpoint has no data "
                           f"for {fqn}")
    return plan

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
    n = 1
    for length in read_item.lengths:
      n *= length
    self._pending[fqn] -= n
    if self._pending[fqn] == 0:
      self._place(fqn)

  def _place(self, fqn):
    import torch_xla

    target, buffer = self._targets[fqn]
    value = buffer.to(torch_xla.device() if _is_sharded(target) else
                      target.device)
    if _is_sharded(target):
      _XLAC._xla_mark_sharding(value, sharding_of(target))
    with torch.no_grad():
      target.copy_(value)
    self._targets[fqn] = (target, None)  # the host buffer can go
