"""Indexing on 'xla' against eager CPU PyTorch: advanced indexing,
index_put, index_select/copy/add/fill/reduce, gather/scatter, take/put,
masked_fill/scatter and embedding (values, gradients, errors), KV-cache
style in-place updates, and the documented differences (clamped indices,
mask fallbacks).

Value and gradient checks go through op_test_utils.check_op, which also
asserts that nothing fell back to CPU.
"""

import re

import pytest
import torch
import torch.nn.functional as F

import torch_xla
import torch_xla.debug.metrics as met
from op_test_utils import random_tensor as _rand, XLA, check_op, fallback_counters

FLOATS = [torch.float32, torch.bfloat16]
ALL = FLOATS + [torch.int64, torch.bool]
INDEX_DTYPES = [torch.int64, torch.int32]


def _idx(values, dtype=torch.int64):
  return torch.tensor(values, dtype=dtype)


def _raises(exc, pattern, fn, *inputs):
  with pytest.raises(exc, match=pattern):
    fn(*inputs)
  with pytest.raises(exc, match=pattern):
    fn(*[x.to(XLA) if isinstance(x, torch.Tensor) else x for x in inputs])


# ---------------------------------------------------------------------------
# Advanced indexing: x[indices].

INDEX_CASES = [
    lambda a, i, j: a[i],
    lambda a, i, j: a[:, j],
    lambda a, i, j: a[i, j],  # broadcast index tensors
    lambda a, i, j: a[i[:, None], j],  # 2-d broadcast result
    lambda a, i, j: a[i, :, j[:1]],  # not adjacent: the result dims go first
    lambda a, i, j: a[None, :, j],  # None slots
    lambda a, i, j: a[..., j],
    lambda a, i, j: a[1:, j][:, ::2],
]


@pytest.mark.parametrize("case", range(len(INDEX_CASES)))
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
def test_index(case, dtype, index_dtype):
  x = _rand((3, 4, 5), dtype)
  i = _idx([2, 0, -1], index_dtype)  # negative indices wrap, as in eager
  j = _idx([1, -4, 3], index_dtype)
  check_op(INDEX_CASES[case], x, i, j)


def test_index_with_cpu_index_tensors():
  # Index tensors may live on the cpu, as in eager on accelerators.
  x = torch.randn(3, 4).to(XLA)
  torch.testing.assert_close(
      x[torch.tensor([2, 0])].cpu(),
      x.cpu()[torch.tensor([2, 0])])


def test_index_result_is_not_a_view():
  x = torch.zeros(3, 4).to(XLA)
  y = x[_idx([0, 1]).to(XLA)]
  y.add_(1)
  assert x.cpu().sum() == 0


def test_out_of_range_index_is_clamped_not_raised():
  # Documented difference: index values are data, so XLA gather clamps
  # them into range instead of raising IndexError like eager.
  x = torch.arange(12.).reshape(3, 4)
  out = x.to(XLA)[_idx([5]).to(XLA)]
  torch.testing.assert_close(out.cpu(), x[2:3])
  with pytest.raises(IndexError):
    x[_idx([5])]


def test_bool_mask_index_falls_back_with_a_reason():
  x = torch.randn(3, 4)
  before = fallback_counters().get("aten::index", 0)
  with pytest.warns(UserWarning, match="boolean mask index gives a shape "
                    "that depends on the mask's values"):
    out = x.to(XLA)[x.to(XLA) > 0]
  torch.testing.assert_close(out.cpu(), x[x > 0])
  assert fallback_counters()["aten::index"] == before + 1


def test_index_errors():
  _raises(IndexError, re.escape("too many indices for tensor of dimension "
                                "2 (got 3)"),
          lambda a, i: torch.ops.aten.index(a, [i, i, i]), torch.ones(3, 4),
          _idx([0]))
  _raises(IndexError, re.escape("shape mismatch: indexing tensors could not "
                                "be broadcast together with shapes [2], [3]"),
          lambda a, i, j: a[i, j], torch.ones(3, 4), _idx([0, 1]),
          _idx([0, 1, 2]))


