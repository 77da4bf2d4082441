"""Views that address the root's storage rather than reshape, permute or
slice it: diagonal, as_strided and view(dtype); and the in-place view ops
(x.unsqueeze_(0), x.t_()), where x itself becomes the view; resize_ to the
same shape.

The storage views are defined once, in C++, like every other view op (see
views.py): torch_xla/csrc/tensor/view_ops.h checks their arguments (eager's
error text and class) and computes eager's strides and storage offset, and
their view steps (tensor/storage_views.h) derive the value (the diagonal; a
gather of the root's storage; a bitcast) and write it back. A rule here is
one call of its _XLAC binding. What stays Python is what rewrites the
torch wrapper itself: the in-place view ops and resize_.
"""

import torch

from torch_xla import _XLAC
from torch_xla._ops.registry import aten, op
from torch_xla._ops.views import (squeeze, squeeze_dim, squeeze_dims, t,
                                  transpose, unsqueeze)
from torch_xla._tensor import wrap


@op(aten.diagonal.default)
def diagonal(x, offset=0, dim1=0, dim2=1):
  return _XLAC._view_op_diagonal(x, offset, dim1, dim2)


@op(aten.as_strided.default)
def as_strided(x, size, stride, storage_offset=None):
  """Elements of the root's storage (a root is contiguous) at
  storage_offset + sum(i_k * stride_k)."""
  return _XLAC._view_op_as_strided(x, size, stride, storage_offset)


@op(aten.view.dtype)
def view_dtype(x, dtype):
  """x's bytes as `dtype`: a view (writes through it reach x, bit for bit);
  a dtype of another size scales the last dim, as in eager."""
  return _XLAC._view_op_view_dtype(x, dtype)


# In-place view ops (x.unsqueeze_(0), x.t_()): x itself becomes the view.


def _set_metadata(func, x, args):
  """Runs func's meta kernel on the wrapper: updates x's sizes and strides
  only (how torch.utils._python_dispatch.return_and_correct_aliasing does
  it for wrapper subclasses)."""
  with torch.utils._mode_utils.no_dispatch():
    meta_in_tls = torch._C._meta_in_tls_dispatch_include()
    torch._C._set_meta_in_tls_dispatch_include(True)
    try:
      func(x, *args)
    finally:
      torch._C._set_meta_in_tls_dispatch_include(meta_in_tls)


def _inplace_view(func, functional):
  """x.op_(...): x becomes `functional(x, ...)`, a view of x's old value, so
  other views and aliases of that value keep sharing it (as in eager)."""

  def rule(x, *args):
    new = functional(x, *args)
    _set_metadata(func, x, args)
    x._xt, x._view = new._xt, new._view
    return x

  rule.__name__ = functional.__name__ + "_"
  return rule


for _func, _functional in (
    (aten.unsqueeze_.default, unsqueeze),
    (aten.squeeze_.default, squeeze),
    (aten.squeeze_.dim, squeeze_dim),
    (aten.squeeze_.dims, squeeze_dims),
    (aten.t_.default, t),
    (aten.transpose_.default, transpose),
    (aten.as_strided_.default, as_strided),
):
  op(_func)(_inplace_view(_func, _functional))


@op(aten.resize_.default)
def resize_(x, size, memory_format=None):
  """x.resize_(size): a no-op when the shape is x's own (how exported and
  traced programs use it). An empty tensor that is no view takes the new
  shape, its elements zeros (eager leaves them uninitialized): how out=
  decompositions fill a fresh `torch.empty(0)` (torch.eye on 'xla' runs
  one). Changing the shape of a tensor with elements would change the
  storage its views share, and an 'xla' tensor's value is an immutable
  device buffer or IR: unsupported, with an error that says what to use
  instead."""
  size = [int(s) for s in size]
  if size == list(x.shape):
    return x
  if any(s < 0 for s in size):
    raise RuntimeError(f"Trying to create tensor with negative dimension "
                       f"{min(size)}: {size}")
  if x.numel() == 0 and x._view is None:
    from torch_xla._ops.copy_ops import fill
    zeros = wrap(fill(0, size, x.dtype, x.device.index))
    # set_'s meta kernel gives the wrapper the new sizes and strides.
    _set_metadata(aten.set_.source_Tensor, x, (zeros,))
    x._xt = zeros._xt
    return x
  raise NotImplementedError(
      f"aten::resize_ of an 'xla' tensor ({x.dtype}, shape "
      f"{list(x.shape)}) to {size}: 'xla' tensors cannot change their shape "
      f"in place; use x.new_empty({size}) (or reshape / slicing) instead")
