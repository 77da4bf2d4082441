"""Checkpoints of weights (torch.save / torch.load of 'xla' tensors) and of
activations (torch.utils.checkpoint, torch_xla.utils.checkpoint), the
torch.xla device module they need, and ctc_loss with CPU length tensors.
Everything is compared with eager CPU.
"""

import io

import pytest
import torch
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint as torch_checkpoint

import torch_xla
import torch_xla.core.xla_model as xm
from torch_xla.utils.checkpoint import checkpoint as xla_checkpoint

DEVICE = torch_xla.device()


def small_model():
  return torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.ReLU(),
                             torch.nn.Linear(5, 3))


@pytest.mark.parametrize("weights_only", [None, True, False])
def test_state_dict_round_trip(weights_only):
  model = small_model().to(DEVICE)
  model[0].weight.data.mul_(3)  # a pending value: saving reads it
  buffer = io.BytesIO()
  torch.save(model.state_dict(), buffer)
  buffer.seek(0)
  kwargs = {} if weights_only is None else {"weights_only": weights_only}
  loaded = torch.load(buffer, **kwargs)
  for key, value in model.state_dict().items():
    assert loaded[key].device == DEVICE, key
    torch.testing.assert_close(loaded[key].cpu(), value.cpu(), rtol=0, atol=0)
  fresh = small_model().to(DEVICE)
  fresh.load_state_dict(loaded)
  x = torch.randn(2, 6)
  torch.testing.assert_close(fresh(x.to(DEVICE)).cpu(),
                             model(x.to(DEVICE)).cpu())


def test_checkpoint_dict_with_optimizer_state_and_map_location():
  model = small_model().to(DEVICE)
  opt = torch.optim.Adam(model.parameters())
  model(torch.randn(2, 6, device=DEVICE)).sum().backward()
  opt.step()
  buffer = io.BytesIO()
  torch.save({"model": model.state_dict(), "opt": opt.state_dict(),
              "step": 1}, buffer)
  buffer.seek(0)
  loaded = torch.load(buffer, map_location="cpu")
  assert loaded["step"] == 1
  state = loaded["opt"]["state"][0]["exp_avg"]
  assert state.device.type == "cpu"
  torch.testing.assert_close(state, opt.state_dict()["state"][0]["exp_avg"]
                             .cpu())


def test_xm_save_still_writes_cpu_tensors(tmp_path):
  model = small_model().to(DEVICE)
  path = tmp_path / "model.pt"
  xm.save(model.state_dict(), path)
  loaded = torch.load(path)
  assert all(v.device.type == "cpu" for v in loaded.values())


def test_torch_xla_device_module():
  assert torch.xla.is_available() and torch.xla.device_count() >= 1
  assert torch.xla.current_device() == 0
  torch.manual_seed(3)
  state = torch.xla.get_rng_state()
  a = torch.rand(4, device=DEVICE).cpu()
  torch.xla.set_rng_state(state)
  torch.testing.assert_close(torch.rand(4, device=DEVICE).cpu(), a)
  with torch.random.fork_rng(device_type="xla"):
    torch.rand(4, device=DEVICE)
  # fork_rng put the generator back: the next draw repeats the forked one.
  torch.xla.set_rng_state(state)
  b = torch.rand(4, device=DEVICE).cpu()
  torch.testing.assert_close(a, b)


def block(lin1, lin2, p):

  def fn(x):
    h = torch.tanh(lin1(x))
    return lin2(F.dropout(h, p=p, training=True))

  return fn


def cpu_and_xla_blocks():
  torch.manual_seed(0)
  lin1, lin2 = torch.nn.Linear(8, 16), torch.nn.Linear(16, 4)
  xla1 = torch.nn.Linear(8, 16).to(DEVICE)
  xla2 = torch.nn.Linear(16, 4).to(DEVICE)
  xla1.load_state_dict(lin1.state_dict())
  xla2.load_state_dict(lin2.state_dict())
  return (lin1, lin2), (xla1, xla2)


@pytest.mark.parametrize("kind", ["torch_non_reentrant", "torch_reentrant",
                                  "xla_reentrant", "xla_non_reentrant"])