# ---------------------------------------------------------------------------
# index_put: x[indices] = values, accumulate or not.


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put(dtype, accumulate):
  x = _rand((4, 3, 2), dtype)
  i = _idx([3, 0, -2])  # unique, so replace is deterministic
  j = _idx([1, 2, 0])
  cases = [
      ((i,), _rand((3, 3, 2), dtype)),
      ((i,), _rand((2,), dtype)),  # broadcast values
      ((i, j), _rand((3, 2), dtype)),
      ((None, j), _rand((4, 3, 2), dtype)),
      ((i, None, _idx([1, 0, 1])), _rand((3, 3), dtype)),
      ((i[:, None], j), _rand((3, 3, 2), dtype)),
  ]
  for indices, values in cases:
    check_op(
        lambda a, v: torch.ops.aten.index_put(a, indices, v, accumulate), x,
        values)


def test_index_put_accumulates_duplicates():
  i = _idx([0, 2, 0, 0])
  check_op(lambda a, v: a.index_put((i,), v, accumulate=True),
           torch.randn(3, 2), torch.randn(4, 2))
  check_op(lambda a, v: a.index_put((i,), v, accumulate=True),
           torch.randint(0, 2, (3,)).bool(), torch.ones(4).bool())


def test_index_put_in_place_forms():
  def fn(a, v):
    y = a * 1
    y.index_put_((_idx([1, 0]),), v[:2])
    y[_idx([2])] = v[2:]
    y[_idx([0, 1]), _idx([1, 1])] += 10.0
    torch.ops.aten._index_put_impl_(y, (None, _idx([0])), v[:, :1], True)
    return y

  check_op(fn, torch.randn(3, 2), torch.randn(3, 2))


def test_setitem_with_index_tensor_keeps_base_identity():
  x = torch.zeros(4, 3).to(XLA)
  tensor_id, alias_id = x._xt.id, x._xt.alias_id
  x[_idx([1, 3]).to(XLA)] = 2.0
  x[1:][_idx([0]).to(XLA)] += 1.0  # index_put_ on a view writes back
  assert (x._xt.id, x._xt.alias_id) == (tensor_id, alias_id)
  expected = torch.zeros(4, 3)
  expected[_idx([1, 3])] = 2.0
  expected[1:][_idx([0])] += 1.0
  torch.testing.assert_close(x.cpu(), expected)


def test_masked_setitem_is_static():
  # Values that do not depend on the number of selected elements: a select.
  # (Gradients for `a` only: eager's gradient for the values reads a[mask].)
  def fn(a, v):
    y = a.clone()
    y[y > 0.5] = 0.0  # a scalar
    y[y[:, 0] > 0] = v  # a row, broadcast over the selected rows
    torch.ops.aten.index_put_(y, (None, y[0] < 0), v[:1] * 2, True)
    return y

  check_op(fn, torch.randn(4, 3).requires_grad_(), torch.randn(3))
  check_op(fn, torch.randint(-3, 3, (4, 3)), torch.randint(-3, 3, (3,)))


def test_masked_setitem_with_per_element_values_falls_back():
  x = torch.randn(3, 4)
  mask = x > 0
  values = torch.arange(float(mask.sum()))
  a = x.to(XLA)
  with pytest.warns(UserWarning, match="boolean mask"):
    a[mask.to(XLA)] = values.to(XLA)
  x[mask] = values
  torch.testing.assert_close(a.cpu(), x)


def test_index_put_errors():
  _raises(RuntimeError, "Index put requires the source and destination "
          "dtypes match, got Float for the destination and Long for the "
          "source.", lambda a, i, v: a.index_put_((i,), v), torch.ones(3),
          _idx([0]), _idx([1]))
  _raises(IndexError, re.escape("The shape of the mask [2, 4] at index 0 "
                                "does not match the shape of the indexed "
                                "tensor [3, 4] at index 0"),
          lambda a, m: a.index_put_((m,), torch.tensor(1.).to(a.device)),
          torch.ones(3, 4), torch.ones(2, 4, dtype=torch.bool))
  with pytest.raises(RuntimeError, match="shape mismatch: value tensor of "
                     "shape \\[4\\] cannot be broadcast to indexing result "
                     "of shape \\[2, 3\\]"):
    torch.ones(4, 3).to(XLA).index_put_((_idx([0, 1]).to(XLA),),
                                        torch.ones(4).to(XLA))


