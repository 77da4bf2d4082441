"""The bad-input probe (see test_bad_input_probe.py for the harness): dtypes
an op does not take, shapes that do not broadcast, in-place results that
would broadcast or downcast, numbers a dtype cannot hold, reductions of
empty tensors, Python conversions, and linear algebra."""

import pytest
import torch

from test_bad_input_probe import case, computed, f, ints, params, run

_INF, _NAN = float("inf"), float("nan")


_A = "helper A (elementwise, unary_math, bit_math, csrc/ops): "
_CAST = "result type .* can't be cast to the desired output type"


def _b(d, values):
  return torch.tensor(values, dtype=torch.bool).to(d)


def _leaf(d, *shape):
  return f(d, *shape).detach().requires_grad_()


CASES = [
    # Dtypes an op does not take.
    case("mean of ints", lambda d: ints(d, [1, 2]).mean()),
    case("var of ints", lambda d: ints(d, [1, 2]).var()),
    case("std of ints", lambda d: ints(d, [1, 2]).std(0)),
    case("log_softmax of ints", lambda d: ints(d, [1, 2]).log_softmax(0)),
    case("mean of ints dtype ok", lambda d: ints(d, [1, 2]).mean(
        dtype=torch.float32)),
    case("bitwise_and floats", lambda d: f(d, 3) & f(d, 3),
         match="bitwise_and_cpu"),
    case("bitwise_or float and int", lambda d: f(d, 3) | ints(d, [1, 2, 3]),
         match="bitwise_or_cpu"),
    case("bitwise_xor_ float", lambda d: f(d, 3).bitwise_xor_(f(d, 3)),
         match="bitwise_xor_cpu"),
    case("bitwise_and_ int with float", lambda d: ints(d, [1, 2]).bitwise_and_(
        f(d, 2)), match=_CAST),
    case("bitwise_not float", lambda d: ~f(d, 3)),
    case("shift left float", lambda d: f(d, 3) << 1, match="lshift_cpu"),
    case("shift right float", lambda d: f(d, 3) >> 1, match="rshift_cpu"),
    case("shift left bools", lambda d: _b(d, [True]) << _b(d, [True]),
         match="lshift_cpu"),
    case("bitwise_xor bool ok", lambda d: _b(d, [True, False]) ^ _b(
        d, [True, True])),
    case("pow int to -1", lambda d: ints(d, [1, 2]).pow(-1),
         match="Integers to negative integer powers"),
    case("pow_ int to -2", lambda d: ints(d, [1, 2], torch.int32).pow_(-2),
         match="Integers to negative integer powers"),
    case("pow int to -1.0 ok", lambda d: ints(d, [1, 2]).pow(-1.0)),
    case("pow uint8 to -1", lambda d: ints(d, [1, 2], torch.uint8).pow(-1),
         match="Integers to negative integer powers"),
    case("pow int to -2 tensor ok", lambda d: ints(d, [1, 2, 0]).pow(
        ints(d, [-2, -1, 2]))),
    case("pow 2 to int -1", lambda d: torch.pow(2, ints(d, [-1, 2]))),
    case("pow int to 0.5 ok", lambda d: ints(d, [4, 9]).pow(0.5)),
    case("pow_ int to 0.5", lambda d: ints(d, [4, 9]).pow_(0.5), match=_CAST),
    case("pow_ int to float tensor", lambda d: ints(d, [4, 9]).pow_(
        f(d, 2)), match=_CAST),
    case("pow_ int to 2 ok", lambda d: ints(d, [4, 9]).pow_(2)),
    case("requires_grad_ int", lambda d: ints(d, [1, 2]).requires_grad_()),
    case("zeros int requires_grad", lambda d: torch.zeros(
        2, dtype=torch.int64, device=d, requires_grad=True)),
    case("tensor bool requires_grad", lambda d: torch.tensor(
        [True], device=d, requires_grad=True)),
    case("neg of bool", lambda d: -_b(d, [True, False]),
         match="Negation, the `-` operator, on a bool tensor"),
    case("neg_ of bool", lambda d: _b(d, [True, False]).neg_(),
         match="Negation, the `-` operator, on a bool tensor"),
    case("neg of uint8 wraps ok", lambda d: -ints(d, [1, 0], torch.uint8)),
    case("sub of bools", lambda d: _b(d, [True]) - _b(d, [False])),
    case("argmax of bool", lambda d: _b(d, [True, False]).argmax(),
         match=r"argmax\(\): does not support bool input"),
    case("argmin of bool dim", lambda d: _b(d, [True, False]).argmin(0),
         match=r"argmin\(\): does not support bool input"),
    case("topk of bool", lambda d: _b(d, [True, False]).topk(1),
         match="topk does not support bool dtypes"),
    case("topk of bool k too big", lambda d: _b(d, [True, False]).topk(3),
         match="selected index k out of range"),
    case("kthvalue of bool", lambda d: _b(d, [True, False]).kthvalue(1),
         match="kthvalue_cpu\" not implemented for 'Bool'"),
    case("median of bool", lambda d: _b(d, [True, False]).median(),
         match="median_cpu\" not implemented for 'Bool'"),
    case("median of bool dim", lambda d: _b(d, [True, False]).median(0),
         match="median_out\" not implemented for 'Bool'"),
    case("clamp of bool", lambda d: _b(d, [True, False]).clamp(0, 1)),
    case("abs of bool", lambda d: _b(d, [True, False]).abs(),
         match="abs_cpu"),
    case("abs of uint8 ok", lambda d: ints(d, [1, 0], torch.uint8).abs()),
    case("abs_ of uint8 ok", lambda d: ints(d, [3, 0], torch.uint8).abs_()),
    case("sign of bool ok", lambda d: _b(d, [True, False]).sign()),
    case("sign_ of uint8 ok", lambda d: ints(d, [3, 0], torch.uint8).sign_()),
    case("sum of bool ok", lambda d: _b(d, [True, True]).sum()),
    case("cumsum of bool ok", lambda d: _b(d, [True, True]).cumsum(0)),
    case("sort of bool ok", lambda d: _b(d, [False, True, False]).sort()),
    case("floor of int ok", lambda d: ints(d, [1, -2]).floor()),
    case("floor of bool", lambda d: _b(d, [True]).floor(),
         match="floor_vml_cpu"),
    case("trunc of bool", lambda d: _b(d, [True]).trunc(),
         match="trunc_vml_cpu"),
    case("round of bool", lambda d: _b(d, [True]).round(),
         match="round_vml_cpu"),
    case("round decimals of int", lambda d: ints(d, [15]).round(decimals=-1),
         match="round_cpu"),
    case("trunc_ of int ok", lambda d: ints(d, [3, -2]).trunc_()),
    case("isinf of bool ok", lambda d: _b(d, [True]).isinf()),
    case("signbit of uint8 ok", lambda d: ints(d, [3], torch.uint8).signbit()),
    case("sqrt of int ok", lambda d: ints(d, [4, 2]).sqrt()),
    case("atan2 of ints ok", lambda d: torch.atan2(ints(d, [1, 2]),
                                                   ints(d, [3, -4]))),
    case("isnan of int ok", lambda d: ints(d, [1]).isnan()),
    case("int true division by 0 ok", lambda d: ints(d, [1, 0, -1]) / 0),
    case("float fmod by 0 ok", lambda d: torch.fmod(f(d, 3), 0.0)),
    case("remainder of bools", lambda d: _b(d, [True]) % _b(d, [True]),
         match="remainder_cpu"),
    case("remainder_ of bools", lambda d: _b(d, [True]).remainder_(
        _b(d, [True])), match="remainder_cpu"),
    case("floor_divide of bools", lambda d: _b(d, [True]) // _b(d, [True]),
         match="div_floor_cpu"),
    case("fmod of bools", lambda d: torch.fmod(_b(d, [True]), _b(d, [True])),
         match="fmod_cpu"),
    case("remainder of bool and int ok", lambda d: _b(d, [True, False]) % 2),
    case("lerp int", lambda d: torch.lerp(ints(d, [1]), ints(d, [2]), 0.5),
         match="not implemented for 'Long'"),
    case("lerp_ bool tensor weight", lambda d: _b(d, [True]).lerp_(
        _b(d, [True]), _b(d, [False])), match="lerp_kernel_tensor"),
    case("mm int and float", lambda d: ints(d, [[1, 2]]) @ f(d, 2, 2)),
    case("mm bool", lambda d: _b(d, [[True]]) @ _b(d, [[True]])),
    case("mm int ok", lambda d: ints(d, [[1, 2]]) @ ints(d, [[3], [4]])),
    case("dot dtypes differ", lambda d: torch.dot(f(d, 2), ints(d, [1,
                                                                     2]))),
    case("linear int input", lambda d: torch.nn.functional.linear(
        ints(d, [[1, 2]]), f(d, 3, 2))),
    # Shapes that do not broadcast.
    case("add 2x3 and 3x2", lambda d: f(d, 2, 3) + f(d, 3, 2)),
    case("mul 4 and 3", lambda d: f(d, 4) * f(d, 3)),
    case("where shapes", lambda d: torch.where(_b(d, [True, False]), f(d, 3),
                                               f(d, 3))),
    case("lerp shapes", lambda d: torch.lerp(f(d, 2), f(d, 3), 0.5)),
    case("addcmul shapes", lambda d: torch.addcmul(f(d, 2), f(d, 3), f(d,
                                                                       3))),
    case("maximum shapes", lambda d: torch.maximum(f(d, 2, 3), f(d, 2))),
    case("eq shapes", lambda d: f(d, 2, 3) == f(d, 2)),
    case("add empty and 1 ok", lambda d: f(d, 0, 3) + f(d, 1, 3)),
    case("add empty and 2", lambda d: f(d, 0, 3) + f(d, 2, 3)),
    # In-place results that would broadcast or downcast.
    case("add_ would broadcast", lambda d: f(d, 3).add_(f(d, 2, 3))),
    case("mul_ would broadcast", lambda d: f(d, 1, 3).mul_(f(d, 2, 3))),
    case("add_ broadcasts other ok", lambda d: f(d, 2, 3).add_(f(d, 3))),
    case("int mul_ float", lambda d: ints(d, [1, 2]).mul_(f(d, 2))),
    case("int add_ 1.5", lambda d: ints(d, [1, 2]).add_(1.5)),
    case("int div_ 2", lambda d: ints(d, [1, 2]).div_(2)),
    case("int div_ floor ok", lambda d: ints(d, [3, -3]).div_(
        2, rounding_mode="floor")),
    case("bool add_ 1", lambda d: _b(d, [True]).add_(1), match=_CAST),
    case("bool add_ True ok", lambda d: _b(d, [False]).add_(True)),
    case("bool mul_ int tensor", lambda d: _b(d, [True]).mul_(ints(d, [2])),
         match=_CAST),
    case("int exp_", lambda d: ints(d, [1, 2]).exp_(), match=_CAST),
    case("int sqrt_", lambda d: ints(d, [1, 2]).sqrt_(), match=_CAST),
    case("int sigmoid_", lambda d: ints(d, [1, 2]).sigmoid_(), match=_CAST),
    case("bool sqrt_", lambda d: _b(d, [True]).sqrt_(), match=_CAST),
    case("int atan_", lambda d: ints(d, [1, 2]).atan_(), match=_CAST),
    case("int log2_", lambda d: ints(d, [1, 2]).log2_(), match=_CAST),
    case("int32 acos_", lambda d: ints(d, [1, 0], torch.int32).acos_(),
         match=_CAST),
    case("int exp2_", lambda d: ints(d, [1, 2]).exp2_(), match=_CAST),
    case("int copysign_", lambda d: ints(d, [1, 2]).copysign_(-1),
         match=_CAST),
    case("int reciprocal_", lambda d: ints(d, [1, 2]).reciprocal_(),
         match=_CAST),
    case("int eq_ float ok", lambda d: ints(d, [1, 2]).eq_(1.0)),
    case("bool logical_and_ int ok", lambda d: _b(d, [True]).logical_and_(
        ints(d, [2]))),
    case("float add_ double ok", lambda d: f(d, 2).add_(f(d, 2).double())),
    case("float add_ int ok", lambda d: f(d, 2).add_(ints(d, [1, 2]))),
    case("uint8 add_ 300 wraps", lambda d: ints(d, [1, 2],
                                               torch.uint8).add_(300)),
    case("int8 mul 1000 wraps", lambda d: ints(d, [1, 2], torch.int8) * 1000),
    case("uint8 plus 300 wraps", lambda d: ints(d, [1], torch.uint8) + 300),
    case("copy_ not broadcastable", lambda d: f(d, 2, 3).copy_(f(d, 2))),
    case("copy_ broadcast ok", lambda d: f(d, 2, 3).copy_(f(d, 3))),
    case("copy_ float into int ok", lambda d: ints(d, [0, 0]).copy_(
        f(d, 2) * 3)),
    case("copy_ nan into int ok", lambda d: ints(d, [0], torch.int32).copy_(
        f(d, 1) * _NAN), values=False),
    case("expand then add_", lambda d: f(d, 1, 3).expand(2, 3).add_(1)),
    case("leaf add_", lambda d: _leaf(d, 2).add_(1)),
    case("leaf view add_", lambda d: _leaf(d, 2, 2)[0].add_(1)),
    case("masked_fill_ would broadcast", lambda d: f(d, 3).masked_fill_(
        _b(d, [[True, False, True]] * 2), 0.0)),
    case("clamp_ int with float", lambda d: ints(d, [1, 5]).clamp_(0.5, 2.5)),
    # Numbers a dtype cannot hold.
    case("fill_ 300 into uint8", lambda d: ints(d, [0], torch.uint8).fill_(
        300)),
    case("fill_ -1 into uint8", lambda d: ints(d, [0],
                                                torch.uint8).fill_(-1)),
    case("fill_ nan into int", lambda d: ints(d, [0]).fill_(_NAN)),
    case("fill_ inf into int32", lambda d: ints(d, [0], torch.int32).fill_(
        _INF)),
    case("fill_ 1e39 into float32", lambda d: f(d, 1).fill_(1e39)),
    case("fill_ 2.7 into int ok", lambda d: ints(d, [0]).fill_(2.7)),
    case("fill_ 1-d tensor", lambda d: f(d, 2).fill_(f(d, 2))),
    case("fill_ 0-d tensor ok", lambda d: f(d, 2).fill_(f(d, 1)[0])),
    case("full 300 uint8", lambda d: torch.full((2,), 300, dtype=torch.uint8,
                                                device=d)),
    case("full 1.5 int64", lambda d: torch.full((2,), 1.5, dtype=torch.int64,
                                                device=d)),
    case("new_full 300 int8", lambda d: ints(d, [0], torch.int8).new_full(
        (2,), 300)),
    case("zeros_like fill 300 int8", lambda d: torch.full_like(
        ints(d, [0], torch.int8), 300)),
    case("add alpha float to int", lambda d: ints(d, [1]).add(
        ints(d, [1]), alpha=0.5)),
    case("clamp min > max ok", lambda d: f(d, 4).clamp(1.0, -1.0)),
    # Negative and zero sizes.
    case("zeros -1", lambda d: torch.zeros(-1, device=d)),
    case("empty 2,-3", lambda d: torch.empty((2, -3), device=d)),
    case("ones 0 ok", lambda d: torch.ones(0, 2, device=d)),
    case("randn -2", lambda d: torch.randn(-2, device=d)),
    case("new_zeros -1", lambda d: f(d, 2).new_zeros((-1,))),
    case("eye -1", lambda d: torch.eye(-1, device=d)),
    case("zeros 2**62", lambda d: torch.zeros(2**62, device=d)),
    case("zeros 2**31 x 2**31 x 4", lambda d: torch.zeros(2**31, 2**31, 4,
                                                          device=d)),
    case("expand to 2**62 rows", lambda d: f(d, 3).expand(2**62, 3)),
    case("repeat 2**62 times", lambda d: f(d, 3).repeat(2**62),
         match="overflow"),
    case("arange 2**62", lambda d: torch.arange(2**62, device=d),
         match="overflow"),
    case("arange step 0", lambda d: torch.arange(0, 10, 0, device=d)),
    case("arange wrong sign", lambda d: torch.arange(10, 0, 1, device=d)),
    case("arange inf", lambda d: torch.arange(0, _INF, device=d)),
    case("arange nan", lambda d: torch.arange(_NAN, device=d)),
    case("arange empty ok", lambda d: torch.arange(3, 3, device=d)),
    case("linspace negative steps", lambda d: torch.linspace(0, 1, -1,
                                                             device=d)),
    case("linspace 0 steps ok", lambda d: torch.linspace(0, 1, 0, device=d)),
    case("linspace 1 step ok", lambda d: torch.linspace(2, 5, 1, device=d)),
    case("logspace negative steps", lambda d: torch.logspace(0, 1, -2,
                                                             device=d)),
    # Reductions of empty tensors.
    case("max of empty", lambda d: f(d, 0).max()),
    case("argmax of empty", lambda d: f(d, 0).argmax()),
    case("min of empty dim", lambda d: f(d, 0, 3).min(0)),
    case("amax of empty dim", lambda d: f(d, 0, 3).amax(0)),
    case("amax of empty other dim ok", lambda d: f(d, 0, 3).amax(1)),
    case("mean of empty ok", lambda d: f(d, 0).mean()),
    case("prod of empty ok", lambda d: f(d, 0).prod()),
    case("sum of empty ints ok", lambda d: ints(d, []).sum()),
    case("var of one ok", lambda d: f(d, 1).var()),
    case("softmax of empty ok", lambda d: f(d, 0, 3).softmax(1)),
    case("sort of empty ok", lambda d: f(d, 0).sort()),
    case("topk 0 of empty ok", lambda d: f(d, 0).topk(0)),
    case("median of empty", lambda d: f(d, 0).median()),
    case("logsumexp of empty ok", lambda d: f(d, 0).logsumexp(0)),
    case("cumsum of empty ok", lambda d: f(d, 0, 2).cumsum(0)),
    # topk, kthvalue, sort.
    case("topk k too large", lambda d: f(d, 3).topk(4)),
    case("topk k negative", lambda d: f(d, 3).topk(-1)),
    case("topk k too large 2-d", lambda d: f(d, 2, 3).topk(3, 0)),
    case("kthvalue k too large", lambda d: f(d, 3).kthvalue(4)),
    case("kthvalue k 0", lambda d: f(d, 3).kthvalue(0)),
    case("msort of 0-d ok", lambda d: f(d, 1).sum().sort()),
    # Python conversions.
    case("item of 2 elements", lambda d: f(d, 2).item()),
    case("item of empty", lambda d: f(d, 0).item()),
    case("bool of empty", lambda d: bool(f(d, 0))),
    case("bool of 2 elements", lambda d: bool(f(d, 2))),
    case("int of 2 elements", lambda d: int(f(d, 2))),
    case("float of empty", lambda d: float(f(d, 0))),
    case("len of 0-d", lambda d: len(f(d, 1).sum())),
    case("iter of 0-d", lambda d: list(f(d, 1).sum())),
    case("int of inf", lambda d: int(f(d, 1).sum() / 0)),
    case("int of nan", lambda d: int(f(d, 1).sum() * _NAN)),
    case("index of float", lambda d: [0, 1, 2][f(d, 1).sum()]),
    case("item of computed ok", lambda d: (f(d, 1) * 3).item()),
    # Matrix products and linear algebra.
    case("mm 1-d", lambda d: torch.mm(f(d, 3), f(d, 3, 2))),
    case("mm 3-d", lambda d: torch.mm(f(d, 1, 2, 3), f(d, 3, 2))),
    case("mm inner mismatch", lambda d: torch.mm(f(d, 2, 3), f(d, 2, 3))),
    case("matmul mismatch", lambda d: f(d, 2, 3) @ f(d, 2, 3)),
    case("matmul 0-d", lambda d: f(d, 1).sum() @ f(d, 2)),
    case("matmul 1-d mismatch", lambda d: f(d, 3) @ f(d, 2)),
    case("matmul batch mismatch", lambda d: f(d, 2, 2, 3) @ f(d, 3, 3, 2)),
    case("matmul batch broadcast ok", lambda d: f(d, 2, 2, 3) @ f(d, 1, 3,
                                                                 2)),
    case("bmm 2-d", lambda d: torch.bmm(f(d, 2, 3), f(d, 3, 2))),
    case("bmm batch mismatch", lambda d: torch.bmm(f(d, 2, 2, 3),
                                                   f(d, 3, 3, 2))),
    case("mv 2-d vector", lambda d: torch.mv(f(d, 2, 3), f(d, 3, 1))),
    case("mv mismatch", lambda d: torch.mv(f(d, 2, 3), f(d, 2))),
    case("dot 2-d", lambda d: torch.dot(f(d, 2, 2), f(d, 2, 2))),
    case("dot sizes differ", lambda d: torch.dot(f(d, 2), f(d, 3))),
    case("outer 2-d", lambda d: torch.outer(f(d, 2, 2), f(d, 2))),
    case("addmm shapes", lambda d: torch.addmm(f(d, 3, 3), f(d, 2, 3),
                                               f(d, 3, 2))),
    case("linear shapes", lambda d: torch.nn.functional.linear(
        f(d, 2, 3), f(d, 5, 4))),
    case("linear bias shape", lambda d: torch.nn.functional.linear(
        f(d, 2, 3), f(d, 5, 3), f(d, 4))),
    case("mm empty inner ok", lambda d: torch.mm(f(d, 2, 0), f(d, 0, 3))),
    case("diag of 3-d", lambda d: torch.diag(f(d, 2, 2, 2))),
    case("diag of 0-d", lambda d: torch.diag(f(d, 1).sum())),
    case("tril of 1-d", lambda d: torch.tril(f(d, 3))),
    case("triu of 0-d", lambda d: torch.triu(f(d, 1).sum())),
    case("trace of 1-d", lambda d: torch.trace(f(d, 3))),
    case("cross size 2", lambda d: torch.linalg.cross(f(d, 2), f(d, 2))),
    case("inverse non-square", lambda d: torch.linalg.inv(f(d, 2, 3))),
    case("inverse of 1-d", lambda d: torch.inverse(f(d, 3))),
    case("det non-square", lambda d: torch.det(f(d, 2, 3))),
    case("solve shapes", lambda d: torch.linalg.solve(f(d, 2, 2) + 3 *
                                                      torch.eye(2, device=d),
                                                      f(d, 3))),
    case("cholesky non-square", lambda d: torch.linalg.cholesky(f(d, 2, 3))),
    case("qr of 1-d", lambda d: torch.linalg.qr(f(d, 3))),
    case("eigh non-square", lambda d: torch.linalg.eigh(f(d, 2, 3))),
    case("matrix_power non-square", lambda d: torch.linalg.matrix_power(
        f(d, 2, 3), 2)),
    case("norm bad ord", lambda d: torch.linalg.vector_norm(f(d, 3),
                                                            ord="fro")),
    case("matrix_norm of 1-d", lambda d: torch.linalg.matrix_norm(f(d, 3))),
    case("inverse singular", lambda d: torch.linalg.inv(torch.zeros(
        2, 2, device=d))),
    case("inverse singular computed", lambda d: torch.linalg.inv(
        f(d, 2, 2) * 0)),
    case("cholesky not positive definite", lambda d: torch.linalg.cholesky(
        -torch.eye(2, device=d))),
    case("computed ints as exponent ok", lambda d: torch.pow(
        computed(d, [2, 3]), 2)),
]


@pytest.mark.parametrize("c", params(CASES))
def test_dtypes_broadcasting_scalars_reductions_linalg(c):
  run(c)
