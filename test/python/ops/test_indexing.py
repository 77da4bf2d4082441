"""Indexing on 'xla' against eager CPU PyTorch: advanced indexing,
index_put, index_select/copy/add/fill/reduce (values, gradients, errors),
KV-cache style in-place updates, and the documented differences (device-side
indices, mask fallbacks). Gather/scatter-like ops (gather, scatter,
take/put, masked_fill/scatter, embedding) are test_gather_scatter.py.

Value and gradient checks go through op_test_utils.check_op, which also
asserts that nothing fell back to CPU.
"""

import re

import pytest
import torch
import torch.nn.functional as F

import torch_xla
import torch_xla.debug.metrics as met
from op_test_utils import (random_tensor as _rand, XLA, check_error, check_op,
                           fallback_counters)

FLOATS = [torch.float32, torch.bfloat16]
ALL = FLOATS + [torch.int64, torch.bool]
INDEX_DTYPES = [torch.int64, torch.int32]


def _idx(values, dtype=torch.int64):
  return torch.tensor(values, dtype=dtype)


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


def test_out_of_range_index_from_host_raises_at_once_from_device_at_read():
  # Index values known on the host (uploaded just now) are checked as in
  # eager; values computed on the device get a device-side check, read
  # with the value (test_device_index_checks.py has the rest).
  x = torch.arange(12.).reshape(3, 4)
  with pytest.raises(IndexError, match="index 5 is out of bounds for "
                     "dimension 0 with size 3"):
    x.to(XLA)[_idx([5]).to(XLA)]
  out = x.to(XLA)[_idx([1]).to(XLA) + 4]
  with pytest.raises(IndexError, match="index: an index is out of bounds "
                     "for dimension 0 with size 3"):
    out.cpu()


def test_bool_mask_index_falls_back_with_a_reason():
  x = torch.randn(3, 4)
  before = fallback_counters().get("aten::index", 0)
  with pytest.warns(UserWarning, match="boolean mask index gives a shape "
                    "that depends on the mask's values"):
    out = x.to(XLA)[x.to(XLA) > 0]
  torch.testing.assert_close(out.cpu(), x[x > 0])
  assert fallback_counters()["aten::index"] == before + 1


def test_index_errors():
  check_error(IndexError, re.escape("too many indices for tensor of dimension "
                                "2 (got 3)"),
          lambda a, i: torch.ops.aten.index(a, [i, i, i]), torch.ones(3, 4),
          _idx([0]))
  check_error(IndexError, re.escape("shape mismatch: indexing tensors could not "
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
  check_error(RuntimeError, "Index put requires the source and destination "
          "dtypes match, got Float for the destination and Long for the "
          "source.", lambda a, i, v: a.index_put_((i,), v), torch.ones(3),
          _idx([0]), _idx([1]))
  check_error(IndexError, re.escape("The shape of the mask [2, 4] at index 0 "
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
  # One graph for the three positions (the position is data), one alias.
  assert met.metric_data("InputOutputAliasCount")[:2] == (1, 1.0)
  torch.testing.assert_close(cache.cpu(), cache_cpu)


def test_index_copy_into_a_view_of_the_cache():
  cache_cpu = torch.zeros(2, 8, 4)
  cache = cache_cpu.to(XLA)
  k = torch.randn(4, 2)
  cache_cpu[1].index_copy_(0, _idx([0, 3]), k.t())
  cache[1].index_copy_(0, _idx([0, 3]).to(XLA), k.to(XLA).t())
  torch.testing.assert_close(cache.cpu(), cache_cpu)


def test_index_errors_along_a_dim():
  check_error(IndexError, "index_select\\(\\): Index is supposed to be a vector",
          lambda a, i: a.index_select(0, i), torch.ones(3, 4), _idx([[0]]))
  check_error(RuntimeError, "index_select\\(\\): Expected dtype int32 or int64 "
          "for index", lambda a, i: a.index_select(0, i), torch.ones(3, 4),
          torch.tensor([0.]))
  check_error(IndexError, "Dimension out of range",
          lambda a, i: a.index_select(2, i), torch.ones(3, 4), _idx([0]))
  check_error(IndexError, re.escape("index_copy_(): Number of indices (1) should "
                                "be equal to source.size(dim) (2)"),
          lambda a, i, s: a.index_copy(0, i, s), torch.ones(3, 4), _idx([0]),
          torch.ones(2, 4))
  check_error(RuntimeError, "index_copy_\\(\\): self and source expected to have "
          "the same dtype, but got \\(self\\) Float and \\(source\\) Double",
          lambda a, i, s: a.index_copy(0, i, s), torch.ones(3, 4), _idx([0]),
          torch.ones(1, 4, dtype=torch.float64))
  check_error(RuntimeError, re.escape("index_add_(): self (Float) and source "
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

  check_error(RuntimeError, re.escape("index_reduce(): Expected reduce to be one "
                                  "of prod, mean, amax or amin but got sum."),
          lambda a, i, s: ir(a, i, s, "sum"), torch.ones(3, 4), _idx([0]),
          torch.ones(1, 4))
  check_error(IndexError, re.escape("index_reduce_(): Index is supposed to be a "
                                "vector, but got dim: 2 with type: Long and "
                                "size: [1, 1]"),
          ir, torch.ones(3, 4), _idx([[0]]), torch.ones(1, 4))
  check_error(RuntimeError, re.escape("index_reduce_(): Expected dtype "
                                  "int32/int64 for index but got: Float"),
          ir, torch.ones(3, 4), torch.tensor([0.]), torch.ones(1, 4))
  check_error(RuntimeError, re.escape("index_reduce_(): self (Float) and source "
                                  "(Double) must have the same scalar type"),
          ir, torch.ones(3, 4), _idx([0]),
          torch.ones(1, 4, dtype=torch.float64))
  check_error(RuntimeError, re.escape("index_reduce_(): Number of indices (2) "
                                  "should be equal to source.size(dim): (3), "
                                  "for dim: 0"),
          ir, torch.ones(3, 4), _idx([0, 1]), torch.ones(3, 4))
  check_error(RuntimeError, re.escape("source tensor shape must match self "
                                  "tensor shape, excluding the specified "
                                  "dimension. Got self.shape = [3, 4] "
                                  "source.shape = [1, 5]"),
          ir, torch.ones(3, 4), _idx([0]), torch.ones(1, 5))
  check_error(RuntimeError, re.escape("index_reduce_(): Indexing dim 1 is out of "
                                  "bounds of the source tensor with dim 1"),
          lambda a, i, s: a.index_reduce(1, i, s, "amax"), torch.ones(3, 4),
          _idx([0]), torch.ones(3))
  check_error(IndexError, "Dimension out of range",
          lambda a, i, s: a.index_reduce(2, i, s, "amax"), torch.ones(3, 4),
          _idx([0]), torch.ones(1, 4))
  bools = torch.ones(3, 4, dtype=torch.bool)
  for reduce, include_self, x in (("mean", True, bools),
                                  ("amax", False, bools),
                                  ("prod", True, bools[0])):
    check_error(NotImplementedError, "not implemented for 'Bool'",
            lambda a, i, s: ir(a, i, s, reduce, include_self), x,
            _idx([0]), x[:1])
