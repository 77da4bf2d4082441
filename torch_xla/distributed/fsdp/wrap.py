"""Auto-wrap policies (upstream name: torch_xla.distributed.fsdp.wrap).

A policy is called as `policy(module=m, recurse=..., unwrapped_params=n)`:
with recurse=True it says whether to look inside `m` for modules to wrap;
with recurse=False whether to wrap `m` itself, given the `n` parameters of
`m` that no wrapped child holds. `recursive_wrap` walks a module with a
policy and replaces the chosen submodules by `wrapper_cls(submodule, ...)`.
FSDPv2 (torch_xla/experimental/spmd_fully_sharded_data_parallel.py) calls
it with `only_wrap_children=True` (it wraps the root itself).
"""

from typing import Any, Callable, Optional, Set, Tuple, Type

import torch.nn as nn


def always_wrap_policy(*args, **kwargs) -> bool:
  """Wraps every submodule."""
  return True


def lambda_auto_wrap_policy(module: nn.Module, recurse: bool,
                            unwrapped_params: int,
                            lambda_fn: Callable[[nn.Module], bool]) -> bool:
  """Wraps the submodules for which `lambda_fn(module)` is true.

  Bind `lambda_fn` with functools.partial. Always looks inside modules.
  """
  return True if recurse else bool(lambda_fn(module))


def transformer_auto_wrap_policy(
    module: nn.Module, recurse: bool, unwrapped_params: int,
    transformer_layer_cls: Set[Type[nn.Module]]) -> bool:
  """Wraps each instance of the given layer classes (e.g. a decoder layer)
  on its own; what is left is wrapped by the outer wrapper.

  Bind `transformer_layer_cls` with functools.partial:
    functools.partial(transformer_auto_wrap_policy,
                      transformer_layer_cls={DecoderLayer})
  """
  if recurse:
    return True
  return isinstance(module, tuple(transformer_layer_cls))


def size_based_auto_wrap_policy(
    module: nn.Module,
    recurse: bool,
    unwrapped_params: int,
    min_num_params: int = int(1e8),
    force_leaf_modules: Optional[Set[Type[nn.Module]]] = None,
    exclude_wrap_modules: Optional[Set[Type[nn.Module]]] = None) -> bool:
  """Wraps modules holding at least `min_num_params` not-yet-wrapped
  parameters.

  Args:
    min_num_params: the threshold.
    force_leaf_modules: module types never looked inside (default
      size_based_auto_wrap_policy.FORCE_LEAF_MODULES: MultiheadAttention).
    exclude_wrap_modules: module types never wrapped themselves (default
      size_based_auto_wrap_policy.EXCLUDE_WRAP_MODULES: ModuleList,
      ModuleDict, which have no forward).
  """
  if force_leaf_modules is None:
    force_leaf_modules = size_based_auto_wrap_policy.FORCE_LEAF_MODULES
  if exclude_wrap_modules is None:
    exclude_wrap_modules = size_based_auto_wrap_policy.EXCLUDE_WRAP_MODULES
  if unwrapped_params < min_num_params:
    return False
  if recurse:
    return not isinstance(module, tuple(force_leaf_modules))
  return not isinstance(module, tuple(exclude_wrap_modules))


size_based_auto_wrap_policy.EXCLUDE_WRAP_MODULES = {
    nn.ModuleList, nn.ModuleDict
}
size_based_auto_wrap_policy.FORCE_LEAF_MODULES = {nn.MultiheadAttention}


def _wrap(module: nn.Module, wrapper_cls: Callable, **kwargs) -> nn.Module:
  # A module may carry its own overrides of the wrapper's arguments.
  overrides = getattr(module, "_wrap_overrides", None)
  if overrides:
    kwargs = {**kwargs, **overrides}
  return wrapper_cls(module, **kwargs)


def recursive_wrap(module: nn.Module,
                   auto_wrap_policy: Callable,
                   wrapper_cls: Callable,
                   ignored_modules: Set[nn.Module],
                   ignored_params: Set[nn.Parameter],
                   only_wrap_children: bool = False,
                   **kwargs: Any) -> Tuple[nn.Module, int]:
  """Wraps the submodules of `module` that `auto_wrap_policy` picks.

  Args:
    module: the module to walk (children are replaced in place).
    auto_wrap_policy: a policy (module docstring).
    wrapper_cls: called as wrapper_cls(submodule, **kwargs).
    ignored_modules: modules neither walked nor wrapped.
    ignored_params: parameters not counted.
    only_wrap_children: never wrap `module` itself.
    **kwargs: passed to wrapper_cls.

  Returns:
    (the module or its wrapper, the number of parameters wrapped).
  """
  if auto_wrap_policy is None or wrapper_cls is None:
    raise ValueError("recursive_wrap needs an auto_wrap_policy and a "
                     "wrapper_cls")
  if isinstance(wrapper_cls, type):
    for name, child in module.named_modules():
      if child not in ignored_modules and isinstance(child, wrapper_cls):
        raise ValueError(
            f"recursive_wrap: {name or 'the root module'} is already a "
            f"{wrapper_cls.__name__}; wrap inner modules before outer ones, "
            f"and each module once")
  total = sum(p.numel() for p in module.parameters()
              if p not in ignored_params)
  if not auto_wrap_policy(module=module, recurse=True,
                          unwrapped_params=total):
    return module, 0
  wrapped = 0
  for name, child in module.named_children():
    if child in ignored_modules:
      continue
    new_child, count = recursive_wrap(child, auto_wrap_policy, wrapper_cls,
                                      ignored_modules, ignored_params,
                                      **kwargs)
    setattr(module, name, new_child)
    wrapped += count
  if not only_wrap_children and auto_wrap_policy(
      module=module, recurse=False, unwrapped_params=total - wrapped):
    return _wrap(module, wrapper_cls, **kwargs), total
  return module, wrapped
