"""Worker body for the multi-process SPMD test (test_pods_spmd.py): one
process of a job of 2 processes x 2 CPU devices, started as torchrun would
(RANK, WORLD_SIZE, ...; pods_util.start_job). Each process calls
xr.use_spmd(), builds a Mesh over all 4 devices of the job (global
ordinals, 0 1 on process 0 and 2 3 on process 1) and writes what it saw to
<outdir>/spmd_<rank>.json. The file name keeps pytest from collecting it.

What it checks (every value is known exactly: tensors are aranges):
* mark_sharding of a host tensor sends only this process's shards
  (OutboundData: 2 transfers of one shard each);
* its local shards hold the rows of this process's devices;
* a tensor whose local shards cover it (replicated, or split only along a
  mesh axis within the process) reads back; one split across the
  processes refuses with a clear error;
* MpDeviceLoader(input_sharding=) sends only this process's rows of the
  global batch;
* LoweringContext.device_parameter_id_tensor_mapping returns the sharded
  tensor itself (no transfer, no gather);
* executing the partitioned program raises the CPU plugin's limit.
"""

import json
import os
import sys

import torch

import torch_xla
import torch_xla.debug.metrics as met
import torch_xla.runtime as xr


def _outbound():
  data = met.metric_data("OutboundData")
  return (0, 0) if data is None else (int(data[0]), int(data[1]))


def _error(fn):
  try:
    fn()
  except Exception as e:  # the message is what the test pins
    return f"{type(e).__name__}: {e}"
  return "no error"


def _shards(t):
  """[(rows, values)] of this process's shards of a 2-d tensor."""
  import torch_xla.distributed.spmd as xs

  out = []
  for shard in xs.XLAShardedTensor(t).local_shards:
    rows = [shard.indices[0].start, shard.indices[0].stop]
    cols = [shard.indices[1].start, shard.indices[1].stop]
    out.append({"rows": rows, "cols": cols,
                "values": shard.unpadded_data.cpu().tolist()})
  return out


def spmd(rank, outdir):
  from torch_xla import _XLAC
  import torch_xla.distributed.parallel_loader as pl
  import torch_xla.distributed.spmd as xs

  xr.use_spmd()
  seen = {
      "process_index": xr.process_index(),
      "process_count": xr.process_count(),
      "global_runtime_device_count": xr.global_runtime_device_count(),
      "addressable_runtime_device_count":
          xr.addressable_runtime_device_count(),
      "spmd_device_count": _XLAC._xla_spmd_device_count(),
  }
  rows = xs.Mesh(range(4), (4, 1), ("data", "model"))
  grid = xs.Mesh(range(4), (2, 2), ("data", "model"))  # a row per process
  full = torch.arange(32, dtype=torch.float32).reshape(8, 4)

  # mark_sharding of a host tensor: only this process's 2 shards travel.
  met.clear_all()
  t = full.to("xla")
  seen["outbound_before_mark"] = _outbound()
  xs.mark_sharding(t, rows, ("data", None))
  seen["outbound_rows"] = _outbound()
  seen["rows_shards"] = _shards(t)
  seen["rows_read"] = _error(lambda: t.cpu())

  # Split only within the process (the 'model' axis): this process holds
  # every element, so the value reads back from its own shards.
  met.clear_all()
  inner = full.to("xla")
  xs.mark_sharding(inner, grid, (None, "model"))
  seen["outbound_inner"] = _outbound()
  seen["inner_read"] = inner.cpu().tolist()
  replicated = full.to("xla")
  xs.mark_sharding(replicated, rows, (None, None))
  seen["replicated_read"] = replicated.cpu().tolist()

  # The loader sends only this process's rows of the global batch.
  batch = (full * 10, torch.arange(8, dtype=torch.float32).reshape(8, 1))
  loader = pl.MpDeviceLoader([batch], torch_xla.device(),
                             input_sharding=xs.ShardingSpec(rows,
                                                            ("data", None)))
  met.clear_all()
  (x, y), = list(loader)
  seen["outbound_loader"] = _outbound()
  seen["loader_x_shards"] = _shards(x)
  seen["loader_y_shards"] = _shards(y)

  # The device-backed parameters of a lowered computation: the sharded
  # tensor itself, no transfer and no gather.
  ctx = _XLAC.lowering.LoweringContext("pods_spmd")
  ctx.build([t * 2])
  seen["hlo_has_sharding"] = "devices=[4,1]0,1,2,3" in ctx.hlo_text()
  met.clear_all()
  mapping = ctx.device_parameter_id_tensor_mapping()
  (mapped,) = [v for v in mapping.values() if tuple(v.shape) == (8, 4)]
  seen["mapping_inbound"] = met.metric_data("InboundData") is not None
  seen["mapping_gathers"] = met.counter_value("ReplicateShardedData") or 0
  seen["mapping_spec"] = _XLAC._get_xla_sharding_spec(mapped)
  seen["mapping_shards"] = _shards(mapped)

  # Running the partitioned program: the CPU plugin's limit, clearly.
  y2 = t * 2
  seen["execute"] = _error(lambda: torch_xla.sync())
  del y2
  seen["still_readable"] = _shards(t) == seen["rows_shards"]

  path = os.path.join(outdir, f"spmd_{rank}.json")
  with open(path + ".tmp", "w") as f:
    json.dump(seen, f)
  os.replace(path + ".tmp", path)


if __name__ == "__main__":
  spmd(int(os.environ.get("RANK", "0")), sys.argv[1])
