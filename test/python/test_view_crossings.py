"""The views that address the root's storage (diagonal, as_strided,
view(dtype), and their in-place and _copy forms) cross from Python into C++
once per op: the rule is one `_XLAC._view_op_*` call, whose C++ view step
(tensor/storage_views.h) derives the value and writes it back. A rule that
went back to Python view steps (IR built node by node, then a wrap) fails
here. Also: values, gradients and writes through these views against eager
on random inputs, eager's errors (class and message), and reads of such a
view of a root that holds data without a program (the steps rearrange on the
host).

test/python/ops/test_views.py and test_view_aliasing.py cover more shapes of
the plain views."""

import pytest
import torch

import torch_xla
from crossing_counter import assert_crosses_once
from test_view_reads import _read_without_running

DEV = torch_xla.device()

_DTYPES = [torch.float32, torch.float64, torch.bfloat16, torch.float16,
           torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8,
           torch.bool]


def _random(shape, dtype):
  if dtype == torch.bool:
    return torch.rand(shape) > 0.5
  if dtype.is_floating_point:
    return torch.randn(shape).to(dtype)
  info = torch.iinfo(dtype)
  return torch.randint(max(info.min, -1000), min(info.max, 1000),
                       shape).to(dtype)


def test_each_storage_view_crosses_once():
  torch.manual_seed(0)
  x = torch.randn(6, 8).to(DEV)
  x3 = torch.randn(3, 4, 5).to(DEV)
  y = x.clone()
  row_view = y[1:]
  cases = {
      "diagonal": lambda: x.diagonal(),
      "diagonal 3-d": lambda: x3.diagonal(1, 0, 2),
      "diagonal of a view": lambda: x[1:].diagonal(),
      "diagonal_copy": lambda: torch.diagonal_copy(x, -1),
      "as_strided": lambda: x.as_strided((3, 4), (8, 1), 2),
      "as_strided like a reshape": lambda: x.as_strided((8, 6), (6, 1)),
      "as_strided of a view": lambda: x[1:].as_strided((3, 4), (8, 1), 2),
      "as_strided_copy": lambda: torch.as_strided_copy(x, (3, 4), (8, 1), 2),
      "as_strided_": lambda: y.as_strided_((6, 8), (8, 1)),
      "as_strided_ of a view": lambda: row_view.as_strided_((5, 8), (8, 1), 8),
      "view(dtype) same size": lambda: x.view(torch.int32),
      "view(dtype) narrower": lambda: x.view(torch.bfloat16),
      "view(dtype) wider": lambda: x.view(torch.float64),
      "view(dtype) same dtype": lambda: x.view(torch.float32),
  }
  for name, fn in cases.items():
    torch_xla.sync()
    assert_crosses_once(name, fn)


@pytest.mark.parametrize("offset,dims", [(0, (0, 1)), (2, (0, 2)),
                                         (-1, (2, 0)), (-2, (-1, -3)),
                                         (9, (1, 2))])
def test_diagonal_values_gradients_and_writes(offset, dims):
  base = torch.randn(3, 4, 5)
  got = base.to(DEV).requires_grad_()
  want = base.clone().requires_grad_()
  gd, wd = got.diagonal(offset, *dims), want.diagonal(offset, *dims)
  assert gd.shape == wd.shape and gd.stride() == wd.stride()
  assert gd.storage_offset() == wd.storage_offset()
  torch.testing.assert_close(gd.cpu(), wd)
  seed = torch.randn(wd.shape)
  (gd * seed.to(DEV)).sum().backward()
  (wd * seed).sum().backward()
  torch.testing.assert_close(got.grad.cpu(), want.grad)
  # Writes through the view (and through a view of the view) reach the root.
  x, e = base.to(DEV), base.clone()
  x.diagonal(offset, *dims).add_(1)
  e.diagonal(offset, *dims).add_(1)
  x[1:].diagonal(offset, *dims).mul_(3)
  e[1:].diagonal(offset, *dims).mul_(3)
  torch.testing.assert_close(x.cpu(), e)


@pytest.mark.parametrize("size,stride,offset", [
    ((3, 4), (8, 1), 2), ((2, 3), (1, 2), 0), ((4,), (9,), 1),
    ((2, 2, 2), (0, 5, 1), 3), ((), (), 7), ((0, 3), (1, 1), 40),
    ((6, 8), (8, 1), 0), ((8, 6), (1, 8), None)])
def test_as_strided_values_gradients_and_writes(size, stride, offset):
  base = torch.randn(6, 8)
  got = base.to(DEV).requires_grad_()
  want = base.clone().requires_grad_()
  gv = got.as_strided(size, stride, offset)
  wv = want.as_strided(size, stride, offset)
  assert gv.shape == wv.shape and gv.stride() == wv.stride()
  assert gv.storage_offset() == wv.storage_offset()
  torch.testing.assert_close(gv.cpu(), wv)
  seed = torch.randn(wv.shape)
  (gv * seed.to(DEV)).sum().backward()
  (wv * seed).sum().backward()
  torch.testing.assert_close(got.grad.cpu(), want.grad)
  if 0 in stride and gv.numel() > 1:
    return  # overlapping elements: eager's write order is unspecified
  x, e = base.to(DEV), base.clone()
  x.as_strided(size, stride, offset).mul_(2)
  e.as_strided(size, stride, offset).mul_(2)
  torch.testing.assert_close(x.cpu(), e)


