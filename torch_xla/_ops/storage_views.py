"""Views that address the root's storage rather than reshape, permute or
slice it: diagonal, as_strided and view(dtype); and the in-place view ops
(x.unsqueeze_(0), x.t_()), where x itself becomes the view; resize_ to the
same shape.

The view machinery (forward/inverse pairs, strides, write-back) is
described in views.py. The view ops there are C++ (tensor/view_ops.h); the
storage views here stay Python steps, (forward, inverse) functions on
handles: their values are gathers, scatters and bitcasts of the root's
storage rather than one slice, reshape or transpose, and no hot path needs
them in C++.
"""

import math

import torch

from torch_xla import _XLAC, _dtypes, _ir
from torch_xla._dtypes import scalar_type_name
from torch_xla._ops._common import canonical_dim, code_of, literal
from torch_xla._ops.registry import aten, op
from torch_xla._ops.views import (contiguous_strides, squeeze, squeeze_dim,
                                  squeeze_dims, t, transpose, unsqueeze,
                                  view_strides)
from torch_xla._tensor import wrap, wrap_view, xt_of


def _distinct(base_value, value):
  # A view needs its own handle even when its forward is the identity.
  return _XLAC._clone(value) if value is base_value else value


def _view(x, value, forward, inverse, strides, offset=None):
  """A view of x one Python step (forward, inverse) further."""
  if offset is None:
    offset = x.storage_offset()
  return wrap_view(value, x, forward, inverse, strides, offset)

# Diagonals.


def diagonal_geometry(shape, offset, d1, d2):
  """(perm moving d1, d2 last, first row, first column, diagonal length)."""
  perm = [i for i in range(len(shape)) if i not in (d1, d2)] + [d1, d2]
  r0, c0 = max(-offset, 0), max(offset, 0)
  length = max(min(shape[d1] - r0, shape[d2] - c0), 0)
  return perm, r0, c0, length


def diagonal_value(b, offset, d1, d2):
  """The diagonal view's forward on handles (ops/shape_ops.h)."""
  return _XLAC._diagonal_value(b, offset, d1, d2)


def diagonal_update(b, nv, offset, d1, d2):
  """`b` with its (offset, d1, d2) diagonal replaced by `nv`: the view's
  inverse (ops/shape_ops.h)."""
  return _XLAC._diagonal_update(b, nv, offset, d1, d2)


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
  if any(s < 0 for s in stride):
    raise RuntimeError(f"as_strided: Negative strides are not supported at "
                       f"the moment, got strides: {stride}")
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


# view(dtype): the same bytes read as another dtype. Eager reinterprets the
# storage; here the value is rebuilt from x's value with same-width
# bitcasts and integer shifts, each element's bytes little-endian as on
# eager's hosts. A dtype of another size changes the last dim by the size
# ratio (eager's rules and errors, _dtype_view_geometry).

# The unsigned-in-effect integer of each size holding an element's bits
# (s16 for 2 bytes: there is no u16; its shifts are logical, its pieces
# masked).
_CONTAINERS = {1: _ir.U8, 2: _ir.S16, 4: _ir.U32, 8: _ir.U64}


def _to_bits(v, code):
  """Handle v (element type `code`) as its size's container integer."""
  if code == _ir.PRED:
    return _ir.convert(v, _ir.U8)
  container = _CONTAINERS[_itemsize(code)]
  if code == container:
    return v
  return _ir._op(_ir.K["bitcast_convert"], [v], {"dtype": _ir.DT[container]})


def _from_bits(v, code):
  """Container integer handle v read as element type `code`."""
  if code == _ir.PRED:
    return _ir.compare(v, literal(0, v.dtype, v.dims, v.device), "NE")
  if v.dtype == code:
    return v
  return _ir._op(_ir.K["bitcast_convert"], [v], {"dtype": _ir.DT[code]})


def _itemsize(code):
  return _dtypes.TORCH_DTYPES[code].itemsize


def _reinterpret(v, old, new):
  """The bytes of handle v (element type `old`) read as `new`: the last
  dim scales by itemsize(old) / itemsize(new)."""
  if old == new:
    return v
  big, small = _itemsize(old), _itemsize(new)
  bits = _to_bits(v, old)
  dims, device = list(v.dims), v.device
  if big == small:
    return _from_bits(bits, new)
  if big > small:  # each element splits into `ratio` pieces, low first
    ratio, width = big // small, 8 * small
    mask = literal((1 << width) - 1, bits.dtype, dims, device)
    pieces = []
    for k in range(ratio):
      piece = bits
      if k:
        piece = _ir.binary("shift_right_logical", piece, literal(
            width * k, bits.dtype, dims, device))
      piece = _ir.convert(_ir.binary("and", piece, mask), _CONTAINERS[small])
      pieces.append(_ir.reshape(piece, dims + [1]))
    joined = _ir.concatenate(pieces, len(dims))
    return _from_bits(_ir.reshape(joined, dims[:-1] + [dims[-1] * ratio]),
                      new)
  ratio, width = small // big, 8 * big
  container = _CONTAINERS[small]
  rows = dims[:-1] + [dims[-1] // ratio]
  grouped = _ir.reshape(bits, rows + [ratio])
  mask = literal((1 << width) - 1, container, rows, device)
  word = None
  for k in range(ratio):
    piece = _ir.reshape(
        _ir.slice_(grouped, [0] * len(rows) + [k], rows + [k + 1]), rows)
    piece = _ir.binary("and", _ir.convert(piece, container), mask)
    if k:
      piece = _ir.binary("shift_left", piece, literal(width * k, container,
                                                      rows, device))
    word = piece if word is None else _ir.binary("or", word, piece)
  return _from_bits(word, new)


def _dtype_view_geometry(x, dtype):
  """(shape, strides, storage offset) of x.view(dtype), with eager's
  errors for a dtype of another size."""
  old, new = x.dtype.itemsize, dtype.itemsize
  shape, strides = list(x.shape), list(x.stride())
  offset = x.storage_offset()
  if old == new:
    return shape, strides, offset
  what = (f"to view {scalar_type_name(x.dtype)} as "
          f"{scalar_type_name(dtype)} (different element sizes)")
  if x.dim() == 0:
    raise RuntimeError(f"self.dim() cannot be 0 {what}")
  if strides[-1] != 1:
    raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got "
                       f"{strides[-1]}")
  if old > new:
    ratio = old // new
    shape[-1] *= ratio
    strides = [s * ratio for s in strides[:-1]] + [1]
    return shape, strides, offset * ratio
  ratio = new // old
  if shape[-1] % ratio:
    raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, "
                       f"but got {shape[-1]}")
  if offset % ratio:
    raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} "
                       f"{what}, but got {offset}")
  for i, s in enumerate(strides[:-1]):
    if s % ratio:
      raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} "
                         f"{what}, but got {s}")
  shape[-1] //= ratio
  return shape, [s // ratio for s in strides[:-1]] + [1], offset // ratio


@op(aten.view.dtype)
def view_dtype(x, dtype):
  """x's bytes as `dtype`: a view (writes through it reach x, bit for
  bit); a dtype of another size scales the last dim, as in eager."""
  if dtype == x.dtype:  # an alias with x's strides
    return _XLAC._view_op_view(x, list(x.shape))
  _, strides, offset = _dtype_view_geometry(x, dtype)
  code, old = code_of(dtype), code_of(x.dtype)
  return _view(x, _reinterpret(xt_of(x), old, code),
               lambda b: _reinterpret(b, old, code),
               lambda b, nv: _reinterpret(nv, code, old), strides, offset)


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
