"""scan and scan_layers: values and gradients against Python loops, staging
without transfers, caching, partitioners, random ops, errors."""

import os
import sys

import pytest
import torch
from torch import nn
from functorch.compile import (default_partition,
                               min_cut_rematerialization_partition)

import torch_xla
import torch_xla.debug.metrics as met
from torch_xla import _XLAC
from torch_xla.experimental.scan import scan, tree_flatten_none
from torch_xla.experimental.scan_layers import scan_layers

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "examples"))
from decoder import DecoderConfig, DecoderLayer  # noqa: E402

XLA = torch_xla.device()


def counter(name):
  return met.counter_value(name) or 0


def transfers():
  data = met.metric_data("TransferToDeviceTime")
  return 0 if data is None else data[0]


def python_scan(fn, init, xs):
  """The loop scan stands for (eager, any device)."""
  flat_xs, unflatten_xs = tree_flatten_none(xs)
  carry, ys = init, []
  for i in range(flat_xs[0].shape[0]):
    carry, y = fn(carry, unflatten_xs([x[i] for x in flat_xs]))
    ys.append(y)
  flat_ys = [tree_flatten_none(y)[0] for y in ys]
  _, unflatten_y = tree_flatten_none(ys[0])
  return carry, unflatten_y(
      [torch.stack([y[k] for y in flat_ys]) for k in range(len(flat_ys[0]))])


def leaves(tree):
  return tree_flatten_none(tree)[0]


def to_cpu(tree):
  return [t.detach().cpu() for t in leaves(tree)]


def assert_same_as_loop(fn, init, xs, atol=1e-5, rtol=1e-5, **kwargs):
  """Values of scan (on 'xla') and of the Python loop (on cpu) and the
  gradients of sum(outputs) with respect to every float input."""
  cpu_in = [t.detach().clone().requires_grad_(t.is_floating_point())
            for t in leaves((init, xs))]
  xla_in = [t.detach().to(XLA).requires_grad_(t.is_floating_point())
            for t in cpu_in]
  _, unflatten = tree_flatten_none((init, xs))
  init_c, xs_c = unflatten(cpu_in)
  init_x, xs_x = unflatten(xla_in)
  expected = python_scan(fn, init_c, xs_c)
  got = scan(fn, init_x, xs_x, **kwargs)
  for e, g in zip(leaves(expected), leaves(got)):
    torch.testing.assert_close(g.detach().cpu(), e.detach(), atol=atol,
                               rtol=rtol)
  float_out = lambda out: [t for t in leaves(out) if t.is_floating_point()]
  sum(t.float().sum() for t in float_out(expected)).backward()
  sum(t.float().sum() for t in float_out(got)).backward()
  for c, x in zip(cpu_in, xla_in):
    if c.is_floating_point():
      assert x.grad is not None
      torch.testing.assert_close(x.grad.cpu(), c.grad, atol=atol, rtol=rtol)
  return got


def test_cumsum_values_and_gradients():

  def fn(carry, x):
    carry = carry + x
    return carry, carry

  assert_same_as_loop(fn, torch.zeros(3), torch.randn(6, 3))


def test_tuples_and_dicts_as_carry_and_xs():

  def fn(carry, x):
    h, count = carry
    h = torch.tanh(h * x["scale"] + x["shift"].sum())
    return (h, count + 1), {"h": h, "norm": h.norm()}

  init = (torch.randn(4), torch.tensor(0))
  xs = {"scale": torch.randn(5, 4), "shift": torch.randn(5, 2)}
  got = assert_same_as_loop(fn, init, xs)
  assert got[0][1].dtype == torch.int64 and got[0][1].item() == 5


def test_none_outputs_and_none_leaves():

  def fn(carry, x):
    return carry * x[0], (None, carry.sum())

  got = assert_same_as_loop(fn, torch.ones(2), (torch.rand(4, 2), None))
  assert got[1][0] is None


@pytest.mark.parametrize("dtype,tol", [(torch.bfloat16, 2e-2),
                                       (torch.float16, 2e-3)])
