"""Eager mode: each op runs at once (one cached program per op and
signature); values and a training loop match eager CPU; torch_xla.compile
inside it is still one graph."""

import pytest
import torch

import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.debug.metrics as met
from torch_xla.experimental import eager_mode, eager_mode_context, is_eager_mode

DEVICE = torch_xla.device()


def count(name):
  data = met.metric_data(name)
  return 0 if data is None else data[0]


def state(t):
  return torch_xla._XLAC._get_xla_tensor_debug_info(t)


@pytest.fixture(autouse=True)
def _eager():
  torch_xla.sync()
  with eager_mode_context(True):
    met.clear_all()
    yield
  assert not is_eager_mode()


def test_each_op_runs_at_once_and_programs_are_cached():
  t1 = torch.randn(5, 5, device=DEVICE)
  assert "State: device data" in state(t1)
  met.clear_all()
  t2 = torch.logsumexp(t1, 0)
  assert "State: device data" in state(t2)
  assert count("EagerOpCompileTime") == 1
  assert count("EagerOpExecuteTime") == 1
  t3 = torch.logsumexp(t1 + 1, 0)  # add: a new program; logsumexp: cached
  assert count("EagerOpCompileTime") == 2
  assert count("EagerOpExecuteTime") == 3
  torch.testing.assert_close(t3.cpu(), torch.logsumexp(t1.cpu() + 1, 0))
  # A new shape is a new signature.
  torch.logsumexp(torch.randn(3, 2, device=DEVICE), 0)
  assert count("EagerOpCompileTime") >= 3


def test_in_place_updates_run_and_views_write_back():
  t = torch.zeros(4, 4, device=DEVICE)
  t.add_(2)
  assert "State: device data" in state(t)
  row = t[1]
  row.mul_(3)  # through a view: the root is computed too
  assert "State: device data" in state(t)
  expected = torch.full((4, 4), 2.0)
  expected[1] *= 3
  torch.testing.assert_close(t.cpu(), expected)


def test_random_ops_draw_new_values_without_recompiling():
  torch.randn(12, 13, device=DEVICE)
  compiled = count("EagerOpCompileTime")
  a = torch.randn(12, 13, device=DEVICE)
  b = torch.randn(12, 13, device=DEVICE)
  assert count("EagerOpCompileTime") == compiled
  assert not torch.allclose(a.cpu(), b.cpu())
  torch.manual_seed(1234)
  c = torch.randn(12, 13, device=DEVICE)
  torch.manual_seed(1234)
  torch.testing.assert_close(torch.randn(12, 13, device=DEVICE).cpu(), c.cpu())


def test_training_loop_matches_eager_cpu():
  torch.manual_seed(0)
  cpu = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(),
                            torch.nn.Linear(8, 1))
  model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(),
                              torch.nn.Linear(8, 1))
  model.load_state_dict(cpu.state_dict())
  model.to(DEVICE)
  opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
  cpu_opt = torch.optim.SGD(cpu.parameters(), lr=0.1, momentum=0.9)
  for _ in range(3):
    x, y = torch.randn(4, 6), torch.randn(4, 1)
    for m, o, xx, yy in ((cpu, cpu_opt, x, y),
                         (model, opt, x.to(DEVICE), y.to(DEVICE))):
      o.zero_grad()
      loss = torch.nn.functional.mse_loss(m(xx), yy)
      loss.backward()
      o.step()
    # Nothing is left pending: every op ran.
    assert "State: device data" in state(model[0].weight)
  torch.testing.assert_close(model[0].weight.cpu(), cpu[0].weight.detach())
  torch.testing.assert_close(model[2].bias.cpu(), cpu[2].bias.detach())


def test_compile_inside_eager_mode_traces_one_graph():
  t = torch.randn(5, 5, device=DEVICE)
  met.clear_all()
  out = torch_xla.compile(lambda u: torch.cos(torch.sin(u)) * 2)(t)
  assert count("ExecuteTime") == 1
  assert count("EagerOpExecuteTime") == 0
  assert is_eager_mode()
  torch.testing.assert_close(out.cpu(), torch.cos(torch.sin(t.cpu())) * 2)


def test_switching_off_returns_to_lazy_tracing():
  eager_mode(False)
  try:
    t = torch.ones(3, device=DEVICE) * 2
    assert "State: device data" not in state(t)
    torch_xla.sync()
    assert "State: device data" in state(t)
  finally:
    eager_mode(True)
  with eager_mode_context(False) as previous:
    assert previous is True and not is_eager_mode()
  assert is_eager_mode()


def test_upstream_entry_points():
  assert torch_xla.experimental.is_eager_mode()
  assert torch_xla.experimental.eager_mode is eager_mode
  xm.mark_step()  # a no-op sync in eager mode


def test_optimization_barrier_runs_eagerly():
  t = torch.randn(5, 5, device=DEVICE)
  met.clear_all()
  xm.optimization_barrier_([t])
  assert "State: device data" in state(t)
  assert count("EagerOpExecuteTime") == 1
