"""The gather/scatter/index ops cross from Python into C++ once per op
(issue 28): each rule checks eager's arguments and makes ONE _XLAC call
into its builder (ops/scatter_ops.h, ops/index_ops.h), which also registers
the device-side check of an index computed on the device
(python/device_checks.h). A rule that goes back to composing IR in Python,
or to registering its check by separate calls, fails here. Crossings are
counted with sys.setprofile, as calls of _XLAC functions while the op runs.

Values against eager: test/python/ops/test_gather_scatter.py,
test_indexing.py and the cases at the end of this file (in-place forms,
device-computed indices, bool and 0-d inputs); the device-side checks'
errors: test_device_index_checks.py."""

import pytest
import torch

import torch_xla
import torch_xla.core.xla_model as xm
from crossing_counter import crossings as _crossings

aten = torch.ops.aten
DEV = torch_xla.device()


def _inputs():
  torch.manual_seed(0)
  x = torch.randn(6, 5).to(DEV)
  # Computed on the device: the host does not know their range, so each
  # op registers a device-side check (inside its one call).
  elem = (torch.randint(0, 3, (4, 5)).to(DEV) * 2)
  rows = torch.tensor([1, 0, 2]).to(DEV) * 2
  mask = x > 0
  return x, elem, rows, mask


def _cases():
  x, elem, rows, mask = _inputs()
  src = torch.randn(4, 5).to(DEV)
  source = torch.randn(3, 5).to(DEV)
  one = torch.tensor(2.5).to(DEV)
  y = torch.randn(6, 5).to(DEV)  # the in-place ops' target
  elem5, rows5 = elem % 5, rows % 5
  mask_rows = mask[:, 0].clone()
  row = source[0].clone()
  three = source[0, :3].clone()
  many = torch.randn(30).to(DEV)
  return {
      "gather": (lambda: aten.gather(x, 1, elem5), "_gather"),
      "gather_dev_index": (lambda: aten.gather(x, 0, elem), "_gather"),
      "scatter_src": (lambda: x.scatter(0, elem, src), "_scatter"),
      "scatter_value": (lambda: aten.scatter(x, 0, elem, 1.5), "_scatter"),
      "scatter_": (lambda: y.scatter_(0, elem, src), "_scatter"),
      "scatter_reduce_add": (
          lambda: aten.scatter(x, 0, elem, src, reduce="add"), "_scatter"),
      "scatter_add": (lambda: aten.scatter_add(x, 0, elem, src), "_scatter"),
      "scatter_add_": (lambda: y.scatter_add_(0, elem, src), "_scatter"),
      "scatter_reduce_sum": (
          lambda: aten.scatter_reduce(x, 0, elem, src, "sum"),
          "_scatter_reduce"),
      "scatter_reduce_mean": (
          lambda: aten.scatter_reduce(x, 0, elem, src, "mean",
                                      include_self=False), "_scatter_reduce"),
      "index_select": (lambda: aten.index_select(x, 0, rows),
                       "_index_select"),
      "index_copy": (lambda: aten.index_copy(x, 0, rows, source),
                     "_index_copy"),
      "index_copy_": (lambda: y.index_copy_(0, rows, source), "_index_copy"),
      "index_add": (lambda: aten.index_add(x, 0, rows, source, alpha=2),
                    "_index_add"),
      "index_add_": (lambda: y.index_add_(0, rows, source), "_index_add"),
      "index_fill_scalar": (lambda: aten.index_fill(x, 0, rows, 3.0),
                            "_index_fill"),
      "index_fill_tensor": (lambda: aten.index_fill(x, 0, rows, one),
                            "_index_fill"),
      "index": (lambda: aten.index(x, [rows]), "_index"),
      "index_put": (lambda: aten.index_put(x, [rows], one), "_index_put"),
      "index_put_accumulate": (
          lambda: aten.index_put_(y, [None, rows5], one, True),
          "_index_put"),
      "index_put_mask": (lambda: y.index_put_((mask,), one),
                         "_masked_index_put"),
      "index_put_row_mask": (
          lambda: aten.index_put(x, [mask_rows], row, True),
          "_masked_index_put"),
      "take": (lambda: aten.take(x, elem), "_take"),
      "put": (lambda: aten.put(x, rows, three), "_put"),
      "put_accumulate_": (lambda: y.put_(rows, three, True), "_put"),
      "masked_scatter": (lambda: x.masked_scatter(mask, many),
                         "_masked_scatter"),
      "masked_scatter_": (lambda: y.masked_scatter_(mask, many),
                          "_masked_scatter"),
      "masked_scatter_backward": (
          lambda: aten.masked_scatter_backward(x, mask, [30]),
          "_masked_scatter_backward"),
      "index_reduce": (lambda: aten.index_reduce(x, 0, rows, source, "prod"),
                       "_index_reduce"),
      "index_reduce_": (lambda: y.index_reduce_(0, rows, source, "amax",
                                                include_self=False),
                        "_index_reduce"),
      "masked_fill_tensor": (lambda: x.masked_fill(mask, one),
                             "_masked_fill"),
  }


