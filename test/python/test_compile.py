"""torch_xla.compile: one graph per call, full_graph, max_different_graphs,
name; values against eager CPU."""

import os

import pytest
import torch

import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.debug.metrics as met

DEVICE = torch_xla.device()


def executions():
  return (met.counter_value("CachedCompile") or 0) + (
      met.counter_value("UncachedCompile") or 0)


@pytest.fixture(autouse=True)
def _clean():
  torch_xla.sync()
  met.clear_all()
  yield


def train_step_parts():
  torch.manual_seed(0)
  cpu = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh(),
                            torch.nn.Linear(8, 2))
  model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh(),
                              torch.nn.Linear(8, 2))
  model.load_state_dict(cpu.state_dict())
  model.to(DEVICE)
  return cpu, model


def make_step(model):
  opt = torch.optim.AdamW(model.parameters(), lr=0.05)

  def step(x, y):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    return loss

  return step


def test_training_step_is_one_graph_and_matches_eager():
  cpu, model = train_step_parts()
  cpu_step, step = make_step(cpu), torch_xla.compile(make_step(model),
                                                     full_graph=True,
                                                     name="train_step")
  data = [(torch.randn(4, 6), torch.randn(4, 2)) for _ in range(4)]
  for i, (x, y) in enumerate(data):
    x_dev, y_dev = x.to(DEVICE), y.to(DEVICE)
    before = executions()
    loss = step(x_dev, y_dev)
    # The call ran exactly one graph (the loss is already computed).
    assert executions() - before == 1
    assert "State: device data" in torch_xla._XLAC._get_xla_tensor_debug_info(
        loss)
    torch.testing.assert_close(loss.cpu(), cpu_step(x, y).detach())
  torch.testing.assert_close(model[0].weight.cpu(), cpu[0].weight.detach())
  # Steps 3 and 4 reused step 2's program.
  assert met.metric_data("ExecuteTime.train_step")[0] == 4
  assert met.metric_data("CompileTime.train_step")[0] <= 2


def test_decorator_forms_and_methods():

  @torch_xla.compile
  def plain(t):
    return torch.cos(torch.sin(t))

  @torch_xla.compile(full_graph=True)
  def with_options(t):
    return t * 2

  class Holder:

    @torch_xla.compile
    def method(self, t):
      return t + 1

  x = torch.randn(3, 3)
  xd = x.to(DEVICE)
  torch.testing.assert_close(plain(xd).cpu(), torch.cos(torch.sin(x)))
  torch.testing.assert_close(with_options(xd).cpu(), x * 2)
  torch.testing.assert_close(Holder().method(xd).cpu(), x + 1)
  assert plain.__name__ == "plain"


def test_context_manager_form():
  x = torch.randn(4).to(DEVICE)
  before = executions()
  with torch_xla.compile():
    y = x.exp()
    z = y * 3
  assert executions() - before == 1
  torch.testing.assert_close(z.cpu(), x.cpu().exp() * 3)


def test_full_graph_raises_at_the_read_naming_the_function():

  def branchy(t):
    if t[0] > 0:  # reads a value: a second graph
      return t.sin()
    return t.cos()

  compiled = torch_xla.compile(branchy, full_graph=True)
  with pytest.raises(RuntimeError, match=r"torch_xla.compile of 'branchy' "
                     r"with full_graph=True needs more than one graph") as info:
    compiled(torch.ones(3, device=DEVICE))
  # The traceback points at the read inside the function.
  assert any(entry.name == "branchy" for entry in info.traceback)
  # Executions are allowed again afterwards, and without full_graph the
  # same function runs (in two graphs).
  t = torch.ones(3, device=DEVICE)
  assert (t * 2).sum().item() == 6.0
  out = torch_xla.compile(branchy)(t)
  torch.testing.assert_close(out.cpu(), torch.ones(3).sin())


def test_full_graph_rejects_a_sync_inside():

  def syncs(t):
    u = t + 1
    torch_xla.sync()
    return u * 2

  with pytest.raises(RuntimeError, match="'syncs' with full_graph=True"):
    torch_xla.compile(syncs, full_graph=True)(torch.ones(2, device=DEVICE))


def test_max_different_graphs_new_shape():

  def double(t):
    return t + t

  compiled = torch_xla.compile(double, max_different_graphs=1)
  compiled(torch.rand(10, device=DEVICE))
  compiled(torch.rand(10, device=DEVICE))  # same graph: fine
  with pytest.raises(RuntimeError, match=(
      r"torch_xla.compile of 'double': max_different_graphs=1 exceeded: "
      r"this call would make graph 2, because argument 0 was a float32 "
      r"tensor of shape \[10\], now a float32 tensor of shape \[5\]")):
    compiled(torch.rand(5, device=DEVICE))


def test_max_different_graphs_control_flow():

  def branches(t, step):
    r = t * 3
    if step == 0:
      return r + 1
    if step == 1:
      return r * 2
    return r / 3

  compiled = torch_xla.compile(branches, max_different_graphs=2)
  t = torch.rand(4, device=DEVICE)
  for step in (0, 1, 0, 1):
    torch.testing.assert_close(compiled(t, step).cpu(), branches(t, step)
                               .cpu())
  with pytest.raises(RuntimeError, match=(
      r"'branches': max_different_graphs=2 exceeded: this call would make "
      r"graph 3, because argument 1 was 1, now 2")):
    compiled(t, 2)


def test_name_shows_in_dumps(tmp_path):
  code = ("import torch, torch_xla\n"
          "f = torch_xla.compile(lambda t: t * 5 + 1, name='my_step')\n"
          "f(torch.ones(3, device='xla'))\n")
  import subprocess
  import sys
  env = dict(os.environ, TORCH_XLA_DUMP_HLO_DIR=str(tmp_path))
  run = subprocess.run([sys.executable, "-c", code], env=env,
                       capture_output=True, text=True, timeout=300)
  assert run.returncode == 0, run.stderr[-3000:]
  dumps = sorted(os.listdir(tmp_path))
  assert any(name.startswith("my_step_") for name in dumps), dumps
  text = (tmp_path / [n for n in dumps if n.startswith("my_step_")][0]
         ).read_text()
  assert "module @my_step" in text


def test_compile_inside_eager_mode_is_one_graph():
  with torch_xla.experimental.eager_mode_context(True):
    t = torch.randn(5, 5, device=DEVICE)
    t *= 5
    met.clear_all()
    out = torch_xla.compile(lambda u: torch.cos(torch.sin(u)))(t)
    assert met.metric_data("ExecuteTime")[0] == 1
    assert "EagerOpExecuteTime" not in met.metric_names()
  torch.testing.assert_close(out.cpu(), torch.cos(torch.sin(t.cpu())))


def test_step_closures_of_the_previous_step_run_before_the_graph():
  seen = []
  t = torch.ones(2, device=DEVICE)
  xm.add_step_closure(lambda: seen.append("closure"))
  torch_xla.compile(lambda u: u * 2)(t)
  assert seen == ["closure"]


def test_bad_arguments():
  with pytest.raises(ValueError, match="max_different_graphs must be a "
                     "positive int"):
    torch_xla.compile(lambda t: t, max_different_graphs=0)
  with pytest.raises(NotImplementedError, match="custom_compile_options"):
    torch_xla.compile(lambda t: t, custom_compile_options={"a": 1})