def test_as_strided_of_views_and_views_of_it_write_back():
  base = torch.randn(5, 6)
  x, e = base.to(DEV), base.clone()
  for t in (x, e):
    v = t.t()[1:].as_strided((3, 2), (6, 2), 4)  # relative to the storage
    v[1].add_(10)  # a view of the as_strided view
    v.t()[0].mul_(-1)
  torch.testing.assert_close(x.cpu(), e)
  y, f = base.to(DEV), base.clone()
  y[2:].as_strided_((2, 3), (3, 1), 5)
  f[2:].as_strided_((2, 3), (3, 1), 5)
  yv, fv = y[2:], f[2:]
  yv.as_strided_((2, 3), (3, 1), 5)
  fv.as_strided_((2, 3), (3, 1), 5)
  assert yv.shape == fv.shape and yv.stride() == fv.stride()
  assert yv.storage_offset() == fv.storage_offset()
  yv.sub_(1)
  fv.sub_(1)
  torch.testing.assert_close(y.cpu(), f)
  torch.testing.assert_close(yv.cpu(), fv)


@pytest.mark.parametrize("src", _DTYPES)
def test_view_dtype_matches_eager_bit_for_bit(src):
  torch.manual_seed(1)
  base = _random((3, 8), src)
  x = base.to(DEV)
  for dst in _DTYPES:
    if dst == torch.bool and src != torch.bool:
      want = base.view(torch.uint8) != 0  # eager reads other bytes as != 0
      got = x.view(dst).cpu()
      torch.testing.assert_close(got, want.view(got.shape), msg=str(dst))
      continue
    want = base.view(dst)
    got = x.view(dst)
    assert got.shape == want.shape and got.stride() == want.stride(), dst
    assert torch.equal(got.cpu().view(torch.uint8),
                       want.view(torch.uint8)), (src, dst)


def test_writes_through_view_dtype_reach_the_root_bit_for_bit():
  base = torch.randn(4, 6)
  writes = {
      torch.int32: lambda t: t[1:, 2:].view(torch.int32).add_(3),
      torch.int16: lambda t: t[1:, 2:].view(torch.int16).add_(3),
      torch.uint8: lambda t: t[1:, 2:].view(torch.uint8)[:, 1::4].fill_(7),
      torch.float64: lambda t: t[:, 2:].view(torch.float64).mul_(2),
  }
  for dst, write in writes.items():
    x, e = base.to(DEV), base.clone()
    write(x)
    write(e)
    assert torch.equal(x.cpu().view(torch.int32), e.view(torch.int32)), dst


def _same_error(fn, shape=(3, 4)):
  base = torch.randn(shape)
  with pytest.raises(Exception) as want:
    fn(base)
  with pytest.raises(type(want.value)) as got:
    fn(base.to(DEV))
  assert str(got.value) == str(want.value)


@pytest.mark.parametrize("fn", [
    lambda a: a.diagonal(0, 0, -2),
    lambda a: a.diagonal(0, 0, 2),
    lambda a: a[0].diagonal(),
    lambda a: a.as_strided((2, 2), (1,)),
    lambda a: a.as_strided((2, 2), (-1, 1)),
    lambda a: a.as_strided((-2, 2), (1, 1)),
    lambda a: a.as_strided((2, 2), (1, 1), -1),
    lambda a: a.as_strided((5, 5), (4, 1)),
    lambda a: a[1:].as_strided((2, 2), (4, 1), 11),
    lambda a: a.sum().view(torch.int16),
    lambda a: a.t().view(torch.int16),
    lambda a: a[:, :3].view(torch.float64),
    lambda a: a[:, 1:3].view(torch.float64),
    lambda a: a.reshape(4, 3)[:, :2].view(torch.float64),
])
def test_errors_are_eagers(fn):
  _same_error(fn)


def test_storage_views_of_data_read_on_the_host():
  base = torch.randn(4, 6, 5)
  x = base.to(DEV)
  views = {
      "diagonal": lambda t: t.diagonal(1, 0, 2),
      "diagonal_of_slice": lambda t: t[1:, 2:].diagonal(-1, 2, 1),
      "as_strided": lambda t: t.as_strided((3, 4), (7, 2), 5),
      "as_strided_of_view": lambda t: t[2].as_strided((2, 5), (30, 1), 1),
      "view_int32": lambda t: t[1].view(torch.int32),
      "view_bf16": lambda t: t[:, 1].view(torch.bfloat16),
      "view_bf16_as_f32": lambda t: t.view(torch.bfloat16)[1:3].view(
          torch.float32),
  }
  got = {name: view(x) for name, view in views.items()}
  torch_xla.sync()
  for name, view in views.items():
    want = view(base)
    assert torch.equal(_read_without_running(got[name]), want), name
