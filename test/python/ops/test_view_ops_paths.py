"""Each view op is defined once (torch_xla/csrc/tensor/view_ops.h) and
reached two ways: the C++ fast rules and the Python rules of
torch_xla/_ops/views.py (one _XLAC binding per op). Every check here runs on
both paths against eager CPU PyTorch: errors (class and text), negative
dims and bounds (values, strides, storage offsets), and in-place updates
through the views whose steps are C++ (strided slices, select, split,
unbind).
"""

import contextlib
import re

import pytest
import torch

from torch_xla import _XLAC
from op_test_utils import XLA, fallback_counters, random_tensor

PATHS = ["fast", "python"]


@contextlib.contextmanager
def _path(name):
  previous = _XLAC._set_fast_rules_enabled(name == "fast")
  try:
    yield
  finally:
    _XLAC._set_fast_rules_enabled(previous)


def _slice(dim, start, end, step):
  return lambda a: torch.ops.aten.slice.Tensor(a, dim, start, end, step)


# (fn, input shape, eager's exception class, a fragment of eager's text
# that ours repeats)
ERRORS = [
    (lambda a: a.view(5), (3, 4), RuntimeError,
     "shape '[5]' is invalid for input of size 12"),
    (lambda a: torch.ops.aten._unsafe_view(a, [5]), (3, 4), RuntimeError,
     "shape '[5]' is invalid for input of size 12"),
    (lambda a: a.unsqueeze(3), (3, 4), IndexError,
     "Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda a: a.unsqueeze(-4), (3, 4), IndexError,
     "but got -4)"),
    (lambda a: a.squeeze(2), (3, 1), IndexError,
     "range of [-2, 1], but got 2)"),
    (lambda a: a.squeeze((0, -3)), (3, 1), IndexError, "but got -3)"),
    (lambda a: a.t(), (2, 2, 2), RuntimeError,
     "t() expects a tensor with <= 2 dimensions, but self is 3D"),
    (lambda a: a.transpose(-3, 0), (3, 4), IndexError, "but got -3)"),
    (lambda a: a.transpose(0, 1), (), IndexError, "but got 1)"),
    (lambda a: a.permute(0), (3, 4), RuntimeError,
     "input.dim() = 2 is not equal to len(dims) = 1"),
    (lambda a: a.permute(1, -1), (3, 4), RuntimeError,
     "permute(): duplicate dims are not allowed."),
    (lambda a: a.permute(0, 2), (3, 4), IndexError, "but got 2)"),
    (lambda a: a.expand(3, 5), (3, 4), RuntimeError,
     "The expanded size of the tensor (5) must match the existing size (4) "
     "at non-singleton dimension 1.  Target sizes: [3, 5].  Tensor sizes: "
     "[3, 4]"),
    (lambda a: a.expand(4), (3, 4), RuntimeError,
     "the number of sizes provided (1) must be greater or equal to the "
     "number of dimensions in the tensor (2)"),
    (lambda a: a.expand(-1, 3, 4), (3, 4), RuntimeError,
     "The expanded size of the tensor (-1) isn't allowed in a leading, "
     "non-existing dimension 0"),
    (_slice(0, 0, 2, 0), (3, 4), RuntimeError, "slice step must be positive"),
    (_slice(0, 0, 2, -1), (3, 4), RuntimeError, "slice step must be positive"),
    (_slice(2, 0, 2, 1), (3, 4), IndexError, "but got 2)"),
    (_slice(0, 0, 1, 1), (), IndexError,
     "slice() cannot be applied to a 0-dim tensor."),
    (lambda a: a.select(-3, 0), (3, 4), IndexError, "but got -3)"),
    (lambda a: a.select(1, -5), (3, 4), IndexError,
     "select(): index -5 out of range for tensor of size [3, 4] at "
     "dimension 1"),
    (lambda a: a.select(0, 0), (), IndexError,
     "select() cannot be applied to a 0-dim tensor."),
    (lambda a: a.split(-1), (3, 4), RuntimeError,
     "split expects split_size be non-negative, but got split_size=-1"),
    (lambda a: a.split(0), (3, 4), RuntimeError,
     "split_size can only be 0 if dimension size is 0, but got dimension "
     "size of 3"),
    (lambda a: a.split(1), (), RuntimeError,
     "split expects at least a 1-dimensional tensor"),
    (lambda a: a.split([2, 2], -1), (3, 5), RuntimeError,
     "split_with_sizes expects split_sizes to sum exactly to 5 (input "
     "tensor's size at dimension -1), but got split_sizes=[2, 2]"),
    (lambda a: a.split([4, -1]), (3, 5), RuntimeError,
     "split_with_sizes expects split_sizes have only non-negative entries, "
     "but got split_sizes=[4, -1]"),
    (lambda a: a.unbind(2), (3, 4), IndexError, "but got 2)"),
    (lambda a: a.unbind(0), (), IndexError,
     "Dimension specified as 0 but tensor has no dimensions"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("fn,shape,exc,text", ERRORS,
                         ids=[f"e{i}" for i in range(len(ERRORS))])
def test_bad_arguments_raise_like_eager(path, fn, shape, exc, text):
  cpu = torch.zeros(shape)
  with pytest.raises(exc, match=re.escape(text)):
    fn(cpu)
  x = cpu.to(XLA)
  before = fallback_counters()
  with _path(path), pytest.raises(exc, match=re.escape(text)):
    fn(x)
  assert fallback_counters() == before
  torch.testing.assert_close(x.cpu(), cpu)  # nothing written


def test_both_paths_raise_the_same_text():
  # One definition: the fast rule's error is the Python rule's, word for
  # word (the fast rule raises it itself, no second try in Python).
  x = torch.zeros(3, 4).to(XLA)
  texts = {}
  for path in PATHS:
    with _path(path), pytest.raises(RuntimeError) as error:
      x.expand(2)
    texts[path] = str(error.value)
  assert texts["fast"] == texts["python"], texts
  calls = _XLAC._python_dispatch_calls()
  before = sum(n for f, n in calls.items() if "expand" in str(f))
  with pytest.raises(RuntimeError):
    x.expand(2)
  calls = _XLAC._python_dispatch_calls()
  assert sum(n for f, n in calls.items() if "expand" in str(f)) == before


# Views with negative dims and bounds, of a contiguous root and of a
# transposed view (non-contiguous strides).
VIEWS = [
    lambda a: a.unsqueeze(-1),
    lambda a: a.unsqueeze(-3),
    lambda a: a.squeeze(-1),
    lambda a: a.squeeze((-1, -3)),
    lambda a: a.squeeze(),
    lambda a: a.transpose(-1, -2),
    lambda a: a.permute(-1, 0, -2),
    lambda a: a.expand(2, -1, -1, 3),
    lambda a: a.view(-1, 2),
    lambda a: _slice(-1, -2, None, 1)(a),
    lambda a: _slice(-3, -100, 100, 2)(a),
    lambda a: _slice(1, 1, -1, 3)(a),
    lambda a: a.select(-2, -1),
    lambda a: a.select(0, 1),
    lambda a: a.split(1, -1),
    lambda a: a.split([1, 0, 1], -3),
    lambda a: a.unbind(-1),
    lambda a: a[:, ::2, -1],
    lambda a: a.narrow(-2, 1, 2),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("index", range(len(VIEWS)))
@pytest.mark.parametrize("transposed", [False, True])
def test_views_match_eager(path, index, transposed):
  fn = VIEWS[index]
  cpu = random_tensor((2, 4, 1) if not transposed else (1, 4, 2))
  x = cpu.to(XLA)
  if transposed:  # a (2, 4, 1) view with strides (1, 2, 8)
    cpu, x = cpu.permute(2, 1, 0), x.permute(2, 1, 0)
  if fn is VIEWS[8] and transposed:  # eager cannot view it: reshape
    fn = lambda a: a.reshape(-1, 2)  # noqa: E731
  expected = fn(cpu)
  with _path(path):
    actual = fn(x)
  expected = expected if isinstance(expected, (tuple, list)) else [expected]
  actual = actual if isinstance(actual, (tuple, list)) else [actual]
  assert len(actual) == len(expected)
  for a, e in zip(actual, expected):
    assert a.shape == e.shape
    assert a.stride() == e.stride(), (a.stride(), e.stride())
    assert a.storage_offset() == e.storage_offset()
    torch.testing.assert_close(a.cpu(), e, rtol=0, atol=0)


def _inplace_cases():

  def strided(x):
    x[:, 1::2].mul_(-1)
    x.t()[::3, 1:].add_(10)

  def select_chain(x):
    x[-1].add_(1)
    x.t()[2].mul_(3)
    x[1:, ::2].select(1, -1).fill_(7)

  def split_pieces(x):
    a, b = x.split(2, -1)
    b.add_(5)
    a.t()[0].mul_(-2)

  def unbind_pieces(x):
    rows = x.unbind(-2)
    rows[0].add_(100)
    rows[-1].copy_(rows[1])

  def expand_alias(x):
    x.unsqueeze(0).expand(1, -1, -1).squeeze(0).sub_(4)

  return [strided, select_chain, split_pieces, unbind_pieces, expand_alias]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("fn", _inplace_cases(),
                         ids=lambda f: f.__name__)
def test_inplace_through_views_matches_eager(path, fn):
  cpu = random_tensor((3, 4))
  x = cpu.to(XLA)
  ids = (x._xt.id, x._xt.alias_id)
  with _path(path):
    fn(x)
  fn(cpu)
  torch.testing.assert_close(x.cpu(), cpu, rtol=0, atol=0)
  assert (x._xt.id, x._xt.alias_id) == ids


def test_strided_slices_take_the_fast_rule():
  x = torch.zeros(6, 4).to(XLA)
  before = _XLAC._fast_rule_hits().get("aten::slice.Tensor", 0)
  x[::2].add_(1)
  assert _XLAC._fast_rule_hits().get("aten::slice.Tensor", 0) == before + 1
  expected = torch.zeros(6, 4)
  expected[::2] += 1
  torch.testing.assert_close(x.cpu(), expected)


def _random_calls(rng, rank):
  """(name, fn) view calls with random, often bad, dims, indices and sizes."""
  dim = lambda: rng.randint(-rank - 2, rank + 1)  # noqa: E731
  size = lambda: rng.choice([-1, 0, 1, 2, 3, 6])  # noqa: E731
  args = {
      "unsqueeze": (dim(),),
      "squeeze": ((dim(), dim()),),
      "transpose": (dim(), dim()),
      "permute": ([dim() for _ in range(rank)],),
      "select": (dim(), rng.randint(-4, 4)),
      "slice": (dim(), rng.randint(-4, 4),
                rng.choice([None, rng.randint(-4, 4)]), rng.randint(-1, 3)),
      "split": (rng.randint(-1, 3), dim()),
      "split_with_sizes": ([rng.randint(-1, 2) for _ in range(2)], dim()),
      "unbind": (dim(),),
      "expand": ([size() for _ in range(rng.randint(rank, rank + 1))],),
      "view": ([size() for _ in range(rng.randint(0, 3))],),
  }
  calls = [("t", lambda a: a.t())]
  for name, arg in args.items():
    if name == "slice":
      calls.append((name, lambda a, arg=arg: torch.ops.aten.slice.Tensor(
          a, *arg)))
    elif name == "split_with_sizes":
      calls.append((name, lambda a, arg=arg: a.split(*arg)))
    else:
      calls.append((name, lambda a, n=name, arg=arg: getattr(a, n)(*arg)))
  return calls


def _outcome(fn, x):
  try:
    out = fn(x)
  except Exception as e:  # compared with eager's
    return type(e).__name__, str(e)
  outs = out if isinstance(out, (list, tuple)) else [out]
  return [(tuple(o.shape), o.stride(), o.storage_offset(), o.cpu())
          for o in outs]


@pytest.mark.parametrize("path", PATHS)
def test_random_arguments_match_eager(path):
  # Values, strides, offsets, or the exception's class and text (expand's
  # text names the tensor's type its own way: the class only).
  import random
  rng = random.Random(0)
  for _ in range(4):
    for shape in [(), (1,), (3,), (1, 3), (3, 1), (2, 3, 1), (0, 2)]:
      for name, fn in _random_calls(rng, len(shape)):
        cpu = random_tensor(shape)
        expected = _outcome(fn, cpu)
        with _path(path):
          actual = _outcome(fn, cpu.to(XLA))
        where = f"{name} on {shape}"
        if isinstance(expected, tuple):
          assert isinstance(actual, tuple), (where, expected, actual)
          assert actual[0] == expected[0], (where, expected, actual)
          if not expected[1].startswith("expand("):
            assert actual[1] == expected[1], where
          continue
        assert isinstance(actual, list), (where, actual)
        assert len(actual) == len(expected), where
        for a, e in zip(actual, expected):
          assert a[:3] == e[:3], (where, a[:3], e[:3])
          torch.testing.assert_close(a[3], e[3], rtol=0, atol=0)
