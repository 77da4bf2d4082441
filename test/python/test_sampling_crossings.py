"""Random draws, order statistics, histc, pdist and heaviside cross from
Python into C++ once per op: the rule checks eager's arguments, draws the
seed (a Python int from PyTorch's CPU generator, no C++ call) and makes ONE
_XLAC call into the op's builder (torch_xla/csrc/ops/random_ops.h,
order_ops.h, histogram_ops.h, distance_ops.h, select_ops.h's Heaviside;
python/sampling_bindings.cc) that returns the 'xla' tensor(s) or updates
the target in place; device-side value checks (multinomial's weights,
bernoulli's p, histc's data range) are registered inside that call. A rule that went back to composing IR in
Python (one _XLAC call per node) fails here. Crossings are counted with
sys.setprofile, as calls of _XLAC functions while the op runs; forward
and backward rules are counted separately.

Values are compared with eager in test/python/ops (test_random.py,
test_reductions.py, test_order_stats.py, test_counting_ops.py,
test_core_aten.py)."""

import pytest
import torch

import torch_xla
from torch_xla import _XLAC
from crossing_counter import assert_crosses_once
from crossing_counter import crossings as _crossings

aten = torch.ops.aten
F = torch.nn.functional
DEV = torch_xla.device()


def _cases():
  torch.manual_seed(0)
  x = torch.randn(8, 16).to(DEV)
  x64 = torch.randn(5, 3, dtype=torch.float64).to(DEV)
  ints = torch.zeros(6, dtype=torch.int32).to(DEV)
  grad = torch.randn(8, 16).to(DEV)
  mask = (torch.rand(8, 16) > 0.5).to(DEV)
  probs = (torch.rand(4, 6) + 0.1).to(DEV)
  half = (torch.rand(8, 16) / 2).to(DEV)
  pair_grad, pair_dist = torch.randn(28).to(DEV), torch.rand(28).to(DEV)
  g = torch.Generator().manual_seed(3)
  return {
      "rand": lambda: torch.rand(4, 5, device=DEV),
      "rand_generator": lambda: torch.rand(3, device=DEV, generator=g),
      "randn": lambda: torch.randn(4, device=DEV, dtype=torch.float64),
      "randint": lambda: torch.randint(0, 5, (4,), device=DEV),
      "randint_high": lambda: torch.randint(9, (2, 2), device=DEV),
      "randperm": lambda: torch.randperm(8, device=DEV),
      "rand_like": lambda: torch.rand_like(x),
      "randn_like": lambda: torch.randn_like(x64),
      "randint_like": lambda: torch.randint_like(ints, 3, 9),
      "uniform_": lambda: aten.uniform_(x, -2.0, 3.0),
      "normal_": lambda: aten.normal_(x64, 1.0, 2.0),
      "exponential_": lambda: aten.exponential_(x, 2.0),
      "log_normal_": lambda: aten.log_normal_(x),
      "cauchy_": lambda: aten.cauchy_(x),
      "geometric_": lambda: aten.geometric_(ints, 0.3),
      "random_from": lambda: aten.random_(ints, 2, 7),
      "random_": lambda: aten.random_(ints),
      "bernoulli_float_": lambda: aten.bernoulli_(x, 0.25),
      "bernoulli_p": lambda: aten.bernoulli(x, 0.5),
      "native_dropout": lambda: aten.native_dropout(x, 0.3, True),
      "native_dropout_backward": lambda: aten.native_dropout_backward(
          grad, mask, 2.0),
      "sort": lambda: aten.sort(x, 1),
      "sort_stable_descending": lambda: aten.sort.stable(
          x, stable=True, dim=0, descending=True),
      "topk": lambda: aten.topk(x, 3, 1),
      "kthvalue": lambda: aten.kthvalue(x, 2, 1),
      "median.dim": lambda: aten.median.dim(x, 0, True),
      "median": lambda: aten.median(x),
      "nanmedian.dim": lambda: aten.nanmedian.dim(x, 1),
      "nanmedian": lambda: aten.nanmedian(x),
      # Device-side value checks are registered by the op's own call
      # (python/device_checks.h).
      "multinomial": lambda: torch.multinomial(probs, 2),
      "multinomial_replacement": lambda: torch.multinomial(probs, 3, True),
      "bernoulli_tensor_p": lambda: aten.bernoulli_(x, half),
      "bernoulli": lambda: aten.bernoulli(half),
      "histc": lambda: aten.histc(x, 7, -1.0, 1.0),
      "histc_data_range": lambda: aten.histc(x, 5),
      "histc_ints": lambda: aten.histc(ints, 4, 0, 3),
      "pdist": lambda: aten._pdist_forward(x, 2.0),
      "pdist_backward": lambda: aten._pdist_backward(pair_grad, x, 3.0,
                                                    pair_dist),
      "heaviside": lambda: aten.heaviside(x, grad),
      "heaviside_": lambda: aten.heaviside_(x.clone(), half),
  }


NAMES = sorted(_cases())

@pytest.mark.parametrize("name", NAMES)
def test_op_crosses_into_cpp_once(name):
  assert_crosses_once(name, _cases()[name])


def test_dropout_training_step_crossings():
  """F.dropout on a tensor that requires grad, and its backward: the
  forward and the backward rule one call each."""
  x = torch.randn(8, 16, device=DEV, requires_grad=True)
  out, names = _crossings(lambda: F.dropout(x, 0.5))
  assert names == ["_dropout"], names
  _, names = _crossings(lambda: torch.autograd.grad(out.sum(), x,
                                                    retain_graph=True))
  assert names.count("_dropout_backward") == 1, names


def test_seeds_change_values_not_graphs():
  """Each call draws a new seed (a new parameter value, same IR)."""
  a = torch.rand(64, device=DEV)
  b = torch.rand(64, device=DEV)
  assert _XLAC._get_xla_tensors_text([a]) == _XLAC._get_xla_tensors_text([b])
  assert not torch.equal(a.cpu(), b.cpu())