def test_low_precision_carry(dtype, tol):

  def fn(carry, x):
    carry = carry * 0.5 + x
    return carry, carry * 2

  assert_same_as_loop(fn, torch.randn(8).to(dtype),
                      torch.randn(5, 8).to(dtype), atol=tol, rtol=tol)


def test_body_that_creates_tensors():

  def fn(carry, x):
    bias = torch.ones(3, device=carry.device) * 0.25
    steps = torch.arange(3, device=carry.device).float()
    return carry + x * steps + bias, torch.zeros(2, device=carry.device) + x[0]

  assert_same_as_loop(fn, torch.zeros(3), torch.randn(4, 3))


def test_body_that_returns_its_inputs():

  def fn(carry, x):
    return carry, x

  got = assert_same_as_loop(fn, torch.randn(3), torch.randn(4, 3))
  assert got[1].shape == (4, 3)


def test_closed_over_leaf_gets_its_gradient():
  weight_c = torch.randn(4, 4, requires_grad=True)
  weight_x = weight_c.detach().to(XLA).requires_grad_(True)

  def make(weight):
    return lambda c, x: (torch.tanh(c @ weight + x), c.sum())

  xs = torch.randn(5, 2, 4)
  c_e, y_e = python_scan(make(weight_c), torch.ones(2, 4), xs)
  c_g, y_g = scan(make(weight_x), torch.ones(2, 4, device=XLA), xs.to(XLA))
  (c_e.sum() + y_e.sum()).backward()
  (c_g.sum() + y_g.sum()).backward()
  torch.testing.assert_close(weight_x.grad.cpu(), weight_c.grad, atol=1e-5,
                             rtol=1e-5)


def test_closed_over_non_leaf_requiring_grad_is_an_error():
  weight = torch.randn(4, 4, device=XLA, requires_grad=True)
  scaled = weight * 2

  with pytest.raises(ValueError, match="computed outside it \\(by MulBackward0"):
    scan(lambda c, x: (c @ scaled + x, None), torch.ones(4, device=XLA),
         torch.ones(3, 4, device=XLA))


def test_random_ops_differ_per_iteration_and_match_backward():

  def fn(carry, x):
    noise = torch.rand(6, device=x.device)
    kept = torch.nn.functional.dropout(x, p=0.5)
    return carry + noise, (noise, kept)

  xs = torch.ones(4, 6, device=XLA, requires_grad=True)
  torch.manual_seed(1)
  _, (noise, kept) = scan(fn, torch.zeros(6, device=XLA), xs)
  kept.sum().backward()
  noise, kept, grad = noise.cpu(), kept.detach().cpu(), xs.grad.cpu()
  for i in range(4):
    for j in range(i):
      assert not torch.equal(noise[i], noise[j])
      assert not torch.equal(kept[i], kept[j])
  # The backward reads the forward's mask (saved, not drawn again).
  torch.testing.assert_close(grad, (kept != 0).float() * 2)
  # Seeds come from torch's generator: reproducible, new per call.
  torch.manual_seed(1)
  again = scan(fn, torch.zeros(6, device=XLA), xs.detach())[1][0].cpu()
  other = scan(fn, torch.zeros(6, device=XLA), xs.detach())[1][0].cpu()
  torch.testing.assert_close(again, noise)
  assert not torch.equal(other, noise)


def test_staging_out_transfers_nothing():
  weight = torch.randn(8, 8, device=XLA, requires_grad=True)
  init = torch.randn(2, 8, device=XLA, requires_grad=True)
  xs = torch.randn(6, 2, 8, device=XLA, requires_grad=True)
  grad_c, grad_y = torch.randn(2, 8, device=XLA), torch.randn(6, device=XLA)
  torch_xla.sync()

  def fn(c, x):
    h = torch.tanh(c @ weight * 0.5 + x + 1.0)
    return h, h.sum()

  met.clear_all()
  carry, ys = scan(fn, init, xs)
  grads = torch.autograd.grad([carry, ys], [weight, init, xs],
                              [grad_c, grad_y])
  torch_xla.sync()
  assert transfers() == 0
  assert counter("IrValueTensorToXlaData") == 0
  assert all(g.shape == t.shape for g, t in zip(grads, [weight, init, xs]))


