"""Shape ops that copy (not views): cat, stack, flip, roll, repeat, tril and
triu, padding, the *_scatter ops and view backwards, factories.

Results are new tensors: nothing here aliases its input. Numbers that come
from the user (fill values, arange bounds, the tril/triu diagonal) are scalar
parameters, so changing them between steps never recompiles; sizes, offsets
and pads shape the output and are static. The rules check eager's arguments
and raise eager's errors; each op's IR is its C++ builder's (ops/
shape_ops.h), reached with one _XLAC call (python/shape_op_bindings.cc).
"""

import math

import torch

from torch_xla import _XLAC, _ir
from torch_xla._ops import copy_ops
from torch_xla._ops._common import canonical_dim, check_same_device, code_of
from torch_xla._ops.registry import aten, op

# Concatenation.


def _promoted(tensors):
  dtype = tensors[0].dtype
  for t in tensors[1:]:
    if t.dtype != dtype:
      dtype = torch.promote_types(dtype, t.dtype)
  return dtype


@op(aten.cat.default)
def cat(tensors, dim=0):
  tensors = list(tensors)
  if not tensors:
    raise ValueError("torch.cat(): expected a non-empty list of Tensors")
  check_same_device("torch.cat()", *tensors)
  for i, t in enumerate(tensors):
    if t.dim() == 0:
      raise RuntimeError(
          f"zero-dimensional tensor (at position {i}) cannot be concatenated")
  code = code_of(_promoted(tensors))  # legacy empty tensors promote too
  # Legacy: 1-d empty tensors are skipped whatever the others' shapes (the
  # builder skips them too).
  parts = [(i, t) for i, t in enumerate(tensors)
           if not (t.dim() == 1 and t.shape[0] == 0)]
  if not parts:
    return _XLAC._cat(tensors, 0, code)
  ref = parts[0][1]
  rank = ref.dim()
  d = canonical_dim(dim, rank)
  for i, t in parts[1:]:
    if t.dim() != rank:
      raise RuntimeError(f"Tensors must have same number of dimensions: got "
                         f"{rank} and {t.dim()}")
    for j in range(rank):
      if j != d and t.shape[j] != ref.shape[j]:
        raise RuntimeError(
            f"Sizes of tensors must match except in dimension {d}. Expected "
            f"size {ref.shape[j]} but got size {t.shape[j]} for tensor "
            f"number {i} in the list.")
  # ops/shape_ops.h: converted and joined in one call.
  return _XLAC._cat(tensors, d, code)


@op(aten.stack.default)
def stack(tensors, dim=0):
  tensors = list(tensors)
  if not tensors:
    raise RuntimeError("stack expects a non-empty TensorList")
  shape = list(tensors[0].shape)
  for i, t in enumerate(tensors[1:], 1):
    if list(t.shape) != shape:
      raise RuntimeError(
          f"stack expects each tensor to be equal size, but got {shape} at "
          f"entry 0 and {list(t.shape)} at entry {i}")
  check_same_device("stack", *tensors)
  d = canonical_dim(dim, len(shape) + 1)
  return _XLAC._stack(tensors, d, code_of(_promoted(tensors)))


# Reordering and tiling.


@op(aten.flip.default)
def flip(x, dims):
  rank = x.dim()
  ds = [canonical_dim(d, rank) for d in dims]
  for d in ds:
    if ds.count(d) > 1:
      raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
  return _XLAC._flip(x, ds)


@op(aten.roll.default)
def roll(x, shifts, dims=()):
  shifts, dims = list(shifts), list(dims)
  if not shifts:
    raise RuntimeError("`shifts` required")
  if not dims:
    if len(shifts) != 1:
      raise RuntimeError(f"shifts and dimensions must align. shifts: "
                         f"{len(shifts)}, dims:0")
    return _XLAC._roll(x, shifts, [])
  if len(shifts) != len(dims):
    raise RuntimeError(f"shifts and dimensions must align. shifts: "
                       f"{len(shifts)}, dims:{len(dims)}")
  rank = x.dim()
  return _XLAC._roll(x, shifts, [canonical_dim(d, rank) for d in dims])


def _unfold_decomposition():
  from torch._decomp import decomposition_table
  return decomposition_table[aten.unfold.default]


