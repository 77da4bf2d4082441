"""Buffer donation: in-place updates reuse their input buffers, explicit
donors, clear errors after donation."""

import pytest
import torch

import torch_xla
import torch_xla.debug.metrics as met
from torch_xla import _XLAC

XLA = torch_xla.device()


def aliased():
  data = met.metric_data("InputOutputAliasCount")
  return 0 if data is None else int(data[1])


def test_in_place_updates_alias_their_buffers():
  t1 = torch.randn(4, 4).to(XLA)
  t2 = torch.randn(4, 4).to(XLA)
  e1, e2 = t1.cpu() * 2, t2.cpu() + 2
  torch_xla.sync()
  met.clear_all()
  t1 *= 2
  t2 += 2
  t3 = t1 + t2
  torch_xla.sync()
  assert aliased() == 2
  torch.testing.assert_close(t3.cpu(), e1 + e2)
  torch.testing.assert_close(t1.cpu(), e1)


def test_alias_count_is_recorded_when_a_graph_compiles():
  t = torch.zeros(8).to(XLA)
  torch_xla.sync()
  met.clear_all()
  t += 1
  torch_xla.sync()
  assert aliased() == 1
  t += 1  # the same graph: its compiled program (with the alias) is reused
  torch_xla.sync()
  assert aliased() == 1 and met.counter_value("CachedCompile") == 1
  torch.testing.assert_close(t.cpu(), torch.full((8,), 2.0))


def test_clone_of_an_updated_buffer_gets_a_copy_and_the_buffer_is_donated():
  t = torch.arange(6.0).to(XLA)
  torch_xla.sync()
  c = t.clone()  # shares t's buffer until the step
  d = t.clone()
  met.clear_all()
  t += 1
  torch_xla.sync()
  assert aliased() == 1
  torch.testing.assert_close(c.cpu(), torch.arange(6.0))
  torch.testing.assert_close(d.cpu(), torch.arange(6.0))
  torch.testing.assert_close(t.cpu(), torch.arange(6.0) + 1)
  # The clones own their copies now: updating one donates its own buffer.
  c *= 2
  torch_xla.sync()
  assert aliased() == 2
  torch.testing.assert_close(c.cpu(), torch.arange(6.0) * 2)
  torch.testing.assert_close(d.cpu(), torch.arange(6.0))


def test_clone_of_a_buffer_nobody_updates_is_not_copied():
  t = torch.arange(6.0).to(XLA)
  torch_xla.sync()
  c = t.clone()
  met.clear_all()
  torch_xla.sync()
  assert met.metric_data("ExecuteTime") is None  # shared, nothing ran
  torch.testing.assert_close(c.cpu(), t.cpu())


def test_index_copy_into_bf16_cache_aliases_once():
  cache_cpu = torch.zeros(16, 8, dtype=torch.bfloat16)
  cache = cache_cpu.to(XLA)
  torch_xla.sync()
  met.clear_all()
  for step in range(10):
    row = torch.full((1, 8), float(step + 1), dtype=torch.bfloat16)
    index = torch.tensor([step])
    cache_cpu.index_copy_(0, index, row)
    cache.index_copy_(0, index.to(XLA), row.to(XLA))
  torch_xla.sync()
  assert aliased() == 1
  torch.testing.assert_close(cache.cpu(), cache_cpu)


@pytest.mark.parametrize("make_optimizer", [
    lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
    lambda p: torch.optim.AdamW(p, lr=0.01),
],
                         ids=["sgd", "adamw"])
def test_optimizer_step_aliases_every_parameter_and_state(make_optimizer):
  torch.manual_seed(0)
  model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(),
                              torch.nn.Linear(8, 2)).to(XLA)
  optimizer = make_optimizer(model.parameters())
  x = torch.randn(5, 4).to(XLA)

  def step():
    optimizer.zero_grad()
    model(x).square().sum().backward()
    optimizer.step()
    torch_xla.sync()

  step()  # creates the optimizer state
  met.clear_all()
  _XLAC._clear_compile_cache()  # the steady step's graph compiles again
  step()
  params = list(model.parameters())
  state_tensors = [
      v for p in params for v in optimizer.state[p].values()
      if isinstance(v, torch.Tensor) and v.device.type == "xla"
  ]
  assert aliased() == len(params) + len(state_tensors)


