"""assume_pure: values and gradients against eager CPU PyTorch, one trace
per signature, constant graph growth per call, randomness, guards against
impure functions (torch_xla/experimental/assume_pure.py)."""

import copy
import functools
import math
import os
import subprocess
import sys

import pytest
import torch
import torch.nn as nn

import torch_xla
import torch_xla.debug.metrics as met
from torch_xla import _XLAC
from torch_xla.experimental import assume_pure as ap
from torch_xla.experimental.assume_pure import (ImpureFunctionError,
                                                assume_pure)

DEV = torch_xla.device()


def traces():
  return met.counter_value("AssumePureTrace") or 0


class RMSNorm(nn.Module):

  def __init__(self, d, eps=1e-6):
    super().__init__()
    self.weight = nn.Parameter(torch.rand(d) + 0.5)
    self.eps = eps

  def forward(self, x):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) +
                           self.eps) * self.weight


class DecoderLayer(nn.Module):

  def __init__(self, d=32, heads=4, ffn=48):
    super().__init__()
    self.heads = heads
    self.ln1, self.ln2 = RMSNorm(d), RMSNorm(d)
    self.wq, self.wk, self.wv, self.wo = (
        nn.Linear(d, d, bias=False) for _ in range(4))
    self.gate = nn.Linear(d, ffn, bias=False)
    self.up = nn.Linear(d, ffn, bias=False)
    self.down = nn.Linear(ffn, d, bias=False)

  def forward(self, x):
    b, s, d = x.shape
    h = self.ln1(x)
    q, k, v = (w(h).view(b, s, self.heads, -1).transpose(1, 2)
               for w in (self.wq, self.wk, self.wv))
    scores = q @ k.transpose(-1, -2) / math.sqrt(d // self.heads)
    idx = torch.arange(s, device=x.device)
    scores = scores.masked_fill(idx[None, :] > idx[:, None], float("-inf"))
    o = (torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(b, s, d)
    x = x + self.wo(o)
    h = self.ln2(x)
    return x + self.down(nn.functional.silu(self.gate(h)) * self.up(h))


def close(a, b, tol=2e-4):
  torch.testing.assert_close(a.detach().cpu(), b.detach().cpu(), rtol=tol,
                             atol=tol)


def test_decoder_layer_values_and_gradients_match_eager_and_trace_once():
  torch.manual_seed(0)
  ref = DecoderLayer()
  layer = copy.deepcopy(ref).to(DEV)
  ap.clear_cache()
  met.clear_counters()
  pure = assume_pure(layer)
  for step in range(3):
    x = torch.randn(2, 8, 32)
    xr = x.clone().requires_grad_(True)
    xx = x.to(DEV).requires_grad_(True)
    want = ref(xr)
    got = pure(xx)
    (want * want).sum().backward()
    (got * got).sum().backward()
    torch_xla.sync()  # one program per step (not one per value read)
    close(got, want)
    close(xx.grad, xr.grad)
    for p, q in zip(layer.parameters(), ref.parameters()):
      close(p.grad, q.grad)
  assert traces() == 1
  assert met.counter_value("AssumePureCacheSize") == 1


def test_a_new_wrapper_each_call_still_traces_once():
  layer = DecoderLayer().to(DEV)
  ap.clear_cache()
  met.clear_counters()
  x = torch.randn(2, 8, 32, device=DEV)
  for _ in range(3):
    assume_pure(layer)(x)  # the anchor's pattern: wrap every step
  assert traces() == 1


def test_one_trace_per_signature():
  calls = []

  def fn(a, b):
    calls.append(1)
    return torch.sin(a @ b)

  ap.clear_cache()
  met.clear_counters()
  pure = assume_pure(fn)
  a3 = torch.randn(3, 3, device=DEV)
  a4 = torch.randn(4, 4, device=DEV)
  for a in (a3, a3, a4, a3, a4):
    close(pure(a, a), torch.sin(a.cpu() @ a.cpu()))
  assert len(calls) == 2 and traces() == 2
  g = a3.clone().requires_grad_(True)
  pure(g, g).sum().backward()  # requires_grad is part of the signature
  assert len(calls) == 3
  pure(a3.double(), a3.double())  # and so is the dtype
  assert len(calls) == 4
  assert met.counter_value("AssumePureCacheSize") == ap.cache_size() == 4


def test_views_sign_with_their_own_shape_and_cpu_inputs_are_refused():
  pure = assume_pure(lambda a: a * 2)
  x = torch.randn(3, 4)
  xx = x.to(DEV)
  close(pure(xx), x * 2)
  close(pure(xx[:2]), x[:2] * 2)  # a 2x4 view of the 3x4 root
  close(pure(xx.t()), x.t() * 2)
  with pytest.raises(ValueError, match=r"must be 'xla' tensors, got one on "
                     r"cpu \(\[3, 4\]\)"):
    pure(x)


def test_nodes_added_per_call_do_not_depend_on_the_function_size():

  def chain(n):

    def fn(x, w):
      for _ in range(n):
        x = torch.tanh(x @ w)
      return x

    return fn

  counts = []
  for n in (2, 20):
    pure = assume_pure(chain(n))
    w = torch.randn(8, 8, device=DEV, requires_grad=True)
    x = torch.randn(4, 8, device=DEV)
    pure(x, w)  # traced here
    y = x
    for _ in range(3):
      y = pure(y, w)
    y.sum().backward()
    counts.append((_XLAC._ir_node_count([y]), _XLAC._ir_node_count([w.grad])))
    plain = chain(n)(x, w)
    counts.append(_XLAC._ir_node_count([plain]))
  (fwd2, bwd2), plain2, (fwd20, bwd20), plain20 = counts
  assert (fwd2, bwd2) == (fwd20, bwd20)
  assert plain20 > plain2 + 30  # without assume_pure the graph grows
  torch_xla.sync()


def test_dropout_draws_fresh_masks_and_its_gradient_uses_the_same_mask():

  class Drop(nn.Module):

    def __init__(self):
      super().__init__()
      self.drop = nn.Dropout(0.5)

    def forward(self, x):
      return self.drop(x) * 3.0

  m = Drop().to(DEV)
  pure = assume_pure(m)
  x = torch.ones(64, 64, device=DEV, requires_grad=True)
  y1 = pure(x)
  y2 = pure(x)
  (y1 * 5.0).sum().backward()
  a, b, g = y1.cpu(), y2.cpu(), x.grad.cpu()
  assert set(a.unique().tolist()) == {0.0, 6.0}
  assert 0.4 < (a == 0).float().mean().item() < 0.6
  assert not torch.equal(a, b)
  torch.testing.assert_close(g, a / 6.0 * 30.0)
  m.eval()  # Python state is part of the signature: no dropout now
  torch.testing.assert_close(pure(x).cpu(), torch.full((64, 64), 3.0))


def test_rng_seed_argument_gives_equal_numbers_for_equal_seeds():
  fn = assume_pure(lambda a: a + torch.rand_like(a), add_rng_seed_argument=True)
  a = torch.zeros(4, 4, device=DEV)
  with pytest.raises(AssertionError, match="rng_seed"):
    fn(a)
  r0, r1, r0b = fn(a, rng_seed=0), fn(a, rng_seed=1), fn(a, rng_seed=0)
  assert torch.equal(r0.cpu(), r0b.cpu())
  assert not torch.equal(r0.cpu(), r1.cpu())


def test_kwargs_and_python_scalars_are_part_of_the_signature():
  calls = []

  def fn(x, *, w, scale=2.0, bias=None):
    calls.append(1)
    y = (x @ w) * scale
    return {"y": y if bias is None else y + bias, "n": 7}

  pure = assume_pure(fn)
  x = torch.randn(3, 4)
  w = torch.randn(4, 5)
  bias = torch.randn(5)
  xr, wr, br = (t.clone().requires_grad_(True) for t in (x, w, bias))
  xx, wx, bx = (t.to(DEV).requires_grad_(True) for t in (x, w, bias))
  got = pure(xx, w=wx, scale=0.5, bias=bx)
  want = fn(xr, w=wr, scale=0.5, bias=br)
  assert got["n"] == 7
  close(got["y"], want["y"])
  got["y"].pow(2).sum().backward()
  want["y"].pow(2).sum().backward()
  for a, b in ((xx, xr), (wx, wr), (bx, br)):
    close(a.grad, b.grad)
  n = len(calls)
  pure(xx, w=wx, scale=0.5, bias=bx)
  assert len(calls) == n  # same signature: no trace
  close(pure(xx, w=wx, scale=3.0, bias=bx)["y"], (x @ w) * 3.0 + bias)
  assert len(calls) == n + 1  # a new scalar value: traced again
  close(pure(xx, w=wx)["y"], (x @ w) * 2.0)
  with pytest.raises(TypeError, match="not hashable"):
    pure(xx, w=wx, scale={1.0})


def test_closure_tensors_are_inputs_read_on_every_call():
  w = torch.ones(3, device=DEV)

  def fn(x):
    return x * w

  pure = assume_pure(fn)
  x = torch.ones(3, device=DEV)
  close(pure(x), torch.ones(3))
  w.mul_(5.0)  # an in-place update is seen by the next call
  close(pure(x), torch.full((3,), 5.0))


def test_reading_a_value_is_an_error_naming_the_function():

  def reads_item(x):
    return x * x.sum().item()

  def branches(x):
    if x.sum() > 0:
      return x
    return -x

  x = torch.randn(4, device=DEV)
  for fn in (reads_item, branches):
    with pytest.raises(ImpureFunctionError, match=fn.__name__):
      assume_pure(fn)(x)


def test_writing_a_tensor_it_did_not_receive_is_an_error():
  state = torch.zeros(4, device=DEV)

  class Holder:
    pass

  holder = Holder()
  holder.acc = torch.zeros(4, device=DEV)

  def writes(x):
    holder.acc.add_(x)
    return x * 2

  def writes_input(x):
    x.mul_(2)
    return x

  def reads_global_attr(x):
    return x + holder.acc

  x = torch.randn(4, device=DEV)
  with pytest.raises(ImpureFunctionError, match="writes in place.*did not "
                     "receive"):
    assume_pure(writes)(x)
  with pytest.raises(ImpureFunctionError, match="writes in place to "
                     "argument tensor 0"):
    assume_pure(writes_input)(x)
  with pytest.raises(ImpureFunctionError, match="did not receive"):
    assume_pure(reads_global_attr)(x)
  del state


def test_nested_inside_scan_layers_matches_the_loop():
  from torch_xla.experimental.scan_layers import scan_layers

  class Block(nn.Module):

    def __init__(self):
      super().__init__()
      self.mlp = nn.Sequential(nn.Linear(16, 24), nn.GELU(), nn.Linear(24, 16))
      self.norm = RMSNorm(16)

    def forward(self, x):
      mlp = assume_pure(self.mlp) if x.device.type == "xla" else self.mlp
      return x + mlp(self.norm(x))

  torch.manual_seed(1)
  ref = nn.ModuleList(Block() for _ in range(2))
  layers = copy.deepcopy(ref).to(DEV)
  x = torch.randn(2, 5, 16)
  xr = x.clone().requires_grad_(True)
  xx = x.to(DEV).requires_grad_(True)
  want = xr
  for layer in ref:
    want = layer(want)
  got = scan_layers(layers, xx)
  want.pow(2).sum().backward()
  got.pow(2).sum().backward()
  torch_xla.sync()
  close(got, want)
  close(xx.grad, xr.grad)
  for p, q in zip(layers.parameters(), ref.parameters()):
    close(p.grad, q.grad)


def test_partial_and_functional_call_as_upstream():
  model = nn.Linear(3, 3).to(DEV)

  @assume_pure
  def call(params, x):
    return torch.func.functional_call(model, params, x)

  a = torch.ones(3, 3, device=DEV, requires_grad=True)
  out = call(dict(model.named_parameters()), a)
  out.sum().backward()
  close(out, model(torch.ones(3, 3, device=DEV)))
  assert model.weight.grad is not None and a.grad is not None
  scaled = assume_pure(functools.partial(torch.mul, other=4.0))
  close(scaled(torch.ones(2, device=DEV)), torch.full((2,), 4.0))


def test_sharded_module_on_4_devices():
  script = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "assume_pure_spmd_case.py")
  env = dict(os.environ, XLA_USE_SPMD="1", CPU_NUM_DEVICES="4",
             PJRT_DEVICE="CPU")
  run = subprocess.run([sys.executable, script], env=env,
                       capture_output=True, text=True, timeout=600)
  assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
  assert "ok" in run.stdout


def test_nested_assume_pure():
  inner = assume_pure(lambda a, b: torch.matmul(a, b))

  def outer(a, b):
    return inner(a, b) + 1

  a = torch.randn(3, 3)
  b = torch.randn(3, 3)
  ax = a.to(DEV).requires_grad_(True)
  got = assume_pure(outer)(ax, b.to(DEV))
  got.sum().backward()
  close(got, a @ b + 1)
  close(ax.grad, torch.ones(3, 3) @ b.t())


def test_identical_layers_share_one_trace():

  class Odd(nn.Module):  # an attribute the signature cannot see

    def __init__(self, table):
      super().__init__()
      self.lin = nn.Linear(4, 4)
      self.table = table

    def forward(self, x):
      return self.lin(x) * self.table[0]

  ap.clear_cache()
  met.clear_counters()
  layers = [DecoderLayer().to(DEV) for _ in range(3)]
  x = torch.randn(2, 8, 32, device=DEV)
  outs = [assume_pure(layer)(x) for layer in layers]
  wants = [layer(x) for layer in layers]
  torch_xla.sync()
  assert traces() == 1
  for out, want in zip(outs, wants):
    close(out, want)  # each with its own weights
  layers[1].ln1.eps = 1e-3  # a different number: its own trace
  close(assume_pure(layers[1])(x), layers[1](x))
  assert traces() == 2
  odd = [Odd([2.0]).to(DEV), Odd([3.0]).to(DEV)]
  y = torch.randn(2, 4, device=DEV)
  for m in odd:
    close(assume_pure(m)(y), m(y))
  assert traces() == 4


def test_the_call_is_lowered_inline():
  pure = assume_pure(lambda a, b: (torch.sin(a) + b, torch.cos(a) * b))
  a = torch.randn(3).to(DEV)
  b = torch.randn(3).to(DEV)
  s, p = pure(a, b)
  s2, _ = pure(s, p)
  hlo = _XLAC._get_stablehlo([s2, p]).decode()
  assert hlo.count("stablehlo.sine") == 2 and "func.call" not in hlo
  ac, bc = a.cpu(), b.cpu()
  close(s2, torch.sin(torch.sin(ac) + bc) + torch.cos(ac) * bc)


def test_pure_module_as_upstream():
  from torch_xla.experimental.assume_pure import PureModule
  inner = nn.Linear(4, 3).to(DEV)
  m = PureModule(inner)
  x = torch.randn(2, 4).to(DEV)
  got = m(x)
  got.sum().backward()
  close(got, inner(x))
  assert inner.weight.grad is not None
  assert [n for n, _ in m.named_parameters()] == ["_module.weight",
                                                   "_module.bias"]
