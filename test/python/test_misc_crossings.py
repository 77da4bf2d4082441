"""The remaining Python rules that once composed IR node by node (matrix
products with beta/alpha, embedding_renorm_, ...) cross from Python into
C++ once per op: the rule checks eager's arguments and makes ONE _XLAC
call into the op's core builder (torch_xla/csrc/ops), which returns the
wrapped 'xla' tensor or commits the in-place result. A rule that goes back
to composing IR in Python (one _XLAC call per node, then a wrap) fails
here. Crossings are counted with sys.setprofile, as calls of _XLAC
functions while the op runs.

Values against eager are in test/python/ops (test_linalg.py, ...); here a
value check per case keeps a one-call rule from being a wrong one."""

import pytest
import torch

import torch_xla
from crossing_counter import crossings as _crossings

aten = torch.ops.aten
DEV = torch_xla.device()


def _zeroed(tensors):
  aten._foreach_zero_(tensors)
  return tensors


def _cases():
  """name -> (op on 'xla' tensors, the same op on cpu tensors)."""
  torch.manual_seed(0)
  s, a, b = torch.randn(3, 5), torch.randn(3, 4), torch.randn(4, 5)
  row = torch.randn(5)
  bs, ba, bb = torch.randn(2, 3, 5), torch.randn(2, 3, 4), torch.randn(2, 4, 5)
  v, m = torch.randn(4), torch.randn(3, 4)
  sv = torch.randn(3)
  table = torch.randn(10, 4) * 2
  im = torch.randn(2, 3, 4, 5)
  im_grad = torch.randn(2, 3, 7, 9)
  vol = torch.randn(1, 2, 3, 4, 5)
  vol_grad = torch.randn(1, 2, 6, 8, 7)
  line = torch.randn(2, 3, 5)
  u8 = torch.randint(0, 200, (4, 5), dtype=torch.uint8)
  ints = torch.randint(-9, 9, (4, 5))
  half = torch.randn(6).to(torch.bfloat16)
  flags = torch.randn(4, 5) > 0
  ids = torch.tensor([[0, 3], [3, 7]])
  cases = {
      "addmm": lambda s, a, b: aten.addmm(s, a, b),
      "addmm_bias_row": lambda row, a, b: aten.addmm(row, a, b),
      "addmm_beta_alpha": lambda s, a, b: aten.addmm(s, a, b, beta=0.5,
                                                     alpha=2.0),
      "addmm_beta0": lambda s, a, b: aten.addmm(s, a, b, beta=0),
      "addmm_": lambda s, a, b: aten.addmm_(s.clone(), a, b, alpha=3),
      "baddbmm": lambda bs, ba, bb: aten.baddbmm(bs, ba, bb, beta=2),
      "addbmm": lambda s, ba, bb: aten.addbmm(s, ba, bb, alpha=0.5),
      "addmv": lambda sv, m, v: aten.addmv(sv, m, v, beta=0.5, alpha=2),
      "dot": lambda v: aten.dot(v, v),
      "mv": lambda m, v: aten.mv(m, v),
      "embedding_renorm_": lambda table, ids: aten.embedding_renorm_(
          table.clone(), ids, 1.5, 2.0),
      "embedding_renorm_p3": lambda table, ids: aten.embedding_renorm_(
          table.clone(), ids, 1.0, 3.0),
      "upsample_bilinear2d": lambda im: aten.upsample_bilinear2d(
          im, [7, 9], False),
      "upsample_bicubic2d_align": lambda im: aten.upsample_bicubic2d(
          im, [7, 9], True),
      "upsample_nearest2d_scales": lambda im: aten.upsample_nearest2d(
          im, [7, 9], 1.8, 1.7),
      "upsample_nearest_exact3d": lambda vol: aten._upsample_nearest_exact3d(
          vol, [6, 8, 7]),
      "upsample_linear1d": lambda line: aten.upsample_linear1d(
          line, [8], False, 1.6),
      "upsample_bilinear2d_backward": lambda im_grad: (
          aten.upsample_bilinear2d_backward(im_grad, [7, 9], [2, 3, 4, 5],
                                            False)),
      "upsample_bicubic2d_backward": lambda im_grad: (
          aten.upsample_bicubic2d_backward(im_grad, [7, 9], [2, 3, 4, 5],
                                           True)),
      "upsample_nearest2d_backward": lambda im_grad: (
          aten.upsample_nearest2d_backward(im_grad, [7, 9], [2, 3, 4, 5])),
      "upsample_trilinear3d_backward": lambda vol_grad: (
          aten.upsample_trilinear3d_backward(vol_grad, [6, 8, 7],
                                             [1, 2, 3, 4, 5], False)),
      "upsample_nearest_exact1d_backward": lambda line: (
          aten._upsample_nearest_exact1d_backward(line, [5], [2, 3, 3])),
      "abs_uint8": lambda u8: aten.abs(u8),
      "round_int": lambda ints: aten.round(ints),
      "floor_int": lambda ints: aten.floor(ints),
      "foreach_norm": lambda s, row, half: aten._foreach_norm.Scalar(
          [s, row, half], 2),
      "foreach_norm_p3_f64": lambda s, half: aten._foreach_norm.Scalar(
          [s, half], 3, dtype=torch.float64),
      "foreach_norm_inf": lambda s, row: aten._foreach_norm.Scalar(
          [s, row], float("inf")),
      "foreach_max": lambda s, ints, half: aten._foreach_max([s, ints, half]),
      "foreach_zero": lambda s, u8: aten._foreach_zero([s, u8]),
      "foreach_zero_": lambda s, u8: _zeroed([s.clone(), u8.clone()]),
      "one_hot": lambda ids: torch.nn.functional.one_hot(ids, 9),
      "add_alpha": lambda s, row: aten.add.Tensor(s, row, alpha=-2.5),
      "add_alpha_mixed": lambda row, ints: aten.add.Tensor(row, ints, alpha=3),
      "add_alpha_bool": lambda flags: aten.add.Tensor(flags, flags,
                                                      alpha=True),
      "sub_alpha_int": lambda ints: aten.sub.Tensor(ints, ints * 3,
                                                    alpha=-7),
      "rsub_alpha": lambda s, row: aten.rsub.Tensor(s, row, alpha=0.5),
      "add_alpha_": lambda s, row: aten.add_.Tensor(s.clone(), row,
                                                    alpha=2.0),
      "sub_alpha_": lambda ints, u8: aten.sub_.Tensor(ints.clone(), u8,
                                                     alpha=4),
  }
  args = {"s": s, "a": a, "b": b, "row": row, "bs": bs, "ba": ba, "bb": bb,
          "v": v, "m": m, "sv": sv, "table": table, "ids": ids, "im": im,
          "im_grad": im_grad, "vol": vol, "vol_grad": vol_grad, "line": line,
          "u8": u8, "ints": ints, "half": half,
          "flags": flags}
  out = {}
  for name, fn in cases.items():
    names = fn.__code__.co_varnames[:fn.__code__.co_argcount]
    host = [args[n] for n in names]
    out[name] = (fn, host)
  return out


CASES = _cases()

@pytest.mark.parametrize("name", sorted(CASES))
def test_op_crosses_into_cpp_once(name):
  fn, host = CASES[name]
  xla = [t.to(DEV) for t in host]
  result, names = _crossings(lambda: fn(*xla))
  assert len(names) == 1, f"{name}: {len(names)} crossings: {names}"
  expected = fn(*host)
  if isinstance(result, torch.Tensor):
    result, expected = [result], [expected]
  assert len(result) == len(expected)
  for got, want in zip(result, expected):
    assert got.device.type == "xla" and got.dtype == want.dtype
    tol = 1e-2 if want.dtype == torch.bfloat16 else 1e-5
    torch.testing.assert_close(got.cpu(), want, rtol=tol, atol=tol)


def test_one_hot_of_computed_values_registers_its_checks_in_its_call():
  ids = torch.tensor([1, 4], device=DEV) * 2  # values only the device knows
  result, names = _crossings(lambda: torch.nn.functional.one_hot(ids, 9))
  assert names == ["_one_hot"]
  assert result.cpu().tolist() == torch.nn.functional.one_hot(
      torch.tensor([2, 8]), 9).tolist()
