"""scan / scan_layers behaviours upstream's own tests rely on, checked
against eager CPU loops: in-place ops inside the body, inputs saved by
reference, writes to outside tensors, the caches under upstream's names,
layers of several inputs, and the error texts."""

import pytest
import torch
import torch.nn as nn
from functorch.compile import (default_partition,
                               min_cut_rematerialization_partition)

import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.experimental.scan as scan_module
import torch_xla.experimental.scan_layers as scan_layers_module
from torch_xla import _XLAC
from torch_xla.experimental._staging import InPlaceInputError
from torch_xla.experimental.gradient_accumulation import gradient_accumulation
from torch_xla.experimental.scan import scan
from torch_xla.experimental.scan_layers import scan_layers

DEVICE = torch_xla.device()


def eager_scan(fn, init, xs):
  carry, ys = init, []
  for i in range(xs.shape[0]):
    carry, y = fn(carry, xs[i])
    ys.append(y)
  return carry, torch.stack(ys)


def close(a, b):
  torch.testing.assert_close(a.cpu(), b.cpu(), rtol=1e-5, atol=1e-5)


def running_sum(acc, x):
  acc += x  # in place on the carry (upstream's first scan example)
  return acc, acc.clone()


def test_in_place_on_carry_matches_eager():
  torch.manual_seed(0)
  xs = torch.randn(5, 3)
  want_carry, want_ys = eager_scan(running_sum, torch.zeros(3), xs)
  xs_xla = xs.to(DEVICE).requires_grad_()
  carry, ys = scan(running_sum, torch.zeros(3, device=DEVICE), xs_xla)
  close(carry, want_carry)
  close(ys, want_ys)
  (carry.sum() + (ys * ys).sum()).backward()
  xs_cpu = xs.clone().requires_grad_()
  c, y = eager_scan(running_sum, torch.zeros(3), xs_cpu)
  (c.sum() + (y * y).sum()).backward()
  close(xs_xla.grad, xs_cpu.grad)


def test_in_place_on_a_carry_that_requires_grad_is_the_leaf_error():
  init = torch.zeros(3, device=DEVICE, requires_grad=True)
  xs = torch.ones(2, 3, device=DEVICE)
  with pytest.raises(RuntimeError, match="in-place operation"):
    scan(running_sum, init, xs)


def test_in_place_on_xs_slice_matches_eager():

  def fn(carry, x):
    x.mul_(2)
    return carry + x, x.sin()

  xs = torch.randn(4, 2)
  want = eager_scan(fn, torch.zeros(2), xs.clone())
  got = scan(fn, torch.zeros(2, device=DEVICE), xs.to(DEVICE))
  close(got[0], want[0])
  close(got[1], want[1])


def test_write_to_outside_tensor_is_an_error_naming_it():
  counter = torch.zeros(2, device=DEVICE)

  def fn(carry, x):
    counter.add_(1.0)
    return carry + x, carry + counter

  with pytest.raises(InPlaceInputError, match="`counter`"):
    scan(fn, torch.zeros(2, device=DEVICE), torch.zeros(3, 2, device=DEVICE))
  assert issubclass(InPlaceInputError, ValueError)
  assert issubclass(InPlaceInputError, AssertionError)  # upstream's class


def test_xs_read_by_the_backward_are_saved_by_reference():
  xs = torch.randn(6, 4, device=DEVICE, requires_grad=True)
  init = torch.randn(4, device=DEVICE, requires_grad=True)
  saved = []
  with torch.autograd.graph.saved_tensors_hooks(
      lambda t: saved.append(t) or len(saved) - 1, lambda i: saved[i]):
    _, ys = scan(lambda c, x: (c, torch.sin(x)), init, xs)
    ys.sum().backward()
  assert any(t is xs for t in saved)
  assert not any(t is not xs and t.shape == xs.shape for t in saved)
  close(xs.grad, torch.cos(xs.detach()))


def test_pure_fn_cache_under_upstream_name():
  scan_module._SCAN_COMPUTATION_CACHE.clear()
  calls = []

  def fn(carry, x):
    calls.append(1)
    return carry + x, x

  init = torch.zeros(2, device=DEVICE)
  xs = torch.ones(3, 2, device=DEVICE, requires_grad=True)
  def impure(carry, x):
    return carry + x, x

  scan(impure, init, xs, is_fn_pure=False)
  assert impure not in scan_module._SCAN_COMPUTATION_CACHE
  for _ in range(4):
    carry, _ = scan(fn, init, xs, is_fn_pure=True)
  assert len(calls) == 2  # staged once, traced twice to check the promise
  close(carry, torch.full((2,), 3.0))
  (entry,) = scan_module._SCAN_COMPUTATION_CACHE[fn].values()
  assert all(callable(f) for f in entry) and len(entry) == 3
  scan(fn, init, xs, is_fn_pure=True,
       partition_fn=min_cut_rematerialization_partition)
  assert len(scan_module._SCAN_COMPUTATION_CACHE[fn]) == 2
  scan_module._SCAN_COMPUTATION_CACHE.clear()
  calls.clear()
  scan(fn, init, xs, is_fn_pure=True)
  assert len(calls) == 2  # cleared: staged again


