"""Matrix products on 'xla' against eager CPU PyTorch: mm, bmm, addmm,
baddbmm, addbmm, dot, mv, addmv, and the matmul/linear/outer paths that
decompose into them. Values, gradients, errors, and no recompiles for new
alpha/beta values.
"""

import re

import pytest
import torch
import torch.nn.functional as F

import torch_xla
import torch_xla.debug.metrics as met
from torch_xla import _XLAC
from op_test_utils import random_tensor as _rand, XLA, check_op

FLOATS = [torch.float32, torch.bfloat16, torch.float16]
INTS = [torch.int32, torch.int64]


@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("m,k,n", [(3, 4, 5), (1, 1, 1), (7, 1, 2), (2, 0, 3),
                                   (16, 33, 8)])
def test_mm(m, k, n, dtype):
  check_op(torch.mm, _rand((m, k), dtype), _rand((k, n), dtype))


@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("b,m,k,n", [(2, 3, 4, 5), (1, 1, 1, 1), (4, 2, 7, 3)])
def test_bmm(b, m, k, n, dtype):
  check_op(torch.bmm, _rand((b, m, k), dtype), _rand((b, k, n), dtype))


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_dot_and_mv(dtype):
  check_op(torch.dot, _rand((6,), dtype), _rand((6,), dtype))
  check_op(torch.mv, _rand((3, 6), dtype), _rand((6,), dtype))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, 2.0), (0, 1), (1, -3),
                                        (2, 0.25)])
@pytest.mark.parametrize("self_shape", [(3, 5), (5,), (1, 5), (3, 1), ()])
def test_addmm(self_shape, beta, alpha, dtype):
  check_op(lambda s, a, b: torch.addmm(s, a, b, beta=beta, alpha=alpha),
           _rand(self_shape, dtype), _rand((3, 4), dtype), _rand((4, 5), dtype))


def test_addmm_int():
  check_op(lambda s, a, b: torch.addmm(s, a, b, beta=2, alpha=3),
           _rand((3, 5), torch.int64), _rand((3, 4), torch.int64),
           _rand((4, 5), torch.int64))


def test_addmm_beta_zero_ignores_nan():
  s = torch.full((3, 5), float("nan"))
  out = check_op(lambda s, a, b: torch.addmm(s, a, b, beta=0), s,
                 torch.randn(3, 4), torch.randn(4, 5), grad=False)
  assert not out.cpu().isnan().any()


def test_addmm_inplace():
  check_op(lambda s, a, b: s.clone().addmm_(a, b, beta=0.5, alpha=2),
           torch.randn(3, 5), torch.randn(3, 4), torch.randn(4, 5))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, 2.0), (0, 1)])
def test_baddbmm_addbmm_addmv(beta, alpha, dtype):
  check_op(lambda s, a, b: torch.baddbmm(s, a, b, beta=beta, alpha=alpha),
           _rand((2, 3, 5), dtype), _rand((2, 3, 4), dtype),
           _rand((2, 4, 5), dtype))
  check_op(lambda s, a, b: torch.baddbmm(s, a, b, beta=beta, alpha=alpha),
           _rand((5,), dtype), _rand((2, 3, 4), dtype), _rand((2, 4, 5), dtype))
  check_op(lambda s, a, b: torch.addbmm(s, a, b, beta=beta, alpha=alpha),
           _rand((3, 5), dtype), _rand((2, 3, 4), dtype),
           _rand((2, 4, 5), dtype))
  check_op(lambda s, a, v: torch.addmv(s, a, v, beta=beta, alpha=alpha),
           _rand((3,), dtype), _rand((3, 4), dtype), _rand((4,), dtype))


MATMUL_SHAPES = [
    ((4,), (4,)),
    ((3, 4), (4,)),
    ((4,), (4, 5)),
    ((3, 4), (4, 5)),
    ((2, 3, 4), (4, 5)),
    ((2, 3, 4), (4,)),
    ((4,), (2, 4, 5)),
    ((2, 3, 4), (2, 4, 5)),
    ((2, 2, 3, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)),
    ((3, 4), (2, 2, 4, 5)),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul(shapes, dtype):
  a, b = shapes
  check_op(torch.matmul, _rand(a, dtype), _rand(b, dtype))


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 3, 4), (2, 2, 3, 4)])
def test_linear(shape, bias):
  w = torch.randn(5, 4)
  b = torch.randn(5) if bias else None
  check_op(F.linear, torch.randn(shape), w, b)


