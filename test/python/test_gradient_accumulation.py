"""gradient_accumulation: loss, carried tensors and gradients against a
manual loop; one execution and no recompile per step; donation; errors."""

import copy
import os
import sys

import pytest
import torch
from torch import nn

import torch_xla
import torch_xla.debug.metrics as met
from torch_xla import _XLAC
from torch_xla.experimental.gradient_accumulation import (
    GradientAccumulationContext, gradient_accumulation)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "examples"))
from decoder import Decoder, DecoderConfig  # noqa: E402

XLA = torch_xla.device()


def counter(name):
  return met.counter_value(name) or 0


def executions():
  data = met.metric_data("ExecuteTime")
  return 0 if data is None else data[0]


def mlp(dtype=torch.float32):
  return nn.Sequential(nn.Linear(16, 32), nn.GELU(),
                       nn.Linear(32, 4)).to(dtype)


def manual(model, loss_of, batches):
  """The Python loop gradient_accumulation stands for (eager)."""
  total = 0
  for batch in batches:
    loss = loss_of(model, *batch) / len(batches)
    loss.backward()
    total = total + loss.detach()
  return total


def mse(model, x, y):
  return nn.functional.mse_loss(model(x), y)


def next_token(model, tokens):
  logits = model(tokens[:, :-1])
  return nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                     tokens[:, 1:].reshape(-1))


def compare(make_model, loss_of, data, dtype, tol):
  torch.manual_seed(0)
  eager = make_model()
  model = copy.deepcopy(eager).to(XLA)
  expected = manual(eager, loss_of,
                    list(zip(*[d.unbind(0) for d in data])))
  loss = gradient_accumulation(lambda *b: loss_of(model, *b),
                               tuple(d.to(XLA) for d in data), model)
  assert loss.dtype == dtype and loss.dim() == 0
  torch.testing.assert_close(loss.cpu(), expected, atol=tol, rtol=tol)
  for (name, p_e), p_x in zip(eager.named_parameters(), model.parameters()):
    torch.testing.assert_close(p_x.grad.cpu(), p_e.grad, atol=tol, rtol=tol,
                               msg=name)


@pytest.mark.parametrize("dtype,tol", [(torch.float32, 1e-5),
                                       (torch.bfloat16, 3e-2)])
def test_mlp_matches_manual_loop(dtype, tol):
  data = (torch.randn(4, 8, 16).to(dtype), torch.randn(4, 8, 4).to(dtype))
  compare(lambda: mlp(dtype), mse, data, dtype, tol)


@pytest.mark.parametrize("dtype,tol", [(torch.float32, 1e-4),
                                       (torch.bfloat16, 5e-2)])
def test_decoder_matches_manual_loop(dtype, tol):
  config = DecoderConfig(vocab_size=64, dim=32, num_layers=2, num_heads=4,
                         hidden_dim=48, max_seq_len=16)
  tokens = torch.randint(0, 64, (3, 2, 9))
  compare(lambda: Decoder(config).to(dtype), next_token, (tokens,), dtype,
          tol)


def test_adds_to_existing_grads_and_donates_them():
  torch.manual_seed(0)
  eager = mlp()
  model = copy.deepcopy(eager).to(XLA)
  data = (torch.randn(2, 4, 16), torch.randn(2, 4, 4))
  for p_e, p_x in zip(eager.parameters(), model.parameters()):
    p_e.grad = torch.randn_like(p_e)
    p_x.grad = p_e.grad.to(XLA)
  torch_xla.sync()
  old = [p.grad for p in model.parameters()]
  met.clear_all()
  manual(eager, mse, list(zip(*[d.unbind(0) for d in data])))
  gradient_accumulation(lambda x, y: mse(model, x, y),
                        tuple(d.to(XLA) for d in data), model)
  torch_xla.sync()
  # The accumulators took over the old .grad buffers (one alias each).
  assert met.metric_data("InputOutputAliasCount")[1] == 4
  for g, p_e, p_x in zip(old, eager.parameters(), model.parameters()):
    assert g is p_x.grad  # updated in place
    torch.testing.assert_close(p_x.grad.cpu(), p_e.grad, atol=1e-5,
                               rtol=1e-5)


@pytest.mark.parametrize("dtype,tol", [(torch.float32, 1e-5),
                                       (torch.bfloat16, 3e-2)])
