"""View ops: results alias their base, with eager's in-place semantics.

A view is its own lazy value plus a pair of pure functions on C++ handles
(see torch_xla/_tensor.py): forward(base) -> view and inverse(base,
new_view) -> new base. An in-place op on a view commits through the chain of
inverses into the root tensor (which keeps its tensor and alias IDs); every
other view of that root re-derives through its forwards before its next use.
Autograd replays view ops (XLA tensors have no as_strided), which calls
these rules again on the replayed base.

The most frequent views (view, t, transpose, permute, expand, unsqueeze,
unit-step slice) usually take the C++ fast rules
(torch_xla/csrc/python/fast_rules.cc) with C++ view steps; the rules here
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

import torch

from torch_xla import _XLAC, _ir
from torch_xla._ops._common import canonical_dim, code_of, literal
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import wrap, wrap_view, xt_of

# Shared helpers (shape_ops and indexing use them too).


def contiguous_strides(shape):
  """Eager's strides for a contiguous tensor of this shape."""
  strides = [1] * len(shape)
  acc = 1
  for i in range(len(shape) - 1, -1, -1):
    strides[i] = acc
    acc *= max(shape[i], 1)
  return strides


def infer_size(size, numel):
  """`size` with one -1 resolved, checked against `numel` (as eager)."""
  size = list(size)
  infer = None
  known = 1
  for i, s in enumerate(size):
    if s == -1:
      if infer is not None:
        raise RuntimeError("only one dimension can be inferred")
      infer = i
    elif s < 0:
      raise RuntimeError(f"invalid shape dimension {s}")
    else:
      known *= s
  if infer is None:
    if known == numel:
      return size
  elif known == 0:
    raise RuntimeError(
        f"cannot reshape tensor of 0 elements into shape {size} because the "
        f"unspecified dimension size -1 can be any value and is ambiguous")
  elif numel % known == 0:
    size[infer] = numel // known
    return size
  raise RuntimeError(f"shape '{size}' is invalid for input of size {numel}")


def view_strides(old_shape, old_strides, new_shape):
  """Eager's strides for viewing (old_shape, old_strides) as new_shape, or
  contiguous strides where eager could not view it (see module doc)."""
  if math.prod(old_shape) == 0 or not old_shape:
    return contiguous_strides(new_shape)
  new_strides = [0] * len(new_shape)
  view_d = len(new_shape) - 1
  base_stride = old_strides[-1]
  tensor_numel = view_numel = 1
  for d in range(len(old_shape) - 1, -1, -1):
    tensor_numel *= old_shape[d]
    if d == 0 or (old_shape[d - 1] != 1 and
                  old_strides[d - 1] != tensor_numel * base_stride):
      while view_d >= 0 and (view_numel < tensor_numel or
                             new_shape[view_d] == 1):
        new_strides[view_d] = view_numel * base_stride
        view_numel *= new_shape[view_d]
        view_d -= 1
      if view_numel != tensor_numel:
        return contiguous_strides(new_shape)
      if d > 0:
        base_stride = old_strides[d - 1]
        tensor_numel = view_numel = 1
  if view_d != -1:
    return contiguous_strides(new_shape)
  return new_strides


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


def clamp_slice(size, start, end):
  """Eager's clamping of slice bounds (None, negative, past the end)."""
  start = 0 if start is None else start
  end = size if end is None else end
  if start < 0:
    start += size
  if end < 0:
    end += size
  start = min(max(start, 0), size)
  end = min(max(end, start), size)
  return start, end


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


# Diagonals.


def diagonal_geometry(shape, offset, d1, d2):
  """(perm moving d1, d2 last, first row, first column, diagonal length)."""
  perm = [i for i in range(len(shape)) if i not in (d1, d2)] + [d1, d2]
  r0, c0 = max(-offset, 0), max(offset, 0)
  length = max(min(shape[d1] - r0, shape[d2] - c0), 0)
  return perm, r0, c0, length


def diagonal_value(b, offset, d1, d2):
  shape = b.dims
  perm, r0, c0, n = diagonal_geometry(shape, offset, d1, d2)
  if n == 0:
    r0 = c0 = 0  # an empty diagonal: keep the (empty) slice in bounds
  v = _ir.transpose(b, perm)
  batch = v.dims[:-2]
  nb = len(batch)
  v = _ir.slice_(v, [0] * nb + [r0, c0], batch + [r0 + n, c0 + n])
  v = _ir.reshape(v, batch + [n * n])
  # Elements (i, i) of an n x n block sit n + 1 apart once flattened.
  return _ir.slice_(v, [0] * (nb + 1), batch + [n * n], [1] * nb + [n + 1])