NAMES = sorted(_cases())


@pytest.mark.parametrize("name", NAMES)
def test_op_crosses_into_cpp_once(name):
  fn, binding = _cases()[name]
  result, names = _crossings(fn)
  assert names == [binding], f"{name}: {names}"
  assert result.device.type == "xla"
  xm.wait_device_ops()  # reads (and passes) the checks


def _grad_crossings(forward, x, grad):
  """The _XLAC calls of forward(x)'s backward alone."""
  out = forward(x)
  _, names = _crossings(
      lambda: torch.autograd.grad(out, x, grad, retain_graph=True))
  return names


def test_backward_rules_cross_once():
  x = torch.randn(6, 5).to(DEV).requires_grad_()
  elem = torch.randint(0, 5, (6, 5)).to(DEV) * 1
  rows = torch.tensor([1, 0, 2]).to(DEV) * 2
  # gather's backward: zeros, then one scatter_add.
  names = _grad_crossings(lambda t: t.gather(1, elem), x,
                          torch.ones(6, 5).to(DEV))
  assert names.count("_scatter") == 1 and len(names) == 2, names
  # index_select's backward: zeros, then one index_add.
  names = _grad_crossings(lambda t: t.index_select(0, rows), x,
                          torch.ones(3, 5).to(DEV))
  assert names.count("_index_add") == 1 and len(names) == 2, names
  xm.wait_device_ops()


def test_sync_read_and_wait_cross_once_each():
  x = torch.randn(3).to(DEV) + 1
  _, names = _crossings(lambda: torch_xla.sync())
  assert names.count("_device_checks_after_sync") == 1, names
  _, names = _crossings(lambda: x.cpu())
  assert names == ["_read_host"], names  # the checks read in the same call


def test_a_check_registered_inside_the_call_raises_at_the_sync():
  x = torch.randn(6, 5).to(DEV)
  bad = torch.tensor([1, 4]).to(DEV) * 2  # 8: out of range
  _, names = _crossings(lambda: aten.index_select(x, 0, bad))
  assert names == ["_index_select"]
  torch_xla.sync()  # this step is enqueued; its check is read later
  with pytest.raises(IndexError, match="index_select.*device-side index "
                     "check"):
    torch_xla.sync()
  torch_xla.sync()  # reported once, then forgotten
  xm.wait_device_ops()


# Values against eager for what test/python/ops does not cover.


def _close(xla, cpu):
  torch.testing.assert_close(xla.cpu(), cpu, equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.bool])
