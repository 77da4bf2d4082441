"""The shape, copy, factory and convolution ops whose Python rule calls a C++
core builder (torch_xla/csrc/ops: shape_ops, copy_ops, conv_ops) cross from
Python into C++ once per op: the rule checks eager's arguments and makes ONE
_XLAC call that returns the wrapped 'xla' tensor (or commits an in-place
result). A rule that went back to composing IR in Python (one _XLAC call per
node, then a wrap) fails here. Crossings are counted with sys.setprofile, as
calls of _XLAC functions while the op runs.

Values and gradients are compared with eager in test/python/ops
(test_shape_ops.py, test_convolution.py); here the few cases those do not
reach (aliasing of single-input results, in-place commits through views,
copy_'s scalar and broadcast sources)."""

import pytest
import torch

import torch_xla
from torch_xla import _XLAC
from crossing_counter import assert_crosses_once
from crossing_counter import crossings as _crossings

aten = torch.ops.aten
DEV = torch_xla.device()


def _host(t):
  return t.to(DEV)


def _cases():
  torch.manual_seed(0)
  x, y = _host(torch.randn(8, 16)), _host(torch.randn(8, 16))
  ints = _host(torch.randint(0, 5, (8, 16)))
  row, empty = _host(torch.randn(16)), _host(torch.randn(0))
  int_row = _host(torch.randint(0, 5, (16,)))
  target = _host(torch.randn(8, 16))
  zero_d = _host(torch.tensor(2.5))
  im = _host(torch.randn(2, 3, 8, 8))
  w = _host(torch.randn(4, 3, 3, 3))
  b = _host(torch.randn(4))
  g = _host(torch.randn(2, 4, 6, 6))
  wt = _host(torch.randn(4, 2, 3, 3))
  gt = _host(torch.randn(2, 4, 8, 8))
  seq, seq_grad = _host(torch.randn(2, 3, 8)), _host(torch.randn(2, 3, 11))
  vol = _host(torch.randn(1, 2, 4, 5, 6))
  im_grad = _host(torch.randn(2, 3, 11, 9))
  cols, plane_row = _host(torch.randn(8, 4)), _host(torch.randn(16))
  diag = _host(torch.randn(8))
  return {
      "cat": lambda: aten.cat([x, y], 1),
      "cat_promotes": lambda: aten.cat([x, ints]),
      "cat_one": lambda: aten.cat([x]),
      "cat_legacy_empty": lambda: aten.cat([x, empty]),
      "stack": lambda: aten.stack([x, y], 2),
      "flip": lambda: aten.flip(x, [0, 1]),
      "roll": lambda: aten.roll(x, [1, -3], [0, 1]),
      "roll_flat": lambda: aten.roll(x, [5]),
      "repeat": lambda: aten.repeat(x, [2, 1, 3]),
      "tril": lambda: aten.tril(x, 2),
      "triu": lambda: aten.triu(x, -1),
      "tril_": lambda: aten.tril_(target, 1),
      "triu_": lambda: aten.triu_(target),
      "constant_pad_nd": lambda: aten.constant_pad_nd(x, [1, 2, -1, 0], 0.5),
      "reflection_pad2d": lambda: aten.reflection_pad2d(im, [2, 1, 1, 0]),
      "replication_pad3d": lambda: aten.replication_pad3d(
          vol, [1, 1, 1, 0, 0, 2]),
      "reflection_pad1d_backward": lambda: aten.reflection_pad1d_backward(
          seq_grad, seq, [2, 1]),
      "replication_pad2d_backward": lambda: aten.replication_pad2d_backward(
          im_grad, im, [0, 1, 2, 1]),
      "slice_scatter": lambda: aten.slice_scatter(x, cols, 1, 1, None, 4),
      "select_scatter": lambda: aten.select_scatter(x, plane_row, 0, -3),
      "diagonal_scatter": lambda: aten.diagonal_scatter(x, diag, 2),
      "diagonal_backward": lambda: aten.diagonal_backward(
          diag, [8, 16], 2, 0, 1),
      "select_backward": lambda: aten.select_backward(row, [8, 16], 0, -2),
      "new_zeros": lambda: aten.new_zeros(x, [3, 4]),
      "new_full": lambda: aten.new_full(x, [3, 4], 2.5),
      "zeros_like": lambda: aten.zeros_like(x),
      "ones_like": lambda: aten.ones_like(ints),
      "full_like": lambda: aten.full_like(x, 3),
      "empty_like": lambda: aten.empty_like(x),
      "empty": lambda: aten.empty.memory_format([3, 4], device=DEV),
      "scalar_tensor": lambda: aten.scalar_tensor(2.0, device=DEV),
      "arange": lambda: aten.arange(10, device=DEV),
      "arange_start_step": lambda: aten.arange.start_step(1, 10, 2,
                                                          device=DEV),
      "arange_float": lambda: aten.arange.start_step(0.5, 3.0, 0.25,
                                                     device=DEV),
      "to_f16": lambda: aten._to_copy(x, dtype=torch.float16),
      "to_same_dtype": lambda: aten._to_copy(x),
      "clone_channels_last_4d": lambda: aten.clone(
          im, memory_format=torch.channels_last),
      "copy_": lambda: aten.copy_(target, y),
      "copy_broadcast_cast": lambda: aten.copy_(target, int_row),
      "copy_cpu_scalar": lambda: aten.copy_(target, torch.tensor(3)),
      "zero_": lambda: aten.zero_(target),
      "fill_": lambda: aten.fill_.Scalar(target, 2),
      "fill_tensor_": lambda: aten.fill_.Tensor(target, zero_d),
      "fill": lambda: aten.fill.Scalar(x, 2),
      "fill_tensor": lambda: aten.fill.Tensor(x, zero_d),
      "cumsum": lambda: aten.cumsum(x, 1),
      "cumsum_dtype": lambda: aten.cumsum(ints, 0, dtype=torch.float32),
      "cumprod": lambda: aten.cumprod(x, -1),
      "cumsum_": lambda: aten.cumsum_(target, 0),
      "convolution": lambda: aten.convolution(im, w, b, [1, 1], [1, 1],
                                              [1, 1], False, [0, 0], 1),
      "convolution_transposed": lambda: aten.convolution(
          g, wt, None, [2, 2], [1, 1], [1, 1], True, [1, 1], 2),
      "convolution_backward": lambda: aten.convolution_backward(
          g, im, w, [4], [1, 1], [0, 0], [1, 1], False, [0, 0], 1,
          [True, True, True]),
      "convolution_backward_transposed": lambda: aten.convolution_backward(
          gt, g, wt, None, [1, 1], [0, 0], [1, 1], True, [0, 0], 2,
          [True, True, False]),
  }


