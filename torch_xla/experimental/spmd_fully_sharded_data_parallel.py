"""FSDPv2: fully sharded data parallel through SPMD (upstream name:
torch_xla.experimental.spmd_fully_sharded_data_parallel).

High level design
-----------------
FSDP keeps 1/N of every weight on each of N devices and gathers a weight
only while a layer runs. With SPMD that needs no collectives of our own:
the wrapper annotates and the partitioner does the rest.
- Every parameter is sharded along the mesh axis named 'fsdp', on its
  largest dimension (xs.mark_sharding): each device holds 1/N of it (its
  data is sent shard by shard; see docs/spmd.md).
- The wrapped module's output is sharded along 'fsdp' on its batch
  dimension (shard_output), so the activations are data parallel. Given
  weights sharded one way and activations the other, the partitioner
  all-gathers each weight where it is used and reduce-scatters its
  gradient: the FSDP algorithm, in the compiled program.
- A backward hook puts an optimization barrier over each wrapped module's
  gradients (xm.optimization_barrier_), so XLA does not fuse the gradient
  computations of all layers into one huge region.

Wrapping each transformer layer on its own (auto_wrap_policy, see
torch_xla/distributed/fsdp/wrap.py) shards each layer's output too. The
mesh comes from the `mesh` argument or xs.get_global_mesh().
"""

import warnings
from typing import Any, Callable, Optional

import torch
import torch.nn as nn

import torch_xla.core.xla_model as xm
import torch_xla.distributed.spmd as xs
from torch_xla import _XLAC
from torch_xla.distributed.fsdp.wrap import recursive_wrap


def _partition_spec(t: torch.Tensor, extra_data_axis: Optional[str] = None,
                    largest_dim: bool = False) -> tuple:
  """'fsdp' (with extra_data_axis before it) on dim 0, or on the largest
  dim; None elsewhere. Scalars stay replicated."""
  spec = [None] * t.dim()
  if not spec:
    return ()
  dim = t.shape.index(max(t.shape)) if largest_dim else 0
  spec[dim] = (extra_data_axis, "fsdp") if extra_data_axis else "fsdp"
  return tuple(spec)


def _first_tensor(output):
  if isinstance(output, torch.Tensor):
    return output
  if isinstance(output, tuple) and output and isinstance(
      output[0], torch.Tensor):
    warnings.warn("FSDPv2: the module returns a tuple; only its first "
                  "element is sharded. Pass shard_output to shard others.")
    return output[0]
  raise RuntimeError(
      f"FSDPv2 cannot shard an output of type {type(output).__name__}: pass "
      f"shard_output=fn, where fn(output, mesh) calls xs.mark_sharding on "
      f"the output's tensors (batch dimension along 'fsdp')")


def _backward_optimization_barrier(module: nn.Module) -> None:
  """After `module`'s backward, one optimization barrier over its
  parameters' gradients and its input gradients."""

  def hook(m, grad_input, grad_output):
    grads = [p.grad for p in m.parameters() if p.grad is not None]
    grads += [g for g in grad_input if isinstance(g, torch.Tensor)]
    if grads:
      xm.optimization_barrier_(grads)

  module.register_full_backward_hook(hook)


