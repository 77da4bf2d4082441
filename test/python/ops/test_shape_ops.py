"""Shape ops that copy (cat, stack, flip, roll, repeat, tril/triu, pads,
*_scatter, view backwards) and factories on 'xla' against eager CPU PyTorch:
values, gradients, errors, and that user numbers are graph parameters.

Value and gradient checks go through op_test_utils.check_op, which also
asserts that nothing fell back to CPU.
"""

import re

import pytest
import torch
import torch.nn.functional as F

import torch_xla
from torch_xla import _XLAC
from op_test_utils import random_tensor as _rand, XLA, check_op, fallback_counters

FLOATS = [torch.float32, torch.bfloat16]
ALL = FLOATS + [torch.int64, torch.bool]


def _graph_hash(t):
  return _XLAC._get_graph_hash([t._xt])


def _raises(exc, pattern, fn, *inputs):
  with pytest.raises(exc, match=pattern):
    fn(*inputs)
  with pytest.raises(exc, match=pattern):
    fn(*[x.to(XLA) for x in inputs])


# ---------------------------------------------------------------------------
# cat and stack.


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", ALL)
def test_cat(dim, dtype):
  shapes = [(2, 3, 4), (2, 3, 4), (2, 3, 4)]
  shapes = [tuple(s if i != dim % 3 else s + k for i, s in enumerate(shape))
            for k, shape in enumerate(shapes)]
  xs = [_rand(s, dtype) for s in shapes]
  check_op(lambda *a: torch.cat(a, dim), *xs)


def test_cat_promotes_types():
  out = check_op(lambda a, b, c: torch.cat([a, b, c]), torch.randn(2, 3),
                 torch.arange(3).reshape(1, 3), torch.ones(1, 3).bool())
  assert out.dtype == torch.float32
  out = check_op(lambda a, b: torch.cat([a, b], 1),
                 torch.randn(2, 3, dtype=torch.bfloat16),
                 torch.randn(2, 1, dtype=torch.float16))
  assert out.dtype == torch.float32


def test_cat_skips_legacy_empty_tensors():
  # 1-d empty tensors are skipped whatever the other shapes, but still take
  # part in type promotion.
  out = check_op(lambda a, b, c: torch.cat([a, b, c]), torch.zeros(0),
                 torch.arange(6).reshape(2, 3), torch.randn(1, 3))
  assert out.dtype == torch.float32
  out = check_op(lambda a, b: torch.cat([a, b], 1), torch.zeros(0),
                 torch.arange(6).reshape(2, 3))
  assert out.dtype == torch.float32
  check_op(lambda a, b: torch.cat([a, b]), torch.zeros(0),
           torch.zeros(0, dtype=torch.int32))


def test_cat_single_and_empty_parts():
  check_op(lambda a: torch.cat([a]), torch.randn(2, 3))
  check_op(lambda a, b: torch.cat([a, b]), torch.randn(0, 3),
           torch.randn(2, 3))


def test_cat_does_not_alias_its_input():
  x = torch.zeros(2).to(XLA)
  y = torch.cat([x])
  y.add_(1)
  assert x.cpu().sum() == 0


def test_cat_errors():
  _raises(RuntimeError, "Sizes of tensors must match except in dimension 0. "
          "Expected size 2 but got size 3 for tensor number 1 in the list.",
          lambda a, b: torch.cat([a, b]), torch.ones(2, 2), torch.ones(2, 3))
  _raises(RuntimeError, "Tensors must have same number of dimensions: got 2 "
          "and 3", lambda a, b: torch.cat([a, b]), torch.ones(2, 2),
          torch.ones(2, 2, 1))
  _raises(IndexError, "Dimension out of range",
          lambda a: torch.cat([a, a], 2), torch.ones(2, 2))
  _raises(RuntimeError, re.escape("zero-dimensional tensor (at position 0) "
                                  "cannot be concatenated"),
          lambda a: torch.cat([a]), torch.tensor(1.))
  with pytest.raises(RuntimeError, match="same device"):
    torch.cat([torch.ones(2).to(XLA), torch.ones(2)])


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("dtype", ALL)
def test_stack(dim, dtype):
  xs = [_rand((2, 3), dtype) for _ in range(3)]
  check_op(lambda *a: torch.stack(a, dim), *xs)


def test_stack_promotes_and_single_input():
  out = check_op(lambda a, b: torch.stack([a, b]), torch.randn(3),
                 torch.arange(3))
  assert out.dtype == torch.float32
  check_op(lambda a: torch.stack([a], 1), torch.randn(3, 2))


