"""Meshes, partition specs and mark_sharding.

A `Mesh` arranges the device ordinals in an n-d array with named axes. A
partition spec says, per tensor dimension, which mesh axes split it
(an axis index or name, a tuple of them, or None to keep it whole). Mesh
axes the spec does not use replicate the tensor. The result is an
`_XLAC.OpSharding` (XLA's HloSharding) that the C++ tensor layer applies:
data goes to the devices shard by shard, a pending value is annotated for
the partitioner, a placeholder records it.
"""

import enum
import math
import types
from typing import Optional, Sequence, Tuple, Union

import numpy as np
import torch

import torch_xla
from torch_xla import _XLAC
from torch_xla.distributed.spmd.xla_sharded_tensor import XLAShardedTensor

PartitionSpec = Tuple[Union[None, int, str, Tuple[Union[int, str], ...]], ...]


class ShardingType(enum.IntEnum):
  """Upstream's sharding kinds (values match _XLAC.OpSharding.type)."""
  REPLICATED = 0
  MAXIMAL = 1
  TUPLE = 2
  TILED = 3
  MANUAL = 4
  PARTIAL = 5
  UNKNOWN = 6


class Mesh:
  """Devices arranged in an n-d array with optional axis names.

  Args:
    device_ids: the device ordinals, row-major over the mesh (a permutation
      of a subset of range(device count); in a job of several processes
      the ordinals of the global device list, every process's devices).
    mesh_shape: the mesh dimensions; their product is len(device_ids).
    axis_names: optional unique names, one per mesh dimension.

  Example:
    mesh = Mesh(range(4), (2, 2), ("data", "model"))
    xs.mark_sharding(w, mesh, (None, "model"))
  """

  def __init__(self, device_ids, mesh_shape: Sequence[int],
               axis_names: Optional[Sequence[str]] = None):
    ids = np.asarray(list(device_ids), dtype=np.int64).reshape(-1)
    mesh_shape = tuple(int(d) for d in mesh_shape)
    if ids.size != math.prod(mesh_shape):
      raise ValueError(
          f"Mesh: {ids.size} device ids do not fill a mesh of shape "
          f"{mesh_shape} ({math.prod(mesh_shape)} devices)")
    if len(np.unique(ids)) != ids.size:
      raise ValueError(f"Mesh: device ids must be unique, got {ids.tolist()}")
    count = _XLAC._xla_spmd_device_count()
    bad = [int(i) for i in ids if i < 0 or i >= count]
    if bad:
      raise ValueError(f"Mesh: device ids {bad} are out of range: the "
                       f"runtime has {count} devices (CPU_NUM_DEVICES; in "
                       f"a job of several processes, every process's "
                       f"devices)")
    if axis_names is not None:
      axis_names = tuple(axis_names)
      if len(axis_names) != len(mesh_shape):
        raise ValueError(f"Mesh: {len(axis_names)} axis names for a "
                         f"{len(mesh_shape)}-d mesh")
      if len(set(axis_names)) != len(axis_names):
        raise ValueError(f"Mesh: axis names must be unique, got {axis_names}")
    self.device_ids = ids
    self.mesh_shape = mesh_shape
    self.axis_names = axis_names

  def size(self) -> int:
    return int(self.device_ids.size)

  def shape(self):
    """{axis name or index: size}."""
    names = self.axis_names or range(len(self.mesh_shape))
    return dict(zip(names, self.mesh_shape))

  def get_logical_mesh(self) -> np.ndarray:
    return self.device_ids.reshape(self.mesh_shape)

  def get_axis_name_idx(self, name) -> int:
    if isinstance(name, int):
      if not 0 <= name < len(self.mesh_shape):
        raise ValueError(f"mesh axis {name} is out of range for a "
                         f"{len(self.mesh_shape)}-d mesh")
      return name
    if self.axis_names is None or name not in self.axis_names:
      raise ValueError(f"unknown mesh axis name {name!r}; the mesh has axes "
                       f"{self.axis_names}")
    return self.axis_names.index(name)

  def get_op_sharding(self, partition_spec: PartitionSpec) -> "_XLAC.OpSharding":
    """The sharding that `partition_spec` gives a tensor of its rank."""
    used = []
    tiles = []
    for entry in partition_spec:
      axes = entry if isinstance(entry, tuple) else (entry,)
      dim_tiles = 1
      for axis in axes:
        if axis is None:
          continue
        index = self.get_axis_name_idx(axis)
        if index in used:
          raise ValueError(f"partition spec {partition_spec}: mesh axis "
                           f"{axis!r} is used twice")
        used.append(index)
        dim_tiles *= self.mesh_shape[index]
      tiles.append(dim_tiles)
    if all(t == 1 for t in tiles):
      return _XLAC.OpSharding.replicated()
    unused = [i for i in range(len(self.mesh_shape)) if i not in used]
    # Devices in tile order: the mesh transposed so the axes splitting
    # dimension 0 come first, ..., then the unused (replicating) axes.
    devices = self.get_logical_mesh().transpose(used + unused).reshape(-1)
    replication = math.prod(self.mesh_shape[i] for i in unused)
    return _XLAC.OpSharding(tiles + ([replication] if replication > 1 else []),
                            devices.tolist(), replication > 1)

  def __repr__(self):
    return (f"Mesh(device_ids={self.device_ids.tolist()}, "
            f"mesh_shape={self.mesh_shape}, axis_names={self.axis_names})")


