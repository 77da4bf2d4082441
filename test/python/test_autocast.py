"""Mixed precision: torch.autocast('xla') follows upstream's XLA autocast
policy (torch_xla/_autocast.py) and matches eager CPU autocast within bf16
tolerance; a module converted to bf16 on the device reads bf16 everywhere."""

import copy
import os
import sys

import pytest
import torch
import torch.nn.functional as F

import torch_xla
import torch_xla.amp
import torch_xla.debug.metrics as met
from op_test_utils import fallback_counters

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "examples"))
from decoder import Decoder, DecoderConfig, DecoderLayer, next_token_loss  # noqa: E402

XLA = torch_xla.device()
LOW = (torch.bfloat16, torch.float16)
TOL = {torch.bfloat16: dict(atol=3e-2, rtol=3e-2),
       torch.float16: dict(atol=3e-3, rtol=3e-3)}


def xla(*tensors):
  return [t.to(XLA) for t in tensors]


@pytest.mark.parametrize("dtype", LOW)
def test_policy_dtypes(dtype):
  a, b = torch.randn(4, 8), torch.randn(8, 8)
  x, w = xla(a, b)
  img, kernel = xla(torch.randn(1, 2, 6, 6), torch.randn(3, 2, 3, 3))
  target = torch.tensor([1, 0, 3, 2], device=XLA)
  with torch.autocast("xla", dtype=dtype):
    low = {
        "linear": F.linear(x, w),
        "matmul": x @ w,
        "mm": torch.mm(x, w),
        "bmm": torch.bmm(x[None], w[None]),
        "addmm": torch.addmm(w[0], x, w),
        "einsum": torch.einsum("ij,jk->ik", x, w),
        "conv2d": F.conv2d(img, kernel),
        "relu": torch.relu(x),
        "max_pool2d": F.max_pool2d(img, 2),
    }
    fp32 = {
        "softmax": torch.softmax(x.to(dtype), -1),
        "log_softmax": torch.log_softmax(x.to(dtype), -1),
        "cross_entropy": F.cross_entropy(x.to(dtype), target),
        "mse_loss": F.mse_loss(x.to(dtype), x.to(dtype)),
        "pow": x.to(dtype).pow(2),
        "prod": x.to(dtype).prod(),
    }
    promoted = torch.cat([x.to(dtype), x])
    kept = torch.cat([x.to(dtype), x.to(dtype)])
    added = x.to(dtype) + x  # ordinary type promotion
    double = F.linear(x.double(), w.double())
    with torch.autocast("xla", enabled=False):
      off = F.linear(x, w)
  for name, t in low.items():
    assert t.dtype == dtype, name
  for name, t in fp32.items():
    assert t.dtype == torch.float32, name
  assert promoted.dtype == torch.float32 and kept.dtype == dtype
  assert added.dtype == torch.float32
  assert double.dtype == torch.float64
  assert off.dtype == torch.float32
  # Outside the region nothing is cast.
  assert F.linear(x, w).dtype == torch.float32


@pytest.mark.parametrize("dtype", LOW)
def test_values_match_cpu_autocast(dtype):
  a, b, bias = torch.randn(4, 8), torch.randn(5, 8), torch.randn(5)
  img, kernel = torch.randn(2, 3, 8, 8), torch.randn(4, 3, 3, 3)
  target = torch.tensor([1, 0, 3, 2])

  def fn(a, b, bias, img, kernel, target):
    y = F.linear(a, b, bias)
    return (y, torch.softmax(y, -1), F.cross_entropy(y, target),
            F.conv2d(img, kernel, padding=1), torch.bmm(a[None], b.t()[None]))

  before = fallback_counters()
  with torch.autocast("xla", dtype=dtype):
    got = fn(*xla(a, b, bias, img, kernel, target))
  with torch.autocast("cpu", dtype=dtype):
    want = fn(a, b, bias, img, kernel, target)
  for i, (g, w) in enumerate(zip(got, want)):
    if i == 1:  # softmax: float32 in XLA's policy, not in the CPU one
      assert g.dtype == torch.float32
      w = w.float()
    assert g.dtype == w.dtype
    torch.testing.assert_close(g.cpu(), w, **TOL[dtype])
  assert fallback_counters() == before


