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

import sys

import pytest
import torch

import torch_xla
from torch_xla import _XLAC

aten = torch.ops.aten
DEV = torch_xla.device()


def _crossings(fn):
  """(result, names of the _XLAC functions `fn` called), after one warm-up
  call (first calls build caches)."""
  fn()
  names = []

  def profile(frame, event, arg):
    if event == "c_call" and (getattr(arg, "__self__", None) is _XLAC or
                              "torch_xla" in (arg.__module__ or "")):
      names.append(arg.__name__)

  sys.setprofile(profile)
  try:
    result = fn()
  finally:
    sys.setprofile(None)
  return result, names


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
  }
  args = {"s": s, "a": a, "b": b, "row": row, "bs": bs, "ba": ba, "bb": bb,
          "v": v, "m": m, "sv": sv, "table": table, "ids": ids, "im": im,
          "im_grad": im_grad, "vol": vol, "vol_grad": vol_grad, "line": line}
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
  assert result.device.type == "xla"
  torch.testing.assert_close(result.cpu(), fn(*host), rtol=1e-5, atol=1e-5)
