"""Gather- and scatter-like ops on 'xla' against eager CPU PyTorch: gather,
scatter (add, reduce), take/put on the flattened tensor, masked_fill,
masked_scatter and embedding (values, gradients, errors), and the documented
fallbacks. Indexing proper (x[i], index_put, index_select/copy/add/fill/
reduce) is test_indexing.py.

Value and gradient checks go through op_test_utils.check_op, which also
asserts that nothing fell back to CPU.
"""

import re

import pytest
import torch
import torch.nn.functional as F

import torch_xla
from op_test_utils import random_tensor as _rand, XLA, check_error, check_op

FLOATS = [torch.float32, torch.bfloat16]
ALL = FLOATS + [torch.int64, torch.bool]
INDEX_DTYPES = [torch.int64, torch.int32]


def _idx(values, dtype=torch.int64):
  return torch.tensor(values, dtype=dtype)


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
  check_error(RuntimeError, "Index tensor must have the same number of "
          "dimensions as input tensor", lambda a, i: a.gather(0, i),
          torch.ones(3, 4), _idx([0]))
  check_error(RuntimeError, re.escape("Size does not match at dimension 1 "
                                  "expected index [1, 5] to be no larger "
                                  "than self [3, 4] apart from dimension 0"),
          lambda a, i: a.gather(0, i), torch.ones(3, 4), _idx([[0] * 5]))
  check_error(RuntimeError, "scatter\\(\\): Expected self.dtype to be equal to "
          "src.dtype", lambda a, i, s: a.scatter(0, i, s), torch.ones(3, 4),
          _idx([[0]]), torch.ones(1, 4, dtype=torch.float64))
  check_error(IndexError, "Dimension out of range",
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
  check_error(RuntimeError, re.escape("take(): Expected a long tensor for index, "
                                  "but got Int"),
          torch.take, torch.ones(3), _idx([0], torch.int32))
  check_error(IndexError, re.escape("take(): tried to take from an empty tensor"),
          torch.take, torch.ones(0), _idx([0]))
  check_error(RuntimeError, re.escape("put_(): Expected a long tensor for index, "
                                  "but got Int"),
          torch.put, torch.ones(3), _idx([0], torch.int32), torch.ones(1))
  check_error(RuntimeError, re.escape("put_(): self and source expected to have "
                                  "the same dtype, but got self.dtype = Float "
                                  "and source.dtype = Double"),
          torch.put, torch.ones(3), _idx([0]),
          torch.ones(1, dtype=torch.float64))
  check_error(IndexError, re.escape("put_(): Expected source and index to have "
                                "the same number of elements, but got "
                                "source.numel() = 3, index.numel() = 2"),
          lambda a, i, s: a.clone().put_(i, s), torch.ones(3), _idx([0, 1]),
          torch.ones(3))
  check_error(IndexError, re.escape("put_(): Tried to put elements into an empty "
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
  assert torch_xla._XLAC._get_graph_hash([a._xt]) == torch_xla._XLAC._get_graph_hash(
      [b._xt])


def test_masked_fill_errors():
  check_error(RuntimeError, "masked_fill_ only supports boolean masks, but got "
          "mask with dtype float", lambda a, m: a.masked_fill(m, 1.),
          torch.ones(3), torch.ones(3))
  check_error(RuntimeError, re.escape("masked_fill_ only supports a "
                                  "0-dimensional value tensor, but got "
                                  "tensor with 1 dimension(s)."),
          lambda a, m, v: a.masked_fill(m, v), torch.ones(3),
          torch.ones(3, dtype=torch.bool), torch.ones(3))
  check_error(RuntimeError, re.escape("output with shape [3] doesn't match the "
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
  check_error(RuntimeError, "masked_scatter_ only supports boolean masks, but "
          "got mask with dtype Float", lambda a, m, s: a.masked_scatter(m, s),
          torch.ones(3), torch.ones(3), torch.ones(3))
  check_error(RuntimeError, "masked_scatter: expected self and source to have "
          "same dtypes but gotFloat and Double",
          lambda a, m, s: a.masked_scatter(m, s), torch.ones(3),
          torch.ones(3, dtype=torch.bool), torch.ones(3, dtype=torch.float64))
  check_error(RuntimeError, "The size of tensor a \\(2\\) must match the size of "
          "tensor b \\(3\\) at non-singleton dimension 0",
          lambda a, m, s: a.masked_scatter(m, s), torch.ones(3, 4),
          torch.ones(2, 4, dtype=torch.bool), torch.ones(12))
  check_error(RuntimeError, re.escape("The expanded size of the tensor (3) must "
                                  "match the existing size (2) at "
                                  "non-singleton dimension 0"),
          lambda a, m, s: a.masked_scatter_(m, s), torch.ones(3, 4),
          torch.ones(2, 4, dtype=torch.bool), torch.ones(12))
  check_error(RuntimeError, re.escape("the number of sizes provided (1) must be "
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
  check_error(RuntimeError, "Expected tensor for argument #1 'indices' to have "
          "one of the following scalar types: Long, Int",
          lambda w, i: torch.embedding(w, i), torch.ones(3, 4),
          torch.tensor([0.]))
