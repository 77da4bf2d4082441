"""Moving values between host and devices crosses into C++ once (issue 28 §1).

The upload of a cpu tensor (`.to('xla')`, `torch.tensor(data,
device='xla')`, `copy_` from cpu) is one `_XLAC` call that sends the bytes
and, for copy_, commits them into the destination: its data, not a graph
reading it, so under SPMD it stays on the host until a sharding is known
and only shards travel. A read (`.cpu()`, `.item()`, copy_ into a cpu
tensor) is one call that reads the pending device-side checks with the
value. copy_ / _to_copy between 'xla' devices copy device to device inside
their one call. fill_, masked_fill_, div_, index, index_select and
scatter_add cross once on every path. Each case checks the value against
eager CPU PyTorch; the upload cases also count the transfers and bytes
(torch_xla.debug.metrics).
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest
import torch

import torch_xla
import torch_xla.debug.metrics as met
from crossing_counter import crossings

DEV = torch_xla.device()


def _transfers():
  """(TransferToDeviceTime samples, OutboundData bytes) so far."""
  time = met.metric_data("TransferToDeviceTime")
  data = met.metric_data("OutboundData")
  return (0 if time is None else time[0], 0 if data is None else data[1])


def _measure(fn):
  """(result of fn(), its _XLAC calls, (transfers, bytes) it made)."""
  torch_xla.sync()
  before = _transfers()
  result, names = crossings(fn, warm=False)
  after = _transfers()
  return result, names, (after[0] - before[0], after[1] - before[1])


# --- uploads --------------------------------------------------------------

UPLOADS = [
    ("to_f32", lambda c: c.to(DEV), torch.randn(5, 7)),
    ("to_f16", lambda c: c.to(DEV, torch.float16), torch.randn(5, 7)),
    ("to_int64", lambda c: c.to(DEV), torch.randint(-9, 9, (6,))),
    ("to_bool", lambda c: c.to(DEV), torch.randn(3, 4) > 0),
    ("to_noncontiguous", lambda c: c.t().to(DEV), torch.randn(4, 6)),
    ("to_0dim", lambda c: c.to(DEV), torch.tensor(2.5)),
    ("to_empty", lambda c: c.to(DEV), torch.empty(0, 3)),
    ("torch_tensor", lambda c: torch.tensor(c.tolist(), device=DEV),
     torch.randn(3, 2)),
]


@pytest.mark.parametrize("name,fn,cpu", UPLOADS, ids=[u[0] for u in UPLOADS])
def test_upload_is_one_call_and_one_transfer(name, fn, cpu):
  out, names, (count, nbytes) = _measure(lambda: fn(cpu))
  assert names == ["_from_host"], names
  want = {"to_f16": cpu.to(torch.float16),
          "to_noncontiguous": cpu.t()}.get(name, cpu)
  assert out.device == DEV and out.dtype == want.dtype
  assert count == (1 if want.numel() else 0)
  assert nbytes == want.numel() * want.element_size()
  torch.testing.assert_close(out.cpu(), want, rtol=0, atol=0)


COPIES_FROM_HOST = [
    ("same_shape", torch.float32, lambda d: d, torch.randn(4, 6)),
    ("other_dtype", torch.float32, lambda d: d, torch.randn(4, 6).double()),
    ("int_from_float", torch.int32, lambda d: d, torch.randn(4, 6) * 9),
    ("broadcast_row", torch.float32, lambda d: d, torch.randn(6)),
    ("into_view", torch.float32, lambda d: d[1:3], torch.randn(2, 6)),
    ("into_transposed_view", torch.float32, lambda d: d.t(),
     torch.randn(6, 4)),
    ("noncontiguous_source", torch.float32, lambda d: d,
     torch.randn(6, 4).t()),
]


@pytest.mark.parametrize("name,dtype,part,cpu", COPIES_FROM_HOST,
                         ids=[c[0] for c in COPIES_FROM_HOST])
def test_copy_from_host_is_one_call(name, dtype, part, cpu):
  base = torch.randn(4, 6)
  dst = base.to(dtype).to(DEV)
  target = part(dst)
  _, names, (count, nbytes) = _measure(lambda: target.copy_(cpu))
  assert names == ["_copy_from_host"], names
  assert count == 1 and nbytes == cpu.numel() * target.element_size()
  expected = base.to(dtype)
  part(expected).copy_(cpu)
  torch.testing.assert_close(dst.cpu(), expected, rtol=0, atol=0)
  torch.testing.assert_close(target.cpu(), part(expected), rtol=0, atol=0)


def test_copy_from_host_of_a_wrong_shape_raises_eagers_error():
  dst = torch.zeros(4, 6, device=DEV)
  with pytest.raises(RuntimeError, match="expand|broadcast|size"):
    dst.copy_(torch.randn(3, 6))
  with pytest.raises(RuntimeError):
    torch.zeros(4, 6).copy_(torch.randn(3, 6))  # eager raises too


def test_copy_from_host_index_range_is_remembered():
  # The uploaded index's range is known on the host: an out-of-range index
  # raises at once, as eager does.
  x = torch.randn(5, device=DEV)
  idx = torch.zeros(3, dtype=torch.int64, device=DEV)
  idx.copy_(torch.tensor([0, 4, 7]))
  with pytest.raises(IndexError):
    x[idx]


def test_upload_to_a_missing_device_raises_before_sending():
  before = _transfers()
  with pytest.raises(RuntimeError, match="device xla:5 does not exist"):
    torch.randn(3).to("xla:5")
  assert _transfers() == before


def test_a_cpu_index_out_of_range_raises_at_once():
  x = torch.randn(4, 6, device=DEV)
  with pytest.raises(IndexError, match="out of bounds"):
    x[torch.tensor([1, 4])]
  with pytest.raises(IndexError, match="out of range"):
    x.index_select(1, torch.tensor([6]))
  torch.testing.assert_close(x[torch.tensor([], dtype=torch.int64)].cpu(),
                             torch.empty(0, 6))


# --- reads ----------------------------------------------------------------

def test_reads_are_one_call():
  cpu = torch.randn(4, 6)
  x = cpu.to(DEV) * 2
  torch_xla.sync()
  out, names = crossings(lambda: x.cpu(), warm=False)
  assert names == ["_read_host"], names
  torch.testing.assert_close(out, cpu * 2)
  out, names = crossings(lambda: x.to("cpu", torch.float64), warm=False)
  assert names == ["_read_host"], names
  torch.testing.assert_close(out, (cpu * 2).double())
  host = torch.empty(4, 6)
  _, names = crossings(lambda: host.copy_(x), warm=False)
  assert names == ["_read_host"], names
  torch.testing.assert_close(host, cpu * 2)
  s = x.sum()
  value, names = crossings(lambda: s.item(), warm=False)
  assert names == ["_read_host"], names
  assert isinstance(value, float)
  assert value == pytest.approx(float((cpu * 2).sum()), rel=1e-5)
  i = (x > 0).sum()
  value, names = crossings(lambda: i.item(), warm=False)
  assert names == ["_read_host"] and value == int((cpu > 0).sum())


def test_a_read_raises_a_failed_device_check_of_its_step():
  x = torch.randn(5, device=DEV)
  bad = torch.tensor([1, 3], device=DEV) * 3  # 9: out of range
  y = x.index_select(0, bad).sum()
  with pytest.raises(IndexError, match="index_select"):
    y.item()


# --- copies, conversions and fills on the device --------------------------

def _inputs():
  torch.manual_seed(0)
  cpu = {"x": torch.randn(4, 6), "y": torch.randn(4, 6) + 3,
         "m": torch.randn(4, 6) > 0, "i": torch.randint(0, 4, (3,)),
         "s": torch.randint(0, 4, (4, 6))}
  cpu["h"] = cpu["y"].half()
  cpu["r"] = cpu["y"][0].clone()
  cpu["mr"] = cpu["m"][0].clone()
  dev = {k: v.to(DEV) for k, v in cpu.items()}
  dev["ci"] = cpu["ci"] = torch.tensor([3, 0, 2])  # cpu indices, in both
  dev["cn"] = cpu["cn"] = torch.tensor([-1, 0, -4])
  return cpu, dev


# (id, op on (dst, inputs), expected _XLAC call); in-place ops get fresh
# clones of their target, made before counting.
ON_DEVICE = [
    ("copy_", lambda d, t: d.copy_(t["y"]), "_copy_"),
    ("copy_dtype", lambda d, t: d.copy_(t["h"]), "_copy_"),
    ("copy_broadcast", lambda d, t: d.copy_(t["r"]), "_copy_"),
    ("copy_cpu_scalar", lambda d, t: d.copy_(torch.tensor(1.5)), "_copy_"),
    ("fill_", lambda d, t: d.fill_(2.5), "_fill"),
    ("fill_cpu_tensor", lambda d, t: d.fill_(torch.tensor(-1.0)), "_fill"),
    ("zero_", lambda d, t: d.zero_(), "_fill"),
    ("masked_fill_", lambda d, t: d.masked_fill_(t["m"], 0.5),
     "_masked_fill"),
    ("masked_fill_broadcast_mask", lambda d, t: d.masked_fill_(t["mr"], 1.5),
     "_masked_fill"),
    ("div_", lambda d, t: d.div_(t["y"]), "_arithmetic_"),
    ("div_scalar", lambda d, t: d.div_(3.0), "_arithmetic_"),
    ("div_floor", lambda d, t: d.div_(t["y"], rounding_mode="floor"),
     "_division"),
    ("scatter_add_", lambda d, t: d.scatter_add_(0, t["s"], t["y"]),
     "_scatter"),
]


@pytest.mark.parametrize("name,fn,binding", ON_DEVICE,
                         ids=[c[0] for c in ON_DEVICE])
def test_in_place_op_is_one_call(name, fn, binding):
  cpu, dev = _inputs()
  dst = dev["x"].clone()
  out, names = crossings(lambda: fn(dst, dev), warm=False)
  assert names == [binding], names
  assert out is dst
  expected = fn(cpu["x"].clone(), cpu)
  torch.testing.assert_close(dst.cpu(), expected)


FUNCTIONAL = [
    ("to_dtype", lambda t: t["x"].to(torch.float16), "_to_dtype"),
    ("to_copy", lambda t: t["x"].to(t["x"].device, copy=True), "_to_dtype"),
    ("masked_fill", lambda t: t["x"].masked_fill(t["m"], t["y"][0, 0]),
     "_masked_fill"),
    ("index", lambda t: t["x"][t["i"]], "_index"),
    ("index_two", lambda t: t["x"][t["i"], t["i"] + 1], "_index"),
    ("index_select", lambda t: t["x"].index_select(1, t["i"]),
     "_index_select"),
    ("index_cpu_index", lambda t: t["x"][t["cn"]], "_index"),
    ("index_select_cpu_index", lambda t: t["x"].index_select(1, t["ci"]),
     "_index_select"),
    ("index_add_cpu_index",
     lambda t: t["x"].index_add(0, t["ci"], t["y"][:3]), "_index_add"),
    ("scatter_add", lambda t: t["x"].scatter_add(0, t["s"], t["y"]),
     "_scatter"),
]


@pytest.mark.parametrize("name,fn,binding", FUNCTIONAL,
                         ids=[c[0] for c in FUNCTIONAL])
def test_functional_op_is_one_call(name, fn, binding):
  cpu, dev = _inputs()
  # Operands derived inside fn (t["y"][0, 0], t["i"] + 1) are made first.
  if name == "masked_fill":
    scalar = dev["y"][0, 0]
    run = lambda: dev["x"].masked_fill(dev["m"], scalar)  # noqa: E731
  elif name == "index_add_cpu_index":
    rows = dev["y"][:3]
    run = lambda: dev["x"].index_add(0, dev["ci"], rows)  # noqa: E731
  elif name == "index_two":
    j = dev["i"] + 1
    run = lambda: dev["x"][dev["i"], j]  # noqa: E731
  else:
    run = lambda: fn(dev)  # noqa: E731
  out, names = crossings(run, warm=False)
  assert names == [binding], names
  torch.testing.assert_close(out.cpu(), fn(cpu))


def test_index_put_of_a_cpu_scalar_and_clones_are_one_call():
  cpu, dev = _inputs()
  dst = dev["x"].clone()
  value = torch.tensor(-2.0)  # a cpu 0-dim value: allowed, no device check
  _, names = crossings(lambda: dst.index_put_((dev["i"],), value),
                       warm=False)
  assert names == ["_index_put"], names
  expected = cpu["x"].clone().index_put_((cpu["i"],), value)
  torch.testing.assert_close(dst.cpu(), expected)
  # index_select of a 0-dim tensor is a clone of it: one call.
  s, idx = dev["y"][1, 2], torch.tensor([0], device=DEV)
  out, names = crossings(lambda: s.index_select(0, idx), warm=False)
  assert names == ["_to_dtype"], names
  assert out.dim() == 0 and float(out) == float(cpu["y"][1, 2])
  out.add_(1)
  assert float(s) == float(cpu["y"][1, 2])  # not an alias


# --- several devices, SPMD ------------------------------------------------

_CHILD = textwrap.dedent("""
    import json, os, sys
    import torch, torch_xla
    import torch_xla.debug.metrics as met
    import torch_xla.runtime as xr
    sys.path.insert(0, {here!r})
    from crossing_counter import crossings

    def transfers():
      t = met.metric_data("TransferToDeviceTime")
      b = met.metric_data("OutboundData")
      return [0 if t is None else t[0], 0 if b is None else b[1]]

    torch.manual_seed(0)
    cpu = torch.randn(xr.global_runtime_device_count() * 4, 8)
    report = {{}}
    if os.environ.get("XLA_USE_SPMD") == "1":
      import torch_xla.distributed.spmd as xs
      n = xr.global_runtime_device_count()
      t = torch.zeros(n * 4, 8, device=torch_xla.device())
      torch_xla.sync()
      met.clear_all()
      _, report["copy_names"] = crossings(lambda: t.copy_(cpu), warm=False)
      report["after_copy"] = transfers()
      xs.mark_sharding(t, xs.Mesh(range(n), (n,), ("x",)), ("x", None))
      torch_xla.sync()
      report["after_sync"] = transfers()
      report["equal"] = bool(torch.equal(t.cpu(), cpu))
    else:
      x0 = cpu.to("xla:0")
      torch_xla.sync()
      y, report["to_names"] = crossings(lambda: x0.to("xla:1", torch.float16),
                                        warm=False)
      report["to_device"] = str(y.device)
      report["to_equal"] = bool(torch.equal(y.cpu(), cpu.half()))
      d1 = torch.zeros(cpu.shape[0], 8, device="xla:1")
      _, report["copy_names"] = crossings(lambda: d1.copy_(x0), warm=False)
      report["copy_equal"] = bool(torch.equal(d1.cpu(), cpu))
    print(json.dumps(report))
""")


def _child(**env):
  code = _CHILD.format(here=os.path.dirname(os.path.abspath(__file__)))
  run = subprocess.run([sys.executable, "-c", code],
                       env=dict(os.environ, **env), capture_output=True,
                       text=True, timeout=300)
  assert run.returncode == 0, run.stderr[-3000:]
  return json.loads(run.stdout.strip().splitlines()[-1])


def test_copy_between_devices_is_one_call():
  report = _child(CPU_NUM_DEVICES="2")
  assert report["to_names"] == ["_to_dtype"], report
  assert report["to_device"] == "xla:1" and report["to_equal"]
  assert report["copy_names"] == ["_copy_"] and report["copy_equal"]


def test_spmd_copy_from_host_sends_only_shards():
  report = _child(CPU_NUM_DEVICES="4", XLA_USE_SPMD="1")
  assert report["copy_names"] == ["_copy_from_host"], report
  # The data stays on the host until its sharding is known...
  assert report["after_copy"] == [0, 0], report
  # ...then each of the 4 devices gets its quarter: the tensor's bytes
  # once, not 4 replicated copies.
  assert report["after_sync"] == [4, 16 * 8 * 4], report
  assert report["equal"]