@op(aten.unfold.default)
def unfold(x, dimension, size, step):
  """x.unfold(dim, size, step): PyTorch's decomposition (a view through
  as_strided), after eager's check of `size` (the decomposition lets a
  negative size through to the IR)."""
  if size < 0:
    raise RuntimeError(f"size is {size} but must be >= 0")
  return _unfold_decomposition()(x, dimension, size, step)


@op(aten.repeat.default)
def repeat(x, repeats):
  repeats = list(repeats)
  rank = x.dim()
  if len(repeats) < rank:
    raise RuntimeError("Number of dimensions of repeat dims can not be "
                       "smaller than number of dimensions of tensor")
  if any(r < 0 for r in repeats):
    raise RuntimeError(f"Trying to create tensor with negative dimension "
                       f"{min(repeats)}: {repeats}")
  shape = [1] * (len(repeats) - rank) + list(x.shape)
  if math.prod(r * s for r, s in zip(repeats, shape)) >= 2**63:
    raise RuntimeError(f"repeat: the result's size "
                       f"{[r * s for r, s in zip(repeats, shape)]} overflows "
                       f"int64 (numel: integer multiplication overflow)")
  return _XLAC._repeat(x, repeats)


# Triangles.


def _triangle(x, diagonal, lower, inplace):
  if x.dim() < 2:
    name = "tril" if lower else "triu"
    raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
  # ops/shape_ops.h; the diagonal is a scalar parameter.
  return _XLAC._triangle(x, diagonal, lower, inplace)


@op(aten.tril.default)
def tril(x, diagonal=0):
  return _triangle(x, diagonal, True, False)


@op(aten.triu.default)
def triu(x, diagonal=0):
  return _triangle(x, diagonal, False, False)


@op(aten.tril_.default)
def tril_(x, diagonal=0):
  return _triangle(x, diagonal, True, True)


@op(aten.triu_.default)
def triu_(x, diagonal=0):
  return _triangle(x, diagonal, False, True)


# Padding.