def test_explicit_donor_is_deleted_and_reading_it_fails():
  t = torch.randn(16).to(XLA)
  expected = t.cpu() * 3
  torch_xla.sync()
  assert _XLAC._set_buffer_donation(t, True)
  assert _XLAC._get_buffer_donation(t)
  met.clear_all()
  with torch_xla.alias_with_buffer_donor_config(True) as previous:
    assert previous is False
    out = t * 3
    torch_xla.sync()
  assert not _XLAC._xla_get_enable_alias_with_buffer_donor_config()
  assert aliased() == 1
  torch.testing.assert_close(out.cpu(), expected)
  # Upstream reports a donated tensor as a placeholder: it has no data.
  assert _XLAC._is_placecholder(t)
  assert not _XLAC._is_placecholder(out)
  with pytest.raises(RuntimeError, match="donated"):
    t.cpu()
  with pytest.raises(RuntimeError, match="is deleted"):
    _XLAC._get_tensors_handle([t])


def test_alias_count_is_one_sample_per_compiled_graph():
  # As upstream: the sample is recorded when a graph compiles (its aliases
  # are part of the compiled program, and every execution of it donates).
  t = torch.zeros(8).to(XLA)
  u = torch.zeros(8).to(XLA)
  torch_xla.sync()
  met.clear_all()
  # Two in-place updates in one graph: one sample of 2.
  t += 1
  u += 1
  torch_xla.sync()
  # The same graph again: a cached compile, no sample.
  t += 1
  u += 1
  torch_xla.sync()
  # A new graph with nothing updated in place: a sample of 0.
  v = t * 2
  torch_xla.sync()
  # A sync with nothing pending compiles nothing: no sample.
  torch_xla.sync()
  count, total, samples = met.metric_data("InputOutputAliasCount")
  assert count == 2 and total == 2
  assert [value for _, value in samples] == [2, 0]
  assert met.counter_value("CachedCompile") == 1
  torch.testing.assert_close(v.cpu(), torch.full((8,), 4.0))


def test_set_buffer_donation_counter_counts_marks():
  a = torch.randn(4).to(XLA)
  b = torch.randn(4).to(XLA)
  torch_xla.sync()
  met.clear_counters()
  assert met.counter_value("XlaSetBufferDonation") in (None, 0)
  _XLAC._set_buffer_donation(a, True)
  _XLAC._set_buffer_donation(b, True)
  _XLAC._set_buffer_donation(a, True)  # marking again counts again
  _XLAC._set_buffer_donation(b, False)  # unmarking does not count
  assert met.counter_value("XlaSetBufferDonation") == 3
  assert "XlaSetBufferDonation" in met.counter_names()
  # A refused mark (no buffer yet) does not count either.
  with pytest.raises(RuntimeError, match="not device data"):
    _XLAC._set_buffer_donation(a + 1, True)
  assert met.counter_value("XlaSetBufferDonation") == 3
  _XLAC._set_buffer_donation(a, False)


def test_step_donates_a_marked_buffer_even_with_the_config_off():
  t0 = torch.randn(4, 4).to(XLA)
  t1 = torch.randn(4, 4).to(XLA)
  e2 = t0.cpu() + t1.cpu()
  torch_xla.sync()
  assert _XLAC._set_buffer_donation(t0, True)
  assert not _XLAC._xla_get_enable_alias_with_buffer_donor_config()
  met.clear_all()
  t2 = t0 + t1
  t1 += 2
  torch_xla.sync()
  assert aliased() == 2  # t1 in place, t0 as marked
  assert _XLAC._is_placecholder(t0)
  torch.testing.assert_close(t2.cpu(), e2)


def test_sync_multi_donates_marked_buffers_only_with_the_config_on():
  for config in (False, True):
    t0 = torch.randn(4, 4).to(XLA)
    t1 = torch.randn(4, 4).to(XLA)
    e1, e2 = t1.cpu() + 2, t0.cpu() + t1.cpu()
    torch_xla.sync()
    _XLAC._set_buffer_donation(t0, True)
    met.clear_all()
    with torch_xla.alias_with_buffer_donor_config(config):
      t2 = t0 + t1
      t1 += 2
      _XLAC._xla_sync_multi([t0, t1, t2], [str(XLA)], True, False)
    # A subset sync never aliases t1 in place; the mark counts with the
    # config on.
    assert aliased() == int(config)
    assert _XLAC._is_placecholder(t0) == config
    torch.testing.assert_close(t1.cpu(), e1)
    torch.testing.assert_close(t2.cpu(), e2)
    if not config:
      assert _XLAC._get_buffer_donation(t0)
      _XLAC._set_buffer_donation(t0, False)


