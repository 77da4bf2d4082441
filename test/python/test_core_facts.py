"""Facts the C++ core owns and Python reads instead of restating: the dtype
table, the IR op names, and eager's shape arithmetic (ir/shape_util.h),
checked against eager PyTorch."""

import pytest
import torch

import torch_xla  # noqa: F401
from torch_xla import _XLAC, _dtypes, _ir
from torch_xla._ops import views

XLA = torch.device("xla", 0)

# What each torch dtype must be in the core (its IR dump name).
EXPECTED_NAMES = {
    torch.float32: "f32", torch.float64: "f64", torch.bfloat16: "bf16",
    torch.float16: "f16", torch.int64: "s64", torch.int32: "s32",
    torch.int16: "s16", torch.int8: "s8", torch.uint8: "u8",
    torch.bool: "pred", torch.uint32: "u32", torch.uint64: "u64",
}


def test_dtype_table_comes_from_the_core():
  names = _XLAC._dtype_names()
  assert _dtypes.NAMES == tuple(names)
  assert len(_dtypes.TORCH_DTYPES) == len(names)
  for code, name in enumerate(names):
    assert _XLAC.DType(code).name == name
    assert _ir.DT[code] == _XLAC.DType(code)


@pytest.mark.parametrize("dtype", list(EXPECTED_NAMES), ids=str)
def test_each_torch_dtype_is_its_core_type(dtype):
  x = torch.zeros(2, 3, dtype=dtype).to(XLA)
  assert x.dtype == dtype
  assert x._xt.shape == f"{EXPECTED_NAMES[dtype]}[2,3]"
  assert x.cpu().dtype == dtype


def test_ir_codes_come_from_the_core():
  names = _XLAC._op_kind_names()
  assert _ir.K == {name: code for code, name in enumerate(names)}
  for name, code in _ir.K.items():
    assert _XLAC._op_kind(name) == code
  assert _ir.F32 == names.index("add") * 0 + _dtypes.CODE_OF_NAME["f32"]
  assert [_XLAC._dtype_names()[c] for c in (_ir.F32, _ir.S64, _ir.PRED)] == \
      ["f32", "s64", "pred"]


@pytest.mark.parametrize("size,numel", [
    ([2, -1, 4], 24), ([24], 24), ([], 1), ([0, 3], 0), ([-1], 0),
    ([5], 6), ([-1, -1], 6), ([-2, 3], 6), ([-1, 5], 6), ([0, -1], 0),
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


def test_device_mismatch_message_is_worded_once():
  a = torch.ones(2, 3).to(XLA)
  b = torch.ones(2, 3)
  message = ("Expected all tensors to be on the same device, but found at "
             "least two devices, xla:0 and cpu! Move the tensor with "
             ".to('xla') first")
  with pytest.raises(RuntimeError) as from_cpp:
    _XLAC._elementwise(_ir.K["add"], [a, b], _ir.F32)
  assert str(from_cpp.value) == message
  with pytest.raises(RuntimeError) as from_rule:
    torch.cat([a, b])
  assert str(from_rule.value) == "torch.cat(): " + message
  # cpu 0-dim tensors mix with xla tensors, as in eager
  torch.testing.assert_close((a + torch.tensor(2.0)).cpu(), torch.full((2, 3),
                                                                        3.0))
