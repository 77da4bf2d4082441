"""View ops: results alias their base, with eager's in-place semantics.

A view is its own lazy value plus a pair of pure functions on C++ handles
(see torch_xla/_tensor.py): forward(base) -> view and inverse(base,
new_view) -> new base. An in-place op on a view commits through the chain of
inverses into the root tensor (which keeps its tensor and alias IDs); every
other view of that root re-derives through its forwards before its next use.
Autograd replays view ops (XLA tensors have no as_strided), which calls
these rules again on the replayed base.

Views that address the root's storage (diagonal, as_strided, view(dtype))
and the in-place view ops (x.t_()) are in storage_views.py.

The most frequent views (view, t, transpose, permute, expand, unsqueeze,
unit-step slice) usually take the C++ fast rules
(torch_xla/csrc/python/fast_view_rules.cc) with C++ view steps; the rules here
are the reference they must match (test/python/test_fast_rules.py) and run
for every other case.

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

import math

from torch_xla import _XLAC, _ir
from torch_xla._ops._common import canonical_dim, literal
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import wrap, wrap_view, xt_of

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


def index_scalar(value, device):
  """A static start index for dynamic_update_slice."""
  return literal(value, _ir.S64, (), device)


def update_slice(base, new, dim, start, step):
  """`base` with base[..., start::step (len new.dims[dim]), ...] = new."""
  n = new.dims[dim]
  if n == 0:
    return base
  shape = base.dims
  if step == 1:
    starts = [0] * len(shape)
    starts[dim] = start
    return _ir.dynamic_update_slice(
        base, new, [index_scalar(s, base.device) for s in starts])
  # Strided: spread `new` with interior padding, then select it where a
  # spread copy of `true` lands.
  rank = len(shape)
  low = [0] * rank
  high = [0] * rank
  interior = [0] * rank
  low[dim] = start
  high[dim] = shape[dim] - start - (n - 1) * step - 1
  interior[dim] = step - 1
  code = base.dtype
  spread = _ir.pad(new, literal(0, code, (), base.device), low, high, interior)
  mask = _ir.pad(
      literal(True, _ir.PRED, new.dims, base.device),
      literal(False, _ir.PRED, (), base.device), low, high, interior)
  return _ir.select(mask, spread, base)


def slice_value(v, dim, start, end, step):
  shape = v.dims
  starts = [0] * len(shape)
  limits = list(shape)
  starts[dim] = start
  limits[dim] = end
  strides = None
  if step != 1:
    strides = [1] * len(shape)
    strides[dim] = step
  return _ir.slice_(v, starts, limits, strides)


def _distinct(base_value, value):
  # A view needs its own handle even when its forward is the identity.
  return _XLAC._clone(value) if value is base_value else value


def _view(x, value, forward, inverse, strides, offset=None):
  if offset is None and strides is not None:
    offset = x.storage_offset()
  return wrap_view(value, x, forward, inverse, strides, offset)


def _reshape_view(x, shape, strides):
  """A view of x with the same elements in another shape."""
  old = list(x.shape)
  v = xt_of(x)
  return _view(x, _distinct(v, _ir.reshape(v, shape)),
               lambda b: _ir.reshape(b, shape),
               lambda b, nv: _ir.reshape(nv, old), strides)


# Reshapes.


@op(aten.view.default, aten._reshape_alias.default)
def view(x, size, stride=None):
  shape = infer_size(size, x.numel())
  if x._view is None:  # a root is contiguous: so is its view (fast path)
    return _reshape_view(x, shape, None)
  return _reshape_view(x, shape,
                       view_strides(list(x.shape), list(x.stride()), shape))


@op(aten._unsafe_view.default)
def _unsafe_view(x, size):
  # Not a view in eager (its input is a fresh copy): a plain reshape.
  v = xt_of(x)
  return wrap(_distinct(v, _ir.reshape(v, infer_size(size, x.numel()))))


@op(aten.unsqueeze.default)
def unsqueeze(x, dim):
  shape = list(x.shape)
  strides = list(x.stride())
  d = canonical_dim(dim, len(shape) + 1)
  stride = 1 if d >= len(shape) else shape[d] * strides[d]
  return _reshape_view(x, shape[:d] + [1] + shape[d:],
                       strides[:d] + [stride] + strides[d:])


def _squeeze(x, dims):
  shape = list(x.shape)
  drop = {d for d in dims if shape[d] == 1}
  strides = list(x.stride())
  return _reshape_view(x, [s for i, s in enumerate(shape) if i not in drop],
                       [s for i, s in enumerate(strides) if i not in drop])


@op(aten.squeeze.default)
def squeeze(x):
  return _squeeze(x, range(x.dim()))


@op(aten.squeeze.dim)
def squeeze_dim(x, dim):
  rank = x.dim()
  d = canonical_dim(dim, rank)
  return _squeeze(x, [d] if rank else [])


@op(aten.squeeze.dims)
def squeeze_dims(x, dim):
  rank = x.dim()
  dims = [canonical_dim(d, rank) for d in dim]
  return _squeeze(x, dims if rank else [])


# Broadcasting.


@op(aten.expand.default)
def expand(x, size, implicit=False):
  shape = list(x.shape)
  size = list(size)
  strides = list(x.stride())
  rank, ndim = len(shape), len(size)
  if ndim < rank:
    raise RuntimeError(
        f"expand({x.type()}{{{shape}}}, size={size}): the number of sizes "
        f"provided ({ndim}) must be greater or equal to the number of "
        f"dimensions in the tensor ({rank})")
  target = [0] * ndim
  new_strides = [0] * ndim
  for i in range(ndim - 1, -1, -1):
    d = i - (ndim - rank)
    if d >= 0:
      cur, stride = shape[d], strides[d]
    else:
      cur = 1
      stride = target[i + 1] * new_strides[i + 1] if i + 1 < ndim else 1
    want = size[i]
    if want == -1:
      if d < 0:
        raise RuntimeError(
            f"The expanded size of the tensor (-1) isn't allowed in a "
            f"leading, non-existing dimension {i}")
      want = cur
    if want < 0:
      raise RuntimeError(
          f"expand: the expanded size of the tensor ({want}) at dimension "
          f"{i} is negative; sizes must be >= 0, or -1 to keep a dimension. "
          f"Target sizes: {size}")
    if want != cur:
      if cur != 1:
        raise RuntimeError(
            f"The expanded size of the tensor ({want}) must match the "
            f"existing size ({cur}) at non-singleton dimension {i}.  Target "
            f"sizes: {size}.  Tensor sizes: {shape}")
      stride = 0
    target[i] = want
    new_strides[i] = stride
  v = xt_of(x)
  broadcasts = math.prod(target) != math.prod(shape)

  def inverse(b, nv):
    if broadcasts:
      raise RuntimeError(
          "unsupported operation: more than one element of the written-to "
          "tensor refers to a single memory location. Please clone() the "
          "tensor before performing the operation.")
    return _ir.reshape(nv, shape)

  return _view(x, _distinct(v, _ir.broadcast_to(v, target)),
               lambda b: _ir.broadcast_to(b, target), inverse, new_strides)


# Permutations.


def _permute(x, perm):
  inv = [0] * len(perm)
  for i, p in enumerate(perm):
    inv[p] = i
  strides = list(x.stride())
  v = xt_of(x)
  return _view(x, _distinct(v, _ir.transpose(v, perm)),
               lambda b: _ir.transpose(b, perm),
               lambda b, nv: _ir.transpose(nv, inv),
               [strides[p] for p in perm])


@op(aten.permute.default)
def permute(x, dims):
  rank = x.dim()
  if len(dims) != rank:
    raise RuntimeError(
        f"permute(sparse_coo): number of dimensions in the tensor input does "
        f"not match the length of the desired ordering of dimensions i.e. "
        f"input.dim() = {rank} is not equal to len(dims) = {len(dims)}")
  perm = [canonical_dim(d, rank) for d in dims]
  if len(set(perm)) != rank:
    raise RuntimeError("permute(): duplicate dims are not allowed.")
  return _permute(x, perm)


@op(aten.transpose.int)
def transpose(x, dim0, dim1):
  rank = x.dim()
  perm = list(range(rank))
  if rank == 0:  # eager allows dims 0/-1 on a scalar
    canonical_dim(dim0, rank), canonical_dim(dim1, rank)
    return _permute(x, perm)
  d0, d1 = canonical_dim(dim0, rank), canonical_dim(dim1, rank)
  perm[d0], perm[d1] = perm[d1], perm[d0]
  return _permute(x, perm)


@op(aten.t.default)
def t(x):
  rank = x.dim()
  if rank > 2:
    raise RuntimeError(
        f"t() expects a tensor with <= 2 dimensions, but self is {rank}D")
  return _permute(x, list(range(rank))[::-1])


# Slicing.


def _slice_view(x, d, start, end, step):
  """x[..., start:end:step, ...] on dim d; bounds already clamped."""
  strides = list(x.stride())
  offset = x.storage_offset() + start * strides[d]
  strides[d] *= step
  v = xt_of(x)
  return _view(x, _distinct(v, slice_value(v, d, start, end, step)),
               lambda b: slice_value(b, d, start, end, step),
               lambda b, nv: update_slice(b, nv, d, start, step), strides,
               offset)


@op(aten.slice.Tensor)
def slice_(x, dim=0, start=None, end=None, step=1):
  rank = x.dim()
  if rank == 0:
    raise IndexError("slice() cannot be applied to a 0-dim tensor.")
  d = canonical_dim(dim, rank)
  if step <= 0:
    raise RuntimeError("slice step must be positive")
  start, end = clamp_slice(x.shape[d], start, end)
  return _slice_view(x, d, start, end, step)


def checked_index(x, d, index, op_name="select()"):
  size = x.shape[d]
  if not -size <= index < size:
    raise IndexError(
        f"{op_name}: index {index} out of range for tensor of size "
        f"{list(x.shape)} at dimension {d}")
  return index % size


def _select_view(x, d, index):
  shape = list(x.shape)
  kept = shape[:d] + [1] + shape[d + 1:]
  out = shape[:d] + shape[d + 1:]
  strides = list(x.stride())
  offset = x.storage_offset() + index * strides[d]

  def forward(b):
    return _ir.reshape(slice_value(b, d, index, index + 1, 1), out)

  def inverse(b, nv):
    return update_slice(b, _ir.reshape(nv, kept), d, index, 1)

  return _view(x, forward(xt_of(x)), forward, inverse,
               strides[:d] + strides[d + 1:], offset)


@op(aten.select.int)
def select(x, dim, index):
  rank = x.dim()
  if rank == 0:
    raise IndexError("select() cannot be applied to a 0-dim tensor.")
  d = canonical_dim(dim, rank)
  return _select_view(x, d, checked_index(x, d, index))


def _split_views(x, d, sizes):
  out = []
  start = 0
  for n in sizes:
    out.append(_slice_view(x, d, start, start + n, 1))
    start += n
  return out


def _split_sizes(size, split_size):
  if split_size < 0:
    raise RuntimeError(f"split expects split_size be non-negative, but got "
                       f"split_size={split_size}")
  if split_size == 0:
    if size != 0:
      raise RuntimeError(
          f"split_size can only be 0 if dimension size is 0, but got "
          f"dimension size of {size}")
    return [0]
  chunks = max(1, -(-size // split_size))
  return [min(split_size, size - i * split_size) for i in range(chunks)]


@op(aten.split.Tensor)
def split(x, split_size, dim=0):
  rank = x.dim()
  if rank == 0:
    raise RuntimeError("split expects at least a 1-dimensional tensor")
  d = canonical_dim(dim, rank)
  return _split_views(x, d, _split_sizes(x.shape[d], split_size))


@op(aten.split_with_sizes.default)
def split_with_sizes(x, split_sizes, dim=0):
  rank = x.dim()
  if rank == 0:
    raise RuntimeError("split expects at least a 1-dimensional tensor")
  d = canonical_dim(dim, rank)
  split_sizes = list(split_sizes)
  if sum(split_sizes) != x.shape[d] or any(s < 0 for s in split_sizes):
    raise RuntimeError(
        f"split_with_sizes expects split_sizes to sum exactly to "
        f"{x.shape[d]} (input tensor's size at dimension {d}), but got "
        f"split_sizes={split_sizes}")
  return _split_views(x, d, split_sizes)


@op(aten.unsafe_split.Tensor)
def unsafe_split(x, split_size, dim=0):
  # Not views in eager: copies of the pieces.
  return [wrap(_XLAC._clone(xt_of(p))) for p in split(x, split_size, dim)]


@op(aten.unsafe_split_with_sizes.default)
def unsafe_split_with_sizes(x, split_sizes, dim=0):
  return [
      wrap(_XLAC._clone(xt_of(p)))
      for p in split_with_sizes(x, split_sizes, dim)
  ]


@op(aten.unbind.int)
def unbind(x, dim=0):
  rank = x.dim()
  if rank == 0:
    raise IndexError("Dimension specified as 0 but tensor has no dimensions")
  d = canonical_dim(dim, rank)
  return [_select_view(x, d, i) for i in range(x.shape[d])]