class SpmdFullyShardedDataParallel(nn.Module):
  """Shards `module`'s parameters and output along the mesh's 'fsdp' axis
  (module docstring).

  Args:
    module: the module to wrap (moved to 'xla' if it is not there).
    mesh: the device mesh; default xs.get_global_mesh(). It must have an
      axis named 'fsdp'.
    shard_output: fn(output, mesh) sharding the forward's output; default:
      the output tensor (or a tuple's first element) is sharded along
      'fsdp' on dim 0.
    auto_wrap_policy: wrap submodules in their own FSDPv2 first (see
      torch_xla.distributed.fsdp.wrap, e.g. transformer_auto_wrap_policy).
    auto_wrapper_callable: what wraps those submodules, called as
      fn(submodule, mesh=..., shard_output=...); default this class.
    extra_data_axis: another mesh axis sharded together with 'fsdp' (e.g.
      'data' for data parallel across slices).

  Raises:
    ValueError: no mesh (and no global mesh), a mesh without an 'fsdp'
      axis, or an extra_data_axis the mesh lacks.

  Example:
    xs.set_global_mesh(xs.Mesh(range(n), (n, 1), ('fsdp', 'model')))
    model = SpmdFullyShardedDataParallel(model, auto_wrap_policy=policy)
  """

  def __init__(self,
               module: nn.Module,
               *,
               mesh: Optional[xs.Mesh] = None,
               shard_output: Optional[Callable] = None,
               auto_wrap_policy: Optional[Callable] = None,
               auto_wrapper_callable: Optional[Callable] = None,
               extra_data_axis: Optional[str] = None):
    if isinstance(module, SpmdFullyShardedDataParallel):
      raise RuntimeError(
          "FSDPv2: the module is already wrapped; for nested wrapping, wrap "
          "the inner modules first, then the outer one")
    forward = getattr(type(module), "forward", nn.Module.forward)
    if forward is nn.Module.forward:
      raise RuntimeError(
          f"FSDPv2: {type(module).__name__} defines no forward (ModuleList, "
          f"ModuleDict): wrap the modules inside it, or a module whose "
          f"forward calls them")
    if mesh is None:
      mesh = xs.get_global_mesh()
      if mesh is None:
        raise ValueError(
            "FSDPv2: no mesh given and no global mesh set: pass mesh=, or "
            "call xs.set_global_mesh(xs.Mesh(..., axis_names=('fsdp', ...)))")
    axis_names = tuple(mesh.axis_names or ())
    if "fsdp" not in axis_names:
      raise ValueError(
          f"FSDPv2: the mesh must have an axis named 'fsdp' (the axis "
          f"weights and activations are sharded on); its axes are "
          f"{axis_names or 'unnamed'}")
    if extra_data_axis and extra_data_axis not in axis_names:
      raise ValueError(
          f"The provided {extra_data_axis} axis is not in the mesh "
          f"(axes: {axis_names}).")
    super().__init__()

    if auto_wrap_policy is not None:
      for name, sub in module.named_modules():
        if isinstance(sub, SpmdFullyShardedDataParallel):
          raise ValueError(
              f"FSDPv2: {name} is already wrapped; with auto_wrap_policy "
              f"no submodule may be wrapped beforehand")
      recursive_wrap(
          module,
          auto_wrap_policy=auto_wrap_policy,
          wrapper_cls=auto_wrapper_callable or SpmdFullyShardedDataParallel,
          ignored_modules=set(),
          ignored_params=set(),
          only_wrap_children=True,
          mesh=mesh,
          shard_output=shard_output)

    self._orig_module = module.to("xla")
    self._mesh = mesh
    # Parameters a wrapped submodule (or the user) sharded already keep
    # their sharding: an outer wrapper shards only what is left.
    for param in module.parameters():
      if _XLAC._get_xla_sharding_spec(param) == "":
        xs.mark_sharding(param, mesh, _partition_spec(param,
                                                      largest_dim=True))
    _backward_optimization_barrier(module)

    if shard_output is None:

      def shard_output(output, mesh):
        tensor = _first_tensor(output)
        xs.mark_sharding(tensor, mesh, _partition_spec(tensor,
                                                       extra_data_axis))

    self._shard_output = shard_output

  @property
  def module(self) -> nn.Module:
    """The wrapped module (as DDP's `.module`)."""
    return self._orig_module

  def forward(self, *args: Any, **kwargs: Any) -> Any:
    output = self._orig_module(*args, **kwargs)
    self._shard_output(output, self._mesh)
    return output

  def __getattr__(self, name: str):
    # Attributes the wrapper lacks come from the wrapped module.
    try:
      return super().__getattr__(name)
    except AttributeError:
      return getattr(self._orig_module, name)

  def __getitem__(self, key):
    # Indexing reaches a wrapped nn.Sequential.
    return self._orig_module[key]