def test_stack_family():
  a, b = torch.randn(3, 2), torch.randn(3, 2)
  check_op(lambda x, y: torch.hstack([x, y]), a, b)
  check_op(lambda x, y: torch.vstack([x, y]), a, b)
  check_op(lambda x, y: torch.dstack([x, y]), a, b)
  check_op(lambda x, y: torch.column_stack([x, y]), a, b)


def test_stack_errors():
  _raises(RuntimeError, re.escape("stack expects each tensor to be equal "
                                  "size, but got [2] at entry 0 and [3] at "
                                  "entry 1"),
          lambda a, b: torch.stack([a, b]), torch.ones(2), torch.ones(3))
  _raises(IndexError, "Dimension out of range",
          lambda a: torch.stack([a], 3), torch.ones(2, 2))


# ---------------------------------------------------------------------------
# flip, roll, repeat.


@pytest.mark.parametrize("dims", [(0,), (1,), (-1, 0), (0, 1, 2), ()])
@pytest.mark.parametrize("dtype", ALL)
def test_flip(dims, dtype):
  check_op(lambda a: a.flip(dims), _rand((2, 3, 4), dtype))


def test_flip_variants():
  check_op(lambda a: a.fliplr(), torch.randn(3, 4))
  check_op(lambda a: a.flipud(), torch.randn(3, 4))
  check_op(lambda a: a.flip(0), torch.randn(()))


@pytest.mark.parametrize("shifts,dims", [
    (1, 0), (-1, 1), (5, 1), ((1, 2), (0, 1)), (3, None), (-7, None),
    (0, 0), (4, -1)
])
@pytest.mark.parametrize("dtype", FLOATS + [torch.int64])
def test_roll(shifts, dims, dtype):
  check_op(lambda a: a.roll(shifts, dims), _rand((3, 4), dtype))


@pytest.mark.parametrize("repeats", [(1, 1), (2, 3), (2, 1, 3), (1, 0),
                                     (3, 1, 1, 2)])
@pytest.mark.parametrize("dtype", ALL)
def test_repeat(repeats, dtype):
  check_op(lambda a: a.repeat(repeats), _rand((2, 3), dtype))


def test_repeat_scalar_and_tile():
  check_op(lambda a: a.repeat(3, 2), torch.randn(()))
  check_op(lambda a: a.tile((2,)), torch.randn(2, 3))


def test_flip_roll_repeat_errors():
  _raises(RuntimeError, "dim 0 appears multiple times in the list of dims",
          lambda a: a.flip(0, 0), torch.ones(3))
  _raises(IndexError, "Dimension out of range", lambda a: a.flip(2),
          torch.ones(3, 4))
  _raises(RuntimeError, "shifts and dimensions must align. shifts: 2, dims:1",
          lambda a: a.roll((1, 2), (0,)), torch.ones(3, 4))
  _raises(RuntimeError, "Number of dimensions of repeat dims can not be "
          "smaller than number of dimensions of tensor",
          lambda a: a.repeat(2), torch.ones(3, 4))


# ---------------------------------------------------------------------------
# tril and triu.


@pytest.mark.parametrize("fn", [torch.tril, torch.triu])
@pytest.mark.parametrize("diagonal", [0, 1, -1, 5, -5])
@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (2, 3, 3)])
@pytest.mark.parametrize("dtype", ALL)
def test_tril_triu(fn, diagonal, shape, dtype):
  check_op(lambda a: fn(a, diagonal), _rand(shape, dtype))


def test_tril_triu_in_place():
  check_op(lambda a: (a * 1).tril_(1), torch.randn(3, 4))
  check_op(lambda a: (a * 1).triu_(-1), torch.randn(3, 4))
  check_op(lambda a: (a * 1)[1:].tril_(), torch.randn(3, 4))


def test_tril_diagonal_is_a_parameter():
  x = torch.randn(4, 4).to(XLA)
  assert _graph_hash(x.tril(1)) == _graph_hash(x.tril(-2))
  check_op(lambda a: a.tril(-2), torch.randn(4, 4))


def test_tril_needs_two_dims():
  _raises(RuntimeError, "tril: input tensor must have at least 2 dimensions",
          lambda a: a.tril(), torch.ones(3))


# ---------------------------------------------------------------------------
# Padding.


@pytest.mark.parametrize("pad", [(1, 2), (0, 0, 2, 1), (1, 1, 1, 1, 1, 1),
                                 (-1, 2), (2, -3, -1, 0)])
@pytest.mark.parametrize("dtype", ALL)
def test_constant_pad(pad, dtype):
  x = _rand((2, 3, 4), dtype)
  value = True if dtype == torch.bool else 3
  check_op(lambda a: F.pad(a, pad, value=value), x)
  check_op(lambda a: F.pad(a, pad), x)


