"""A parameter that two modules share stays one parameter (one object, one
device buffer, one gradient) through module conversion, deepcopy and
load_state_dict, as in eager (torch_xla/_module_conversion.py); and a module
converted to another dtype on the device reads the new dtype everywhere."""

import copy

import pytest
import torch
from torch import nn

import torch_xla
import torch_xla.core.xla_model as xm
from torch_xla import _XLAC

XLA = torch_xla.device()


class TiedLM(nn.Module):
  """Embedding and output projection share one weight (as GPT-2 and T5)."""

  def __init__(self, vocab=11, dim=8):
    super().__init__()
    self.embed = nn.Embedding(vocab, dim)
    self.mid = nn.Linear(dim, dim)
    self.head = nn.Linear(dim, vocab, bias=False)
    self.head.weight = self.embed.weight

  def forward(self, ids):
    return self.head(torch.tanh(self.mid(self.embed(ids))))


def tensor_id(t):
  return _XLAC._get_xla_tensor_debug_info(t).split("TensorID: ")[1].split()[0]


def assert_tied(model):
  assert model.embed.weight is model.head.weight
  assert isinstance(model.head.weight, nn.Parameter)
  assert len(list(model.parameters())) == 3


def train(model, device, steps=3):
  optimizer = torch.optim.AdamW(model.parameters(), lr=0.05)
  generator = torch.Generator().manual_seed(3)
  losses = []
  for _ in range(steps):
    ids = torch.randint(0, 11, (4, 5), generator=generator).to(device)
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(ids).flatten(0, 1),
                                       ids.flatten())
    loss.backward()
    optimizer.step()
    if device == XLA:
      torch_xla.sync()
    losses.append(loss.item())
  return losses


def test_to_xla_keeps_tied_parameter_one_parameter():
  model = TiedLM()
  weight = model.embed.weight
  reference = copy.deepcopy(model)
  model.to(XLA)
  assert_tied(model)
  assert model.head.weight is weight  # same object, as eager's .cuda()
  assert model.embed.weight.device == XLA
  # One gradient, accumulated from both uses.
  model(torch.tensor([[1, 2]], device=XLA)).sum().backward()
  assert model.head.weight.grad is model.embed.weight.grad
  model.zero_grad()
  # Trains like eager.
  expected = train(reference, "cpu")
  got = train(model, XLA)
  torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)
  for (name, p), q in zip(model.named_parameters(), reference.parameters()):
    torch.testing.assert_close(p.cpu(), q, rtol=1e-5, atol=1e-5, msg=name)


def test_tied_parameter_is_one_device_tensor():
  model = TiedLM().to(XLA)
  assert tensor_id(model.embed.weight) == tensor_id(model.head.weight)
  with torch.no_grad():
    model.embed.weight.add_(1.0)
  torch.testing.assert_close(model.head.weight.cpu(), model.embed.weight.cpu())


def test_gradients_move_with_the_module_and_stay_shared():
  model = TiedLM()
  model(torch.tensor([[1, 2]])).sum().backward()
  grad = model.embed.weight.grad.clone()
  model.to(XLA)
  assert model.head.weight.grad is model.embed.weight.grad
  assert model.embed.weight.grad.device == XLA
  torch.testing.assert_close(model.embed.weight.grad.cpu(), grad)


def test_to_dtype_on_device_converts_every_read():
  torch.manual_seed(0)
  cpu = TiedLM()
  model = copy.deepcopy(cpu).to(XLA).to(torch.bfloat16)
  cpu = cpu.to(torch.bfloat16)
  assert_tied(model)
  for name, p in model.named_parameters():
    assert p.dtype == torch.bfloat16, name
    assert p.t().dtype == torch.bfloat16, name
    assert p.view(-1).dtype == torch.bfloat16, name
    assert p[0].dtype == torch.bfloat16, name
    assert p.cpu().dtype == torch.bfloat16, name
  ids = torch.tensor([[1, 2, 3]])
  out = model(ids.to(XLA))
  assert out.dtype == torch.bfloat16
  torch.testing.assert_close(out.cpu(), cpu(ids), rtol=2e-2, atol=2e-2)
  # .half() and .float() the same way, still tied.
  model.half()
  assert model.mid.weight.t().dtype == torch.float16
  model.float()
  assert_tied(model)
  assert model.head.weight.t().dtype == torch.float32


