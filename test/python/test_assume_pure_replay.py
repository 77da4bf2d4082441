"""The steady replay of a staged call in one crossing
(`_XLAC._staged_call`, used by torch_xla/experimental/assume_pure.py and
the torch.compile backend): results as tensors, in-place writes into
inputs (views written back into their roots), residuals and the inputs'
values from before the writes kept as handle lists, and the errors for
counts that do not add up. Values against eager CPU PyTorch."""

import pytest
import torch

import torch_xla
from torch_xla import _XLAC
from torch_xla._dtypes import to_code
from torch_xla.experimental._staging import Variable

DEV = torch_xla.device()


def staged(fn, *shapes):
  """A sub-graph of fn over placeholders of `shapes` (float32)."""
  variables = [Variable(s, to_code(torch.float32), 0) for s in shapes]
  results = fn(*[v.tensor() for v in variables])
  return _XLAC._subgraph([v.handle for v in variables],
                         [r._xt for r in results])


def test_results_writes_into_a_view_and_values_before_the_writes():
  # fn(a, b) = (a * b, a + 1, b * 2): one result, a written with a + 1,
  # one residual (b * 2).
  fn = staged(lambda a, b: (a * b, a + 1, b * 2), [3], [3])
  base_cpu = torch.randn(2, 3)
  b_cpu = torch.randn(3)
  base = base_cpu.to(DEV)
  b = b_cpu.to(DEV)
  row = base[1]  # a view: the write goes back into `base`
  outputs, residuals, before = _XLAC._staged_call(fn, [row, b], 1, (0,),
                                                  True, (0,))
  assert len(outputs) == 1 and type(outputs[0]) is type(base)
  torch.testing.assert_close(outputs[0].cpu(), base_cpu[1] * b_cpu)
  expected = base_cpu.clone()
  expected[1] += 1
  torch.testing.assert_close(base.cpu(), expected)
  torch.testing.assert_close(row.cpu(), expected[1])
  assert len(residuals) == 1 and len(before) == 1
  # The handle lists stand for their handles as operands of a call.
  identity = staged(lambda x, y: (x + y,), [3], [3])
  (total,), _, _ = _XLAC._staged_call(identity, [residuals, before], 1, (),
                                      False, ())
  torch.testing.assert_close(total.cpu(), b_cpu * 2 + base_cpu[1])


def test_a_root_input_is_written_and_keeps_its_identity():
  fn = staged(lambda a: (a.sum(), a * 3), [4])
  x_cpu = torch.randn(4)
  x = x_cpu.to(DEV)
  handle, tensor_id, alias_id = x._xt, x._xt.id, x._xt.alias_id
  outputs, rest, before = _XLAC._staged_call(fn, [x], 1, (0,), False, ())
  assert rest is None and before is None
  torch.testing.assert_close(outputs[0].cpu(), x_cpu.sum())
  torch.testing.assert_close(x.cpu(), x_cpu * 3)
  # An in-place update: the same handle, tensor ID and alias ID (what
  # buffer donation keys on).
  assert x._xt is handle
  assert (x._xt.id, x._xt.alias_id) == (tensor_id, alias_id)


def test_counts_that_do_not_add_up_raise():
  fn = staged(lambda a: (a + 1, a * 2), [2])
  x = torch.ones(2).to(DEV)
  with pytest.raises(ValueError, match="2 results"):
    _XLAC._staged_call(fn, [x], 1, (), False, ())  # one result unaccounted
  with pytest.raises(ValueError, match="2 results"):
    _XLAC._staged_call(fn, [x], 3, (), True, ())
  with pytest.raises(ValueError, match="writes index 5"):
    _XLAC._staged_call(fn, [x], 1, (5,), False, ())
  with pytest.raises(TypeError, match="'xla' tensor"):
    _XLAC._staged_call(fn, [torch.ones(2)], 2, (), False, ())
  torch.testing.assert_close(x.cpu(), torch.ones(2))  # nothing written
