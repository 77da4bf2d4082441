"""torch.distributed's 'xla' backend over 4 processes x 1 CPU device:
init_process_group('xla', init_method='xla://'), dist.all_reduce /
all_gather / broadcast / barrier on 'xla' tensors (each worker checks exact
values), dist.new_group sub-groups ([1, 3] and [0, 1, 2]: all_reduce,
all_gather, broadcast, reduce_scatter, barrier among the members; a
non-member's tensor untouched), and
DistributedDataParallel(gradient_as_bucket_view=True) training as one
process on the whole batch. The same over 2 processes x 2 devices (a
replica thread per device, each a rank with its own process group), where
a sub-group's members meet on the host: groups within a process ([0, 1],
[2, 3]), across the processes ([0, 2], [1, 3], run at the same time) and
uneven ones ([0, 1, 2], [0, 1, 3]) give the exact values of 4 x 1
(pods_subgroup_cases.py), and DDP with process_group= a pair trains each
pair as eager on its half of the batch."""

import pytest
import torch

import torch_xla
import torch.distributed as dist

from pods_util import (check_pairs_train_as_eager,
                       check_trains_as_one_process, four_worker_launch,
                       two_by_two_launch)

WORKERS = 4


@pytest.fixture(scope="module")
def four_workers(tmp_path_factory):
  return four_worker_launch(tmp_path_factory)


@pytest.fixture(scope="module")
def two_by_two(tmp_path_factory):
  return two_by_two_launch(tmp_path_factory)


def _check_ddp(outdir):
  # On a mismatch the error explains the same launch's xm.optimizer_step
  # run stage by stage (pods_util.explain_dp_train).
  check_trains_as_one_process(outdir, "ddp", WORKERS)


def test_ddp_trains_as_one_process(four_workers):
  _check_ddp(four_workers)


def test_ddp_in_replica_threads_2x2(two_by_two):
  """torch_xla.launch of 2 processes x 2 devices: each replica thread calls
  init_process_group('xla', init_method='xla://') and is rank
  xr.global_ordinal() of 4 (the worker checks it); the dist collectives
  (sub-groups included) give exact values and DDP trains as one process on
  the whole batch."""
  _check_ddp(two_by_two)


def test_ddp_over_a_sub_group(four_workers, two_by_two):
  """DistributedDataParallel(process_group=dist.new_group([0, 1]) or
  ([2, 3])): each pair trains its own model on its half of the global batch
  as eager does, with one replica per process and with replica threads
  (2 x 2: each pair is one process's threads). The sub-group collectives
  before it give exact values in each worker (the launch fails otherwise),
  a non-member's tensor untouched."""
  check_pairs_train_as_eager(four_workers, WORKERS)
  check_pairs_train_as_eager(two_by_two, WORKERS)


def test_xla_backend_registers_in_one_process():
  import torch_xla.distributed.xla_backend  # noqa: F401

  assert "xla" in dist.Backend.backend_list
  dev = torch_xla.device()
  dist.init_process_group("xla", init_method="xla://")
  try:
    assert dist.get_world_size() == 1 and dist.get_rank() == 0
    assert dist.get_backend() == "xla"
    t = torch.arange(4.0, device=dev)
    dist.all_reduce(t, op=dist.ReduceOp.AVG)
    assert t.cpu().tolist() == [0.0, 1.0, 2.0, 3.0]
    outs = [torch.zeros(4, device=dev)]
    dist.all_gather(outs, t)
    assert outs[0].cpu().tolist() == [0.0, 1.0, 2.0, 3.0]
    dist.barrier()
    solo = dist.new_group([0])
    dist.all_reduce(t, op=dist.ReduceOp.SUM, group=solo)
    assert t.cpu().tolist() == [0.0, 1.0, 2.0, 3.0]
    flat = torch.zeros(4, device=dev)
    dist.all_gather_into_tensor(flat, t, group=solo)
    assert flat.cpu().tolist() == [0.0, 1.0, 2.0, 3.0]
  finally:
    dist.destroy_process_group()