_global_mesh = None


def set_global_mesh(mesh: Mesh) -> None:
  global _global_mesh
  _global_mesh = mesh


def get_global_mesh() -> Optional[Mesh]:
  return _global_mesh


def get_1d_mesh(axis_name: Optional[str] = None) -> Mesh:
  """All devices in one axis."""
  count = _XLAC._xla_spmd_device_count()
  return Mesh(range(count), (count,),
              (axis_name,) if axis_name is not None else None)


def _check_spec(t: torch.Tensor, partition_spec) -> tuple:
  if not isinstance(partition_spec, (tuple, list)):
    raise ValueError(f"partition_spec must be a tuple, got {partition_spec!r}")
  partition_spec = tuple(partition_spec)
  if len(partition_spec) != t.dim():
    raise ValueError(
        f"partition spec {partition_spec} has {len(partition_spec)} entries "
        f"but the tensor has rank {t.dim()} (shape {tuple(t.shape)}): give "
        f"one entry per dimension, None for dimensions kept whole")
  return partition_spec


def _global_tensor(t):
  if isinstance(t, XLAShardedTensor):
    return t.global_tensor
  if not isinstance(t, torch.Tensor) or t.device.type != "xla":
    raise ValueError(f"mark_sharding needs an 'xla' tensor, got "
                     f"{type(t).__name__} on "
                     f"{getattr(t, 'device', 'no device')}")
  return t


def mark_sharding(t, mesh: Mesh, partition_spec: PartitionSpec) -> XLAShardedTensor:
  """Splits `t` over the mesh as `partition_spec` says.

  Data already on the virtual device goes to the devices shard by shard; a
  pending value is annotated (the partitioner splits it); a placeholder
  records the sharding.

  Args:
    t: an 'xla' tensor (or XLAShardedTensor).
    mesh: the device mesh.
    partition_spec: per dimension, a mesh axis (index or name), a tuple of
      axes, or None.

  Returns:
    An XLAShardedTensor view of `t` (which is sharded in place).

  Example:
    xs.mark_sharding(x, Mesh(range(4), (4, 1)), (0, None))
  """
  t = _global_tensor(t)
  op_sharding = mesh.get_op_sharding(_check_spec(t, partition_spec))
  _XLAC._xla_mark_sharding(t, op_sharding)
  return XLAShardedTensor(t, mesh_shape=mesh.mesh_shape,
                          partition_spec=partition_spec)


def clear_sharding(t) -> torch.Tensor:
  """Drops `t`'s sharding (its data returns to the virtual device's host
  copy and is sent replicated when next used)."""
  t = _global_tensor(t)
  _XLAC._xla_clear_sharding(t)
  return t


class _MarkShardingWithGradients(torch.autograd.Function):

  @staticmethod
  def forward(ctx, t, mesh, partition_spec):
    ctx.mesh = mesh
    ctx.partition_spec = partition_spec
    out = t.clone()
    mark_sharding(out, mesh, partition_spec)
    return out

  @staticmethod
  def backward(ctx, grad):
    grad = grad.clone()
    mark_sharding(grad, ctx.mesh, ctx.partition_spec)
    return grad, None, None


def mark_sharding_with_gradients(t: torch.Tensor, mesh: Mesh,
                                 partition_spec: PartitionSpec) -> torch.Tensor:
  """Like mark_sharding, and the gradient flowing back to `t` gets the same
  sharding. Returns a new tensor (use it in place of `t`)."""
  t = _global_tensor(t)
  _check_spec(t, partition_spec)
  return _MarkShardingWithGradients.apply(t, mesh, partition_spec)


class ShardingSpec:
  """A mesh and partition spec to apply later (e.g. input_sharding=)."""

  def __init__(self, mesh: Mesh, partition_spec: PartitionSpec):
    self.mesh = mesh
    self.partition_spec = tuple(partition_spec)

  def apply(self, t: torch.Tensor) -> XLAShardedTensor:
    return mark_sharding(t, self.mesh, self.partition_spec)

  def __repr__(self):
    return f"ShardingSpec({self.mesh!r}, {self.partition_spec})"


def _einsum_linear(module, input):
  """nn.Linear's forward as one einsum over the leading dimensions (no
  flattening to 2-d, so shardings of those dimensions survive)."""
  out = torch.einsum("...n,mn->...m", input, module.weight)
  if module.bias is not None:
    out = out + module.bias
  return out


def apply_xla_patch_to_nn_linear(module: torch.nn.Module) -> torch.nn.Module:
  """Makes every nn.Linear in `module` (itself included) compute its matrix
  product as an einsum over the input's leading dimensions instead of
  flattening them to one, so sharding annotations on those dimensions
  propagate through the layer. Values and gradients are unchanged.

  Args:
    module: the model; patched in place.

  Returns:
    `module`.

  Example:
    model = apply_xla_patch_to_nn_linear(model)
  """
  for sub in module.modules():
    if isinstance(sub, torch.nn.Linear):
      sub.forward = types.MethodType(_einsum_linear, sub)
  return module