def test_pad_value_is_a_parameter():
  x = torch.randn(2, 3).to(XLA)
  assert _graph_hash(F.pad(x, (1, 1), value=2.)) == _graph_hash(
      F.pad(x, (1, 1), value=-7.))


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pad", [
    ((2, 5), (2, 3)),
    ((1, 2, 5), (0, 4)),
    ((2, 4, 5), (1, 2, 3, 0)),
    ((1, 2, 4, 5), (1, 1, 2, 3)),
    ((1, 2, 3, 4, 5), (1, 2, 0, 1, 2, 1)),
])
def test_mode_pad(mode, shape, pad):
  check_op(lambda a: F.pad(a, pad, mode=mode), torch.randn(shape))


def test_mode_pad_bf16():
  x = torch.randn(1, 2, 4, 5, dtype=torch.bfloat16)
  check_op(lambda a: F.pad(a, (1, 2, 2, 1), mode="reflect"), x)
  check_op(lambda a: F.pad(a, (1, 2, 2, 1), mode="replicate"), x)


def test_pad_errors():
  _raises(RuntimeError, "Padding length must be divisible by 2",
          lambda a: F.pad(a, (1, 2, 3)), torch.ones(3, 4))
  _raises(RuntimeError, "Length of pad must be even but instead it equals 3",
          lambda a: torch.constant_pad_nd(a, (1, 2, 3)), torch.ones(3, 4))
  _raises(RuntimeError, "Length of pad should be no more than twice the "
          "number of dimensions of the input. Pad length is 6 ?while the "
          "input has 2 ?dimensions",
          lambda a: torch.constant_pad_nd(a, (1, 2, 3, 4, 5, 6)),
          torch.ones(3, 4))
  with pytest.raises(RuntimeError, match="resulted in a negative output "
                     "size"):
    torch.constant_pad_nd(torch.ones(3, 4).to(XLA), (-3, -2))
  _raises(RuntimeError, "Padding size should be less than the corresponding "
          "input dimension, but got: padding \\(4, 2\\) at dimension 2",
          lambda a: F.pad(a, (4, 2), mode="reflect"), torch.ones(1, 3, 4))


# ---------------------------------------------------------------------------
# Scatters into views and the view backwards.


@pytest.mark.parametrize("dim,start,end,step", [(0, 1, 3, 1), (1, 0, 4, 2),
                                                (1, -3, None, 1),
                                                (0, 5, 9, 1)])
@pytest.mark.parametrize("dtype", ALL)
def test_slice_scatter(dim, start, end, step, dtype):
  x = _rand((3, 4), dtype)
  src = x[(slice(None),) * dim + (slice(start, end, step),)] * 1
  src = _rand(tuple(src.shape), dtype)
  check_op(lambda a, s: torch.slice_scatter(a, s, dim, start, end, step), x,
           src)


@pytest.mark.parametrize("dim,index", [(0, 0), (1, -1), (-1, 2)])
@pytest.mark.parametrize("dtype", ALL)
def test_select_scatter(dim, index, dtype):
  x = _rand((3, 4), dtype)
  src = _rand(tuple(x.select(dim, index).shape), dtype)
  check_op(lambda a, s: torch.select_scatter(a, s, dim, index), x, src)


@pytest.mark.parametrize("offset,dims", [(0, (0, 1)), (1, (0, 1)),
                                         (-1, (1, 0)), (2, (2, 0))])
def test_diagonal_scatter(offset, dims):
  x = torch.randn(3, 4, 5)
  src = torch.randn(x.diagonal(offset, *dims).shape)
  check_op(lambda a, s: torch.diagonal_scatter(a, s, offset, *dims), x, src)


def test_scatter_errors():
  _raises(RuntimeError, re.escape("expected src to have a size equal to the "
                                  "slice of self. src size = [3, 3], slice "
                                  "size = [3, 2]"),
          lambda a, s: torch.slice_scatter(a, s, 1, 0, 2), torch.ones(3, 4),
          torch.ones(3, 3))


def test_view_backwards():
  check_op(lambda a: torch.ops.aten.slice_backward(a, [5, 4], 0, 1, 4, 2),
           torch.randn(2, 4))
  check_op(lambda a: torch.ops.aten.slice_backward(a, [5, 4], 1, 0, 0, 1),
           torch.randn(5, 0))
  check_op(lambda a: torch.ops.aten.select_backward(a, [3, 2, 4], 1, -1),
           torch.randn(3, 4))
  check_op(lambda a: torch.ops.aten.diagonal_backward(a, [2, 4, 5], 1, 1, 2),
           torch.randn(2, 4))


