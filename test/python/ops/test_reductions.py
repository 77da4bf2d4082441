"""Reductions on 'xla' against eager CPU PyTorch: values, gradients, errors.

Every case runs through op_test_utils.check_op, which also asserts that
nothing fell back to CPU.
"""

import math
import re

import pytest
import torch

import torch_xla
from op_test_utils import XLA, check_op

SHAPES = [(), (1,), (5,), (3, 1), (2, 3, 4)]
FLOATS = [torch.float32, torch.bfloat16]
INTS = [torch.int32, torch.bool]


@pytest.fixture(autouse=True)
def _seed():
  torch.manual_seed(0)


def _rand(shape, dtype):
  if dtype.is_floating_point:
    return torch.randn(shape, dtype=dtype)
  if dtype == torch.bool:
    return torch.randint(0, 2, shape).bool()
  return torch.randint(-5, 6, shape, dtype=dtype)


def _dim_cases(shape):
  """(shape, dim) pairs: dims 0, -1 (and 1), a pair of dims, and None."""
  rank = len(shape)
  dims = [None, 0, -1]
  if rank >= 2:
    dims += [1, (0, -1)]
  return [(shape, d) for d in dims]


DIM_CASES = [case for shape in SHAPES for case in _dim_cases(shape)]
SINGLE_DIM_CASES = [(s, d) for s, d in DIM_CASES if isinstance(d, int)]


def _ids(case):
  return f"{case}"


# ---------------------------------------------------------------------------
# sum, mean, prod.


@pytest.mark.parametrize("case", DIM_CASES, ids=_ids)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dtype", FLOATS + INTS + [torch.int64])
def test_sum(case, keepdim, dtype):
  shape, dim = case
  x = _rand(shape, dtype)
  if dim is None:
    check_op(lambda a: a.sum(), x)
  else:
    check_op(lambda a: a.sum(dim, keepdim=keepdim), x)


@pytest.mark.parametrize("dtype", [torch.float64, torch.int32, torch.bfloat16])
def test_sum_dtype_argument(dtype):
  x = torch.randn(3, 4)
  check_op(lambda a: a.sum(1, dtype=dtype), x, grad=False)
  check_op(lambda a: a.sum(dtype=dtype), x, grad=False)


def test_sum_integer_promotes_to_int64():
  out = check_op(lambda a: a.sum(0), torch.ones(4, 3, dtype=torch.int8))
  assert out.dtype == torch.int64
  out = check_op(lambda a: a.sum(), torch.ones(300, dtype=torch.bool))
  assert out.dtype == torch.int64 and out.item() == 300


def test_sum_bf16_accumulates_in_f32():
  # 4096 ones in bf16 accumulation would stop at 256.
  x = torch.ones(4096, dtype=torch.bfloat16)
  assert check_op(lambda a: a.sum(), x, grad=False).item() == 4096


def test_sum_to_size_broadcast_backward():
  # Autograd reduces the broadcast gradient with sum.dim_IntList.
  check_op(lambda a, b: a + b, torch.randn(4, 3), torch.randn(3))
  check_op(lambda a, b: a * b, torch.randn(2, 1, 3), torch.randn(4, 1))
  check_op(lambda a: a.sum_to_size(1, 3), torch.randn(4, 3))


@pytest.mark.parametrize("case", DIM_CASES, ids=_ids)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dtype", FLOATS)
def test_mean(case, keepdim, dtype):
  shape, dim = case
  x = _rand(shape, dtype)
  if dim is None:
    check_op(lambda a: a.mean(), x)
  else:
    check_op(lambda a: a.mean(dim, keepdim=keepdim), x)


def test_mean_int_with_dtype():
  check_op(lambda a: a.mean(dtype=torch.float32), torch.arange(6))


def test_mean_of_empty_is_nan():
  check_op(lambda a: a.mean(0), torch.zeros(0, 3), grad=False)


@pytest.mark.parametrize("case", SINGLE_DIM_CASES + [((2, 3, 4), None)],
                         ids=_ids)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dtype", FLOATS + [torch.int32, torch.bool])
def test_prod(case, keepdim, dtype):
  shape, dim = case
  x = _rand(shape, dtype)
  if dim is None:
    check_op(lambda a: a.prod(), x)
  else:
    check_op(lambda a: a.prod(dim, keepdim=keepdim), x)