def test_data_assignment_replaces_the_value():
  t = torch.arange(6.0).reshape(2, 3).to(XLA)
  t.data = torch.ones(3, 2, dtype=torch.bfloat16).to(XLA)
  assert t.shape == (3, 2) and t.dtype == torch.bfloat16
  assert t.t().dtype == torch.bfloat16 and t.t().shape == (2, 3)
  torch.testing.assert_close(t.cpu(), torch.ones(3, 2, dtype=torch.bfloat16))


def test_to_cpu_keeps_tied_parameter():
  model = TiedLM().to(XLA)
  weight = model.embed.weight.cpu()
  model.to("cpu")
  assert_tied(model)
  assert type(model.embed.weight) is nn.Parameter
  torch.testing.assert_close(model.embed.weight.detach(), weight)


def test_deepcopy_keeps_tied_parameter():
  model = TiedLM().to(XLA)
  model(torch.tensor([[1, 2]], device=XLA)).sum().backward()
  clone = copy.deepcopy(model)
  assert_tied(clone)
  assert clone.embed.weight is not model.embed.weight
  assert clone.embed.weight.requires_grad
  assert clone.head.weight.grad is clone.embed.weight.grad
  torch.testing.assert_close(clone.embed.weight.grad.cpu(),
                             model.embed.weight.grad.cpu())
  with torch.no_grad():
    clone.embed.weight.zero_()
  assert model.embed.weight.abs().sum().item() > 0
  assert tensor_id(clone.embed.weight) != tensor_id(model.embed.weight)


def test_load_state_dict_keeps_tied_parameter():
  source = TiedLM()
  model = TiedLM().to(XLA)
  weight = model.embed.weight
  model.load_state_dict(source.state_dict())
  assert_tied(model)
  assert model.embed.weight is weight
  torch.testing.assert_close(model.head.weight.cpu(), source.head.weight)
  # And from an 'xla' state dict.
  other = TiedLM().to(XLA)
  other.load_state_dict(model.state_dict())
  assert_tied(other)
  torch.testing.assert_close(other.embed.weight.cpu(), source.embed.weight)


def test_cpu_conversion_is_untouched():
  model = TiedLM()
  weight = model.embed.weight
  model.to(torch.float64)
  assert model.embed.weight is weight and weight.dtype == torch.float64
  assert not torch.__future__.get_swap_module_params_on_conversion()
  model.to(XLA)
  assert not torch.__future__.get_swap_module_params_on_conversion()


def test_failed_conversion_restores_the_setting():
  model = TiedLM().to(XLA)
  with pytest.raises(Exception):
    model._apply(lambda t: (_ for _ in ()).throw(ValueError("boom")))
  assert not torch.__future__.get_swap_module_params_on_conversion()
  assert model.embed.weight.device == XLA


def test_xm_optimizer_step_on_tied_model():
  model = TiedLM().to(XLA)
  optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
  assert len(optimizer.param_groups[0]["params"]) == 3
  model(torch.tensor([[1, 2]], device=XLA)).sum().backward()
  before = model.embed.weight.detach().cpu()
  xm.optimizer_step(optimizer)
  torch_xla.sync()
  torch.testing.assert_close(model.head.weight.cpu(), model.embed.weight.cpu())
  assert not torch.equal(model.embed.weight.cpu(), before)


@pytest.mark.parametrize("target", ["xla", "cpu"])
def test_conversion_with_a_live_graph_keeps_tied_parameter(target):
  # A forward whose backward has not run holds the parameters, so they
  # cannot be swapped in place; the conversion still keeps them tied.
  model = TiedLM() if target == "xla" else TiedLM().to(XLA)
  device = "cpu" if target == "xla" else XLA
  out = model(torch.tensor([[1, 2]], device=device)).sum()
  model.to(target)
  assert_tied(model)
  assert model.embed.weight.device.type == target
  if target == "xla":
    assert tensor_id(model.embed.weight) == tensor_id(model.head.weight)
  del out
