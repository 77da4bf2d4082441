"""Training parity: the same models trained on 'xla' and on CPU from the same
seed give the same losses, and every step after the first is a cache hit."""

import os
import sys

import pytest
import torch

import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.debug.metrics as met

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "examples"))
from decoder import Decoder, DecoderConfig, next_token_loss, synthetic_batches  # noqa: E402

XLA = torch_xla.device()
STEPS = 10


def mlp():
  return torch.nn.Sequential(
      torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 32),
      torch.nn.ReLU(), torch.nn.Linear(32, 4))


def mlp_batches():
  generator = torch.Generator().manual_seed(1)
  for _ in range(STEPS):
    x = torch.randn(8, 16, generator=generator)
    y = torch.randint(0, 4, (8,), generator=generator)
    yield x, y


def mlp_loss(model, batch):
  x, y = batch
  return torch.nn.functional.cross_entropy(model(x), y)


def decoder_batches():
  return synthetic_batches(DecoderConfig(), batch=4, seq=16, steps=STEPS)


def train(make_model, batches, loss_fn, device):
  torch.manual_seed(0)
  model = make_model().to(device)
  optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
  losses, compiles = [], []
  for batch in batches():
    batch = [b.to(device) for b in batch] if isinstance(batch, tuple) else [
        batch.to(device)
    ]
    optimizer.zero_grad()
    loss = loss_fn(model, *batch)
    loss.backward()
    xm.optimizer_step(optimizer)
    if device == XLA:
      torch_xla.sync()
      compiles.append(met.counter_value("UncachedCompile") or 0)
    losses.append(loss.item())
  return losses, compiles


@pytest.mark.parametrize("name", ["mlp", "decoder"])
def test_losses_match_cpu_and_steps_after_first_hit_the_cache(name):
  make_model, batches, loss_fn = {
      "mlp": (mlp, mlp_batches, lambda m, x, y: mlp_loss(m, (x, y))),
      "decoder": (lambda: Decoder(DecoderConfig()), decoder_batches,
                  next_token_loss),
  }[name]
  cpu_losses, _ = train(make_model, batches, loss_fn, "cpu")
  met.clear_all()
  xla_losses, compiles = train(make_model, batches, loss_fn, XLA)
  torch.testing.assert_close(
      torch.tensor(xla_losses), torch.tensor(cpu_losses), atol=1e-4, rtol=0)
  # Step 1 compiles (the loss read may add its own small graph); steps
  # 2..10 compile nothing new.
  assert compiles[1:] == [compiles[0]] * (STEPS - 1), compiles
  assert not [n for n in met.counter_names() if n.startswith("aten::")]
  assert cpu_losses[-1] < cpu_losses[0]


def test_in_place_type_errors_match_eager():
  x = torch.ones(3, dtype=torch.int64)
  with pytest.raises(RuntimeError) as eager:
    x.add_(1.5)
  with pytest.raises(RuntimeError) as lazy:
    x.to(XLA).add_(1.5)
  assert str(lazy.value) == str(eager.value)


def test_bad_input_errors_are_clear():
  a, b = torch.randn(2, 3).to(XLA), torch.randn(4, 5).to(XLA)
  with pytest.raises(RuntimeError, match=r"2x3.*4x5|shapes cannot be multiplied"):
    a @ b
  with pytest.raises(RuntimeError, match="same device"):
    a + torch.randn(2, 3)
  with pytest.raises(TypeError, match="not supported on the XLA device"):
    torch.randn(2, dtype=torch.complex64).to(XLA)