def test_prod_backward_with_zeros():
  x = torch.tensor([[1.5, 0.0, 2.0], [0.0, 0.0, 3.0], [1.0, 2.0, -1.0]])
  check_op(lambda a: a.prod(1), x)
  check_op(lambda a: a.prod(), x)


# ---------------------------------------------------------------------------
# max, min, amax, amin, argmax, argmin.


@pytest.mark.parametrize("case", DIM_CASES, ids=_ids)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("fn", ["amax", "amin"])
@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_amax_amin(case, keepdim, fn, dtype):
  shape, dim = case
  x = _rand(shape, dtype)
  dims = () if dim is None else dim
  check_op(lambda a: getattr(a, fn)(dims, keepdim=keepdim), x)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("fn", ["max", "min"])
@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_max_min_full(shape, fn, dtype):
  check_op(lambda a: getattr(a, fn)(), _rand(shape, dtype))


@pytest.mark.parametrize("case", SINGLE_DIM_CASES, ids=_ids)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("fn", ["max", "min"])
@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_max_min_dim(case, keepdim, fn, dtype):
  shape, dim = case
  check_op(lambda a: getattr(a, fn)(dim, keepdim=keepdim), _rand(shape, dtype))


@pytest.mark.parametrize("case", SINGLE_DIM_CASES + [((2, 3, 4), None),
                                                     ((), None)], ids=_ids)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("fn", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", FLOATS + [torch.int32, torch.int64])
def test_argmax_argmin(case, keepdim, fn, dtype):
  shape, dim = case
  check_op(lambda a: getattr(a, fn)(dim, keepdim=keepdim), _rand(shape, dtype))


@pytest.mark.parametrize("fn", ["argmax", "argmin"])
def test_arg_extreme_ties_take_the_first_index(fn):
  x = torch.tensor([[1, 3, 3, 0], [2, 2, 2, 2], [0, -1, 5, -1]])
  out = check_op(lambda a: getattr(a, fn)(1), x)
  expected = [1, 0, 2] if fn == "argmax" else [3, 0, 1]
  assert out.cpu().tolist() == expected
  check_op(lambda a: getattr(a, fn)(), x)
  check_op(lambda a: getattr(a, fn)(0), x.float())


NAN = math.nan


@pytest.mark.parametrize("fn", [
    lambda a: a.max(), lambda a: a.min(), lambda a: a.amax(1),
    lambda a: a.amin(0), lambda a: a.max(1), lambda a: a.min(0),
    lambda a: a.argmax(1), lambda a: a.argmin(), lambda a: a.argmax()
])
def test_nan_propagates_like_eager(fn):
  x = torch.tensor([[1.0, NAN, 3.0, NAN], [4.0, 5.0, -1.0, 0.0],
                    [NAN, 2.0, 2.0, 1.0]])
  check_op(fn, x, grad=False)


# ---------------------------------------------------------------------------
# var, std.


@pytest.mark.filterwarnings("ignore:.*degrees of freedom is <= 0")
@pytest.mark.parametrize("case", DIM_CASES, ids=_ids)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("correction", [0, 1, 2])
@pytest.mark.parametrize("fn", ["var", "std"])
def test_var_std(case, keepdim, correction, fn):
  shape, dim = case
  x = torch.randn(shape)
  check_op(
      lambda a: getattr(a, fn)(dim, correction=correction, keepdim=keepdim),
      x)


def test_var_without_degrees_of_freedom_warns_like_eager():
  with pytest.warns(UserWarning, match=r"var\(\): degrees of freedom is <= 0"):
    torch.randn(3).to(XLA).var(correction=3)


def test_var_std_bf16():
  x = torch.randn(4, 8, dtype=torch.bfloat16)
  check_op(lambda a: a.var(1), x)
  check_op(lambda a: a.std(0, keepdim=True), x)


@pytest.mark.parametrize("fn", [torch.var_mean, torch.std_mean])
def test_var_mean_std_mean(fn):
  check_op(lambda a: fn(a, 1, correction=0), torch.randn(4, 5))
  check_op(lambda a: fn(a, keepdim=True), torch.randn(4, 5))


def test_var_is_accurate_with_a_large_mean():
  x = torch.randn(1000, dtype=torch.float64) + 1e4
  check_op(lambda a: a.float().var(), x, grad=False, rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------------------
# any, all.


@pytest.mark.parametrize("case", DIM_CASES, ids=_ids)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("fn", ["any", "all"])
@pytest.mark.parametrize("dtype", [torch.bool, torch.float32, torch.uint8])
def test_any_all(case, keepdim, fn, dtype):
  shape, dim = case
  x = torch.randint(0, 2, shape).to(dtype)
  if dim is None:
    check_op(lambda a: getattr(a, fn)(), x)
  else:
    check_op(lambda a: getattr(a, fn)(dim, keepdim=keepdim), x)


def test_any_all_empty_dim_list_reduces_nothing():
  x = torch.tensor([[0.0, 2.0], [NAN, 0.0]])
  check_op(lambda a: torch.ops.aten.any.dims(a, []), x)
  check_op(lambda a: torch.ops.aten.all.dims(a, []), x)
  check_op(lambda a: a.any(), torch.zeros(0, 3))
  check_op(lambda a: a.all(), torch.zeros(0, 3))


# ---------------------------------------------------------------------------
# Norms.


@pytest.mark.parametrize("ord", [2, 1, math.inf, -math.inf, 0, 3, 0.5])
@pytest.mark.parametrize("dim, keepdim", [(None, False), (1, False),
                                          (-1, True), ((0, 2), False)])
def test_linalg_vector_norm(ord, dim, keepdim):
  x = torch.randn(3, 4, 5)
  check_op(lambda a: torch.linalg.vector_norm(a, ord, dim, keepdim), x)


def test_linalg_vector_norm_bf16_and_dtype():
  x = torch.randn(4, 6, dtype=torch.bfloat16)
  check_op(lambda a: torch.linalg.vector_norm(a, dim=1), x)
  check_op(lambda a: torch.linalg.vector_norm(a, dtype=torch.float32), x)


def test_norm_of_zeros_has_zero_gradient():
  check_op(lambda a: torch.linalg.vector_norm(a, dim=1),
           torch.tensor([[0.0, 0.0], [3.0, 4.0]]))


# ---------------------------------------------------------------------------
# cumsum, cumprod, logsumexp.


@pytest.mark.parametrize("case", SINGLE_DIM_CASES + [((37, 2), 0)], ids=_ids)
@pytest.mark.parametrize("fn", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", FLOATS + [torch.int32, torch.bool])
def test_cumsum_cumprod(case, fn, dtype):
  shape, dim = case
  x = _rand(shape, dtype)
  if fn == "cumprod" and dtype.is_floating_point:
    x = (x.float().abs() * 0.2 + 0.9).to(dtype)  # products stay O(1)
  check_op(lambda a: getattr(a, fn)(dim), x)


def test_cumsum_integers_are_exact():
  x = torch.randint(-2**40, 2**40, (1000,), dtype=torch.int64)
  out = check_op(lambda a: a.cumsum(0), x)
  assert out.dtype == torch.int64
  check_op(lambda a: a.cumsum(0, dtype=torch.float64), x, grad=False)


def test_cumsum_long_row_accuracy():
  x = torch.rand(5000)
  check_op(lambda a: a.cumsum(0), x, rtol=1e-5, atol=1e-3)


def test_cumsum_in_place():
  check_op(lambda a: a.clone().cumsum_(1), torch.randn(3, 9), grad=False)


@pytest.mark.parametrize("case", DIM_CASES, ids=_ids)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dtype", FLOATS)
def test_logsumexp(case, keepdim, dtype):
  shape, dim = case
  if dim is None:
    dim = list(range(len(shape)))
  if dim == [] and not keepdim:
    pytest.skip("eager logsumexp(dim=[]) itself fails on CPU (shape error)")
  check_op(lambda a: a.logsumexp(dim, keepdim=keepdim), _rand(shape, dtype))


def test_logsumexp_is_stable_and_handles_infinities():
  big = torch.tensor([[1e4, 1e4 + 1.0, -1e4], [-1e30, -1e30, -1e30]])
  check_op(lambda a: a.logsumexp(1), big)
  inf = torch.tensor([[-math.inf, -math.inf], [math.inf, 1.0],
                      [NAN, 1.0]])
  check_op(lambda a: a.logsumexp(1), inf, grad=False)
  check_op(lambda a: a.logsumexp(0), torch.arange(6).reshape(2, 3))


# ---------------------------------------------------------------------------
# sort, topk.


@pytest.mark.parametrize("case", SINGLE_DIM_CASES + [((2, 33), -1)],
                         ids=_ids)
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", FLOATS + [torch.int32, torch.int64])
def test_sort(case, descending, dtype):
  shape, dim = case
  # A permutation of distinct values: no ties, so indices are unique.
  n = max(math.prod(shape), 1)
  x = torch.randperm(n).reshape(shape).to(dtype) - n // 2
  check_op(lambda a: a.sort(dim, descending=descending), x)


@pytest.mark.parametrize("descending", [False, True])
def test_sort_stable_ties_and_nan(descending):
  x = torch.tensor([[2.0, NAN, 1.0, 2.0, -0.0, 0.0, NAN, -math.inf, 1.0],
                    [3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0]])
  check_op(lambda a: a.sort(dim=1, descending=descending, stable=True), x,
           grad=False)
  check_op(lambda a: a.argsort(dim=1, descending=descending, stable=True), x)


def test_sort_bool():
  x = torch.tensor([True, False, True, False, False])
  check_op(lambda a: a.sort(stable=True), x)


@pytest.mark.parametrize("k", [0, 1, 3, 8])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("dim", [-1, 0])
@pytest.mark.parametrize("dtype", FLOATS + [torch.int64])
def test_topk(k, largest, dim, dtype):
  x = (torch.randperm(64).reshape(8, 8) - 20).to(dtype)
  check_op(lambda a: a.topk(k, dim, largest=largest), x)


@pytest.mark.parametrize("k", [1, 20])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("dtype", FLOATS + [torch.int64])
def test_topk_long_rows(k, largest, dtype):
  # k much smaller than the row: the O(n k) lowering.
  x = (torch.randperm(3 * 700).reshape(3, 700) - 1000).to(dtype)
  if dtype == torch.bfloat16:  # 2100 distinct bf16 values: distinct bits
    bits = torch.randperm(3 * 700).reshape(3, 700).to(torch.int16) + 0x3c00
    x = bits.view(torch.bfloat16)
  check_op(lambda a: a.topk(k, largest=largest), x)
  if dtype == torch.float32:
    check_op(lambda a: a.topk(k, 0, largest=largest), x.t().contiguous())


@pytest.mark.parametrize("largest", [True, False])
def test_topk_long_rows_ties_nan_and_inf(largest):
  x = torch.randint(-3, 4, (2, 600)).float()
  x[0, [5, 17, 300]] = NAN
  x[0, [8, 9]] = math.inf
  x[1, :] = -math.inf
  x[1, [40, 41]] = NAN
  values, indices = x.to(XLA).topk(8, largest=largest)
  expected, _ = x.topk(8, largest=largest)
  torch.testing.assert_close(values.cpu(), expected, equal_nan=True)
  # Indices point at those values, each once, ties in index order.
  torch.testing.assert_close(x.gather(1, indices.cpu()), expected,
                             equal_nan=True)
  for row in indices.cpu():
    assert len(set(row.tolist())) == 8
  _, stable = x.sort(dim=1, descending=largest, stable=True)
  torch.testing.assert_close(indices.cpu(), stable[:, :8])


def test_topk_unsorted_gives_the_same_set():
  x = torch.randn(4, 10)
  values, _ = x.to(XLA).topk(3, sorted=False)
  expected, _ = x.topk(3)
  torch.testing.assert_close(
      values.cpu().sort(descending=True).values, expected)


def test_topk_0d_and_nan():
  check_op(lambda a: a.topk(1), torch.tensor(2.5))
  check_op(lambda a: a.topk(2), torch.tensor([1.0, NAN, 3.0, 2.0]),
           grad=False)
  check_op(lambda a: a.topk(2, largest=False),
           torch.tensor([1.0, NAN, 3.0, 2.0]), grad=False)


# ---------------------------------------------------------------------------
# Errors: same exception type and message as eager.


def _assert_same_error(fn, *cpu_inputs):
  with pytest.raises(Exception) as expected:
    fn(*cpu_inputs)
  xla_inputs = [x.to(XLA) for x in cpu_inputs]
  with pytest.raises(type(expected.value),
                     match=re.escape(str(expected.value))):
    fn(*xla_inputs)


@pytest.mark.parametrize("fn", [
    lambda a: a.sum(2), lambda a: a.sum(-3), lambda a: a.mean((0, 5)),
    lambda a: a.amax(2), lambda a: a.max(3), lambda a: a.argmax(2),
    lambda a: a.var(2), lambda a: a.any(2), lambda a: a.cumsum(2),
    lambda a: a.logsumexp(2), lambda a: a.sort(2), lambda a: a.topk(1, 2),
    lambda a: a.prod(-3), lambda a: torch.linalg.vector_norm(a, dim=4)
],
                         ids=lambda f: "")
def test_out_of_range_dim_raises_index_error(fn):
  _assert_same_error(fn, torch.randn(2, 3))


@pytest.mark.parametrize("fn, x", [
    (lambda a: a.sum((0, 0)), torch.randn(2, 3)),
    (lambda a: a.sum((1, -1)), torch.randn(2, 3)),
    (lambda a: a.max(), torch.zeros(2, 0)),
    (lambda a: a.min(), torch.zeros(0)),
    (lambda a: a.argmax(), torch.zeros(0, 3)),
    (lambda a: a.max(1), torch.zeros(2, 0)),
    (lambda a: a.amin(1), torch.zeros(2, 0)),
    (lambda a: a.mean(), torch.arange(4)),
    (lambda a: a.var(), torch.arange(4)),
    (lambda a: a.std(0), torch.arange(4)),
    (lambda a: a.topk(5), torch.randn(4)),
    (lambda a: torch.linalg.vector_norm(a), torch.arange(4)),
    (lambda a: torch.linalg.vector_norm(a, math.inf), torch.zeros(0)),
],
                         ids=lambda v: "" if callable(v) else str(v.shape))
def test_errors_match_eager(fn, x):
  _assert_same_error(fn, x)


def test_scalar_arguments_do_not_change_the_graph():
  # var's correction and the norm's p are scalar parameters: one compile.
  x = torch.randn(4, 5).to(XLA)
  hashes = {
      torch_xla._XLAC._get_graph_hash([x.var(1, correction=c)]) for c in (0, 1, 2)
  }
  assert len(hashes) == 1
  hashes = {
      torch_xla._XLAC._get_graph_hash([torch.linalg.vector_norm(x, p)])
      for p in (3, 4.5)
  }
  assert len(hashes) == 1


# ---------------------------------------------------------------------------
# Native sort: one IR sort, O(n) memory.


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_each_dim_with_ties_and_nan(dim, descending):
  x = torch.randint(-3, 4, (4, 5, 6)).float()
  x[0, 1, 2] = x[3, 4, 5] = x[2, 0, 0] = NAN
  x[1, 1, 1] = -0.0
  check_op(lambda a: a.sort(dim=dim, descending=descending, stable=True), x,
           grad=False)
  check_op(lambda a: a.sort(dim=dim, descending=descending, stable=True).values,
           torch.randn(4, 5, 6))


def test_sort_long_row_is_one_sort_node():
  n = 1 << 14
  x = torch.randn(n)
  values, indices = x.to(XLA).sort()
  hlo = torch_xla._XLAC._get_stablehlo([values, indices]).decode()
  assert hlo.count("stablehlo.sort") == 1
  assert f"{n}x{n}" not in hlo  # no pairwise-rank tensor
  expected = x.sort(stable=True)
  torch.testing.assert_close(values.cpu(), expected.values)
  torch.testing.assert_close(indices.cpu(), expected.indices)


def test_topk_large_k_and_bf16_distinct():
  x = torch.randperm(300).reshape(3, 100).float()
  check_op(lambda a: a.topk(60, largest=False), x)
  bits = torch.randperm(3 * 50).reshape(3, 50).to(torch.int16) + 0x3c00
  check_op(lambda a: a.topk(7), bits.view(torch.bfloat16))