def _pad_pairs(x, pad):
  pad = list(pad)
  if len(pad) % 2:
    raise RuntimeError(
        f"Length of pad must be even but instead it equals {len(pad)}")
  rank = x.dim()
  if len(pad) // 2 > rank:
    raise RuntimeError(
        f"Length of pad should be no more than twice the number of "
        f"dimensions of the input. Pad length is {len(pad)} while the input "
        f"has {rank} dimensions.")
  low, high = [0] * rank, [0] * rank
  for i in range(len(pad) // 2):
    d = rank - 1 - i
    low[d], high[d] = pad[2 * i], pad[2 * i + 1]
  return low, high


@op(aten.constant_pad_nd.default)
def constant_pad_nd(x, pad, value=0):
  low, high = _pad_pairs(x, pad)
  shape = list(x.shape)
  for d, (lo, hi) in enumerate(zip(low, high)):
    if shape[d] + lo + hi < 0:
      raise RuntimeError(
          f"The input size {shape[d]}, plus negative padding {lo} and {hi} "
          f"resulted in a negative output size, which is invalid. Check "
          f"dimension {d} of your input.")
  return _XLAC._constant_pad(x, value, low, high)


def _mode_pad_dims(x, padding, name):
  """(dims, low, high) for reflection/replication padding of the last
  len(padding) // 2 dims, checking the input rank as eager does."""
  k = len(padding) // 2
  if len(padding) != 2 * k or x.dim() not in (k + 1, k + 2):
    raise RuntimeError(
        f"{name}: expected {k + 1}D or {k + 2}D input with padding of length "
        f"{2 * k}, but got input of size {list(x.shape)} and padding "
        f"{list(padding)}")
  rank = x.dim()
  out = []
  for i in range(k):
    d = rank - 1 - i
    out.append((d, padding[2 * i], padding[2 * i + 1]))
  return out


def _check_reflect(x, dims):
  for d, lo, hi in dims:
    n = x.shape[d]
    if lo >= n or hi >= n or lo < 0 or hi < 0:
      raise RuntimeError(
          f"Argument #4: Padding size should be less than the corresponding "
          f"input dimension, but got: padding ({lo}, {hi}) at dimension {d} "
          f"of input {list(x.shape)}")


def _check_replicate(x, dims):
  for d, lo, hi in dims:
    if x.shape[d] == 0 or lo < 0 or hi < 0:
      raise RuntimeError(
          f"replication padding of dimension {d} of input {list(x.shape)} "
          f"by ({lo}, {hi}): the dimension must be non-empty and the "
          f"padding non-negative on XLA")


def _mode_pad(name, check, reflect):

  def rule(x, padding):
    dims = _mode_pad_dims(x, padding, name)
    check(x, dims)
    # ops/shape_ops.h: one pass per padded dim, in one call.
    return _XLAC._mode_pad(x, *zip(*dims), reflect)

  rule.__name__ = name
  return rule


def _mode_pad_backward(name, reflect):

  def rule(grad, x, padding):
    dims = _mode_pad_dims(x, padding, name)
    return _XLAC._mode_pad_backward(grad, list(x.shape), *zip(*dims), reflect)

  rule.__name__ = name + "_backward"
  return rule


for _n in (1, 2, 3):
  op(getattr(aten, f"reflection_pad{_n}d").default)(
      _mode_pad(f"reflection_pad{_n}d", _check_reflect, True))
  op(getattr(aten, f"reflection_pad{_n}d_backward").default)(
      _mode_pad_backward(f"reflection_pad{_n}d", True))
  op(getattr(aten, f"replication_pad{_n}d").default)(
      _mode_pad(f"replication_pad{_n}d", _check_replicate, False))
  op(getattr(aten, f"replication_pad{_n}d_backward").default)(
      _mode_pad_backward(f"replication_pad{_n}d", False))

# Scatters into views and the view ops' backwards.


@op(aten.slice_scatter.default)
def slice_scatter(x, src, dim=0, start=None, end=None, step=1):
  d = canonical_dim(dim, x.dim())
  if step <= 0:
    raise RuntimeError("slice step must be positive")
  # The slice view's inverse (tensor/views.h), src checked and cast there.
  return _XLAC._slice_scatter(x, src, d, start, end, step)


@op(aten.select_scatter.default)
def select_scatter(x, src, dim, index):
  return _XLAC._select_scatter(x, src, canonical_dim(dim, x.dim()), index)


@op(aten.diagonal_scatter.default)
def diagonal_scatter(x, src, offset=0, dim1=0, dim2=1):
  # The diagonal view's dims check (tensor/view_ops.h) and inverse
  # (ops/shape_ops.h), src checked and cast.
  return _XLAC._diagonal_scatter(x, src, offset, dim1, dim2)


@op(aten.slice_backward.default)
def slice_backward(grad, input_sizes, dim, start, end, step):
  # The gradient lands in a zero tensor: one pad with interior padding,
  # built by ops/nn_ops.h (as the C++ fast rule builds it).
  shape = list(input_sizes)
  return _XLAC._slice_backward(grad, shape, canonical_dim(dim, len(shape)),
                               start, end, step)


@op(aten.select_backward.default)
def select_backward(grad, input_sizes, dim, index):
  shape = list(input_sizes)
  d = canonical_dim(dim, len(shape))
  return _XLAC._select_backward(grad, shape, d, index % shape[d])


@op(aten.diagonal_backward.default)
def diagonal_backward(grad, input_sizes, offset, dim1, dim2):
  shape = list(input_sizes)
  d1, d2 = canonical_dim(dim1, len(shape)), canonical_dim(dim2, len(shape))
  return _XLAC._diagonal_backward(grad, shape, offset, d1, d2)


# Factories that take a tensor (they reach __torch_dispatch__).


def _is_xla(device):
  return device is None or torch.device(device).type == "xla"


def _index(device, default):
  if device is None:
    return default
  return torch.device(device).index or 0


def _filled(x, size, value, dtype, device):
  """A tensor of `size` filled with `value` (copy_ops.fill: a parameter, so
  neither a new value nor a first step's fresh zeros changes the graph)."""
  dtype = dtype or x.dtype
  if not _is_xla(device):
    return torch.full(list(size), value, dtype=dtype, device=device)
  return copy_ops.full(value, size, dtype, _index(device, x.device.index))


@op(aten.new_zeros.default)
def new_zeros(x, size, dtype=None, layout=None, device=None, pin_memory=None):
  return _filled(x, size, 0, dtype, device)


@op(aten.new_ones.default)
def new_ones(x, size, dtype=None, layout=None, device=None, pin_memory=None):
  return _filled(x, size, 1, dtype, device)


@op(aten.new_empty.default)
def new_empty(x, size, dtype=None, layout=None, device=None, pin_memory=None):
  return _filled(x, size, 0, dtype, device)


@op(aten.new_empty_strided.default)
def new_empty_strided(x, size, stride, dtype=None, layout=None, device=None,
                      pin_memory=None):
  return _filled(x, size, 0, dtype, device)


@op(aten.new_full.default)
def new_full(x, size, fill_value, dtype=None, layout=None, device=None,
             pin_memory=None):
  return _filled(x, size, fill_value, dtype, device)


@op(aten.zeros_like.default)
def zeros_like(x, dtype=None, layout=None, device=None, pin_memory=None,
               memory_format=None):
  copy_ops.check_memory_format(x, memory_format)
  return _filled(x, x.shape, 0, dtype, device)


@op(aten.ones_like.default)
def ones_like(x, dtype=None, layout=None, device=None, pin_memory=None,
              memory_format=None):
  copy_ops.check_memory_format(x, memory_format)
  return _filled(x, x.shape, 1, dtype, device)


@op(aten.empty_like.default)
def empty_like(x, dtype=None, layout=None, device=None, pin_memory=None,
               memory_format=None):
  copy_ops.check_memory_format(x, memory_format)
  return _filled(x, x.shape, 0, dtype, device)


@op(aten.full_like.default)
def full_like(x, fill_value, dtype=None, layout=None, device=None,
              pin_memory=None, memory_format=None):
  copy_ops.check_memory_format(x, memory_format)
  return _filled(x, x.shape, fill_value, dtype, device)


# arange is a factory without tensor arguments: it dispatches on the XLA key.

_xla_kernels = torch.library.Library("aten", "IMPL", "XLA")


def _arange(start, end, step=1, dtype=None, layout=None, device=None,
            pin_memory=None):
  start, end, step = (v.item() if isinstance(v, torch.Tensor) else v
                      for v in (start, end, step))
  if not all(math.isfinite(v) for v in (start, end)):
    raise RuntimeError(f"unsupported range: {start} -> {end}")
  if step == 0:
    raise RuntimeError("step must be nonzero")
  if (step > 0 and end < start) or (step < 0 and end > start):
    raise RuntimeError(
        "upper bound and lower bound inconsistent with step sign")
  integral = all(
      isinstance(v, int) and not isinstance(v, bool)
      for v in (start, end, step))
  if dtype is None:
    dtype = torch.int64 if integral else torch.get_default_dtype()
  if integral:
    n = -((start - end) // step)
  else:
    n = math.ceil((end - start) / step)
  if n * dtype.itemsize >= 2**63:
    raise RuntimeError(f"Storage size calculation overflowed with "
                       f"sizes=[{n}]")
  # ops/shape_ops.h: start + i * step, both scalar parameters.
  return _XLAC._arange(n, code_of(dtype), _compute_code(integral, dtype),
                       start, step, _index(device, 0))


def _compute_code(integral, dtype):
  """Integer ranges are exact in s64; float ones compute in f32 (f64 for
  f64)."""
  if integral and not dtype.is_floating_point:
    return _ir.S64
  return _ir.F64 if dtype == torch.float64 else _ir.F32


def _arange_end(end, dtype=None, layout=None, device=None, pin_memory=None):
  if isinstance(end, torch.Tensor):
    end = end.item()
  if isinstance(end, int) and not isinstance(end, bool) and 0 <= end < 2**59:
    # The common arange(n): an iota, no parameters.
    dtype = dtype or torch.int64
    return _XLAC._arange(end, code_of(dtype), _compute_code(True, dtype),
                         None, None, _index(device, 0))
  return _arange(0, end, 1, dtype, layout, device, pin_memory)


_xla_kernels.impl("arange", _arange_end)
_xla_kernels.impl("arange.start", _arange)
_xla_kernels.impl("arange.start_step", _arange)