def test_outer():
  check_op(torch.outer, torch.randn(3), torch.randn(4))


def test_bf16_accumulates_in_f32():
  # A long bf16 dot: summing in bf16 would be off by far more than one
  # bf16 rounding of the exact result.
  a = torch.randn(1, 4096).bfloat16()
  b = torch.randn(4096, 1).bfloat16()
  expected = (a.float() @ b.float()).bfloat16()
  actual = torch.mm(a.to(XLA), b.to(XLA)).cpu()
  torch.testing.assert_close(actual, expected, atol=0, rtol=0)
  hlo = _XLAC._get_stablehlo([torch.mm(a.to(XLA), b.to(XLA))._xt]).decode()
  assert "bf16>) -> tensor<1x1xf32>" in hlo


def test_f32_dot_asks_for_highest_precision():
  out = torch.mm(torch.randn(2, 3).to(XLA), torch.randn(3, 2).to(XLA))
  assert "precision HIGHEST" in _XLAC._get_stablehlo([out._xt]).decode()


def test_new_alpha_beta_do_not_recompile():
  s, a, b = (torch.randn(3, 5).to(XLA), torch.randn(3, 4).to(XLA),
             torch.randn(4, 5).to(XLA))
  results = []
  compiles = []
  for beta, alpha in [(0.5, 2.0), (0.25, 3.0), (0.75, -1.5)]:
    before = met.counter_value("UncachedCompile") or 0
    out = torch.addmm(s, a, b, beta=beta, alpha=alpha)
    torch_xla.sync()
    compiles.append((met.counter_value("UncachedCompile") or 0) - before)
    results.append(out.cpu())
  assert compiles[1:] == [0, 0], compiles
  expected = torch.addmm(s.cpu(), a.cpu(), b.cpu(), beta=0.75, alpha=-1.5)
  torch.testing.assert_close(results[-1], expected)


@pytest.mark.parametrize("fn,args,error,message", [
    (torch.mm, ((3, 4), (5, 6)), RuntimeError,
     "mat1 and mat2 shapes cannot be multiplied (3x4 and 5x6)"),
    (torch.mm, ((3,), (3, 4)), RuntimeError, "self must be a matrix"),
    (torch.bmm, ((3, 4), (3, 4, 5)), RuntimeError,
     "batch1 must be a 3D tensor"),
    (torch.bmm, ((2, 3, 4), (2, 5, 5)), RuntimeError,
     "Expected size for first two dimensions of batch2 tensor to be: [2, 4] "
     "but got: [2, 5]."),
    (torch.dot, ((3, 4), (3,)), RuntimeError,
     "1D tensors expected, but got 2D and 1D tensors"),
    (torch.dot, ((3,), (4,)), RuntimeError,
     "inconsistent tensor size, expected tensor [3] and src [4] to have the "
     "same number of elements, but got 3 and 4 elements respectively"),
    (torch.mv, ((3, 4), (5,)), RuntimeError,
     "size mismatch, got input (3), mat (3x4), vec (5)"),
    (torch.addbmm, ((3, 5), (2, 3, 4), (3, 4, 5)), RuntimeError,
     "batch1 and batch2 must have same number of batches, got 2 and 3"),
])
def test_errors_match_eager(fn, args, error, message):
  cpu = [torch.randn(s) for s in args]
  with pytest.raises(error, match=re.escape(message)):
    fn(*cpu)
  with pytest.raises(error, match=re.escape(message)):
    fn(*[t.to(XLA) for t in cpu])


def test_dtype_mismatch_errors():
  a, b = torch.randn(3, 4).to(XLA), torch.randn(4, 5).double().to(XLA)
  with pytest.raises(RuntimeError,
                     match=re.escape("expected m1 and m2 to have the same "
                                     "dtype, but got: float != double")):
    torch.mm(a, b)
  with pytest.raises(RuntimeError, match="expected both vectors to have same "
                     "dtype, but found Float and Double"):
    torch.dot(torch.randn(3).to(XLA), torch.randn(3).double().to(XLA))


def test_bool_is_not_implemented():
  a = torch.ones(3, 4, dtype=torch.bool).to(XLA)
  with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
    torch.mm(a, a.t())