# ---------------------------------------------------------------------------
# Along one dim: index_select, index_copy, index_add, index_fill.


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
def test_index_select(dim, dtype, index_dtype):
  x = _rand((3, 4, 5), dtype)
  check_op(lambda a: a.index_select(dim, _idx([2, 0, 2], index_dtype)), x)
  check_op(lambda a: a.index_select(dim, _idx(1, index_dtype)), x)
  check_op(lambda a: a.index_select(dim, _idx([], index_dtype)), x)


def test_index_select_of_a_scalar():
  check_op(lambda a: a.index_select(0, _idx([0])), torch.randn(()))
  check_op(lambda a: a.index_select(-1, _idx(0)), torch.randn(()))
  check_op(lambda a, s: a.index_add(0, _idx([0]), s, alpha=2),
           torch.randn(()), torch.randn(()))
  check_op(lambda a, s: a.index_copy(0, _idx(0), s), torch.randn(()),
           torch.randn(()))
  check_op(lambda a: a.index_fill(0, _idx([0]), 3.), torch.randn(()))


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", ALL)
def test_index_copy(dim, dtype):
  x = _rand((4, 5, 6), dtype)
  index = _idx([3, 0])
  shape = list(x.shape)
  shape[dim] = 2
  src = _rand(shape, dtype)
  check_op(lambda a, s: a.index_copy(dim, index, s), x, src)
  check_op(lambda a, s: a.clone().index_copy_(dim, index, s), x, src)


@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("dtype", FLOATS + [torch.int64])
@pytest.mark.parametrize("alpha", [1, 2])
def test_index_add(dim, dtype, alpha):
  x = _rand((4, 5), dtype)
  index = _idx([3, 0, 3])  # duplicates accumulate
  shape = list(x.shape)
  shape[dim] = 3
  src = _rand(shape, dtype)
  check_op(lambda a, s: a.index_add(dim, index, s, alpha=alpha), x, src)
  check_op(lambda a, s: a.clone().index_add_(dim, index, s, alpha=alpha), x,
           src)


@pytest.mark.parametrize("dtype", ALL)
def test_index_fill(dtype):
  x = _rand((4, 5), dtype)
  value = True if dtype == torch.bool else 2
  check_op(lambda a: a.index_fill(1, _idx([0, 3]), value), x)
  check_op(lambda a: a.clone().index_fill_(0, _idx([2]), value), x)
  check_op(lambda a: a.index_fill(0, _idx([1]), torch.tensor(value)), x)


def test_kv_cache_index_copy_is_in_place_and_donated():
  cache_cpu = torch.zeros(2, 3, 8, 4)  # [batch, heads, seq, dim]
  cache = cache_cpu.to(XLA)
  torch_xla.sync()
  tensor_id, alias_id = cache._xt.id, cache._xt.alias_id
  met.clear_all()
  for pos in range(3):
    k = torch.randn(2, 3, 1, 4)
    cache_cpu.index_copy_(2, _idx([pos]), k)
    cache.index_copy_(2, _idx([pos]).to(XLA), k.to(XLA))
    torch_xla.sync()
  assert (cache._xt.id, cache._xt.alias_id) == (tensor_id, alias_id)
  assert int(met.metric_data("InputOutputAliasCount")[1]) == 3
  torch.testing.assert_close(cache.cpu(), cache_cpu)


def test_index_copy_into_a_view_of_the_cache():
  cache_cpu = torch.zeros(2, 8, 4)
  cache = cache_cpu.to(XLA)
  k = torch.randn(4, 2)
  cache_cpu[1].index_copy_(0, _idx([0, 3]), k.t())
  cache[1].index_copy_(0, _idx([0, 3]).to(XLA), k.to(XLA).t())
  torch.testing.assert_close(cache.cpu(), cache_cpu)