def test_later_calls_neither_restage_nor_recompile():
  weight = torch.randn(4, 4, device=XLA)

  def fn(c, x):
    return torch.sin(c @ weight + x), None

  xs = torch.randn(3, 4, device=XLA, requires_grad=True)
  for step in range(3):
    if step == 2:
      met.clear_all()
    xs.grad = None
    weight.add_(1)  # new values: the cached loops must read them
    torch_xla.sync()
    out = scan(fn, torch.ones(4, device=XLA), xs)[0]
    out.sum().backward()
    torch_xla.sync()
  assert counter("ScanStage") == 0
  assert counter("ScanRetrace") == 1
  assert counter("UncachedCompile") == 0
  expected = torch.ones(4)
  for i in range(3):
    expected = torch.sin(expected @ weight.cpu() + xs.detach().cpu()[i])
  torch.testing.assert_close(out.detach().cpu(), expected, atol=1e-5, rtol=1e-5)


def test_pure_fn_is_not_retraced():

  def fn(c, x):
    return c * x, None

  xs = torch.randn(3, 4, device=XLA)
  scan(fn, torch.ones(4, device=XLA), xs, is_fn_pure=True)
  met.clear_all()
  out = scan(fn, torch.ones(4, device=XLA), xs, is_fn_pure=True)[0]
  assert counter("ScanRetrace") == 0 and counter("ScanStage") == 0
  torch.testing.assert_close(out.cpu(), xs.cpu().prod(0))


def test_a_changed_body_is_detected():
  scale = [2.0]

  def fn(c, x):
    return c + x * scale[0], None

  xs = torch.ones(3, 2, device=XLA)
  assert scan(fn, torch.zeros(2, device=XLA), xs)[0].cpu().tolist() == [6, 6]
  scale[0] = 5.0
  met.clear_all()
  assert scan(fn, torch.zeros(2, device=XLA), xs)[0].cpu().tolist() == [15, 15]
  assert counter("ScanStage") == 1


def saved_bytes(output):
  return sum(t.numel() * t.element_size() for t in output.grad_fn.saved_tensors)


def test_partitioners_give_the_same_values_and_remat_saves_less():
  weight_cpu = torch.randn(16, 16)
  weight_xla = weight_cpu.to(XLA)

  def fn(c, x):
    weight = weight_xla if c.device.type == "xla" else weight_cpu
    h = torch.nn.functional.silu(c @ weight) * x
    return torch.tanh(h).exp(), None

  init = torch.randn(4, 16)
  xs = torch.randn(5, 4, 16)
  saved = {}
  for partition in (default_partition, min_cut_rematerialization_partition):
    assert_same_as_loop(fn, init, xs, partition_fn=partition, atol=1e-4,
                        rtol=1e-4)
    out = scan(fn, init.to(XLA).requires_grad_(), xs.to(XLA),
               partition_fn=partition)[0]
    saved[partition.__name__] = saved_bytes(out)
  assert saved["min_cut_rematerialization_partition"] < saved[
      "default_partition"], saved


def test_xs_slices_are_not_saved_again():

  def fn(c, x):
    return c * x, None  # the backward reads x: a slice of xs

  xs = torch.randn(5, 64, device=XLA, requires_grad=True)
  out = scan(fn, torch.ones(64, device=XLA, requires_grad=True), xs)[0]
  # The carries (5 x 64) and xs itself (by reference), not a second copy.
  assert saved_bytes(out) == 2 * 5 * 64 * 4


