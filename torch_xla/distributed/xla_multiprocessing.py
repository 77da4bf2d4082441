"""Multi-process replication (upstream name:
torch_xla.distributed.xla_multiprocessing, imported as xmp).

`spawn` starts one process per device of this host and calls
fn(index, *args) in each; torch_xla/_launch.py holds the design (worker
environment, how the processes meet, failure handling).
"""

from torch_xla._launch import WorkerFailedError, spawn  # noqa: F401


class MpModelWrapper:
  """Holds a model created once in the parent, for `spawn(...,
  start_method='fork')` (upstream API). Here workers never share memory with
  the launcher, so the wrapper only moves the model: `to(device)` returns
  the module moved to `device`."""

  def __init__(self, model):
    self._model = model

  def to(self, device):
    return self._model.to(device)