def test_index_errors_along_a_dim():
  _raises(IndexError, "index_select\\(\\): Index is supposed to be a vector",
          lambda a, i: a.index_select(0, i), torch.ones(3, 4), _idx([[0]]))
  _raises(RuntimeError, "index_select\\(\\): Expected dtype int32 or int64 "
          "for index", lambda a, i: a.index_select(0, i), torch.ones(3, 4),
          torch.tensor([0.]))
  _raises(IndexError, "Dimension out of range",
          lambda a, i: a.index_select(2, i), torch.ones(3, 4), _idx([0]))
  _raises(IndexError, re.escape("index_copy_(): Number of indices (1) should "
                                "be equal to source.size(dim) (2)"),
          lambda a, i, s: a.index_copy(0, i, s), torch.ones(3, 4), _idx([0]),
          torch.ones(2, 4))
  _raises(RuntimeError, "index_copy_\\(\\): self and source expected to have "
          "the same dtype, but got \\(self\\) Float and \\(source\\) Double",
          lambda a, i, s: a.index_copy(0, i, s), torch.ones(3, 4), _idx([0]),
          torch.ones(1, 4, dtype=torch.float64))
  _raises(RuntimeError, re.escape("index_add_(): self (Float) and source "
                                  "(Double) must have the same scalar type"),
          lambda a, i, s: a.index_add(0, i, s), torch.ones(3, 4), _idx([0]),
          torch.ones(1, 4, dtype=torch.float64))


# ---------------------------------------------------------------------------
# index_reduce.

# Eager warns that index_reduce is in beta.
_IR_BETA = pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta")


@_IR_BETA
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("dtype", FLOATS + [torch.int64])
def test_index_reduce(reduce, include_self, dim, dtype):
  x = _rand((5, 4), dtype)
  index = _idx([3, 0, 3, 1])  # duplicates reduce together; row 2 is kept
  shape = list(x.shape)
  shape[dim] = 4
  src = _rand(shape, dtype)
  # Gradients w.r.t. self and source (floats).
  check_op(lambda a, s: a.index_reduce(dim, index, s, reduce,
                                       include_self=include_self), x, src)
  check_op(lambda a, s: a.clone().index_reduce_(dim, index, s, reduce,
                                                include_self=include_self),
           x, src)


@_IR_BETA
@pytest.mark.parametrize("reduce", ["prod", "amax", "amin"])
def test_index_reduce_bool(reduce):
  # Eager's CPU kernel takes bool for these only (2-d and up, with self).
  check_op(lambda a, s: a.index_reduce(1, _idx([2, 0, 2]), s, reduce),
           _rand((3, 4), torch.bool), _rand((3, 3), torch.bool))


@_IR_BETA
def test_index_reduce_shapes_and_values():
  nan = float("nan")
  # NaN wins in amax/amin, as in eager.
  for include_self in (True, False):
    check_op(lambda a, s: a.index_reduce(0, _idx([0, 1, 0]), s, "amax",
                                         include_self=include_self),
             torch.tensor([1., nan, 2.]), torch.tensor([nan, 3., 1.]),
             grad=False)
  # Integer means round down.
  check_op(lambda a, s: a.index_reduce(0, _idx([0, 1, 2]), s, "mean"),
           torch.tensor([-7, 7, 4]), torch.tensor([0, 0, -1]))
  check_op(lambda a, s: a.index_reduce(1, _idx([2, 0], torch.int32), s,
                                       "mean"), torch.randn(2, 3, 4),
           torch.randn(2, 2, 4))
  check_op(lambda a, s: a.index_reduce(0, _idx([]), s, "amin",
                                       include_self=False),
           torch.randn(3, 2), torch.randn(0, 2))
  check_op(lambda a, s: a.index_reduce(0, _idx(2), s, "prod"),
           torch.randn(4, 3), torch.randn(1, 3))
  check_op(lambda a, s: a.index_reduce(0, _idx([0, 0]), s, "amin"),
           torch.randn(3), torch.randn(2))
  check_op(lambda a, s: a.index_reduce(0, _idx([0]), s, "prod"),
           torch.randn(()), torch.randn(()))