def diagonal_update(b, nv, offset, d1, d2):
  """`b` with its (offset, d1, d2) diagonal replaced by `nv`."""
  shape = b.dims
  perm, r0, _, n = diagonal_geometry(shape, offset, d1, d2)
  if n == 0:
    return b
  inv = [0] * len(perm)
  for i, p in enumerate(perm):
    inv[p] = i
  v = _ir.transpose(b, perm)
  batch = v.dims[:-2]
  nb = len(batch)
  rows, cols = v.dims[-2:]
  device = b.device
  # Row i of the plane holds nv[i - r0] at column i + offset.
  col = _ir.pad(nv, literal(0, b.dtype, (), device), [0] * nb + [r0],
                [0] * nb + [rows - r0 - n])
  spread = _ir.broadcast_in_dim(col, v.dims, list(range(nb + 1)))
  diff = _ir.binary("subtract", _ir.iota(_ir.S64, [rows, cols], 1, device),
                    _ir.iota(_ir.S64, [rows, cols], 0, device))
  mask = _ir.compare(diff, literal(offset, _ir.S64, [rows, cols], device),
                     "EQ")
  mask = _ir.broadcast_in_dim(mask, v.dims, [nb, nb + 1])
  return _ir.transpose(_ir.select(mask, spread, v), inv)


def diagonal_dims(x, dim1, dim2):
  rank = x.dim()
  d1, d2 = canonical_dim(dim1, rank), canonical_dim(dim2, rank)
  if d1 == d2:
    raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, "
                       f"{dim2}")
  return d1, d2


@op(aten.diagonal.default)
def diagonal(x, offset=0, dim1=0, dim2=1):
  d1, d2 = diagonal_dims(x, dim1, dim2)
  strides = list(x.stride())
  _, r0, c0, n = diagonal_geometry(list(x.shape), offset, d1, d2)
  start = x.storage_offset()
  if n:
    start += r0 * strides[d1] + c0 * strides[d2]
  new_strides = [s for i, s in enumerate(strides) if i not in (d1, d2)]
  new_strides.append(strides[d1] + strides[d2])
  return _view(x, diagonal_value(xt_of(x), offset, d1, d2),
               lambda b: diagonal_value(b, offset, d1, d2),
               lambda b, nv: diagonal_update(b, nv, offset, d1, d2),
               new_strides, start)


# as_strided: only meaningful relative to the root's (contiguous) storage.


class _Root:
  """Stands in for the root tensor so that wrap_view roots a view there."""
  __slots__ = ("_xt", "_view")

  def __init__(self, xt):
    self._xt = xt
    self._view = None


def _linear_indices(size, stride, offset, device):
  idx = literal(offset, _ir.S64, size, device)
  for k, (n, s) in enumerate(zip(size, stride)):
    if n > 1 and s != 0:
      term = _ir.binary("multiply", _ir.iota(_ir.S64, size, k, device),
                        literal(s, _ir.S64, size, device))
      idx = _ir.binary("add", idx, term)
  return _ir.reshape(idx, list(size) + [1])


@op(aten.as_strided.default)
def as_strided(x, size, stride, storage_offset=None):
  """Elements of the root's storage (the root is always contiguous here) at
  offset + sum(i_k * stride_k): a gather, written back with a scatter."""
  size, stride = list(size), list(stride)
  offset = x.storage_offset() if storage_offset is None else storage_offset
  if len(size) != len(stride):
    raise RuntimeError("mismatch in length of strides and shape")
  xt_of(x)  # refresh a stale view before reading its root
  root = x._view.root if x._view is not None else x._xt
  root_shape = root.dims
  numel = math.prod(root_shape)
  if math.prod(size) == 0:
    needed = 0
  else:
    needed = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1
  if needed > numel or offset < 0 or any(s < 0 for s in stride):
    raise RuntimeError(
        f"as_strided: sizes {size}, strides {stride}, storage offset "
        f"{offset} need a storage of {needed} elements, but the tensor's "
        f"storage has {numel}")
  if offset == 0 and numel == math.prod(size) and \
      view_strides(root_shape, contiguous_strides(root_shape), size) == stride:
    forward = lambda b: _ir.reshape(b, size)  # noqa: E731
    inverse = lambda b, nv: _ir.reshape(nv, root_shape)  # noqa: E731
  else:
    idx = _linear_indices(size, stride, offset, x.device.index)
    attrs = dict(offset_dims=[], collapsed_dims=[0], start_index_map=[0],
                 index_vec_dim=len(size), slice_sizes=[1])

    def forward(b):
      return _ir.gather(_ir.reshape(b, [numel]), idx, **attrs)

    def inverse(b, nv):
      return _ir.reshape(
          _ir.scatter(_ir.reshape(b, [numel]), idx, nv, window_dims=[],
                      inserted_dims=[0], scatter_dim_map=[0],
                      index_vec_dim=len(size), kind="replace"), root_shape)

  return wrap_view(_distinct(root, forward(root)), _Root(root), forward,
                   inverse, stride, offset)


@op(aten.view.dtype)
def view_dtype(x, dtype):
  if dtype == x.dtype:
    return _reshape_view(x, list(x.shape), list(x.stride()))
  if dtype.itemsize != x.dtype.itemsize or torch.bool in (dtype, x.dtype):
    raise RuntimeError(
        f"view(dtype): viewing a {x.dtype} tensor as {dtype} is supported "
        f"on XLA only between dtypes of the same size (not bool)")
  code, old = code_of(dtype), code_of(x.dtype)

  def bitcast(v, c):
    return _ir._op(_ir.K["bitcast_convert"], [v], {"dtype": _ir.DT[c]})

  return _view(x, bitcast(xt_of(x), code), lambda b: bitcast(b, code),
               lambda b, nv: bitcast(nv, old), list(x.stride()))


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
