"""View ops on 'xla' against eager CPU PyTorch: values, gradients, strides
and errors, and a sync's handling of views of a root. In-place ops through
views (eager's aliasing) are in test_view_aliasing.py.

Value and gradient checks go through op_test_utils.check_op, which also
asserts that nothing fell back to CPU.
"""

import re

import pytest
import torch

import torch_xla
from op_test_utils import random_tensor as _rand, XLA, check_op

FLOATS = [torch.float32, torch.bfloat16]
ALL = FLOATS + [torch.int64, torch.bool]


def _check_view(fn, shape, dtype):
  """Values and gradients, plus eager's strides and storage offsets."""
  x = _rand(shape, dtype)
  out = check_op(fn, x, grad=dtype.is_floating_point)
  expected = fn(x)
  outs = out if isinstance(out, (list, tuple)) else [out]
  exps = expected if isinstance(expected, (list, tuple)) else [expected]
  for a, e in zip(outs, exps):
    assert a.shape == e.shape
    assert a.stride() == e.stride(), (a.stride(), e.stride())
    assert a.storage_offset() == e.storage_offset()
    assert a.is_contiguous() == e.is_contiguous()


# ---------------------------------------------------------------------------
# Values, gradients and strides of every view op.

VIEW_CASES = [
    ((2, 3, 4), (6, 4)),
    ((2, 3, 4), (-1,)),
    ((2, 3, 4), (4, -1, 2)),
    ((2, 3, 4), (2, 1, 12, 1)),
    ((), (1, 1)),
    ((1,), ()),
    ((0, 3), (3, 0)),
]


@pytest.mark.parametrize("shape,size", VIEW_CASES)
@pytest.mark.parametrize("dtype", ALL)
def test_view(shape, size, dtype):
  _check_view(lambda a: a.view(size), shape, dtype)


@pytest.mark.parametrize("shape,size", VIEW_CASES)
def test_reshape_and_flatten(shape, size):
  _check_view(lambda a: a.reshape(size), shape, torch.float32)
  _check_view(lambda a: a.flatten(), shape, torch.float32)


def test_view_of_transposed_reshape_copies_like_eager():
  _check_view(lambda a: a.t().reshape(-1), (3, 4), torch.float32)
  _check_view(lambda a: a.transpose(0, 2).flatten(1), (2, 3, 4),
              torch.float32)
  _check_view(lambda a: a.unsqueeze(1).view(3, 4), (3, 4), torch.float32)


EXPAND_CASES = [
    ((3, 1), (3, 4)),
    ((3, 1), (2, 3, 5)),
    ((1,), (4,)),
    ((), (2, 3)),
    ((3, 4), (-1, 4)),
    ((3, 1), (1, -1, 1)),
    ((2, 1, 3), (2, 4, 3)),
]


@pytest.mark.parametrize("shape,size", EXPAND_CASES)
@pytest.mark.parametrize("dtype", ALL)
def test_expand(shape, size, dtype):
  _check_view(lambda a: a.expand(size), shape, dtype)


def test_expand_as_and_broadcast_to():
  other = torch.zeros(4, 2, 3)
  _check_view(lambda a: a.expand_as(other), (2, 1), torch.float32)
  _check_view(lambda a: a.broadcast_to(4, 2, 3), (1, 3), torch.float32)


@pytest.mark.parametrize("perm", [(0, 1, 2), (2, 0, 1), (1, 2, 0), (-1, 0, 1)])
@pytest.mark.parametrize("dtype", ALL)
def test_permute(perm, dtype):
  _check_view(lambda a: a.permute(perm), (2, 3, 4), dtype)


@pytest.mark.parametrize("dims", [(0, 1), (0, 2), (-1, -2), (1, 1)])
@pytest.mark.parametrize("dtype", FLOATS)
def test_transpose(dims, dtype):
  _check_view(lambda a: a.transpose(*dims), (2, 3, 4), dtype)


@pytest.mark.parametrize("shape", [(), (4,), (3, 4)])
def test_t(shape):
  _check_view(lambda a: a.t(), shape, torch.float32)
  _check_view(lambda a: a.T if len(shape) == 2 else a.t(), shape,
              torch.float32)


