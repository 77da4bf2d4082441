"""In-place ops through 'xla' views against eager CPU PyTorch: eager's
aliasing (an in-place op on a view updates its base and every other view
of it, and the base keeps its tensor and alias IDs) and autograd through
in-place ops on views (view replay). test_views.py has the view ops'
values, gradients, strides and errors.
"""

import pytest
import torch

import torch_xla
from op_test_utils import random_tensor as _rand, XLA, check_op, fallback_counters

# ---------------------------------------------------------------------------
# Eager's aliasing: in-place ops through views.


def _same_as_eager(fn, *shapes, dtype=torch.float32, check_ids=True):
  """Runs fn (which mutates its inputs and returns tensors) on cpu and xla;
  compares the returned tensors and the inputs afterwards, checks the
  inputs kept their tensor and alias IDs, and that nothing fell back."""
  cpu = [_rand(s, dtype) for s in shapes]
  xla = [c.to(XLA) for c in cpu]
  ids = [(x._xt.id, x._xt.alias_id) for x in xla]
  before = fallback_counters()
  expected = fn(*cpu)
  actual = fn(*xla)
  for e, a in zip(expected, actual):
    assert a.stride() == e.stride(), (a.stride(), e.stride())
    torch.testing.assert_close(a.cpu(), e, rtol=0, atol=0)
  for c, x in zip(cpu, xla):
    torch.testing.assert_close(x.cpu(), c, rtol=0, atol=0)
  if check_ids:
    assert [(x._xt.id, x._xt.alias_id) for x in xla] == ids
  assert fallback_counters() == before
  return actual


def test_inplace_on_select_updates_base():
  _same_as_eager(lambda x: [x[0].add_(1), x], (3, 4))


def test_inplace_on_transpose_updates_base():
  _same_as_eager(lambda x: [x.t().mul_(2), x], (3, 4))
  _same_as_eager(lambda x: [x.t()[1].mul_(2), x], (3, 4))


def test_setitem_on_view_of_view():
  def fn(x):
    x.view(-1)[3] = 5
    return [x]

  _same_as_eager(fn, (3, 4))


def test_setitem_forms():
  def fn(x):
    x[0] = 1.5
    x[:, 1] = torch.arange(3.).to(x.device)
    x[1:, ::2] = x[:2, 1::2] * 10
    x[..., -1] += 7
    return [x]

  _same_as_eager(fn, (3, 4))


def test_view_sees_later_update_of_base():
  def fn(x):
    y = x[:, 1:3]
    z = y.t()[0]  # a view of a view
    x.add_(1)
    return [y, z]

  _same_as_eager(fn, (3, 4))


def test_unsqueeze_squeeze_inplace():
  _same_as_eager(lambda x: [x.unsqueeze(0).squeeze(0).add_(1), x], (3, 4))


def test_sibling_views_see_each_other():
  def fn(x):
    row, col = x[0], x[:, 1]
    row.add_(10)
    col.mul_(-1)
    return [row, col, x]

  _same_as_eager(fn, (3, 4))


def test_strided_and_diagonal_views_write_back():
  def fn(x):
    x[1:, ::2].mul_(3)
    x.diagonal(1).sub_(5)
    x[:, 1:].diagonal(-1).fill_(0)
    return [x]

  _same_as_eager(fn, (4, 5))


def test_split_unbind_chunk_pieces_write_back():
  def fn(x):
    a, b = x.split([1, 3], dim=1)
    b.mul_(2)
    rows = x.unbind(0)
    rows[2].zero_()
    x.chunk(2)[0].add_(1)
    return [a, b, rows[1], x]

  _same_as_eager(fn, (3, 4))


def test_expand_permute_view_chain():
  def fn(x):
    p = x.permute(2, 0, 1)
    v = p.reshape(4, 6)  # p is not contiguous: a copy, as in eager
    v.add_(100)
    w = x.view(6, 4)[2:5]
    w.mul_(-1)
    return [p, v, w, x]

  _same_as_eager(fn, (2, 3, 4))


def test_copy_into_views():
  def fn(x, y):
    x[1].copy_(y[0])
    x[:, :2].t().copy_(y[:2, :3])
    return [x]

  _same_as_eager(fn, (3, 4), (3, 4))


def test_contiguous_and_reshape_of_a_transposed_view_do_not_alias():
  def fn(x):
    c = x.t().contiguous()
    c.add_(1)
    r = x.t().reshape(-1)
    r.mul_(2)
    return [c, r, x]

  _same_as_eager(fn, (3, 4))