def test_scatter_family_values_match_eager(dtype):
  torch.manual_seed(1)
  x = torch.randn(5, 4).gt(0) if dtype == torch.bool else \
      (torch.randn(5, 4) * 5).to(dtype)
  src = torch.randn(3, 4).gt(0) if dtype == torch.bool else \
      (torch.randn(3, 4) * 5).to(dtype)
  idx = torch.randint(0, 5, (2, 4))
  xd, sd = x.to(DEV), src.to(DEV)
  idd = idx.to(DEV) * 1  # device-computed: checked on the device
  _close(xd.scatter_add(0, idd, sd), x.scatter_add(0, idx, src))
  _close(xd.clone().scatter_add_(0, idd, sd), x.clone().scatter_add_(0, idx,
                                                                      src))
  _close(xd.gather(0, idd), x.gather(0, idx))
  uniq = torch.tensor([[0, 1, 2, 3], [4, 3, 2, 1]])
  _close(xd.scatter(0, uniq.to(DEV), sd), x.scatter(0, uniq, src))
  _close(xd.clone().scatter_(0, uniq.to(DEV) * 1, 1),
         x.clone().scatter_(0, uniq, 1))
  if dtype != torch.bool:
    for include_self in (True, False):
      _close(xd.scatter_reduce(0, idd, sd, "sum", include_self=include_self),
             x.scatter_reduce(0, idx, src, "sum", include_self=include_self))
  if dtype == torch.float32:
    for include_self in (True, False):
      _close(xd.clone().scatter_reduce_(0, idd, sd, "mean",
                                        include_self=include_self),
             x.clone().scatter_reduce_(0, idx, src, "mean",
                                       include_self=include_self))
  xm.wait_device_ops()


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool])
def test_index_along_dim_values_match_eager(dtype):
  torch.manual_seed(2)
  x = torch.randn(5, 3).gt(0) if dtype == torch.bool else \
      (torch.randn(5, 3) * 5).to(dtype)
  source = torch.randn(2, 3).gt(0) if dtype == torch.bool else \
      (torch.randn(2, 3) * 5).to(dtype)
  idx = torch.tensor([4, 1])
  xd, sd, idd = x.to(DEV), source.to(DEV), idx.to(DEV) * 1
  _close(xd.index_select(1, idd % 3), x.index_select(1, idx % 3))
  _close(xd.index_copy(0, idd, sd), x.index_copy(0, idx, source))
  _close(xd.clone().index_copy_(0, idd, sd), x.clone().index_copy_(0, idx,
                                                                   source))
  alpha = True if dtype == torch.bool else 3
  _close(xd.index_add(0, idd, sd, alpha=alpha),
         x.index_add(0, idx, source, alpha=alpha))
  _close(xd.clone().index_add_(0, idd, sd), x.clone().index_add_(0, idx,
                                                                 source))
  value = False if dtype == torch.bool else 7
  neg = torch.tensor([-1, 0])
  _close(xd.index_fill(0, neg.to(DEV) * 1, value), x.index_fill(0, neg, value))
  _close(xd.clone().index_fill_(1, idd % 3, torch.tensor(value).to(DEV)),
         x.clone().index_fill_(1, idx % 3, torch.tensor(value)))
  xm.wait_device_ops()


def test_zero_dim_and_empty_index_values_match_eager():
  x = torch.tensor(3.0)
  i0 = torch.tensor([0])
  xd = x.to(DEV)
  _close(xd.index_copy(0, i0.to(DEV), torch.tensor(5.0).to(DEV)),
         x.index_copy(0, i0, torch.tensor(5.0)))
  _close(xd.index_add(0, i0.to(DEV), torch.tensor(2.0).to(DEV), alpha=2),
         x.index_add(0, i0, torch.tensor(2.0), alpha=2))
  _close(xd.index_fill(0, i0.to(DEV), 1.0), x.index_fill(0, i0, 1.0))
  _close(xd.gather(0, torch.tensor(0).to(DEV)), x.gather(0, torch.tensor(0)))
  y = torch.randn(3, 4)
  empty = torch.zeros(0, 4, dtype=torch.long)
  _close(y.to(DEV).gather(0, empty.to(DEV)), y.gather(0, empty))
  _close(y.to(DEV).scatter_add(0, empty.to(DEV), y.to(DEV)),
         y.scatter_add(0, empty, y))
  out = y.to(DEV)
  assert out.scatter(0, empty.to(DEV), 1.0) is not out


