"""xm collectives and data-parallel training over several processes
(4 processes x 1 CPU device, started by torch_xla.launch), against the exact
values every worker can compute from all ranks' inputs and against one
process training on the whole batch; and their single-process meaning."""

import pytest
import torch

import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.runtime as xr

from pods_util import (check_pairs_train_as_eager,
                       check_trains_as_one_process, explain_dp_train,
                       four_worker_launch, results, run_threads,
                       two_by_two_launch)

WORKERS = 4


@pytest.fixture(scope="module")
def four_workers(tmp_path_factory):
  return four_worker_launch(tmp_path_factory)


def test_ordinals_4x1(four_workers):
  seen = results(four_workers, "ordinals", WORKERS)
  for i, p in enumerate(seen):
    assert p["device"] == "xla:0"
    assert p["world_size"] == WORKERS
    assert p["global_ordinal"] == i and p["local_ordinal"] == i
    assert p["process_index"] == i and p["process_count"] == WORKERS
    assert p["local_process_count"] == WORKERS
    assert p["addressable_runtime_device_count"] == 1
    assert p["global_runtime_device_count"] == WORKERS
    assert p["value"] == [i + 1.0] * 3
  ids = [d["id"] for d in seen[0]["global_devices"]]
  assert len(set(ids)) == WORKERS
  assert all(p["global_devices"] == seen[0]["global_devices"] for p in seen)


def test_collectives_exact_4x1(four_workers):
  # Each worker checked every collective against the exact answer (it
  # raises, failing the launch, on the first mismatch).
  assert all(r["ok"] for r in results(four_workers, "collectives", WORKERS))


def test_data_parallel_matches_one_process(four_workers):
  """xm.optimizer_step averages the gradients: 4 replicas on quarter
  batches train as one process on the whole batch."""
  check_trains_as_one_process(four_workers, "dp_train", WORKERS)
  _check_stages(four_workers)


def _check_stages(outdir):
  """Each step of each replica: the gradients it sent are eager's on its
  slice from the parameters it held, what it got back is the sum of what
  every replica sent times 1 / world size (bit for bit in the 2 x 2
  host route's fixed order ((g0 + g1) + (g2 + g3))), and its parameters
  moved by -lr times that."""
  lines = explain_dp_train(results(outdir, "dp_train", WORKERS))
  assert not [l for l in lines if "WRONG" in l], "\n".join(lines)


def test_all_reduce_moves_the_gradients_once(four_workers):
  """One gloo call per step carries exactly the gradient bytes (the
  gradients of one dtype travel as one buffer)."""
  for r in results(four_workers, "dp_train", WORKERS):
    for step in r["moved"]:
      assert step == {"payload_bytes": r["gradient_bytes"], "calls": 1}


def test_one_process_replica_threads(tmp_path):
  """1 process x 4 devices, a replica thread per device: the collectives
  lower into one replicated program (no transport) and give the same exact
  values and the same training as processes do. Each thread reads its own
  collective results (`.cpu()`), so the replicas' parts meet before one
  Execute runs them all. The training loop has no sync between backward()
  and xm.optimizer_step: the collective computes its inputs first, so
  backward's temporaries cannot make the replicas' programs differ (before
  that, 4 of 14 runs hung here; docs/pods.md). Each replica thread also
  calls init_process_group('xla') and is rank xr.global_ordinal() of 4 in
  a torch.distributed world of its own: the dist collectives give exact
  values, dist.new_group sub-groups meet their members only (on the host:
  exact values, non-members untouched), and DDP trains as one process on
  the whole batch, and over a pair group as eager on the pair's half."""
  replicas = 4
  run = run_threads("replica_threads_pods", tmp_path, replicas)
  assert run.returncode == 0, run.stderr[-4000:]
  assert all(r["ok"] for r in results(tmp_path, "collectives", replicas))
  check_trains_as_one_process(tmp_path, "dp_train", replicas)
  for r in results(tmp_path, "dp_train", replicas):
    assert all(step["calls"] == 0 for step in r["moved"])
  check_trains_as_one_process(tmp_path, "ddp", replicas)
  check_pairs_train_as_eager(tmp_path, replicas)