@_IR_BETA
def test_index_reduce_errors():
  def ir(a, i, s, reduce="prod", include_self=True):
    return a.index_reduce(0, i, s, reduce, include_self=include_self)

  _raises(RuntimeError, re.escape("index_reduce(): Expected reduce to be one "
                                  "of prod, mean, amax or amin but got sum."),
          lambda a, i, s: ir(a, i, s, "sum"), torch.ones(3, 4), _idx([0]),
          torch.ones(1, 4))
  _raises(IndexError, re.escape("index_reduce_(): Index is supposed to be a "
                                "vector, but got dim: 2 with type: Long and "
                                "size: [1, 1]"),
          ir, torch.ones(3, 4), _idx([[0]]), torch.ones(1, 4))
  _raises(RuntimeError, re.escape("index_reduce_(): Expected dtype "
                                  "int32/int64 for index but got: Float"),
          ir, torch.ones(3, 4), torch.tensor([0.]), torch.ones(1, 4))
  _raises(RuntimeError, re.escape("index_reduce_(): self (Float) and source "
                                  "(Double) must have the same scalar type"),
          ir, torch.ones(3, 4), _idx([0]),
          torch.ones(1, 4, dtype=torch.float64))
  _raises(RuntimeError, re.escape("index_reduce_(): Number of indices (2) "
                                  "should be equal to source.size(dim): (3), "
                                  "for dim: 0"),
          ir, torch.ones(3, 4), _idx([0, 1]), torch.ones(3, 4))
  _raises(RuntimeError, re.escape("source tensor shape must match self "
                                  "tensor shape, excluding the specified "
                                  "dimension. Got self.shape = [3, 4] "
                                  "source.shape = [1, 5]"),
          ir, torch.ones(3, 4), _idx([0]), torch.ones(1, 5))
  _raises(RuntimeError, re.escape("index_reduce_(): Indexing dim 1 is out of "
                                  "bounds of the source tensor with dim 1"),
          lambda a, i, s: a.index_reduce(1, i, s, "amax"), torch.ones(3, 4),
          _idx([0]), torch.ones(3))
  _raises(IndexError, "Dimension out of range",
          lambda a, i, s: a.index_reduce(2, i, s, "amax"), torch.ones(3, 4),
          _idx([0]), torch.ones(1, 4))
  bools = torch.ones(3, 4, dtype=torch.bool)
  for reduce, include_self, x in (("mean", True, bools),
                                  ("amax", False, bools),
                                  ("prod", True, bools[0])):
    _raises(NotImplementedError, "not implemented for 'Bool'",
            lambda a, i, s: ir(a, i, s, reduce, include_self), x,
            _idx([0]), x[:1])


# ---------------------------------------------------------------------------
# gather and scatter.


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
def test_gather(dim, dtype, index_dtype):
  x = _rand((3, 4, 5), dtype)
  shape = [2, 3, 4]  # may be smaller than x outside dim
  shape[dim] = 6
  index = torch.randint(0, x.shape[dim], shape, dtype=index_dtype)
  check_op(lambda a: a.gather(dim, index), x)


def test_gather_1d_and_take_along_dim():
  check_op(lambda a: a.gather(0, _idx([3, 3, 0])), torch.randn(4))
  x = torch.randn(3, 4)
  check_op(lambda a, i: torch.take_along_dim(a, i, 1), x, _idx([[0], [3],
                                                                [1]]))
  check_op(lambda a, i: torch.take_along_dim(a, i, 0), x,
           x.argsort(0))


@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("dtype", ALL)
def test_scatter(dim, dtype):
  x = _rand((4, 5), dtype)
  # Unique target positions so replace is deterministic.
  index = torch.stack([torch.randperm(x.shape[dim])[:3] for _ in range(3)],
                      1 - dim)
  src = _rand((3, 3), dtype)
  big = _rand((4, 6), dtype)  # larger than index: only a corner is used
  value = True if dtype == torch.bool else 7
  check_op(lambda a, s: a.scatter(dim, index, s), x, src)
  # (Eager's gradient for a larger src has the index's shape and fails.)
  check_op(lambda a, s: a.scatter(dim, index, s), x, big, grad=False)
  check_op(lambda a: a.scatter(dim, index, value), x)
  check_op(lambda a, s: a.clone().scatter_(dim, index, s), x, src)
  if dtype != torch.bool:
    check_op(lambda a, s: a.scatter_add(dim, index, s), x, src)
    check_op(lambda a, s: a.scatter_add(dim, index, s), x, big, grad=False)