def test_masked_index_put_values_match_eager():
  torch.manual_seed(3)
  x = torch.randn(4, 3, 2)
  mask = torch.randn(4, 3) > 0
  row = torch.randn(2)
  xd = x.to(DEV)
  _close(xd.clone().index_put_((mask.to(DEV),), row.to(DEV)),
         x.clone().index_put_((mask,), row))
  _close(aten.index_put(xd, [mask.to(DEV)], row.to(DEV), True),
         aten.index_put(x, [mask], row, True))
  _close(aten.index_put(xd, [None, mask[0].to(DEV)], torch.tensor(2.0), False),
         aten.index_put(x, [None, mask[0]], torch.tensor(2.0), False))
  with pytest.raises(RuntimeError, match="shape mismatch"):
    xd.clone().index_put_((mask.to(DEV),), torch.randn(3).to(DEV))


def test_take_and_put_values_match_eager():
  torch.manual_seed(4)
  for dtype in (torch.float32, torch.bool):
    x = torch.randn(4, 3).gt(0) if dtype == torch.bool else torch.randn(4, 3)
    idx = torch.tensor([[0, -1], [5, 5]])
    src = torch.randn(2, 2).gt(0) if dtype == torch.bool else \
        torch.randn(2, 2)
    xd, idd, sd = x.to(DEV), idx.to(DEV) * 1, src.to(DEV)
    _close(xd.take(idd), x.take(idx))
    for accumulate in (False, True):
      if not accumulate:  # eager's order for a duplicate index is unspecified
        unique = torch.tensor([[0, -1], [5, 6]])
        _close(xd.put(unique.to(DEV) * 1, sd), x.put(unique, src))
      else:
        _close(xd.clone().put_(idd, sd, accumulate=True),
               x.clone().put_(idx, src, accumulate=True))
  empty = torch.zeros(0, dtype=torch.long)
  _close(torch.ones(3).to(DEV).take(empty.to(DEV)), torch.ones(3).take(empty))
  xm.wait_device_ops()


def test_masked_scatter_values_and_gradients_match_eager():
  torch.manual_seed(5)
  x = torch.randn(4, 5)
  mask = torch.randn(5) > 0  # broadcast over the rows
  source = torch.randn(6, 5)
  xd = x.to(DEV).requires_grad_()
  sd = source.to(DEV).requires_grad_()
  xc, sc = x.clone().requires_grad_(), source.clone().requires_grad_()
  out = xd.masked_scatter(mask.to(DEV), sd)
  want = xc.masked_scatter(mask, sc)
  _close(out, want.detach())
  g = torch.randn(4, 5)
  gx, gs = torch.autograd.grad(out, (xd, sd), g.to(DEV))
  wx, ws = torch.autograd.grad(want, (xc, sc), g)
  _close(gx, wx)
  _close(gs, ws)
  y = torch.randn(4, 5)
  _close(y.to(DEV).masked_scatter_(mask.to(DEV), source.to(DEV)),
         y.clone().masked_scatter_(mask, source))
  xm.wait_device_ops()


def test_masked_scatter_with_too_small_a_source_raises_at_the_read():
  x = torch.zeros(4).to(DEV)
  out = x.masked_scatter(torch.ones(4, dtype=torch.bool).to(DEV),
                         torch.ones(3).to(DEV))
  with pytest.raises(RuntimeError, match="masked_scatter: Number of "
                     "elements of source < number of ones in mask"):
    out.cpu()


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_index_reduce_values_match_eager(reduce):
  torch.manual_seed(6)
  idx = torch.tensor([0, 2, 2, 4])
  for dtype in (torch.float32, torch.int32):
    x = (torch.randn(5, 3) * 4).to(dtype)
    source = (torch.randn(4, 3) * 4).to(dtype)
    if dtype == torch.float32:
      source[1, 1] = float("nan")  # amax/amin propagate it
    for include_self in (True, False):
      got = x.to(DEV).index_reduce(0, idx.to(DEV) * 1, source.to(DEV), reduce,
                                   include_self=include_self)
      _close(got, x.index_reduce(0, idx, source, reduce,
                                 include_self=include_self))
  b = torch.randn(5, 3) > 0
  _close(b.to(DEV).index_reduce_(0, idx.to(DEV), b[:4].to(DEV), "amax"),
         b.clone().index_reduce_(0, idx, b[:4], "amax"))
  xm.wait_device_ops()