def test_broken_purity_promise_is_detected():
  state = [1.0]

  def fn(carry, x):
    state[0] += 1  # a new constant on every trace
    return carry + state[0], x

  with pytest.raises(ValueError, match="declared pure"):
    scan(fn, torch.zeros(2, device=DEVICE), torch.ones(3, 2, device=DEVICE),
         is_fn_pure=True)


def test_rematerialization_recomputes_in_the_backward():

  def fn(carry, x):
    for _ in range(3):
      carry = torch.sin(carry)
    for _ in range(3):  # a chain on the xs slice: saved too by default
      x = torch.sin(x)
    return carry, x

  def sines(partition_fn):
    init = torch.randn(4, device=DEVICE, requires_grad=True)
    xs = torch.randn(5, 4, device=DEVICE, requires_grad=True)
    torch_xla.sync()
    carry, ys = scan(fn, init, xs, partition_fn=partition_fn)
    torch_xla.sync()  # the forward loop runs: the grads' graph is the backward
    (carry.sum() + ys.sum()).backward()
    return _XLAC._get_stablehlo([init.grad, xs.grad
                                       ]).decode().count("stablehlo.sine")

  assert sines(default_partition) == 0
  assert sines(min_cut_rematerialization_partition) > 0


class Triple(nn.Module):

  def __init__(self):
    super().__init__()
    self.linear = nn.Linear(8, 8)
    self.w = nn.Parameter(torch.randn(8, 8) / 4)

  def forward(self, x, y, z):
    return self.linear(x).sin(), self.linear(y).cos(), self.linear(z) @ self.w


@pytest.mark.parametrize("pure", [False, True])
def test_tuple_layers_match_eager(pure):
  torch.manual_seed(0)
  layers = [Triple() for _ in range(3)]
  inputs = tuple(torch.randn(2, 8) for _ in range(3))
  out = inputs
  for layer in layers:
    out = layer(*out)
  out[0].sum().backward()
  xla_layers = [Triple().to(DEVICE) for _ in range(3)]
  for mine, ref in zip(xla_layers, layers):
    mine.load_state_dict(ref.state_dict())
  got = scan_layers(xla_layers, tuple(t.to(DEVICE) for t in inputs),
                    is_layer_pure=pure)
  assert isinstance(got, tuple) and len(got) == 3
  for g, w in zip(got, out):
    close(g, w)
  got[0].sum().backward()
  for mine, ref in zip(xla_layers, layers):
    close(mine.linear.weight.grad, ref.linear.weight.grad)
  key = (id(scan_module.default_partition), id(xla_layers[0]))
  assert (key in scan_layers_module._ONE_LAYER_CACHE) == pure


def test_layer_tuple_of_wrong_arity_is_an_error():

  class Two(nn.Module):

    def __init__(self):
      super().__init__()
      self.linear = nn.Linear(4, 4)

    def forward(self, x, y):
      return self.linear(x) + y  # one tensor back for two in

  layers = [Two().to(DEVICE) for _ in range(2)]
  with pytest.raises(ValueError, match="must return a tuple of 2"):
    scan_layers(layers, (torch.zeros(4, device=DEVICE),) * 2)


def test_mismatched_layers_errors():
  with pytest.raises(ValueError, match="mismatched keys"):
    scan_layers([nn.Linear(4, 4).to(DEVICE),
                 nn.Sequential(nn.Linear(4, 4)).to(DEVICE)],
                torch.zeros(4, device=DEVICE))
  with pytest.raises(ValueError, match="Shape mismatch"):
    scan_layers([nn.Linear(4, 4).to(DEVICE), nn.Linear(4, 5).to(DEVICE)],
                torch.zeros(4, device=DEVICE))


def test_gradient_accumulation_rejects_a_mutated_input():
  model = nn.Linear(3, 1).to(DEVICE)

  def step(x, counter):
    counter += 1
    return model(x).sum(), counter

  with pytest.raises(AssertionError, match="in place"):
    gradient_accumulation(step, (torch.ones(2, 3, device=DEVICE),), model,
                          torch.tensor(0, device=DEVICE))


def test_rng_state_functions():
  state = xm.get_rng_state()
  a = torch.rand(4, device=DEVICE).cpu()
  xm.set_rng_state(state)
  torch.testing.assert_close(torch.rand(4, device=DEVICE).cpu(), a)
  with xm.fork_rng():
    inside = torch.rand(4, device=DEVICE).cpu()
  torch.testing.assert_close(torch.rand(4, device=DEVICE).cpu(), inside)
  with pytest.raises(ValueError, match="seed must be in"):
    xm.set_rng_state(-1)
  assert torch_xla.xm is xm
  assert xm.is_xla_tensor(a.to(DEVICE)) and not xm.is_xla_tensor(a)
