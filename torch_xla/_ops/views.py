"""View ops: results alias their base, with eager's in-place semantics.

A view is its own lazy value plus a ViewInfo (see torch_xla/_tensor.py):
its root, and the chain of view steps from the root to it, each with a
forward (base -> view) and an inverse (base, new view -> new base). An
in-place op on a view commits through the chain of inverses into the root
tensor (which keeps its tensor and alias IDs); every other view of that
root re-derives through its forwards before its next use. Autograd replays
view ops (XLA tensors have no as_strided), which calls these rules again on
the replayed base.

Each view op here (view, _unsafe_view, unsqueeze, squeeze, t, transpose,
permute, expand, slice, select, split, split_with_sizes, unbind) is defined
once, in C++: torch_xla/csrc/tensor/view_ops.h checks its arguments (with
eager's error text and class), computes its shape, eager's strides and
storage offset, and builds its C++ view step (tensor/views.h). A rule here
is one call of its _XLAC binding (_XLAC._view_op_*); the C++ fast rules
(torch_xla/csrc/python/fast_view_rules.cc) call the same functions, so the
two paths agree by construction.

Views that address the root's storage (diagonal, as_strided, view(dtype))
and the in-place view ops (x.t_()) are in storage_views.py.

Each view also gets the strides and storage offset eager would give it. They
are metadata only, but PyTorch's composite ops read them: `contiguous()` and
`reshape()` copy a transposed or sliced view, as in eager, instead of
returning an alias of it.

Two deliberate differences from eager:
  - `view` never fails because of strides. Our non-view results are always
    contiguous while eager's may not be (elementwise ops keep the input's
    layout), so eager's stride check cannot be reproduced exactly; being
    permissive never rejects a program that eager accepts.
  - Slice and select bounds are static (a slice op, not a dynamic slice with
    parameters): they fix the output shape anyway and static slices optimise
    better. Changing a Python index between steps recompiles, as upstream.
"""

from torch_xla import _XLAC
from torch_xla._ops.registry import aten, op

# Shared helpers (shape_ops and the indexing rules use them too). The shape
# arithmetic is the C++ core's (ir/shape_util.h), so the fast rules and these
# rules agree by construction.

contiguous_strides = _XLAC._contiguous_strides  # eager's contiguous strides
infer_size = _XLAC._infer_size  # size with its -1 resolved; eager's errors
# Eager's strides for viewing (shape, strides) as new_shape, or contiguous
# strides where eager could not view it (see the module docstring).
view_strides = _XLAC._view_strides
# Eager's clamping of slice bounds (None, negative, past the end).
clamp_slice = _XLAC._clamp_slice


def slice_value(v, dim, start, end, step):
  """v[..., start:end:step, ...] along `dim` (a handle; bounds clamped): the
  slice view's forward (tensor/views.h)."""
  return _XLAC._slice_value(v, dim, start, end, step)


def update_slice(base, new, dim, start, step):
  """`base` with base[..., start::step (len new.dims[dim]), ...] = new (on
  handles): the slice view's inverse."""
  return _XLAC._update_slice_value(base, new, dim, start, step)


def checked_index(x, d, index, op_name="select()"):
  """`index` along dim `d` of x made non-negative; IndexError naming
  `op_name` when out of range, as select's."""
  return _XLAC._wrap_index(list(x.shape), d, index, op_name)


# Reshapes.


@op(aten.view.default, aten._reshape_alias.default)
def view(x, size, stride=None):
  # _reshape_alias's strides are eager's for a contiguous input; ours come
  # from x's own (the same where eager calls it).
  return _XLAC._view_op_view(x, size)


@op(aten._unsafe_view.default)
def _unsafe_view(x, size):
  return _XLAC._view_op_unsafe_view(x, size)


@op(aten.unsqueeze.default)
def unsqueeze(x, dim):
  return _XLAC._view_op_unsqueeze(x, dim)


@op(aten.squeeze.default)
def squeeze(x):
  return _XLAC._view_op_squeeze(x, None)


@op(aten.squeeze.dim)
def squeeze_dim(x, dim):
  return _XLAC._view_op_squeeze(x, [dim])


@op(aten.squeeze.dims)
def squeeze_dims(x, dim):
  return _XLAC._view_op_squeeze(x, list(dim))


# Broadcasting.


@op(aten.expand.default)
def expand(x, size, implicit=False):
  return _XLAC._view_op_expand(x, size)


# Permutations.


@op(aten.permute.default)
def permute(x, dims):
  return _XLAC._view_op_permute(x, dims)


@op(aten.transpose.int)
def transpose(x, dim0, dim1):
  return _XLAC._view_op_transpose(x, dim0, dim1)


@op(aten.t.default)
def t(x):
  return _XLAC._view_op_t(x)


# Slicing.


@op(aten.slice.Tensor)
def slice_(x, dim=0, start=None, end=None, step=1):
  return _XLAC._view_op_slice(x, dim, start, end, step)


@op(aten.select.int)
def select(x, dim, index):
  return _XLAC._view_op_select(x, dim, index)


@op(aten.split.Tensor)
def split(x, split_size, dim=0):
  return _XLAC._view_op_split(x, split_size, dim)


@op(aten.split_with_sizes.default)
def split_with_sizes(x, split_sizes, dim=0):
  return _XLAC._view_op_split_with_sizes(x, split_sizes, dim)


@op(aten.unsafe_split.Tensor)
def unsafe_split(x, split_size, dim=0):
  # Not views in eager: copies of the pieces.
  return _XLAC._unsafe_split(x, split_size, dim)


@op(aten.unsafe_split_with_sizes.default)
def unsafe_split_with_sizes(x, split_sizes, dim=0):
  return _XLAC._unsafe_split_with_sizes(x, split_sizes, dim)


@op(aten.unbind.int)
def unbind(x, dim=0):
  return _XLAC._view_op_unbind(x, dim)
