"""The *_copy variants of view ops (select_copy, slice_copy, split_copy,
...): functionalized and exported programs call them. Each is its view op's
rule followed by a clone, so the result owns its value and is no view of
the input. Registered for every `foo_copy` overload whose `foo` overload
takes the same arguments and has a rule (imported after the view rules).
"""

import torch

from torch_xla._ops.registry import RULES, aten, op


def _arguments(overload):
  return [(a.name, str(a.type)) for a in overload._schema.arguments]


def _clone(value):
  if isinstance(value, torch.Tensor):
    return value.clone()
  return type(value)(v.clone() for v in value)


def _copy_rule(view):

  def rule(*args, **kwargs):
    return _clone(view(*args, **kwargs))

  rule.__name__ = f"{view.__name__}_copy"
  return rule


def _register():
  for view, rule in list(RULES.items()):
    packet = view.overloadpacket
    if packet._qualified_op_name.split("::")[0] != "aten":
      continue
    copies = getattr(aten, packet.__name__ + "_copy", None)
    if copies is None:
      continue
    copy = getattr(copies, view._overloadname, None)
    if (copy is not None and copy not in RULES and
        _arguments(view) == _arguments(copy)):
      op(copy)(_copy_rule(rule))


_register()