def test_reshape_of_contiguous_aliases_like_eager():
  def fn(x):
    x.reshape(-1)[5] = 42
    x.flatten()[0] = -1
    return [x]

  _same_as_eager(fn, (3, 4))


def test_as_strided_view_writes_back():
  def fn(x):
    x.as_strided((3,), (5,)).fill_(9)
    x[1].as_strided((2,), (1,), 6).add_(1)
    return [x]

  _same_as_eager(fn, (3, 5))


def test_view_dtype_writes_back():
  def fn(x):
    x.view(torch.int32)[0] = 0
    return [x]

  _same_as_eager(fn, (3, 4))


def test_inplace_on_views_int_and_bool():
  _same_as_eager(lambda x: [x[1:].mul_(3), x], (3, 4), dtype=torch.int64)
  _same_as_eager(lambda x: [x.t()[0].logical_not_(), x], (3, 4),
                 dtype=torch.bool)


def test_views_survive_a_sync():
  x = torch.arange(12.).reshape(3, 4)
  a = x.to(XLA)
  va = a[1:]
  torch_xla.sync()
  va.add_(1)
  torch_xla.sync()
  a.mul_(2)
  vb = x[1:]
  vb.add_(1)
  x.mul_(2)
  torch.testing.assert_close(va.cpu(), vb)
  torch.testing.assert_close(a.cpu(), x)


def test_inplace_view_keeps_base_identity_in_the_graph():
  x = torch.zeros(3, 4).to(XLA)
  torch_xla.sync()
  tensor_id, alias_id = x._xt.id, x._xt.alias_id
  x[1].fill_(3)
  x.t()[2].add_(1)
  assert (x._xt.id, x._xt.alias_id) == (tensor_id, alias_id)
  torch_xla.sync()
  assert (x._xt.id, x._xt.alias_id) == (tensor_id, alias_id)
  expected = torch.zeros(3, 4)
  expected[1] = 3
  expected[:, 2] += 1
  torch.testing.assert_close(x.cpu(), expected)


def test_writing_through_an_expanded_view_raises_like_eager():
  x = torch.zeros(3, 1).to(XLA)
  with pytest.raises(RuntimeError, match="more than one element of the "
                     "written-to tensor refers to a single memory location"):
    x.expand(3, 4).add_(1)
  torch.testing.assert_close(x.cpu(), torch.zeros(3, 1))  # unchanged
  # An expand that broadcasts nothing is a plain alias.
  x.expand(1, 3, 1).add_(2)
  torch.testing.assert_close(x.cpu(), torch.full((3, 1), 2.))


def test_inplace_view_ops_change_the_tensor_itself():
  def fn(x):
    alias, row = x.detach(), x[0]
    x.unsqueeze_(0)
    x.add_(1)
    x.squeeze_(0).t_()
    x[1].mul_(-2)
    x.transpose_(0, 1).squeeze_()
    x.as_strided_((2, 2), (1, 4), 1)
    x.sub_(3)
    return [x, alias, row, torch.tensor(x.stride()), torch.tensor(x.shape)]

  _same_as_eager(fn, (3, 4), check_ids=False)


def test_inplace_view_ops_with_autograd():
  check_op(lambda a: (a * 1).unsqueeze_(1).t_().squeeze_(), torch.randn(3))
  # matmul of a vector uses unsqueeze/squeeze_ internally.
  check_op(torch.matmul, torch.randn(4), torch.randn(4, 5))


# ---------------------------------------------------------------------------
# Autograd through in-place ops on views (view replay).


def test_autograd_inplace_on_view():
  def fn(a, b):
    y = a * 1
    y[0].mul_(b[0])
    y.t()[1].add_(b[1, :3])
    return y

  check_op(fn, torch.randn(3, 4), torch.randn(3, 4))


def test_autograd_setitem_and_views_of_views():
  def fn(a):
    y = a.clone()
    y.view(-1)[3] = 5.0
    y[1:, ::2].mul_(2)
    y.diagonal().div_(3)
    return y.sum(0)

  check_op(fn, torch.randn(4, 4))


def test_autograd_view_of_view_chain():
  check_op(lambda a: a.permute(1, 0, 2)[1:].reshape(-1, 4).t()[::2],
           torch.randn(2, 3, 4))
  check_op(lambda a: a.unsqueeze(0).expand(3, 2, 4).unbind(0)[1],
           torch.randn(2, 4))
