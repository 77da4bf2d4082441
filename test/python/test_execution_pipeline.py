"""The execution pipeline: syncs enqueue and return (reads wait for what
they need), scalars travel packed and are uploaded only when they change,
and a steady training step sends nothing but its new batch."""

import torch

import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.debug.metrics as met
from torch_xla import _XLAC

XLA = torch_xla.device()


def sent():
  """(transfers to the device, bytes) so far."""
  data = met.metric_data("OutboundData")
  if data is None:
    return 0, 0
  return data[0], int(data[1])


def test_steps_enqueued_back_to_back_give_eager_values():
  # Each step updates w in place (donating the buffer the previous,
  # possibly still running, step produced) and nothing is read in between.
  w_cpu = torch.randn(64, 64)
  xs = [torch.randn(64, 64) for _ in range(6)]
  w = w_cpu.to(XLA)
  xs_xla = [x.to(XLA) for x in xs]
  torch_xla.sync()
  met.clear_all()
  for x_cpu, x in zip(xs, xs_xla):
    w.mul_(0.5).add_(x @ w)
    w_cpu.mul_(0.5).add_(x_cpu @ w_cpu)
    torch_xla.sync()
  # One compiled graph, whose program aliases w: every step donates it.
  assert met.metric_data("InputOutputAliasCount")[:2] == (1, 1.0)
  assert met.counter_value("CachedCompile") == 5
  torch.testing.assert_close(w.cpu(), w_cpu, rtol=1e-4, atol=1e-4)


def test_wait_forms_and_reads_after_them():
  a = torch.randn(128, 128).to(XLA)
  b = a @ a
  torch_xla.sync(wait=True)
  c = b + 1
  xm.mark_step()
  xm.wait_device_ops()
  _XLAC._xla_sync_multi([c + 2], [], True, True)
  torch.testing.assert_close(c.cpu(), a.cpu() @ a.cpu() + 1, rtol=1e-4,
                             atol=1e-3)


def test_a_donated_tensor_is_still_a_clear_error():
  t = torch.ones(8).to(XLA)
  torch_xla.sync()
  out = t * 3
  _XLAC._set_buffer_donation(t, True)
  with torch_xla.alias_with_buffer_donor_config(True):
    torch_xla.sync()
  torch.testing.assert_close(out.cpu(), torch.full((8,), 3.0))
  try:
    t.cpu()
  except RuntimeError as e:
    assert "donated" in str(e)
  else:
    raise AssertionError("reading a donated tensor must raise")


def test_scalars_travel_as_one_vector_per_dtype_and_only_when_changed():
  x = torch.randn(16).to(XLA)
  torch_xla.sync()

  def step(lr, momentum):
    y = x * lr + momentum - 0.25 * x  # three f32 scalars
    torch_xla.sync()
    return y

  step(0.1, 0.9)
  hlo = _XLAC._get_stablehlo([x * 0.1 + 0.9 - 0.25 * x]).decode()
  assert "%arg1: tensor<3xf32>" in hlo  # x, then the packed scalars
  met.clear_all()
  y = step(0.1, 0.9)  # same values: nothing to send
  assert sent() == (0, 0)
  torch.testing.assert_close(y.cpu(), x.cpu() * 0.1 + 0.9 - 0.25 * x.cpu())
  met.clear_all()
  y = step(0.2, 0.9)  # a new value: one small vector, no recompile
  assert sent() == (1, 3 * 4)
  assert not met.counter_value("UncachedCompile")
  torch.testing.assert_close(y.cpu(), x.cpu() * 0.2 + 0.9 - 0.25 * x.cpu())


def test_equal_scalars_from_different_sites_stay_separate_parameters():
  x = torch.randn(4).to(XLA)
  torch_xla.sync()
  y = x * 0.5 + 0.5
  hlo = _XLAC._get_stablehlo([y]).decode()
  assert "tensor<2xf32>" in hlo
  assert _XLAC._get_graph_hash([y]) == _XLAC._get_graph_hash([x * 0.5 + 0.7])


def test_a_loop_reuses_the_scalars_of_its_site():
  x = torch.randn(4).to(XLA)
  torch_xla.sync()
  y = x
  for _ in range(50):
    y = y * 1.0001 + 0.1
  hlo = _XLAC._get_stablehlo([y]).decode()
  assert "%arg1: tensor<2xf32>" in hlo  # two sites, not 100 scalars
  expected = x.cpu()
  for _ in range(50):
    expected = expected * 1.0001 + 0.1
  torch.testing.assert_close(y.cpu(), expected)


def _mlp_steps(optimizer_fn, steps):
  torch.manual_seed(0)
  model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(),
                              torch.nn.Linear(64, 8)).to(XLA)
  optimizer = optimizer_fn(model.parameters())
  batches = [(torch.randn(16, 32), torch.randn(16, 8)) for _ in range(steps)]
  per_step = []
  for x, y in batches:
    before = sent()
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x.to(XLA)), y.to(XLA))
    loss.backward()
    optimizer.step()
    torch_xla.sync()
    after = sent()
    per_step.append((after[0] - before[0], after[1] - before[1]))
  return per_step


def test_steady_sgd_step_sends_only_its_batch():
  batch_bytes = (16 * 32 + 16 * 8) * 4
  per_step = _mlp_steps(lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.9),
                        5)
  for transfers, nbytes in per_step[2:]:
    assert (transfers, nbytes) == (2, batch_bytes)


def test_steady_adamw_step_sends_its_batch_and_one_scalar_vector():
  # AdamW (not capturable) recomputes its bias corrections on the host each
  # step: they travel as one packed f32 vector, the rest as the batch.
  batch_bytes = (16 * 32 + 16 * 8) * 4
  per_step = _mlp_steps(lambda p: torch.optim.AdamW(p, lr=0.01), 5)
  for transfers, nbytes in per_step[2:]:
    assert transfers == 3
    assert batch_bytes < nbytes <= batch_bytes + 512