def decoder_layer_step(layer, x, device_type, dtype):
  with torch.autocast(device_type, dtype=dtype):
    out = layer(x)
    loss = out.float().pow(2).mean()
  loss.backward()
  return out, loss


# float16 is covered op by op above; a whole layer once, in bf16 (the model
# suite, test/python/models, trains seven models under bf16 autocast).
@pytest.mark.parametrize("dtype", [torch.bfloat16])
def test_decoder_layer_forward_backward(dtype):
  config = DecoderConfig(dim=32, num_heads=4, hidden_dim=64, max_seq_len=16)
  layer = DecoderLayer(config)
  device_layer = copy.deepcopy(layer).to(XLA)
  x = torch.randn(2, 8, config.dim, requires_grad=True)
  dx = x.detach().to(XLA).requires_grad_()
  out, loss = decoder_layer_step(layer, x, "cpu", dtype)
  before = fallback_counters()
  dout, dloss = decoder_layer_step(device_layer, dx, "xla", dtype)
  # The matrix products of the step run in low precision on the device.
  hlo = torch_xla._XLAC._get_stablehlo([dloss, dx.grad]).decode()
  short = {torch.bfloat16: "bf16", torch.float16: "f16"}[dtype]
  assert f"x{short}>" in hlo and "dot_general" in hlo
  torch_xla.sync()
  assert fallback_counters() == before
  assert dout.dtype == out.dtype  # residual adds promote back to float32
  torch.testing.assert_close(dout.cpu(), out, **TOL[dtype])
  torch.testing.assert_close(dloss.cpu(), loss, **TOL[dtype])
  torch.testing.assert_close(dx.grad.cpu(), x.grad, **TOL[dtype])
  for (name, p), q in zip(device_layer.named_parameters(), layer.parameters()):
    assert p.grad.dtype == torch.float32, name  # the parameter's own dtype
    torch.testing.assert_close(p.grad.cpu(), q.grad, msg=name,
                               **TOL[dtype])


def test_converted_module_on_device():
  config = DecoderConfig(vocab_size=64, dim=32, num_layers=1, num_heads=4,
                         hidden_dim=64, max_seq_len=16)
  model = Decoder(config)
  device_model = copy.deepcopy(model).to(XLA).to(torch.bfloat16)
  model = model.to(torch.bfloat16)
  for name, p in device_model.named_parameters():
    assert p.dtype == p.t().dtype == p.view(-1).dtype == torch.bfloat16, name
  tokens = torch.randint(0, config.vocab_size, (2, 9))
  loss = next_token_loss(model, tokens)
  loss.backward()
  dloss = next_token_loss(device_model, tokens.to(XLA))
  dloss.backward()
  torch_xla.sync()  # one program for the loss and every gradient
  assert dloss.dtype == torch.bfloat16
  torch.testing.assert_close(dloss.cpu(), loss, atol=3e-2, rtol=3e-2)
  for (name, p), q in zip(device_model.named_parameters(),
                          model.parameters()):
    assert p.grad.dtype == torch.bfloat16, name
    torch.testing.assert_close(p.grad.cpu(), q.grad, atol=5e-2, rtol=5e-2,
                               msg=name)


def test_torch_xla_amp_autocast():
  x, w = xla(torch.randn(4, 8), torch.randn(8, 8))
  with torch_xla.amp.autocast(XLA):
    assert (x @ w).dtype == torch.bfloat16
  with torch_xla.amp.autocast(XLA, dtype=torch.float16):
    assert (x @ w).dtype == torch.float16
  with pytest.raises(ValueError, match="for 'xla' devices"):
    torch_xla.amp.autocast("cpu")