@pytest.fixture(scope="module")
def two_by_two(tmp_path_factory):
  return two_by_two_launch(tmp_path_factory)


def test_launch_2x2_matches_4x1(four_workers, two_by_two):
  """torch_xla.launch with CPU_NUM_DEVICES=4 PJRT_LOCAL_PROCESS_COUNT=2: 2
  processes x 2 devices, a replica thread per device in each. The replicas
  are global: fn(index) gets the global ordinal, and world size, global
  and local ordinals and the global device count are those of 4 x 1; the
  collectives take the hierarchical host route (local replicas meet, one
  gloo call between the processes) with the same exact values as 4 x 1
  (incl. groups that cross the processes), and xm.optimizer_step trains
  as one process on the whole batch with one gloo call of the gradient
  bytes per step."""
  four = results(four_workers, "ordinals", WORKERS)
  two = results(two_by_two, "ordinals", WORKERS)
  same = ("index", "world_size", "global_ordinal", "local_ordinal",
          "local_process_count", "global_runtime_device_count", "value")
  for a, b in zip(four, two):
    assert {k: a[k] for k in same if k != "local_process_count"} == \
        {k: b[k] for k in same if k != "local_process_count"}
  assert [p["process_index"] for p in two] == [0, 0, 1, 1]
  assert all(p["process_count"] == 2 and p["local_process_count"] == 2 and
             p["addressable_runtime_device_count"] == 2 for p in two)
  assert [d["process_index"] for d in two[0]["global_devices"]] == \
      [0, 0, 1, 1]
  assert all(r["ok"] for r in results(two_by_two, "collectives", WORKERS))
  check_trains_as_one_process(two_by_two, "dp_train", WORKERS)
  _check_stages(two_by_two)
  for r in results(two_by_two, "dp_train", WORKERS):
    for step in r["moved"]:
      assert step == {"payload_bytes": r["gradient_bytes"], "calls": 1}


@pytest.mark.parametrize("devices, processes, want", [
    ("4", None, (4, 1)), ("4", "2", (2, 2)), ("4", "1", (1, 4)),
    (None, None, (1, 1)),
])
def test_launch_layout(monkeypatch, devices, processes, want):
  from torch_xla import _launch

  for name, value in (("CPU_NUM_DEVICES", devices),
                      ("PJRT_LOCAL_PROCESS_COUNT", processes)):
    if value is None:
      monkeypatch.delenv(name, raising=False)
    else:
      monkeypatch.setenv(name, value)
  monkeypatch.setenv("PJRT_DEVICE", "CPU")
  assert _launch.layout() == want


def test_launch_layout_that_does_not_split(monkeypatch):
  from torch_xla import _launch

  monkeypatch.setenv("PJRT_DEVICE", "CPU")
  monkeypatch.setenv("CPU_NUM_DEVICES", "4")
  monkeypatch.setenv("PJRT_LOCAL_PROCESS_COUNT", "3")
  with pytest.raises(ValueError, match=r"CPU_NUM_DEVICES=4 devices do not "
                     r"split evenly over PJRT_LOCAL_PROCESS_COUNT=3"):
    _launch.layout()
  monkeypatch.setenv("PJRT_LOCAL_PROCESS_COUNT", "0")
  with pytest.raises(ValueError, match="PJRT_LOCAL_PROCESS_COUNT='0' must "
                     "be a positive integer"):
    _launch.layout()


# One process: a world of one replica.


