"""Eager's shape arithmetic as the core does it (ir/shape_util.h, read by
torch_xla/_ops/views.py): view size inference, view strides, contiguous
strides, slice clamping and broadcasting, each compared with what eager
PyTorch gives for the same input, errors included."""

import pytest
import torch

import torch_xla  # noqa: F401
from torch_xla import _XLAC, _ir
from torch_xla._ops import views

XLA = torch.device("xla", 0)


@pytest.mark.parametrize("size,numel", [
    ([2, -1, 4], 24), ([24], 24), ([], 1), ([0, 3], 0), ([-1], 0),
    ([5], 6), ([-1, -1], 6), ([-2, 3], 6), ([-1, 5], 6), ([0, -1], 0),
    ([0, -1], 3), ([2, 0, -1], 6),
])
def test_infer_size_is_eagers(size, numel):
  try:
    expected = list(torch.empty(numel).view(size).shape)
  except RuntimeError as e:
    with pytest.raises(RuntimeError) as ours:
      views.infer_size(size, numel)
    assert str(ours.value) == str(e).split("\n")[0]
    return
  assert views.infer_size(size, numel) == expected


def _strided(kind):
  base = torch.zeros(4, 6)
  return {"contiguous": base, "t": base.t(), "slice": base[:, 1:5],
          "expand": torch.zeros(4, 1).expand(4, 6)}[kind]


@pytest.mark.parametrize("kind,new_shape", [
    ("contiguous", [3, 8]), ("t", [3, 2, 4]), ("t", [6, 2, 2]), ("t", [24]),
    ("slice", [4, 2, 2]), ("slice", [16]), ("expand", [4, 3, 2]),
])
def test_view_strides_are_eagers(kind, new_shape):
  x = _strided(kind)
  got = views.view_strides(list(x.shape), list(x.stride()), new_shape)
  try:
    expected = list(x.view(new_shape).stride())
  except RuntimeError:
    # eager cannot view it; we view contiguously (views.py's docstring)
    expected = views.contiguous_strides(new_shape)
    assert expected == list(torch.empty(new_shape).stride())
  assert got == expected


@pytest.mark.parametrize("shape", [[2, 3, 4], [2, 0, 4], [], [1], [5, 1]])
def test_contiguous_strides_are_eagers(shape):
  assert views.contiguous_strides(shape) == list(torch.empty(shape).stride())


@pytest.mark.parametrize("start,end", [
    (None, None), (-2, None), (1, -1), (7, 9), (3, 1), (-9, 2), (2, 100),
    (-100, -100), (0, 0),
])
def test_clamp_slice_is_eagers(start, end):
  t = torch.arange(5)[start:end]
  assert views.clamp_slice(5, start, end) == \
      (t.storage_offset(), t.storage_offset() + t.numel())
  x = torch.arange(5.).to(XLA)[start:end]
  assert (x.storage_offset(), x.numel()) == (t.storage_offset(), t.numel())


@pytest.mark.parametrize("shapes", [
    [[3, 1], [4]], [[3, 1], [4], [2, 1, 1]], [[3], [4]], [[2, 3], [3, 2]],
])
def test_broadcast_shapes_are_eagers(shapes):
  try:
    expected = list(torch.broadcast_shapes(*shapes))
  except RuntimeError:
    # Our text is that of eager's elementwise ops on those shapes.
    with pytest.raises(RuntimeError) as eager:
      torch.zeros(shapes[0]) + torch.zeros(shapes[1])
    with pytest.raises(RuntimeError) as ours:
      _XLAC._broadcast_shapes(shapes)
    assert str(ours.value) == str(eager.value)
    return
  assert _XLAC._broadcast_shapes(shapes) == expected


def test_broadcast_to_errors_name_the_shapes():
  x = torch.zeros(3, 2).to(XLA)
  with pytest.raises(RuntimeError, match=r"\(2\) of shape \[3, 2\] does not "
                     r"match 4 in the target shape \[3, 4\]"):
    _ir.broadcast_to(x._xt, [3, 4])
  assert _ir.broadcast_to(x._xt, [3, 2]) is x._xt
  y = _ir.broadcast_to(torch.ones(2, 1).to(XLA)._xt, [3, 2, 5])
  assert y.dims == [3, 2, 5]