def test_sync_multi_donates_the_old_buffer_of_a_marked_in_place_update():
  t0 = torch.randn(4, 4).to(XLA)
  expected = t0.cpu() * 2
  torch_xla.sync()
  _XLAC._set_buffer_donation(t0, True)
  met.clear_all()
  with torch_xla.alias_with_buffer_donor_config(True):
    t0 *= 2
    _XLAC._xla_sync_multi([t0], [str(XLA)], True, False)
  assert aliased() == 1
  assert not _XLAC._is_placecholder(t0)  # it holds its new value
  torch.testing.assert_close(t0.cpu(), expected)
  _XLAC._set_buffer_donation(t0, False)


def test_reads_never_donate_a_marked_buffer():
  import torch_xla.core.xla_model as xm
  t0 = torch.randn(8).to(XLA)
  torch_xla.sync()
  _XLAC._set_buffer_donation(t0, True)
  with torch_xla.alias_with_buffer_donor_config(True):
    t1 = t0 + 1
    cpu = xm._to_cpu_tree([t1])  # xm.save's read
    assert not _XLAC._is_placecholder(t0)
    t2 = t0 * 3
    t2.cpu()
    assert not _XLAC._is_placecholder(t0)
  torch.testing.assert_close(cpu[0], t0.cpu() + 1)
  _XLAC._set_buffer_donation(t0, False)


def bytes_to_device():
  data = met.metric_data("OutboundData")
  return 0 if data is None else int(data[1])


def test_a_read_only_fill_travels_as_one_element():
  x = torch.randn(256, 64).to(XLA)
  torch_xla.sync()
  met.clear_all()
  z = torch.zeros(256, 64, device=XLA)  # made, not sent
  full = torch.full((256, 64), 0.5, device=XLA)
  y = x * full + z
  assert "broadcast_in_dim" in _XLAC._get_stablehlo([y]).decode()
  torch_xla.sync()
  assert bytes_to_device() == 2 * 4  # two f32 scalars, not 2 x 64 KiB
  torch.testing.assert_close(y.cpu(), x.cpu() * 0.5)
  # After the sync the live fills are device data (made on the device by
  # that step), so later graphs read them as buffers.
  for t in (z, full):
    assert "Data Handle: " in _XLAC._get_xla_tensor_debug_info(t)
  assert "broadcast_in_dim" not in _XLAC._get_stablehlo([x * full]).decode()


def test_a_fill_updated_in_place_stays_full_size_and_aliases():
  # Optimizer state made in the first step (zeros_like, then updated in
  # place) must lower as in the later steps, where it is device data.
  g = torch.randn(256).to(XLA)
  torch_xla.sync()
  hashes = []
  state = torch.zeros(256, device=XLA)
  for _ in range(2):
    state.mul_(0.9).add_(g)
    hashes.append(_XLAC._get_graph_hash([state]))
    met.clear_all()
    torch_xla.sync()
    # The alias is in the compiled program (recorded once, when it compiles).
    assert aliased() == (1 if len(hashes) == 1 else 0)
    assert (met.counter_value("CachedCompile") or 0) == len(hashes) - 1
  assert hashes[0] == hashes[1]
  torch.testing.assert_close(state.cpu(), g.cpu() * 1.9)


_STEP_MODULE = r"""
import glob, os, sys
import torch, torch_xla
dev = torch_xla.device()
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(),
                            torch.nn.Linear(512, 128)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(32, 256).to(dev), torch.randn(32, 128).to(dev)
torch_xla.sync()
before = set(glob.glob(os.path.join(sys.argv[1], "*.mlir")))
for _ in range(2):  # the second step updates donated weights
  opt.zero_grad()
  torch.nn.functional.mse_loss(model(x), y).backward()
  opt.step()
  torch_xla.sync()
new = sorted(set(glob.glob(os.path.join(sys.argv[1], "*.mlir"))) - before,
             key=lambda p: int(p.rsplit("_", 1)[1].split(".")[0]))
print(new[-1])
"""


def test_a_training_step_updates_its_weights_without_copying_them(tmp_path):
  """The backward reads each weight (grad_input = grad @ W) independently of
  the optimizer's in-place update; the lowering orders the update after it,
  so XLA's optimized program holds no copy of a donated weight."""
  import subprocess
  import sys
  env = dict(__import__("os").environ, TORCH_XLA_DUMP_HLO_DIR=str(tmp_path))
  out = subprocess.run([sys.executable, "-c", _STEP_MODULE, str(tmp_path)],
                       env=env, capture_output=True, text=True, check=True)
  text = open(out.stdout.strip().splitlines()[-1]).read()
  assert text.count("tf.aliasing_output") == 4, text[:400]
  assert "stablehlo.optimization_barrier" in text
  fmt, program = _XLAC._runtime.compile(text).optimized_program()
  # HloInstructionProto field 2 (opcode) == "copy"
  assert program.count(b"\x12\x04copy") == 0