def test_movedim_and_mT():
  _check_view(lambda a: a.movedim(0, -1), (2, 3, 4), torch.float32)
  _check_view(lambda a: a.mT, (2, 3, 4), torch.float32)


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("dtype", ALL)
def test_unsqueeze(shape, dtype):
  for dim in range(-len(shape) - 1, len(shape) + 1):
    _check_view(lambda a: a.unsqueeze(dim), shape, dtype)


@pytest.mark.parametrize("dtype", ALL)
def test_squeeze(dtype):
  shape = (1, 3, 1, 2)
  _check_view(lambda a: a.squeeze(), shape, dtype)
  for dim in range(-4, 4):
    _check_view(lambda a: a.squeeze(dim), shape, dtype)
  _check_view(lambda a: a.squeeze((0, 2)), shape, dtype)
  _check_view(lambda a: a.squeeze((1, -1)), shape, dtype)  # not size 1
  _check_view(lambda a: a.squeeze(0), (), dtype)


SLICES = [
    (0, 1, 3, 1),
    (1, 0, 4, 2),
    (1, -3, None, 1),
    (2, None, -1, 3),
    (0, -100, 100, 1),  # clamped to the size, as in eager
    (1, 3, 1, 1),  # empty: end < start
    (2, 5, 9, 1),  # empty: start past the end
    (-1, 1, None, 2),
]


@pytest.mark.parametrize("dim,start,end,step", SLICES)
@pytest.mark.parametrize("dtype", ALL)
def test_slice(dim, start, end, step, dtype):
  _check_view(
      lambda a: torch.ops.aten.slice.Tensor(a, dim, start, end, step),
      (3, 4, 5), dtype)


def test_python_slicing():
  _check_view(lambda a: a[1:, ::2, -3:], (3, 4, 5), torch.float32)
  _check_view(lambda a: a[..., 1], (3, 4, 5), torch.float32)
  _check_view(lambda a: a[None, 1, :, None], (3, 4, 5), torch.float32)


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("index", [0, 2, -1, -3])
@pytest.mark.parametrize("dtype", ALL)
def test_select(dim, index, dtype):
  _check_view(lambda a: a.select(dim, index), (3, 4, 5), dtype)


def test_narrow():
  _check_view(lambda a: a.narrow(1, 1, 2), (3, 4), torch.float32)
  _check_view(lambda a: a.narrow(-1, 0, 4), (3, 4), torch.float32)


@pytest.mark.parametrize("dtype", FLOATS + [torch.int64])
def test_split_chunk_unbind(dtype):
  shape = (5, 4)
  _check_view(lambda a: a.split(2), shape, dtype)
  _check_view(lambda a: a.split(3, dim=1), shape, dtype)
  _check_view(lambda a: a.split([1, 0, 4]), shape, dtype)
  _check_view(lambda a: a.chunk(3, 1), shape, dtype)
  _check_view(lambda a: a.tensor_split(3, 0), shape, dtype)
  _check_view(lambda a: a.unbind(0), shape, dtype)
  _check_view(lambda a: a.unbind(-1), shape, dtype)


def test_unsafe_split_copies():
  check_op(lambda a: torch.ops.aten.unsafe_split.Tensor(a, 2, 1),
           torch.randn(3, 5))
  check_op(lambda a: torch.ops.aten.unsafe_split_with_sizes(a, [1, 2]),
           torch.randn(3, 5))


def test_unsafe_split_is_one_call_of_new_tensors():
  from crossing_counter import crossings
  host = torch.randn(3, 5)
  x = host.to("xla")
  pieces, names = crossings(
      lambda: torch.ops.aten.unsafe_split.Tensor(x, 2, 1))
  assert names == ["_unsafe_split"]
  _, names = crossings(
      lambda: torch.ops.aten.unsafe_split_with_sizes(x, [1, 2]))
  assert names == ["_unsafe_split_with_sizes"]
  torch.testing.assert_close(pieces[2].cpu(), host[:, 4:])
  with pytest.raises(RuntimeError, match="split_sizes"):
    torch.ops.aten.unsafe_split_with_sizes(x, [1, 1])