def test_manual_loop_computes_each_weight_gradient_as_one_product(dtype, tol):
  # The manual loop traced into one graph sums each weight's gradient over
  # the micro-batches; the module computes each sum as one product over the
  # concatenated micro-batches (rewrites/summed_dots.h), so per micro-batch
  # only the forward's 2 products and the backward's input gradient remain.
  torch.manual_seed(0)
  eager = nn.Sequential(nn.Linear(64, 256), nn.ReLU(),
                        nn.Linear(256, 32)).to(dtype)
  model = copy.deepcopy(eager).to(XLA)
  micro = 6
  data = (torch.randn(micro, 16, 64).to(dtype),
          torch.randn(micro, 16, 32).to(dtype))
  batches = list(zip(*[d.unbind(0) for d in data]))
  manual(eager, mse, batches)
  manual(model, mse, [tuple(t.to(XLA) for t in b) for b in batches])
  grads = [p.grad for p in model.parameters()]
  module = _XLAC._get_stablehlo(grads).decode()
  assert module.count("stablehlo.dot_general") == 3 * micro + 2, module
  for (name, p_e), g in zip(eager.named_parameters(), grads):
    torch.testing.assert_close(g.cpu(), p_e.grad, atol=tol, rtol=tol,
                               msg=name)


def test_training_loop_one_execution_per_step_no_recompile():
  torch.manual_seed(0)
  eager = mlp()
  model = copy.deepcopy(eager).to(XLA)
  opt_e = torch.optim.SGD(eager.parameters(), lr=0.1)
  opt_x = torch.optim.SGD(model.parameters(), lr=0.1)
  data = (torch.randn(4, 8, 16), torch.randn(4, 8, 4))
  on_device = tuple(d.to(XLA) for d in data)
  torch_xla.sync()
  for step in range(4):
    if step == 1:
      met.clear_all()
    opt_e.zero_grad()
    expected = manual(eager, mse, list(zip(*[d.unbind(0) for d in data])))
    opt_e.step()
    opt_x.zero_grad()
    loss = gradient_accumulation(lambda x, y: mse(model, x, y), on_device,
                                 model)
    opt_x.step()
    torch_xla.sync()
    torch.testing.assert_close(loss.cpu(), expected, atol=1e-5, rtol=1e-5)
  assert counter("UncachedCompile") == 0
  assert executions() == 3  # one per step


def test_carried_int64_counter_and_random_ops():
  model = mlp().to(XLA)
  xs = torch.randn(5, 3, 16, device=XLA)

  def train_step(x, count, noise_sum):
    noise = torch.rand(3, device=x.device)
    loss = model(x + noise[:, None]).square().mean()
    return loss, count + 1, noise_sum + noise.sum() * (count + 1)

  loss, count, weighted = gradient_accumulation(
      train_step, (xs,), model, (torch.tensor(0, device=XLA),
                                 torch.tensor(0.0, device=XLA)))
  assert count.dtype == torch.int64 and count.item() == 5
  assert weighted.dtype == torch.float32

  # Different numbers per micro-batch: the carried sum of draws is not
  # n times one draw.
  def sample(x, acc):
    draw = torch.rand(4, device=x.device)
    return model(x).sum() * 0, torch.cat([acc[4:], draw])

  _, drawn = gradient_accumulation(sample, (xs,), model,
                                   torch.zeros(20, device=XLA))
  rows = drawn.cpu().view(5, 4)
  assert len({tuple(r.tolist()) for r in rows}) == 5


def test_errors():
  model = mlp().to(XLA)
  x = torch.randn(2, 3, 16, device=XLA)
  step = lambda x: model(x).sum()
  with pytest.raises(ValueError, match="non-empty tuple"):
    gradient_accumulation(step, (), model)
  with pytest.raises(ValueError, match="Element 1 of iterable_tensors is not "
                     "a tensor"):
    gradient_accumulation(step, (x, 3), model)
  with pytest.raises(ValueError, match="Element 0 of iterable_tensors is 0-dim"):
    gradient_accumulation(step, (torch.tensor(1.0, device=XLA),), model)
  with pytest.raises(ValueError, match="inconsistent first dimension 3"):
    gradient_accumulation(lambda a, b: step(a), (x, torch.ones(3, 1,
                                                               device=XLA)),
                          model)

  def mutating(x):
    x.mul_(2)
    return model(x).sum()

  with pytest.raises(ValueError, match="modified iterable tensor 0 "
                     "\\(torch.float32 \\[3, 16\\]\\) in place"):
    gradient_accumulation(mutating, (x,), model)
  with pytest.raises(ValueError, match="carried tensor 0 as torch.float32 "
                     "\\[\\]; it must keep torch.int64"):
    gradient_accumulation(lambda x, c: (model(x).sum(), c.float()), (x,),
                          model, torch.tensor(0, device=XLA))


def test_one_loop_in_the_module_and_context():
  model = mlp().to(XLA)
  x = torch.randn(6, 3, 16, device=XLA)
  loss = gradient_accumulation(lambda x: model(x).sum(), (x,), model)
  hlo = _XLAC._get_stablehlo([loss] + [p.grad for p in
                                             model.parameters()]).decode()
  assert hlo.count("stablehlo.while") == 1
  context = GradientAccumulationContext(6, 1, 0, 4)
  assert context.num_internal_tensors == 2