def test_one_loop_in_the_ir_and_module():

  def fn(c, x):
    return c + x.sin(), None

  xs = torch.randn(50, 4, device=XLA)
  torch_xla.sync()
  out = scan(fn, torch.zeros(4, device=XLA), xs)[0]
  text = _XLAC._get_xla_tensors_text([out])
  assert text.count(" while(") == 1 and text.count("sine") == 1
  assert _XLAC._get_stablehlo([out]).decode().count("stablehlo.while") == 1


def test_errors():
  xs = torch.ones(3, 2, device=XLA)
  init = torch.zeros(2, device=XLA)
  with pytest.raises(ValueError, match="must be callable"):
    scan(42, init, xs)
  with pytest.raises(ValueError, match="empty PyTree"):
    scan(lambda c, x: (c, x), init, ())
  with pytest.raises(ValueError, match="same leading dimension size. Got 3 "
                     "and 4"):
    scan(lambda c, x: (c, x), init, (xs, torch.ones(4, 2, device=XLA)))
  with pytest.raises(ValueError, match="carry leaf 0 must keep the shape"):
    scan(lambda c, x: (c.sum(), x), init, xs)
  with pytest.raises(ValueError, match="must return a pair"):
    scan(lambda c, x: c, init, xs)
  with pytest.raises(ValueError, match="'xla' tensors"):
    scan(lambda c, x: (c, x), init, torch.ones(3, 2))
  with pytest.raises(ValueError, match="partition_fn .* is not supported"):
    scan(lambda c, x: (c, x), init, xs, partition_fn=lambda *a: a)


def python_layers(layers, x):
  for layer in layers:
    x = layer(x)
  return x


def assert_layers_match(make_layers, x, atol=1e-5, rtol=1e-5, **kwargs):
  torch.manual_seed(0)
  cpu_layers = make_layers()
  xla_layers = make_layers()
  xla_layers.load_state_dict(cpu_layers.state_dict())
  xla_layers.to(XLA)
  x_cpu = x.clone().requires_grad_(True)
  x_xla = x.to(XLA).requires_grad_(True)
  expected = python_layers(cpu_layers, x_cpu)
  got = scan_layers(xla_layers, x_xla, **kwargs)
  torch.testing.assert_close(got.detach().cpu(), expected.detach(), atol=atol,
                             rtol=rtol)
  expected.square().sum().backward()
  got.square().sum().backward()
  torch.testing.assert_close(x_xla.grad.cpu(), x_cpu.grad, atol=atol, rtol=rtol)
  for (name, p_cpu), p_xla in zip(cpu_layers.named_parameters(),
                                  xla_layers.parameters()):
    assert p_xla.grad is not None, name
    torch.testing.assert_close(p_xla.grad.cpu(), p_cpu.grad, atol=atol,
                               rtol=rtol, msg=name)


def test_scan_layers_linear_stack():
  make = lambda: nn.ModuleList(
      nn.Sequential(nn.Linear(16, 16), nn.GELU()) for _ in range(4))
  assert_layers_match(make, torch.randn(3, 16))


def test_scan_layers_decoder_layers_both_partitioners():
  config = DecoderConfig(dim=32, num_heads=4, hidden_dim=48, max_seq_len=8)
  make = lambda: nn.ModuleList(DecoderLayer(config) for _ in range(3))
  for partition in (default_partition, min_cut_rematerialization_partition):
    assert_layers_match(make, torch.randn(2, 8, 32), atol=1e-4, rtol=1e-4,
                        partition_fn=partition)


def test_scan_layers_empty_returns_the_input():
  x = torch.randn(2, device=XLA)
  assert scan_layers(nn.ModuleList(), x) is x


def test_scan_layers_mismatched_layers():
  layers = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 4), nn.Linear(4, 5)])
  with pytest.raises(ValueError, match="parameter 'weight' of layer 2 is "
                     "torch.float32 \\[5, 4\\], but layer 0's is torch.float32 "
                     "\\[4, 4\\]"):
    scan_layers(layers.to(XLA), torch.randn(2, 4, device=XLA))
  layers = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 4, bias=False)])
  with pytest.raises(ValueError, match="layer 1 has no parameter 'bias'"):
    scan_layers(layers.to(XLA), torch.randn(2, 4, device=XLA))