def test_single_process_meanings():
  dev = torch_xla.device()
  x = torch.arange(6.0).reshape(2, 3)
  xx = x.to(dev)
  assert xr.world_size() == 1 and xm.get_ordinal() == 0
  torch.testing.assert_close(xm.all_reduce(xm.REDUCE_SUM, xx, scale=3.0).cpu(),
                             x * 3)
  out = [xx.clone()]
  assert xm.all_reduce(xm.REDUCE_MAX, out, scale=0.5) is out
  torch.testing.assert_close(out[0].cpu(), x * 0.5)
  torch.testing.assert_close(xm.all_gather(xx, dim=1).cpu(), x)
  torch.testing.assert_close(
      xm.reduce_scatter(xm.REDUCE_SUM, xx, 2.0, 0, 1).cpu(), x * 2)
  torch.testing.assert_close(xm.all_to_all(xx, 1, 0, 1).cpu(), x)
  torch.testing.assert_close(xm.collective_permute(xx, [[0, 0]]).cpu(), x)
  assert xm.rendezvous("t", b"p") == [b"p"]
  assert xm.mesh_reduce("m", 5, sum) == 5


def test_single_process_collectives_lower_into_the_step_program():
  """In one process the collectives are IR ops: StableHLO collectives with
  replica groups inside the step's one program, run by one execution."""
  import torch_xla.debug.metrics as met
  from torch_xla import _XLAC

  x = torch.arange(8.0).reshape(2, 4)
  xx = x.to(torch_xla.device())
  torch_xla.sync()
  met.clear_all()
  y = xm.all_reduce(xm.REDUCE_SUM, xx * 2, scale=0.5)
  g = xm.all_gather(y, dim=1)
  r = xm.reduce_scatter(xm.REDUCE_MAX, g, 1.0, 0, 1)
  a = xm.all_to_all(r, 1, 0, 1)
  p = xm.collective_permute(a, [[0, 0]])
  text = _XLAC._get_stablehlo([p]).decode()
  for op in ("all_reduce", "all_gather", "reduce_scatter", "all_to_all"):
    assert (f'"stablehlo.{op}"' in text and
            "replica_groups = dense<[[0]]> : tensor<1x1xi64>" in text), op
  assert "source_target_pairs = dense<[[0, 0]]>" in text
  assert met.metric_data("ExecuteTime") is None  # nothing ran yet
  torch_xla.sync()
  assert met.metric_data("ExecuteTime")[0] == 1
  torch.testing.assert_close(p.cpu(), x)
  zeros = xm.collective_permute(xx, [])
  assert zeros.cpu().tolist() == [[0.0] * 4] * 2


@pytest.mark.parametrize("call, message", [
    (lambda x: xm.all_reduce("avg", x),
     "all_reduce: unknown reduce_type 'avg'"),
    (lambda x: xm.all_reduce(xm.REDUCE_SUM, x, groups=[[0, 1]]),
     "all_reduce: groups [[0, 1]] name replica 1, but the world has 1"),
    (lambda x: xm.all_reduce(xm.REDUCE_SUM, [x, 3]),
     "all_reduce: inputs[1] must be a torch.Tensor, got int"),
    (lambda x: xm.reduce_scatter(xm.REDUCE_SUM, x, 1.0, 0, 2),
     "reduce_scatter: shard_count is 2 but the replica group [0] has 1"),
    (lambda x: xm.all_to_all(x, 0, 0, 3),
     "all_to_all: split_count is 3 but the replica group [0] has 1"),
    (lambda x: xm.collective_permute(x, [[0, 1]]),
     "collective_permute: pair [0, 1] is not [source, target]"),
    (lambda x: xm.all_gather(x.sum()),
     "all_gather: value is a scalar (0-d) tensor"),
])
def test_bad_arguments_name_what_is_wrong(call, message):
  x = torch.ones(2, 2, device=torch_xla.device())
  with pytest.raises((ValueError, TypeError), match=message.replace(
      "[", r"\[").replace("]", r"\]").replace("(", r"\(").replace(")", r"\)")):
    call(x)
