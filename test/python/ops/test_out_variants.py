"""out= overloads (torch.maximum(a, b, out=c)): the functional overload's
rule runs and its result is written into `out` (registry.py), converted to
out's dtype where eager allows it. No CPU fallback."""

import pytest
import torch

from op_test_utils import XLA, check_op, fallback_counters


def _into(op, *shape_dtype):
  """fn(*inputs) calling `op(*inputs, out=...)` with fresh out tensors on
  the inputs' device; returns what op returns."""

  def fn(*inputs):
    device = inputs[0].device
    outs = [torch.empty(shape, dtype=dtype, device=device)
            for shape, dtype in shape_dtype]
    out = outs[0] if len(outs) == 1 else tuple(outs)
    result = op(*inputs, out=out)
    if len(outs) == 1:
      assert result is outs[0]
    return result

  return fn


CASES = {
    "maximum": (_into(torch.maximum, ((3, 4), torch.float32)),
                [torch.randn(3, 4), torch.randn(3, 4)]),
    "add_to_f64": (_into(torch.add, ((3, 4), torch.float64)),
                   [torch.randn(3, 4), torch.randn(4)]),
    "mul_scalar": (_into(lambda a, out: torch.mul(a, 2.5, out=out),
                         ((5,), torch.float32)), [torch.randn(5)]),
    "sum_dim": (_into(lambda a, out: torch.sum(a, 1, out=out),
                      ((3,), torch.float32)), [torch.randn(3, 4)]),
    "max_dim": (_into(lambda a, out: torch.max(a, 1, out=out),
                      ((3,), torch.float32), ((3,), torch.int64)),
                [torch.randn(3, 4)]),
    "mm": (_into(torch.mm, ((3, 5), torch.float32)),
           [torch.randn(3, 4), torch.randn(4, 5)]),
    "where": (_into(lambda c, a, b, out: torch.where(c, a, b, out=out),
                    ((4,), torch.float32)),
              [torch.tensor([True, False, True, False]), torch.randn(4),
               torch.randn(4)]),
    "bf16": (_into(torch.minimum, ((6,), torch.bfloat16)),
             [torch.randn(6).bfloat16(), torch.randn(6).bfloat16()]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_out_variant_matches_eager(name):
  fn, inputs = CASES[name]
  check_op(fn, *inputs, grad=False)


def test_out_variant_refuses_unsafe_cast_like_eager():
  a, b = torch.randn(3), torch.randn(3)
  with pytest.raises(RuntimeError) as eager:
    torch.add(a, b, out=torch.empty(3, dtype=torch.int64))
  with pytest.raises(RuntimeError) as xla:
    torch.add(a.to(XLA), b.to(XLA),
              out=torch.empty(3, dtype=torch.int64, device=XLA))
  assert str(xla.value) == str(eager.value)


def test_out_variant_of_another_shape_is_a_clear_error():
  a = torch.randn(3).to(XLA)
  before = fallback_counters()
  with pytest.raises(RuntimeError, match=r"out= tensor has shape \[4\] but "
                     r"the result has shape \[3\].*cannot be resized"):
    torch.maximum(a, a, out=torch.empty(4, device=XLA))
  assert fallback_counters() == before
