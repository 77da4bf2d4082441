"""The 'xla' tensor: a torch.Tensor wrapper subclass over a C++ lazy tensor.

High level design
-----------------
Every 'xla' tensor is a `XlaTensor` (this file) holding `_xt`, a handle to the
C++ tensor (torch_xla/csrc/tensor/xla_tensor.h) that owns the tensor ID, alias
ID and state. PyTorch's autograd runs above the subclass; ATen ops reaching
`__torch_dispatch__` take one path, the C++ entry `_XLAC._torch_dispatch`
(torch_xla/csrc/python/dispatch.cc): the op's C++ fast rule for the hottest
ops (torch_xla/csrc/python/fast_*_rules.cc) when it applies, else the op's
Python rule from the registry (torch_xla/_ops, registered once with
`_XLAC._register_dispatch` by torch_xla/_ops/registry.py), else the
registry's dispatch (out= variants, decompositions, CPU fallback). Rules
build IR through torch_xla/_ir.py. Nothing executes until a sync or a read
of a value.

This module makes the one Python -> C++ hook: `_XLAC._register_python_types`
hands the C++ bindings this tensor class and the torch dtypes by code, so
C++ can create 'xla' tensors and read dtypes without importing private
Python. Every 'xla' tensor is made in one place, the C++ WrapTensor
(csrc/python/torch_tensor.cc): the fast rules and op bindings call it, and
`wrap` and `XlaTensor(handle)` here go through `_XLAC._wrap`. It also
refuses a device this process does not have.

Aliasing: tensors that share all of their data (detach, alias, in-place
results) share the same `_xt`, so an in-place update through one is seen by
all. Views of part of a tensor (slice, select, transpose, view, ...) are
separate values with a `_view` (_XLAC.ViewInfo, torch_xla/csrc/tensor/
views.h; bound in csrc/python/view_info.cc): their root handle, the root's version when they were last
derived, the chain of view steps, and eager's strides and storage offset.
An in-place update of a view writes the new value back through the chain's
inverses into the root; a view whose root changed since is re-derived
before its next use. Steps are C++, one kind per view op
(tensor/view_ops.h; the views of the root's storage in
tensor/storage_views.h). A view's
handle is linked to its ViewInfo, so a sync computes the root alone and
re-derives the view from the root's new data (no second buffer).
"""

import copy as _copy

import torch

from torch_xla import _XLAC, _dtypes

_base_data = torch._C.TensorBase.data


class XlaTensor(torch.Tensor):
  """A lazy tensor on an XLA device. See the module docstring."""

  _view = None  # _XLAC.ViewInfo for views (set per instance)

  @staticmethod
  def __new__(cls, xt, requires_grad=False):
    if cls is not XlaTensor:
      raise TypeError(f"{cls.__name__}: subclasses of XlaTensor are not "
                      f"supported; 'xla' tensors are XlaTensor")
    t = _XLAC._wrap(xt)
    if requires_grad:
      t.requires_grad_()
    return t

  __torch_function__ = torch._C._disabled_torch_function_impl

  # The one dispatch path (see the module docstring): C++ fast rule, else
  # the op's Python rule, else the registry's dispatch. An op reaching it
  # before torch_xla._ops registered its rules raises.
  __torch_dispatch__ = classmethod(_XLAC._torch_dispatch)

  def __repr__(self, *, tensor_contents=None):
    # Eager's text for the value (reading it runs pending work), with this
    # tensor's device.
    text = repr(self.detach().cpu())
    return f"{text[:-1]}, device='{self.device}')"

  # PyTorch refuses these for tensor subclasses; they read the value.
  def tolist(self):
    return self.cpu().tolist()

  def numpy(self, *, force=False):
    return self.cpu().numpy(force=force)

  def __deepcopy__(self, memo):
    # A new tensor with the same value (and sharding); nothing is read. The
    # memo keeps a tensor shared by two modules shared in the copy; a
    # Parameter (an XlaTensor marked _is_param) stays one, with its gradient
    # and attributes copied too, as eager's Tensor.__deepcopy__ does.
    if id(self) not in memo:
      with torch.no_grad():
        copy = self.clone()
      copy.requires_grad_(self.requires_grad)
      memo[id(self)] = copy
      for name, value in self.__dict__.items():
        if name not in ("_xt", "_view"):
          setattr(copy, name, _copy.deepcopy(value, memo))
      if self.is_leaf and self.grad is not None:
        copy.grad = _copy.deepcopy(self.grad, memo)
    return memo[id(self)]

  # `t.data = other` (what nn.Module._apply does when it converts an 'xla'
  # parameter to another dtype) also takes the other tensor's C++ handle, so
  # every later read and view sees the new value, not just the new dtype in
  # the metadata.
  @property
  def data(self):
    return _base_data.__get__(self)

  @data.setter
  def data(self, value):
    _base_data.__set__(self, value)  # checks; shape, dtype, strides
    self._xt = value._xt
    self._view = value._view

  def __reduce_ex__(self, protocol):
    # Pickling (torch.save) stores the CPU value, rebuilt on load by the
    # function PyTorch itself uses for storage-less device tensors: it is
    # on torch.load's weights_only allowlist, so a plain torch.load (default
    # weights_only=True) of a state_dict of 'xla' tensors works.
    return (torch._utils._rebuild_device_tensor_from_cpu_tensor,
            (self.detach().cpu(), self.dtype, str(self.device),
             self.requires_grad))


_XLAC._register_python_types(tensor_class=XlaTensor,
                             dtypes=_dtypes.TORCH_DTYPES)


def wrap(xt) -> XlaTensor:
  """A new torch tensor for a C++ handle."""
  return _XLAC._wrap(xt)


def xt_of(t):
  """The up-to-date C++ handle of an 'xla' tensor (a view whose root changed
  since is re-derived first)."""
  if t._view is not None:
    return _XLAC._view_refresh(t._xt, t._view)
  return t._xt


def commit(t: XlaTensor, value) -> XlaTensor:
  """In-place update of `t` to `value` (a handle); writes views back."""
  if t._view is None:
    _XLAC._set_ir_value(t._xt, value, True)
  else:
    _XLAC._view_commit(t._xt, t._view, value)
  return t


def is_xla(t) -> bool:
  return type(t) is XlaTensor