def test_scan_layers_training_loop_compiles_once():
  torch.manual_seed(0)
  config = DecoderConfig(dim=32, num_heads=4, hidden_dim=48, max_seq_len=8)
  reference = nn.ModuleList(DecoderLayer(config) for _ in range(3))
  models = {}
  for mode in ("loop", "scan"):
    layers = nn.ModuleList(DecoderLayer(config) for _ in range(3))
    layers.load_state_dict(reference.state_dict())
    models[mode] = layers.to(XLA)
  batches = [torch.randn(2, 8, 32)] * 4  # one batch: the loss must fall
  losses = {}
  for mode, layers in models.items():
    optimizer = torch.optim.SGD(layers.parameters(), lr=0.1)
    losses[mode] = []
    for step, batch in enumerate(batches):
      if step == 1:
        met.clear_all()
      optimizer.zero_grad()
      x = batch.to(XLA)
      out = scan_layers(layers, x) if mode == "scan" else python_layers(
          layers, x)
      loss = out.square().mean()
      loss.backward()
      optimizer.step()
      torch_xla.sync()
      losses[mode].append(loss.item())
    if mode == "scan":
      assert counter("UncachedCompile") == 0
      assert counter("ScanStage") == 0
  torch.testing.assert_close(losses["scan"], losses["loop"], atol=1e-5,
                             rtol=1e-5)
  assert losses["scan"][-1] < losses["scan"][0]


def test_without_grad_runs_only_the_forward_loop():

  def fn(c, x):
    return c * x, c.sum()

  xs = torch.randn(4, 3, device=XLA, requires_grad=True)
  with torch.no_grad():
    carry, ys = scan(fn, torch.ones(3, device=XLA), xs)
  assert not carry.requires_grad
  module = _XLAC._get_stablehlo([carry, ys]).decode()
  assert module.count("stablehlo.while") == 1
  torch.testing.assert_close(carry.cpu(), xs.detach().cpu().prod(0))


def test_value_and_grad_partitioned_matches_eager():
  from torch_xla.experimental.scan import value_and_grad_partitioned

  def fn(c, x):
    h = torch.tanh(c * x["a"])
    return h, h.sum()

  init = torch.randn(4)
  xs = {"a": torch.randn(3, 4)}
  forward, alias_input, backward = value_and_grad_partitioned(
      fn, init.to(XLA), {"a": xs["a"].to(XLA).requires_grad_()})
  carry, (y, partial) = forward(init.to(XLA), {"a": xs["a"][0].to(XLA)})
  c_e = init.clone().requires_grad_()
  x_e = xs["a"][0].clone().requires_grad_()
  h_e, y_e = fn(c_e, {"a": x_e})
  torch.testing.assert_close(carry.cpu(), h_e.detach())
  torch.testing.assert_close(y.cpu(), y_e.detach())
  activations = alias_input(tuple(p.unsqueeze(0) for p in partial),
                            {"a": xs["a"][:1].to(XLA)})
  grad_carry, grad_x = backward(
      torch.ones(4, device=XLA),
      (torch.tensor(2.0, device=XLA), tuple(a[0] for a in activations)))
  (h_e.sum() + 2 * y_e).backward()
  torch.testing.assert_close(grad_carry.cpu(), c_e.grad)
  torch.testing.assert_close(grad_x["a"].cpu(), x_e.grad)


def test_values_of_xs_alone_are_recomputed_not_saved():

  def fn(c, w):
    return torch.tanh(c @ w.t()), None  # the backward reads w.t()

  ws = torch.randn(5, 8, 8, device=XLA, requires_grad=True)
  init = torch.randn(4, 8, device=XLA, requires_grad=True)
  out = scan(fn, init, ws)[0]
  # tanh's result and the carries are saved, ws by reference; no stack of
  # transposed weights.
  assert saved_bytes(out) == (2 * 5 * 4 * 8 + 5 * 8 * 8) * 4