NAMES = sorted(_cases())


@pytest.mark.parametrize("name", NAMES)
def test_op_crosses_into_cpp_once(name):
  assert_crosses_once(name, _cases()[name])


def test_single_input_results_are_new_tensors():
  # The builders return their input's value unchanged here; the binding
  # clones it (a new tensor holding the same device data, as _clone makes),
  # never a graph reading the input, and writing it leaves the input alone.
  x = torch.randn(3, 4)
  for fn in (lambda t: torch.cat([t]), lambda t: torch.cat([t, t.new_empty(0)]),
             lambda t: t.flip([]), lambda t: t.roll(4, 1),
             lambda t: t.to(torch.float32, copy=True)):
    xla = _host(x)
    out = fn(xla)
    assert out._xt.id != xla._xt.id
    assert out._xt.state == xla._xt.state == "device data"
    out.add_(1)
    torch.testing.assert_close(xla.cpu(), x)
    torch.testing.assert_close(out.cpu(), fn(x) + 1)


def test_in_place_commits_write_through_views():
  x = torch.randn(4, 6)
  xla = _host(x)
  expected = x.clone()
  expected[1:, 2:].tril_(1)
  xla[1:, 2:].tril_(1)
  expected[:2].fill_(torch.tensor(7.0))
  xla[:2].fill_(_host(torch.tensor(7.0)))
  expected[:, 0].copy_(torch.arange(4))
  xla[:, 0].copy_(_host(torch.arange(4)))
  expected[3].zero_()
  xla[3].zero_()
  torch.testing.assert_close(xla.cpu(), expected)


@pytest.mark.parametrize("src", [
    torch.tensor(3), torch.tensor(-2.75), torch.tensor(True),
    torch.arange(6).reshape(1, 6) * 1.5
])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.bfloat16])
def test_copy_casts_and_broadcasts_like_eager(src, dtype):
  dst = torch.zeros(4, 6, dtype=dtype)
  xla = _host(dst)
  xla_src = src if src.dim() == 0 else _host(src)
  xla.copy_(xla_src)
  torch.testing.assert_close(xla.cpu(), dst.copy_(src))


