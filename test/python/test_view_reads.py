"""Reading a view whose root holds data (after a sync, views are
re-derived from their root; a fresh row or slice) picks the root's bytes on
the host: the values are eager's and no program is compiled or run
(tensor/views.h, ReadViewOnHost)."""

import pytest
import torch

import torch_xla
import torch_xla.debug.metrics as met

DEV = torch_xla.device()


def _read_without_running(t):
  met.clear_all()
  host = t.cpu()
  assert met.metric_data("ExecuteTime") is None
  assert met.counter_value("UncachedCompile") in (None, 0)
  return host


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64,
                                   torch.bool])
def test_permuted_views_read_on_the_host(dtype):
  base = (torch.randn(2, 3, 4) * 10).to(dtype)
  x = base.to(DEV)
  m = base[0].to(DEV)
  views = {
      "t": (m.t(), base[0].t()),
      "permute": (x.permute(2, 0, 1), base.permute(2, 0, 1)),
      "permute_of_permute": (x.permute(1, 2, 0).transpose(0, 2),
                             base.permute(1, 2, 0).transpose(0, 2)),
      "view_then_t": (x.view(6, 4).t(), base.view(6, 4).t()),
  }
  torch_xla.sync()
  for name, (got, want) in views.items():
    torch.testing.assert_close(_read_without_running(got), want, msg=name)


def test_a_linear_weight_gradient_reads_without_a_program():
  model = torch.nn.Linear(6, 3, bias=False)
  x = torch.randn(5, 6)
  model(x).square().sum().backward()
  want = model.weight.grad.clone()
  model.zero_grad()
  model.to(DEV)(x.to(DEV)).square().sum().backward()
  torch_xla.sync()
  torch.testing.assert_close(_read_without_running(model.weight.grad), want)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.bool])
def test_parts_of_a_root_read_on_the_host(dtype):
  base = (torch.randn(4, 3, 5) * 10).to(dtype)
  x = base.to(DEV)
  views = {
      "select": (lambda t: t[1]),
      "select_last_dim": (lambda t: t[..., 2]),
      "slice": (lambda t: t[:, 1:3]),
      "strided_slice": (lambda t: t[::2, :, 1::3]),
      "empty_slice": (lambda t: t[:, 2:2]),
      "select_then_t": (lambda t: t[1].t()),
      "expand": (lambda t: t[:, :1].expand(2, 4, 3, 5)),
      "narrow_of_permute": (lambda t: t.permute(2, 0, 1).narrow(1, 1, 2)),
  }
  got = {name: view(x) for name, view in views.items()}
  torch_xla.sync()
  for name, view in views.items():
    torch.testing.assert_close(
        _read_without_running(got[name]), view(base), msg=name)


def test_iterating_rows_compiles_nothing():
  # The pattern of upstream's compareResults: one read per row of a gradient.
  base = torch.randn(16, 8)
  x = base.to(DEV)
  torch_xla.sync()
  met.clear_all()
  rows = [row.cpu() for row in x]
  torch.testing.assert_close(torch.stack(rows), base)
  assert met.metric_data("CompileTime") is None
  assert met.metric_data("ExecuteTime") is None


def test_a_small_part_of_a_large_root_runs_a_program():
  # Over 16 MiB and over 4x the part: one program reads less than the root.
  base = torch.arange(5 << 20, dtype=torch.float32).reshape(5 << 10, 1 << 10)
  x = base.to(DEV)
  v = x[3]
  torch_xla.sync()
  met.clear_all()
  torch.testing.assert_close(v.cpu(), base[3])
  assert met.metric_data("ExecuteTime")[0] == 1


def test_a_view_of_a_root_written_since_runs_the_graph():
  x = torch.arange(12.).reshape(3, 4).to(DEV)
  v = x.t()
  torch_xla.sync()
  x.add_(1)  # the root is pending again: the view is computed
  torch.testing.assert_close(v.cpu(), torch.arange(12.).reshape(3, 4).t() + 1)