def test_scatter_add_accumulates_duplicates():
  index = _idx([[0, 1, 0], [0, 0, 2]])
  check_op(lambda a, s: a.scatter_add(0, index, s), torch.randn(3, 3),
           torch.randn(2, 3))
  check_op(lambda a, s: a.clone().scatter_add_(1, index, s), torch.randn(2, 3),
           torch.randn(2, 3))


@pytest.mark.parametrize("reduce", ["sum", "mean"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce(reduce, include_self):
  index = _idx([[0, 1, 0], [0, 0, 2]])
  x, src = torch.randn(3, 3), torch.randn(2, 3)
  check_op(
      lambda a, s: a.scatter_reduce(0, index, s, reduce,
                                    include_self=include_self), x, src,
      grad=False)
  check_op(
      lambda a, s: a.clone().scatter_reduce_(0, index, s, reduce,
                                           include_self=include_self), x,
      src, grad=False)


def test_scatter_reduce_amax_falls_back_with_a_reason():
  x, src, index = torch.randn(3), torch.randn(4), _idx([0, 2, 0, 1])
  with pytest.warns(UserWarning, match="reduce='amax'"):
    out = x.to(XLA).scatter_reduce(0, index.to(XLA), src.to(XLA), "amax")
  torch.testing.assert_close(out.cpu(), x.scatter_reduce(0, index, src,
                                                         "amax"))


def test_gather_scatter_errors():
  _raises(RuntimeError, "Index tensor must have the same number of "
          "dimensions as input tensor", lambda a, i: a.gather(0, i),
          torch.ones(3, 4), _idx([0]))
  _raises(RuntimeError, re.escape("Size does not match at dimension 1 "
                                  "expected index [1, 5] to be no larger "
                                  "than self [3, 4] apart from dimension 0"),
          lambda a, i: a.gather(0, i), torch.ones(3, 4), _idx([[0] * 5]))
  _raises(RuntimeError, "scatter\\(\\): Expected self.dtype to be equal to "
          "src.dtype", lambda a, i, s: a.scatter(0, i, s), torch.ones(3, 4),
          _idx([[0]]), torch.ones(1, 4, dtype=torch.float64))
  _raises(IndexError, "Dimension out of range",
          lambda a, i: a.gather(2, i), torch.ones(3, 4), _idx([[0]]))


# ---------------------------------------------------------------------------
# take and put: indices into the flattened tensor.


@pytest.mark.parametrize("dtype", ALL)
def test_take(dtype):
  x = _rand((3, 4), dtype)
  # Negative indices wrap; duplicates sum their gradients.
  check_op(lambda a, i: torch.take(a, i), x, _idx([[0, -1, 5], [5, 11, -12]]))
  check_op(lambda a: torch.take(a, _idx(6)), x)
  check_op(lambda a: torch.take(a, _idx([])), x)
  check_op(lambda a: torch.take(a, _idx([0, -1])), _rand((), dtype))


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("accumulate", [False, True])
def test_put(dtype, accumulate):
  x = _rand((3, 4), dtype)
  index = _idx([[7, 0], [-1, 2]])  # unique, so replace is deterministic
  # Gradients w.r.t. self and source (floats).
  check_op(lambda a, s: a.put(index, s, accumulate), x, _rand((4,), dtype))
  check_op(lambda a, s: a.clone().put_(index, s, accumulate), x,
           _rand((2, 2), dtype))
  check_op(lambda a, s: a.put(_idx([]), s, accumulate), x, _rand((0,),
                                                                 dtype))


def test_put_accumulates_duplicates():
  index = _idx([1, 4, 1, -5])
  check_op(lambda a, s: a.put(index, s, accumulate=True), torch.randn(2, 3),
           torch.randn(4))
  check_op(lambda a, s: a.put(index, s, accumulate=True),
           torch.randint(-5, 6, (2, 3)), torch.randint(-5, 6, (4,)))
  check_op(lambda a, s: a.put(index, s, accumulate=True),
           torch.zeros(2, 3, dtype=torch.bool), torch.ones(4).bool())


def test_take_put_errors():
  _raises(RuntimeError, re.escape("take(): Expected a long tensor for index, "
                                  "but got Int"),
          torch.take, torch.ones(3), _idx([0], torch.int32))
  _raises(IndexError, re.escape("take(): tried to take from an empty tensor"),
          torch.take, torch.ones(0), _idx([0]))
  _raises(RuntimeError, re.escape("put_(): Expected a long tensor for index, "
                                  "but got Int"),
          torch.put, torch.ones(3), _idx([0], torch.int32), torch.ones(1))
  _raises(RuntimeError, re.escape("put_(): self and source expected to have "
                                  "the same dtype, but got self.dtype = Float "
                                  "and source.dtype = Double"),
          torch.put, torch.ones(3), _idx([0]),
          torch.ones(1, dtype=torch.float64))
  _raises(IndexError, re.escape("put_(): Expected source and index to have "
                                "the same number of elements, but got "
                                "source.numel() = 3, index.numel() = 2"),
          lambda a, i, s: a.clone().put_(i, s), torch.ones(3), _idx([0, 1]),
          torch.ones(3))
  _raises(IndexError, re.escape("put_(): Tried to put elements into an empty "
                                "tensor"),
          torch.put, torch.ones(0), _idx([0]), torch.ones(1))


# ---------------------------------------------------------------------------
# masked_fill.


@pytest.mark.parametrize("dtype", ALL)
def test_masked_fill(dtype):
  x = _rand((3, 4), dtype)
  mask = torch.rand(3, 4) > 0.5
  value = False if dtype == torch.bool else -1.5
  check_op(lambda a, m: a.masked_fill(m, value), x, mask)
  check_op(lambda a, m: a.masked_fill(m, torch.tensor(value)), x, mask)
  check_op(lambda a, m: a.clone().masked_fill_(m, value), x, mask)
  check_op(lambda a, m: a.masked_fill(m[0], value), x, mask)  # broadcast


def test_masked_fill_broadcasts_self_and_takes_xla_values():
  x, mask = torch.randn(4), torch.rand(3, 4) > 0.5
  check_op(lambda a, m: a.masked_fill(m, float("-inf")), x, mask)
  check_op(lambda a, m, v: a.masked_fill(m, v), torch.randn(3, 4), mask,
           torch.tensor(2.5))


def test_masked_fill_value_is_a_parameter():
  x = torch.randn(3, 4).to(XLA)
  mask = x > 0
  a, b = x.masked_fill(mask, 1.0), x.masked_fill(mask, -3.0)
  assert torch_xla._XLAC._graph_hash([a._xt]) == torch_xla._XLAC._graph_hash(
      [b._xt])


def test_masked_fill_errors():
  _raises(RuntimeError, "masked_fill_ only supports boolean masks, but got "
          "mask with dtype float", lambda a, m: a.masked_fill(m, 1.),
          torch.ones(3), torch.ones(3))
  _raises(RuntimeError, re.escape("masked_fill_ only supports a "
                                  "0-dimensional value tensor, but got "
                                  "tensor with 1 dimension(s)."),
          lambda a, m, v: a.masked_fill(m, v), torch.ones(3),
          torch.ones(3, dtype=torch.bool), torch.ones(3))
  _raises(RuntimeError, re.escape("output with shape [3] doesn't match the "
                                  "broadcast shape [2, 3]"),
          lambda a, m: a.masked_fill_(m, 2.), torch.ones(3),
          torch.ones(2, 3, dtype=torch.bool))


# ---------------------------------------------------------------------------
# masked_scatter.


@pytest.mark.parametrize("dtype", ALL)
def test_masked_scatter(dtype):
  x = _rand((3, 4), dtype)
  mask = torch.rand(3, 4) > 0.5
  src = _rand((4, 5), dtype)  # more than the mask needs: the first are used
  # Gradients w.r.t. self and source (floats).
  check_op(lambda a, m, s: a.masked_scatter(m, s), x, mask, src)
  check_op(lambda a, m, s: a.clone().masked_scatter_(m, s), x, mask, src)
  check_op(lambda a, m, s: a.masked_scatter(m[0], s), x, mask, src)
  check_op(lambda a, m, s: a.masked_scatter(m, s), x[0], mask, src)
  check_op(lambda a, m, s: a.clone().masked_scatter_(m[1], s), x, mask, src)


def test_masked_scatter_edge_masks():
  check_op(lambda a, s: a.masked_scatter(torch.ones(3, 4).bool(), s),
           torch.randn(3, 4), torch.randn(12))
  check_op(lambda a, s: a.masked_scatter(torch.zeros(3, 4).bool(), s),
           torch.randn(3, 4), torch.randn(0))
  check_op(lambda a, s: a.masked_scatter(torch.tensor(True), s),
           torch.randn(()), torch.randn(2))


def test_masked_scatter_backward():
  # The source's gradient: grad at the True positions, then zeros.
  mask = torch.rand(3, 4) > 0.5
  check_op(lambda g: torch.ops.aten.masked_scatter_backward(g, mask, [4, 5]),
           torch.randn(3, 4))
  check_op(
      lambda g: torch.ops.aten.masked_scatter_backward(g, mask[0], [2, 6]),
      torch.randn(3, 4, dtype=torch.bfloat16))


def test_masked_scatter_errors():
  _raises(RuntimeError, "masked_scatter_ only supports boolean masks, but "
          "got mask with dtype Float", lambda a, m, s: a.masked_scatter(m, s),
          torch.ones(3), torch.ones(3), torch.ones(3))
  _raises(RuntimeError, "masked_scatter: expected self and source to have "
          "same dtypes but gotFloat and Double",
          lambda a, m, s: a.masked_scatter(m, s), torch.ones(3),
          torch.ones(3, dtype=torch.bool), torch.ones(3, dtype=torch.float64))
  _raises(RuntimeError, "The size of tensor a \\(2\\) must match the size of "
          "tensor b \\(3\\) at non-singleton dimension 0",
          lambda a, m, s: a.masked_scatter(m, s), torch.ones(3, 4),
          torch.ones(2, 4, dtype=torch.bool), torch.ones(12))
  _raises(RuntimeError, re.escape("The expanded size of the tensor (3) must "
                                  "match the existing size (2) at "
                                  "non-singleton dimension 0"),
          lambda a, m, s: a.masked_scatter_(m, s), torch.ones(3, 4),
          torch.ones(2, 4, dtype=torch.bool), torch.ones(12))
  _raises(RuntimeError, re.escape("the number of sizes provided (1) must be "
                                  "greater or equal to the number of "
                                  "dimensions in the tensor (2)"),
          lambda a, m, s: a.masked_scatter_(m, s), torch.ones(4),
          torch.ones(3, 4, dtype=torch.bool), torch.ones(12))


# ---------------------------------------------------------------------------
# Embedding.


@pytest.mark.parametrize("padding_idx", [None, 0, 2, -1])
@pytest.mark.parametrize("scale_grad_by_freq", [False, True])
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
def test_embedding(padding_idx, scale_grad_by_freq, index_dtype):
  weight = torch.randn(5, 3)
  indices = torch.tensor([[0, 2, 2], [4, 0, 2]], dtype=index_dtype)
  check_op(
      lambda w: F.embedding(indices, w, padding_idx=padding_idx,
                            scale_grad_by_freq=scale_grad_by_freq), weight)


def test_embedding_bf16_and_module():
  check_op(lambda w: F.embedding(_idx([1, 1, 3]), w),
           torch.randn(4, 8, dtype=torch.bfloat16))
  emb = torch.nn.Embedding(6, 4, padding_idx=1)
  check_op(lambda w: F.embedding(_idx([[1, 5], [0, 1]]), w, padding_idx=1),
           emb.weight.detach())


def test_embedding_dense_backward():
  grad = torch.randn(2, 3, 4)
  indices = _idx([[0, 3, 3], [1, 0, 5]])
  for padding_idx, scale in ((-1, False), (3, False), (0, True)):
    check_op(
        lambda g: torch.ops.aten.embedding_dense_backward(
            g, indices, 6, padding_idx, scale), grad)


def test_embedding_errors():
  _raises(RuntimeError, "Expected tensor for argument #1 'indices' to have "
          "one of the following scalar types: Long, Int",
          lambda w, i: torch.embedding(w, i), torch.ones(3, 4),
          torch.tensor([0.]))
