"""Model suite: small Hugging Face `transformers` models (hf_models.py) train
on 'xla' as in eager CPU.

Each model trains a few AdamW steps on 'xla' and on the CPU from the same
weights and batches. Then: losses and every parameter agree within fp32
tolerance, both have the same number of parameters (tied embeddings stay
tied), every step after the second is a compile-cache hit, and no op ran as
a CPU fallback (no `aten::` counter). The same again under bf16 autocast,
with losses close to eager CPU autocast.
"""

import copy

import pytest
import torch

import torch_xla
import torch_xla.debug.metrics as met

pytest.importorskip("transformers")

import hf_models  # noqa: E402

XLA = torch_xla.device()
STEPS = 3


def fallbacks():
  return {
      name: met.counter_value(name)
      for name in met.counter_names()
      if name.startswith("aten::")
  }


def train(model, batches, device, autocast_dtype=None):
  """Losses (floats) of AdamW steps; on 'xla', also the UncachedCompile
  count after each step."""
  # eps above rounding noise: attention key biases get gradients that are
  # zero in exact arithmetic (softmax ignores a per-row constant), ~1e-11 in
  # float32, and Adam would turn noise of either sign into full steps.
  optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, eps=1e-6)
  losses, compiles = [], []
  for batch in batches:
    batch = {k: v.to(device) for k, v in batch.items()}
    optimizer.zero_grad()
    with torch.autocast(torch.device(device).type,
                        dtype=autocast_dtype or torch.bfloat16,
                        enabled=autocast_dtype is not None):
      loss = model(**batch).loss
    loss.backward()
    optimizer.step()
    if device == XLA:
      torch_xla.sync()
      compiles.append(met.counter_value("UncachedCompile") or 0)
    losses.append(loss.item())
  return losses, compiles


@pytest.mark.parametrize("name", sorted(hf_models.MODELS))
def test_trains_like_eager(name):
  model, batches = hf_models.build(name)
  device_model = copy.deepcopy(model).to(XLA)
  assert (len(list(device_model.parameters())) == len(list(
      model.parameters())))
  data = batches(STEPS)
  before = fallbacks()
  got, compiles = train(device_model, data, XLA)
  assert fallbacks() == before, f"{name} fell back to CPU"
  want, _ = train(model, data, "cpu")
  torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
  assert compiles[2:] == [compiles[1]] * (STEPS - 2), compiles
  assert (len(list(device_model.parameters())) == len(list(
      model.parameters())))
  for (key, p), q in zip(device_model.named_parameters(),
                         model.parameters()):
    torch.testing.assert_close(p.detach().cpu(), q.detach(), rtol=1e-4,
                               atol=1e-5, msg=f"{name}: {key}")


@pytest.mark.parametrize("name", sorted(hf_models.MODELS))
def test_trains_like_eager_under_bf16_autocast(name):
  model, batches = hf_models.build(name)
  device_model = copy.deepcopy(model).to(XLA)
  data = batches(2)
  before = fallbacks()
  got, _ = train(device_model, data, XLA, torch.bfloat16)
  assert fallbacks() == before, f"{name} fell back to CPU"
  want, _ = train(model, data, "cpu", torch.bfloat16)
  torch.testing.assert_close(got, want, rtol=2e-2, atol=2e-2)