@pytest.mark.parametrize("offset", [0, 1, -1, 3, -5])
@pytest.mark.parametrize("dims", [(0, 1), (1, 0), (2, 0), (-1, 1)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_diagonal(offset, dims, dtype):
  _check_view(lambda a: a.diagonal(offset, *dims), (3, 4, 5), dtype)


def test_diag_and_diagonal_of_square():
  _check_view(lambda a: a.diagonal(), (4, 4), torch.float32)
  check_op(lambda a: torch.diag(a, 1), torch.randn(4, 4))


@pytest.mark.parametrize("size,stride,offset", [
    ((3, 4), (4, 1), 0),  # the root's own layout: a reshape
    ((2, 2), (1, 4), 1),
    ((3,), (5,), 0),  # the diagonal
    ((2, 3), (0, 1), 2),  # a stride 0 broadcast
])
def test_as_strided(size, stride, offset):
  _check_view(lambda a: a.as_strided(size, stride, offset), (3, 4),
              torch.float32)


def test_as_strided_of_a_view_is_relative_to_the_root_storage():
  # Eager's storage offsets are the root's, so the view's own offset counts.
  _check_view(lambda a: a[1].as_strided((2, 2), (1, 4), 5), (3, 4),
              torch.float32)
  _check_view(lambda a: a[1:].as_strided((2,), (4,)), (3, 4), torch.float32)


def test_unfold():
  _check_view(lambda a: a.unfold(1, 2, 1), (3, 5), torch.float32)
  _check_view(lambda a: a.unfold(0, 2, 2), (5, 2), torch.float32)


def test_view_dtype():
  x = torch.randn(3, 4)
  check_op(lambda a: a.view(torch.int32), x, grad=False)
  check_op(lambda a: a.view(torch.float32), x, grad=False)
  check_op(lambda a: a.view(torch.int16), torch.randn(3, dtype=torch.bfloat16),
           grad=False)


def test_alias_and_detach_share_the_value():
  x = torch.randn(3, 4).to(XLA)
  y = torch.ops.aten.alias(x)
  y.add_(1)
  d = x.detach()
  d.mul_(2)
  torch.testing.assert_close(x.cpu(), y.cpu())
  torch.testing.assert_close(x.cpu(), d.cpu())


# ---------------------------------------------------------------------------
# Errors match eager's.


def _raises(exc, pattern, fn, *shapes):
  for x in [torch.zeros(s) for s in shapes]:
    with pytest.raises(exc, match=pattern):
      fn(x)
    with pytest.raises(exc, match=pattern):
      fn(x.to(XLA))


def test_view_with_incompatible_size_names_the_shape():
  _raises(RuntimeError, re.escape("shape '[5]' is invalid for input of size "
                                  "12"), lambda a: a.view(5), (3, 4))
  _raises(RuntimeError, re.escape("shape '[-1, 5]' is invalid for input of "
                                  "size 12"), lambda a: a.view(-1, 5), (3, 4))
  _raises(RuntimeError, "only one dimension can be inferred",
          lambda a: a.view(-1, -1), (3, 4))
  _raises(RuntimeError, "ambiguous", lambda a: a.view(-1, 0), (0, 3))


@pytest.mark.parametrize("fn", [
    lambda a: a.unsqueeze(3),
    lambda a: a.squeeze(2),
    lambda a: a.transpose(0, 2),
    lambda a: a.permute(0, 2),
    lambda a: a.select(2, 0),
    lambda a: a.narrow(-3, 0, 1),
    lambda a: a.split(2, dim=2),
    lambda a: a.unbind(-3),
    lambda a: a.diagonal(0, 0, 2),
    lambda a: a.movedim(0, 5),
])
def test_bad_dim_is_index_error(fn):
  _raises(IndexError, "Dimension out of range", fn, (3, 4))


def test_view_op_errors():
  _raises(IndexError, re.escape("select(): index 5 out of range for tensor "
                                "of size [3, 4] at dimension 0"),
          lambda a: a.select(0, 5), (3, 4))
  _raises(IndexError, "cannot be applied to a 0-dim tensor",
          lambda a: a.select(0, 0), ())
  _raises(RuntimeError, "permute.*input.dim\\(\\) = 2 is not equal to "
          "len\\(dims\\) = 1", lambda a: a.permute(0), (3, 4))
  _raises(RuntimeError, "duplicate dims are not allowed",
          lambda a: a.permute(0, 0), (3, 4))
  _raises(RuntimeError, "t\\(\\) expects a tensor with <= 2 dimensions",
          lambda a: a.t(), (2, 2, 2))
  _raises(RuntimeError, "must match the existing size \\(4\\) at "
          "non-singleton dimension 1", lambda a: a.expand(3, 5), (3, 4))
  _raises(RuntimeError, "number of sizes provided \\(1\\) must be greater",
          lambda a: a.expand(2), (3, 4))
  _raises(RuntimeError, "isn't allowed in a leading, non-existing dimension",
          lambda a: a.expand(-1, 3, 4), (3, 4))
  _raises(RuntimeError, "slice step must be positive",
          lambda a: torch.ops.aten.slice.Tensor(a, 0, 0, 2, 0), (3, 4))
  _raises(RuntimeError, "split_with_sizes expects split_sizes to sum exactly "
          "to 3", lambda a: a.split([1, 1]), (3, 4))
  _raises(RuntimeError, "split_size can only be 0",
          lambda a: a.split(0), (3, 4))
  _raises(RuntimeError, "diagonal dimensions cannot be identical",
          lambda a: a.diagonal(0, 1, 1), (3, 4))


def test_as_strided_out_of_bounds_raises():
  """Eager's message, in bytes (test_view_crossings.py compares more)."""
  x = torch.zeros(3, 4).to(XLA)
  with pytest.raises(RuntimeError, match="setStorage: sizes \\[3\\], "
                     "strides \\[5\\], storage offset 3, and itemsize 4 "
                     "requiring a storage size of 56 are out of bounds for "
                     "storage of size 48"):
    x.as_strided((3,), (5,), 3)


# ---------------------------------------------------------------------------
# A sync computes a view's root once: the view is re-derived from the root's
# new data, not computed into a second buffer.


def _live_bytes():
  torch_xla.sync(wait=True)
  return torch_xla._XLAC._runtime.live_device_bytes()


def test_sync_keeps_one_buffer_for_a_weight_gradient_and_its_root():
  # linear's weight gradient is t(t(mm(...))): a view of the matmul result.
  torch.manual_seed(0)
  w_cpu = torch.randn(64, 32, requires_grad=True)
  x_cpu = torch.randn(16, 32)
  torch.nn.functional.linear(x_cpu, w_cpu).square().sum().backward()
  w = w_cpu.detach().to(XLA).requires_grad_()
  x = x_cpu.to(XLA)
  before = _live_bytes()
  torch.nn.functional.linear(x, w).square().sum().backward()
  assert w.grad._view is not None
  # One gradient-sized buffer (and a few cached scalars), not two.
  grad_bytes = w.numel() * 4
  assert grad_bytes <= _live_bytes() - before < grad_bytes + 64
  torch.testing.assert_close(w.grad.cpu(), w_cpu.grad)
  # Still a view: an in-place update reaches the root and reads back.
  w.grad.mul_(2)
  torch.testing.assert_close(w.grad.cpu(), w_cpu.grad * 2)


def test_views_of_a_synced_tensor_read_and_write_as_before():
  base_cpu = torch.arange(12.0).reshape(3, 4)
  base = base_cpu.to(XLA) + 1
  row, col = base[1], base.t()[2:]
  torch_xla.sync()
  torch.testing.assert_close(row.cpu(), base_cpu[1] + 1)
  torch.testing.assert_close(col.cpu(), (base_cpu + 1).t()[2:])
  col.zero_()
  torch_xla.sync()
  expected = base_cpu + 1
  expected.t()[2:] = 0
  torch.testing.assert_close(base.cpu(), expected)
  torch.testing.assert_close(row.cpu(), expected[1])


def test_sync_keeps_one_buffer_for_unbind_views_and_their_root():
  # unbind views are selects of the root: re-derived after the sync from
  # the root's data (scan_layers' per-layer gradients are such views of a
  # stack).
  base_cpu = torch.randn(4, 32, 16)
  base = base_cpu.to(XLA)
  before = _live_bytes()
  parts = (base * 2).unbind(0)
  assert parts[0]._view is not None
  assert _live_bytes() - before == base.numel() * 4
  for part, expected in zip(parts, (base_cpu * 2).unbind(0)):
    torch.testing.assert_close(part.cpu(), expected)
  parts[1].add_(1)
  torch_xla.sync()
  torch.testing.assert_close(parts[1].cpu(), base_cpu[1] * 2 + 1)
  torch.testing.assert_close(parts[2].cpu(), base_cpu[2] * 2)
