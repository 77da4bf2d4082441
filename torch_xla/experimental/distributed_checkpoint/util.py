"""prime_optimizer (upstream name: torch_xla.experimental.
distributed_checkpoint.prime_optimizer): gives an optimizer its state so a
checkpoint can be loaded into it.

Design. torch.distributed.checkpoint loads in place, into tensors that
already exist, but an optimizer creates its state (momentum buffers, Adam
moments) only at its first step. Priming runs that step with zero
gradients, each sharded like its parameter, so every state tensor exists
with the parameter's sharding and the SPMD load planner can fill it shard
by shard. The step is a real update (weight decay still moves the
parameters, step counts advance): prime only right before a restore that
overwrites both. It runs programs (a sync before and after the step), so
in a job of several processes it needs a plugin that runs programs across
processes.
"""

import torch

from torch_xla import _XLAC


def prime_optimizer(optimizer: torch.optim.Optimizer) -> torch.optim.Optimizer:
  """Creates `optimizer`'s state by one step with zero gradients.

  Args:
    optimizer: an optimizer over 'xla' parameters (sharded or not).

  Returns:
    The same optimizer, its state now present and synced to the devices.

  Example:
    opt = prime_optimizer(torch.optim.Adam(model.parameters()))
    state = {'model': model.state_dict(), 'optim': opt.state_dict()}
    CheckpointManager(path, 10).restore(step, state)
    opt.load_state_dict(state['optim'])
  """
  import torch_xla
  from torch_xla.experimental.distributed_checkpoint.planners import (
      op_sharding)

  torch_xla.sync()  # the parameters as device data
  for group in optimizer.param_groups:
    for p in group["params"]:
      if not p.requires_grad:
        continue
      grad = torch.zeros_like(p, requires_grad=False)
      if p.device.type == "xla" and _XLAC._get_xla_sharding_spec(p):
        _XLAC._xla_mark_sharding(grad, op_sharding(p))
      p.grad = grad
  optimizer.step()
  for group in optimizer.param_groups:
    for p in group["params"]:
      p.grad = None
      if p.device.type != "xla" or not _XLAC._get_xla_sharding_spec(p):
        continue
      # State of the parameter's shape (moments, momentum) takes its
      # sharding, so the load planner fills it shard by shard.
      for value in optimizer.state.get(p, {}).values():
        if (isinstance(value, torch.Tensor) and value.device.type == "xla"
            and value.shape == p.shape and
            _XLAC._get_xla_sharding_spec(value) !=
            _XLAC._get_xla_sharding_spec(p)):
          _XLAC._xla_mark_sharding(value, op_sharding(p))
  torch_xla.sync()
  return optimizer