# ---------------------------------------------------------------------------
# Clones and contiguous.


def test_clone_of_views_and_contiguous():
  check_op(lambda a: a.t().clone(), torch.randn(3, 4))
  check_op(lambda a: a[:, 1:].contiguous(), torch.randn(3, 4))
  x = torch.randn(3, 4).to(XLA)
  c = x.t().clone()
  c.add_(1)  # a clone never writes back
  torch.testing.assert_close(x.t().cpu() + 1, c.cpu())
  assert x.contiguous() is x  # as eager: contiguous of contiguous is self


# ---------------------------------------------------------------------------
# Factories.


@pytest.mark.parametrize("dtype", [None, torch.float32, torch.bfloat16,
                                   torch.int64, torch.bool])
def test_like_factories(dtype):
  x = torch.randn(2, 3)
  check_op(lambda a: torch.zeros_like(a, dtype=dtype), x, grad=False)
  check_op(lambda a: torch.ones_like(a, dtype=dtype), x, grad=False)
  check_op(lambda a: torch.full_like(a, 1, dtype=dtype), x, grad=False)
  check_op(lambda a: torch.empty_like(a, dtype=dtype).shape, x, grad=False)


@pytest.mark.parametrize("dtype", [None, torch.float32, torch.int32])
def test_new_factories(dtype):
  x = torch.randn(2, 3)
  check_op(lambda a: a.new_zeros((4, 1), dtype=dtype), x, grad=False)
  check_op(lambda a: a.new_ones(5, dtype=dtype), x, grad=False)
  check_op(lambda a: a.new_full((2, 2), 7, dtype=dtype), x, grad=False)
  check_op(lambda a: a.new_empty((3,), dtype=dtype).shape, x, grad=False)
  check_op(lambda a: a.new_empty_strided((3, 2), (1, 3), dtype=dtype).shape,
           x, grad=False)


def test_fill_values_are_parameters():
  x = torch.randn(2, 3).to(XLA)
  assert _graph_hash(torch.full_like(x, 2.5)) == _graph_hash(
      torch.full_like(x, -1.0))
  assert _graph_hash(x.new_full((2,), 3)) == _graph_hash(x.new_full((2,), 4))


def test_factories_to_another_device():
  x = torch.randn(2, 3).to(XLA)
  out = x.new_zeros(4, device="cpu")
  assert out.device.type == "cpu" and out.shape == (4,)
  out = torch.full_like(x, 2., device="cpu")
  assert out.device.type == "cpu"
  torch.testing.assert_close(out, torch.full((2, 3), 2.))


@pytest.mark.parametrize("args,dtype", [
    ((5,), None),
    ((0,), None),
    ((2, 11, 3), None),
    ((10, 0, -3), None),
    ((0, 1, 0.1), None),
    ((-1.5, 2.5), None),
    ((1, 10, 2), torch.float32),
    ((0, 5), torch.bfloat16),
    ((0.5, 5), torch.int64),
    ((3,), torch.int32),
    ((3.5,), None),
])
def test_arange(args, dtype):
  before = fallback_counters()
  out = torch.arange(*args, dtype=dtype, device=XLA)
  expected = torch.arange(*args, dtype=dtype)
  assert out.device.type == "xla" and out.dtype == expected.dtype
  torch.testing.assert_close(out.cpu(), expected)
  assert fallback_counters() == before


def test_arange_bounds_are_parameters():
  # (Equal scalars share one parameter, so keep start != step here.)
  a = torch.arange(1, 11, 2, device=XLA)
  b = torch.arange(3, 13, 2, device=XLA)
  assert _graph_hash(a) == _graph_hash(b)


def test_arange_errors():
  with pytest.raises(RuntimeError, match="step must be nonzero"):
    torch.arange(0, 5, 0, device=XLA)
  with pytest.raises(RuntimeError, match="upper bound and lower bound "
                     "inconsistent with step sign"):
    torch.arange(5, 0, 1, device=XLA)


def test_tensor_factories():
  before = fallback_counters()
  for fn in (lambda **k: torch.zeros(2, 3, **k),
             lambda **k: torch.ones(4, **k),
             lambda **k: torch.full((2,), 3.5, **k),
             lambda **k: torch.scalar_tensor(2.5, **k),
             lambda **k: torch.zeros(3, dtype=torch.int64, **k)):
    out = fn(device=XLA)
    expected = fn()
    assert out.device.type == "xla" and out.dtype == expected.dtype
    torch.testing.assert_close(out.cpu(), expected)
  assert fallback_counters() == before