def test_fill_with_an_xla_tensor_converts_like_eager():
  for dtype in (torch.int64, torch.bfloat16, torch.bool):
    x = torch.zeros(2, 3, dtype=dtype)
    value = torch.tensor(2.75)
    xla = _host(x)
    xla.fill_(_host(value))
    torch.testing.assert_close(xla.cpu(), x.fill_(value))
    torch.testing.assert_close(
        aten.fill.Tensor(_host(x), _host(value)).cpu(),
        aten.fill.Tensor(x, value))


def test_copy_errors_are_eager_classes():
  with pytest.raises(RuntimeError, match="does not match"):
    _host(torch.zeros(2, 3)).copy_(_host(torch.zeros(2)))
  with pytest.raises(RuntimeError, match="0-dimension value tensor"):
    _host(torch.zeros(2)).fill_(_host(torch.zeros(2)))


def test_scatters_check_their_source_like_eager():
  x = torch.randn(4, 6)
  with pytest.raises(RuntimeError, match=r"expected src to have a size equal "
                     r"to the slice of self. src size = \[4, 2\], slice size "
                     r"= \[4, 3\]"):
    torch.slice_scatter(_host(x), _host(torch.randn(4, 2)), 1, 0, 6, 2)
  with pytest.raises(IndexError, match="select_scatter"):
    torch.select_scatter(_host(x), _host(torch.randn(6)), 0, 4)
  src = torch.randn(6, dtype=torch.float64)
  torch.testing.assert_close(
      torch.select_scatter(_host(x), _host(src), 0, -1).cpu(),
      torch.select_scatter(x, src, 0, -1))


def test_copy_of_the_same_shape_and_dtype_takes_the_source_data():
  # No cast, no broadcast: dst holds src's data (as device data), not a
  # graph reading it.
  src, dst = _host(torch.randn(3, 2)), _host(torch.zeros(3, 2))
  assert src._xt.state == "device data"
  dst.copy_(src)
  assert dst._xt.state == "device data"
  assert dst._xt.data_id == src._xt.data_id
  host = torch.randn(3, 2)
  dst.copy_(host)
  assert dst._xt.state == "device data"
  torch.testing.assert_close(dst.cpu(), host)


@pytest.mark.parametrize("shape", [(4, 5), (0, 5)])
def test_a_cpu_tensor_to_xla_is_one_call_per_aten_op(shape):
  # cpu -> 'xla' reaches the XLA-key _to_copy kernel (copy_ops.py): one
  # upload, the new tensor holding the data itself, so under SPMD it stays
  # host data until a sharding places it (spmd_cases.py).
  cpu = torch.randn(shape)
  out, names = _crossings(lambda: cpu.to(DEV))
  assert names == ["_from_host"], names
  torch.testing.assert_close(out.cpu(), cpu)


def test_op_wrapped_is_op_then_wrap_in_one_call():
  # For a rule whose result is one IR node (prototypes on torch_xla/_ir.py).
  from torch_xla import _ir
  x = _host(torch.randn(3, 4))
  out, names = _crossings(
      lambda: _XLAC._op_wrapped(_ir.K["reverse"], [x], {"dims": [1]}))
  assert names == ["_op_wrapped"]
  assert type(out) is type(x) and out.device == x.device
  torch.testing.assert_close(out.cpu(), x.cpu().flip(1))


def test_diagonal_writes_match_eager():
  x = torch.randn(3, 4, 5)
  src = torch.randn(3, 4, dtype=torch.float64)  # dims (1, 2), offset 1
  torch.testing.assert_close(
      torch.diagonal_scatter(_host(x), _host(src), 1, 1, 2).cpu(),
      torch.diagonal_scatter(x, src.float(), 1, 1, 2))
  with pytest.raises(RuntimeError, match="equal to the diagonal of self"):
    torch.diagonal_scatter(_host(x), _host(torch.randn(3, 3)), 1, 1, 2)
  xla = _host(x)
  xla.diagonal(-1, 2, 0).mul_(0)  # the view's inverse: the same builder
  expected = x.clone()
  expected.diagonal(-1, 2, 0).mul_(0)
  torch.testing.assert_close(xla.cpu(), expected)
