"""torch.compile(backend='openxla'): dynamo captures whole graphs over
'xla' tensors (no graph breaks), each graph is staged once and replayed as
one call node; a training step gives eager's losses and nothing compiles
again after step 2 (torch_xla/_dynamo)."""

import copy

import torch
import torch.nn as nn

import torch_xla
import torch_xla.debug.metrics as met

DEV = torch_xla.device()


class Block(nn.Module):

  def __init__(self, d=16):
    super().__init__()
    self.norm = nn.LayerNorm(d)
    self.up = nn.Linear(d, 2 * d)
    self.down = nn.Linear(2 * d, d)

  def forward(self, x):
    return x + self.down(nn.functional.gelu(self.up(self.norm(x))))


class Net(nn.Module):

  def __init__(self):
    super().__init__()
    self.embed = nn.Embedding(32, 16)
    self.blocks = nn.ModuleList(Block() for _ in range(3))
    self.head = nn.Linear(16, 32)

  def forward(self, tokens):
    x = self.embed(tokens)
    for b in self.blocks:
      x = b(x)
    return self.head(x)


def test_training_losses_match_eager_and_nothing_recompiles_after_step_2():
  import torch._dynamo
  torch._dynamo.reset()
  torch.manual_seed(0)
  ref = Net()
  model = copy.deepcopy(ref).to(DEV)
  compiled = torch.compile(model, backend="openxla")
  opt = torch.optim.SGD(model.parameters(), lr=0.05)
  ref_opt = torch.optim.SGD(ref.parameters(), lr=0.05)
  loss_fn = nn.CrossEntropyLoss()
  counts = []
  torch._dynamo.utils.counters.clear()
  for step in range(5):
    tokens = torch.randint(0, 32, (4, 6))
    labels = torch.randint(0, 32, (4, 6))
    opt.zero_grad()
    loss = loss_fn(compiled(tokens.to(DEV)).view(-1, 32), labels.view(-1).to(DEV))
    loss.backward()
    opt.step()
    torch_xla.sync()
    ref_opt.zero_grad()
    want = loss_fn(ref(tokens).view(-1, 32), labels.view(-1))
    want.backward()
    ref_opt.step()
    torch.testing.assert_close(loss.item(), want.item(), rtol=1e-5, atol=1e-5)
    counts.append((met.counter_value("UncachedCompile"),
                   met.counter_value("AssumePureTrace"),
                   sum(torch._dynamo.utils.counters["stats"].values())))
  assert counts[1] == counts[-1], counts
  # One graph: no graph breaks (a forward and a backward, traced once each).
  assert dict(torch._dynamo.utils.counters["graph_break"]) == {}
  for p, q in zip(model.parameters(), ref.parameters()):
    torch.testing.assert_close(p.detach().cpu(), q.detach(), rtol=1e-4,
                               atol=1e-4)


def test_a_compiled_function_adds_one_node_per_call():
  import torch._dynamo
  from torch_xla import _XLAC
  torch._dynamo.reset()

  def chain(x, w):
    for _ in range(10):
      x = torch.tanh(x @ w)
    return x

  fn = torch.compile(chain, backend="openxla")
  x = torch.randn(4, 8)
  w = torch.randn(8, 8)
  got = fn(x.to(DEV), w.to(DEV))
  torch.testing.assert_close(got.cpu(), chain(x, w), rtol=1e-5, atol=1e-5)
  again = fn(got, w.to(DEV))
  # The second call is one call node over its inputs, not 20 ops.
  assert _XLAC._ir_node_count([again]) <= 4
  torch.testing.assert_close(again.cpu(), chain(chain(x, w), w), rtol=1e-5,
                             atol=1e-5)


class NormNet(nn.Module):
  """BatchNorm writes its running statistics in place during the forward."""

  def __init__(self):
    super().__init__()
    self.up = nn.Linear(8, 16)
    self.norm = nn.BatchNorm1d(16)
    self.down = nn.Linear(16, 4)

  def forward(self, x):
    return self.down(torch.relu(self.norm(self.up(x))))


def _op_rule_calls(fn):
  """How many functions of torch_xla/_ops (the per-op Python rules) run
  during fn()."""
  import sys
  count = 0

  def profile(frame, event, arg):
    nonlocal count
    if event == "call" and "/torch_xla/_ops/" in frame.f_code.co_filename:
      count += 1

  sys.setprofile(profile)
  try:
    fn()
  finally:
    sys.setprofile(None)
  return count


def test_a_whole_compiled_training_step_matches_eager_and_runs_no_op_rules():
  import torch._dynamo
  torch._dynamo.reset()
  torch.manual_seed(0)
  ref = NormNet()
  model = copy.deepcopy(ref).to(DEV)
  opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
  ref_opt = torch.optim.SGD(ref.parameters(), lr=0.05, momentum=0.9)

  def train_step(model, opt, x, y):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()  # writes the parameters and momentum buffers in place
    return loss

  compiled = torch.compile(train_step, backend="openxla")
  counts = []
  for step in range(5):
    x, y = torch.randn(6, 8), torch.randn(6, 4)
    loss = compiled(model, opt, x.to(DEV), y.to(DEV))
    torch_xla.sync()
    want = train_step(ref, ref_opt, x, y)
    torch.testing.assert_close(loss.item(), want.item(), rtol=1e-5, atol=1e-5)
    counts.append((met.counter_value("UncachedCompile"),
                   met.counter_value("AssumePureTrace"),
                   sum(torch._dynamo.utils.counters["stats"].values())))
  assert counts[1] == counts[-1], counts
  # Parameters, BatchNorm's running statistics and its step counter.
  for (name, got), want in zip(model.state_dict().items(),
                               ref.state_dict().values()):
    torch.testing.assert_close(got.cpu(), want, rtol=1e-4, atol=1e-4,
                               msg=name)
  for p, q in zip(model.parameters(), ref.parameters()):
    torch.testing.assert_close(
        opt.state[p]["momentum_buffer"].cpu(),
        ref_opt.state[q]["momentum_buffer"], rtol=1e-4, atol=1e-4)

  # A steady step runs the staged graphs, not the ops' Python rules (only
  # the ones_like of loss.backward()'s seed gradient); the same step run
  # lazily runs a rule for each op that has no C++ fast rule (fewer as ops
  # move to C++, but still several times the compiled step's few).
  x, y = torch.randn(6, 8).to(DEV), torch.randn(6, 4).to(DEV)
  compiled_calls = _op_rule_calls(lambda: compiled(model, opt, x, y))
  lazy_calls = _op_rule_calls(lambda: train_step(model, opt, x, y))
  torch_xla.sync()
  assert compiled_calls <= 10 < 30 < lazy_calls, (compiled_calls, lazy_calls)