def test_activation_checkpoint_gradients_match_eager(kind):
  (lin1, lin2), (xla1, xla2) = cpu_and_xla_blocks()
  x = torch.randn(5, 8)
  # Eager CPU, no dropout (p=0): the reference gradients.
  xc = x.clone().requires_grad_()
  block(lin1, lin2, 0.0)(xc).pow(2).sum().backward()
  xx = x.to(DEVICE).requires_grad_()
  fn = block(xla1, xla2, 0.0)
  if kind == "torch_non_reentrant":
    out = torch_checkpoint(fn, xx, use_reentrant=False)
  elif kind == "torch_reentrant":
    out = torch_checkpoint(fn, xx, use_reentrant=True)
  elif kind == "xla_reentrant":
    out = xla_checkpoint(fn, xx)
  else:
    out = xla_checkpoint(fn, xx, use_reentrant=False)
  out.pow(2).sum().backward()
  torch.testing.assert_close(xx.grad.cpu(), xc.grad)
  for cpu_lin, xla_lin in ((lin1, xla1), (lin2, xla2)):
    torch.testing.assert_close(xla_lin.weight.grad.cpu(), cpu_lin.weight.grad)
    torch.testing.assert_close(xla_lin.bias.grad.cpu(), cpu_lin.bias.grad)


@pytest.mark.parametrize("use_torch", [True, False])
def test_dropout_mask_is_replayed_in_the_recompute(use_torch):
  (_, _), (xla1, xla2) = cpu_and_xla_blocks()
  fn = block(xla1, xla2, 0.5)
  x = torch.randn(5, 8).to(DEVICE)

  def grads(checkpointed):
    xla1.zero_grad()
    xla2.zero_grad()
    xx = x.clone().requires_grad_()
    torch.manual_seed(11)
    if not checkpointed:
      out = fn(xx)
    elif use_torch:
      out = torch_checkpoint(fn, xx, use_reentrant=False)
    else:
      out = xla_checkpoint(fn, xx)
    out.sum().backward()
    return out.detach().cpu(), xx.grad.cpu(), xla1.weight.grad.cpu()

  plain = grads(False)
  ckpt = grads(True)
  for a, b in zip(plain, ckpt):
    torch.testing.assert_close(a, b)


def test_reentrant_recompute_sits_behind_an_optimization_barrier():
  (_, _), (xla1, xla2) = cpu_and_xla_blocks()
  xx = torch.randn(5, 8).to(DEVICE).requires_grad_()
  xla_checkpoint(block(xla1, xla2, 0.0), xx).sum().backward()
  hlo = torch_xla._XLAC._get_stablehlo([xla1.weight.grad]).decode()
  assert "stablehlo.optimization_barrier" in hlo


def test_xla_checkpoint_rejects_keywords_when_reentrant():
  with pytest.raises(ValueError, match="unexpected keyword arguments"):
    xla_checkpoint(lambda x, scale: x * scale, torch.ones(2, device=DEVICE),
                   scale=2)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_ctc_loss_with_cpu_lengths(reduction):
  T, N, C, S = 12, 3, 6, 4
  log_probs = torch.randn(T, N, C).log_softmax(2)
  targets = torch.randint(1, C, (N, S))
  input_lengths = torch.full((N,), T, dtype=torch.long)
  target_lengths = torch.tensor([4, 3, 2])
  lc = log_probs.clone().requires_grad_()
  ref = F.ctc_loss(lc, targets, input_lengths, target_lengths,
                   reduction=reduction)
  ref.sum().backward()
  lx = log_probs.to(DEVICE).requires_grad_()
  out = F.ctc_loss(lx, targets.to(DEVICE), input_lengths, target_lengths,
                   reduction=reduction)
  out.sum().backward()
  assert out.device == DEVICE
  torch.testing.assert_close(out.detach().cpu(), ref.detach(), rtol=1e-5,
                             atol=1e-5)
  torch.testing.assert_close(lx.grad.cpu(), lc.grad, rtol=1e-5, atol=1e-5)
