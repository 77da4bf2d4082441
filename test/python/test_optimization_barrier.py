"""xm.optimization_barrier_: one barrier over all the tensors, in place."""

import pytest
import torch

import torch_xla
import torch_xla.core.xla_model as xm
from torch_xla import _XLAC

XLA = torch_xla.device()


def test_tensors_take_the_barrier_outputs_in_place():
  a_cpu, b_cpu = torch.randn(3, 4), torch.arange(5)
  a, b = a_cpu.to(XLA), b_cpu.to(XLA)
  x = a.sin()
  ids = (id(x), id(b))
  xm.optimization_barrier_([x, b])
  assert (id(x), id(b)) == ids
  text = _XLAC._get_xla_tensors_text([x, b])
  # One barrier node over both, with two results.
  assert text.count("optimization_barrier(") == 1
  assert "(f32[3,4], s64[5]) optimization_barrier(" in text
  hlo = _XLAC._get_stablehlo([x, b]).decode()
  assert hlo.count("stablehlo.optimization_barrier") == 1
  torch.testing.assert_close(x.cpu(), a_cpu.sin())
  torch.testing.assert_close(b.cpu(), b_cpu)


def test_values_flow_on_through_later_ops_and_grads():
  w = torch.randn(4, 4).to(XLA).requires_grad_()
  y = w * 2
  xm.optimization_barrier_([y])
  y.sum().backward()
  torch_xla.sync()
  torch.testing.assert_close(w.grad.cpu(), torch.full((4, 4), 2.0))


def test_a_view_is_written_back_to_its_base():
  base = torch.zeros(4, 3).to(XLA)
  row = base[1]
  row.add_(5)
  xm.optimization_barrier_([row])
  assert "optimization_barrier" in _XLAC._get_xla_tensors_text([base])
  expected = torch.zeros(4, 3)
  expected[1] = 5
  torch.testing.assert_close(base.cpu(), expected)


def test_empty_list_is_a_no_op_and_non_xla_tensors_are_refused():
  xm.optimization_barrier_([])
  with pytest.raises(TypeError, match=r"tensors\[1\] is a Tensor on cpu, "
                     r"expected an 'xla' tensor"):
    xm.optimization_barrier_([torch.ones(2).to(XLA), torch.ones(2)])
