"""Background data upload to XLA devices (upstream name:
torch_xla.distributed.parallel_loader, imported as pl).

High level design
-----------------
`ParallelLoader(loader, devices)` reads batches from a host loader (a
`torch.utils.data.DataLoader` or any iterable) on one thread and moves them
to the devices on `host_to_device_transfer_threads` threads per device, so
the next batches travel while the current step traces and runs. Batch `i`
goes to `devices[i % len(devices)]`; a trailing group of fewer than
`len(devices)` batches is dropped, so every device gets the same count.
`per_device_loader(device)` is the iterator a training loop reads.
`MpDeviceLoader(loader, device)` is the one-device form training scripts
use: each `iter()` starts a fresh `ParallelLoader`.

Moving a batch is `xm.send_cpu_data_to_device`: every tensor leaf of the
batch (dicts, lists, tuples, named tuples, nested) goes to the device;
other leaves pass through untouched. Under SPMD, `input_sharding` (an
`xs.ShardingSpec`, or a dict of them by batch key) shards each tensor as it
arrives, the same shard-only transfer as `mark_sharding`: data stays on the
host until its sharding is known, then each device receives only its shard.

The step boundary: as upstream, reading the next batch first runs
`torch_xla.sync()` (every `batches_per_execution` batches), which ends the
previous step and runs its step closures; so does the end of the data.
A loop that compiles its step with `torch_xla.compile` has nothing left
pending there.

Threads and failure: the threads share a small state object, never the
loader objects, so dropping the iterator (or closing it, or reaching the
end) stops them; every wait is on a condition that closing wakes. An
exception in the host loader or in a transfer is delivered to the reader
in its batch's position and re-raised there, with its traceback. Batches
keep their order whatever the number of transfer threads.

Deliberate difference from upstream: `MpDeviceLoader` checks its options
when it is built (upstream only when iterated), and a spec of
another rank than its batch raises `ValueError` naming the key. Uneven
batches are padded per device, as mark_sharding pads them.
"""

import inspect
import threading
import weakref

import torch

import torch_xla

__all__ = ["ParallelLoader", "PerDeviceLoader", "MpDeviceLoader"]


class _Failure:
  """An exception raised on a loader thread, delivered in a batch's place."""

  def __init__(self, error: BaseException):
    self.error = error


class _Closed(Exception):
  """The loader was closed while a thread waited."""


class _OrderedSlots:
  """A bounded queue of sequence-numbered items, read in sequence order.

  Writers put item `seq` once `seq < next + capacity` (`next`: the next
  sequence the reader wants), so at most `capacity` items wait and the one
  the reader needs can always be put. `end` is the sequence count once the
  writers know it. close() wakes everybody; waits then raise _Closed.
  """

  def __init__(self, capacity: int, cond: threading.Condition):
    self._capacity = max(1, int(capacity))
    self._cond = cond
    self._items = {}
    self._next = 0
    self.end = None
    self.closed = False

  def put(self, seq: int, item) -> None:
    with self._cond:
      while seq >= self._next + self._capacity and not self.closed:
        self._cond.wait()
      if self.closed:
        raise _Closed()
      self._items[seq] = item
      self._cond.notify_all()

  def set_end(self, end: int) -> None:
    with self._cond:
      self.end = end
      self._cond.notify_all()

  def get(self):
    """The next item in order; StopIteration after the last one."""
    with self._cond:
      while True:
        if self._next in self._items:
          item = self._items.pop(self._next)
          self._next += 1
          self._cond.notify_all()
          return item
        if self.closed or (self.end is not None and self._next >= self.end):
          raise StopIteration
        self._cond.wait()


class _State:
  """What the threads share: the host-side and device-side slots of each
  device, and the stop flag. Holds no reference to the loader objects."""

  def __init__(self, num_devices: int, loader_prefetch_size: int,
               device_prefetch_size: int):
    self.cond = threading.Condition()
    self.host = [_OrderedSlots(loader_prefetch_size, self.cond)
                 for _ in range(num_devices)]
    self.device = [_OrderedSlots(device_prefetch_size, self.cond)
                   for _ in range(num_devices)]
    # Per device: the next host item a transfer thread takes.
    self.claimed = [0] * num_devices
    self.closed = False

  def close(self) -> None:
    with self.cond:
      self.closed = True
      for slots in self.host + self.device:
        slots.closed = True
      self.cond.notify_all()

  def claim(self, index: int):
    """(seq, host batch) for a transfer thread of device `index`, or None
    when the data or the loader ended."""
    host = self.host[index]
    with self.cond:
      while True:
        seq = self.claimed[index]
        if self.closed:
          return None
        if seq in host._items:
          self.claimed[index] += 1
          item = host._items.pop(seq)
          host._next = seq + 1
          self.cond.notify_all()
          return seq, item
        if host.end is not None and seq >= host.end:
          return None
        self.cond.wait()


def _read_host_batches(state: _State, cpu_loader) -> None:
  """Loader thread: batch i -> host slots of device i % n."""
  n = len(state.host)
  count = 0
  try:
    iterator = iter(cpu_loader)
    pending = []
    while not state.closed:
      try:
        batch = next(iterator)
      except StopIteration:
        break
      pending.append(batch)
      if len(pending) == n:
        for index, item in enumerate(pending):
          state.host[index].put(count, item)
        pending = []
        count += 1
  except _Closed:
    return
  except BaseException as error:  # delivered to every reader
    for index in range(n):
      try:
        state.host[index].put(count, _Failure(error))
      except _Closed:
        return
    count += 1
  for slots in state.host:
    slots.set_end(count)


def _transfer_batches(state: _State, index: int, device, send) -> None:
  """Transfer thread: host batches of one device -> device slots."""
  while True:
    claimed = state.claim(index)
    if claimed is None:
      break
    seq, item = claimed
    if not isinstance(item, _Failure):
      try:
        with torch.no_grad():
          item = send(item, device)
      except BaseException as error:
        item = _Failure(error)
    try:
      state.device[index].put(seq, item)
    except _Closed:
      return
  with state.cond:
    # The last transfer thread of this device to finish ends its slots.
    slots = state.device[index]
    if slots.end is None and state.host[index].end is not None:
      slots.end = state.host[index].end
    state.cond.notify_all()


def _to_device(tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
  """A CPU tensor's copy on `device`, made whole before any other thread can
  see it (a loader thread runs while the training thread syncs)."""
  if tensor.device.type != "cpu" or tensor.requires_grad:
    return tensor.to(device)
  from torch_xla._ops.copy_ops import from_host
  return from_host(tensor, device.index or 0)


def _describe_key(path) -> str:
  return "batch" + "".join(f"[{key!r}]" for key in path)


def _check_fits(tensor: torch.Tensor, spec, path) -> None:
  """ValueError naming the key when `spec` cannot shard `tensor`: a spec
  with another rank. A dimension its tiles do not divide is fine: its
  shards are padded, as mark_sharding pads them (docs/spmd.md)."""
  partition = tuple(spec.partition_spec)
  if len(partition) != tensor.dim():
    raise ValueError(
        f"input_sharding {partition} does not fit {_describe_key(path)}: "
        f"the spec has {len(partition)} entries but the tensor has rank "
        f"{tensor.dim()} (shape {tuple(tensor.shape)}); give one entry per "
        f"dimension (None keeps a dimension whole), or a dict of specs by "
        f"batch key")


def _send_tree(data, device, sharding, path=()):
  """`data` with its tensor leaves on `device` (sharded by `sharding`: a
  ShardingSpec, a dict of them by key, or None)."""
  if isinstance(data, torch.Tensor):
    moved = _to_device(data, device)
    if sharding is not None:
      _check_fits(data, sharding, path)
      with torch_xla._live_tensors_lock:  # not during a sync's read of it
        sharding.apply(moved)
    return moved
  if isinstance(data, dict):
    items = []
    for key, value in data.items():
      spec = sharding
      if isinstance(sharding, dict):
        if key not in sharding and _has_tensor(value):
          raise KeyError(
              f"input_sharding has no entry for {_describe_key(path + (key,))}"
              f"; its keys are {sorted(map(str, sharding))} (map a key to "
              f"None to send it replicated)")
        spec = sharding.get(key)
      items.append((key, _send_tree(value, device, spec, path + (key,))))
    try:
      return type(data)(items)
    except TypeError:  # e.g. defaultdict: keep its factory
      out = data.copy()
      out.update(items)
      return out
  if isinstance(sharding, dict):
    if isinstance(data, (list, tuple)) and not hasattr(data, "_fields"):
      return type(data)(_send_tree(v, device, sharding, path + (i,))
                        for i, v in enumerate(data))
    if not _has_tensor(data):
      return data
    raise ValueError(
        f"input_sharding is a dict of specs by key, but {_describe_key(path)}"
        f" is a {type(data).__name__}, not a dict; give one ShardingSpec "
        f"for all tensors, or batches that are dicts")
  if isinstance(data, tuple) and hasattr(data, "_fields"):
    return type(data)(*(_send_tree(v, device, sharding, path + (f,))
                        for f, v in zip(data._fields, data)))
  if isinstance(data, (list, tuple)):
    return type(data)(_send_tree(v, device, sharding, path + (i,))
                      for i, v in enumerate(data))
  return data


def _has_tensor(data) -> bool:
  if isinstance(data, torch.Tensor):
    return True
  if isinstance(data, dict):
    return any(_has_tensor(v) for v in data.values())
  if isinstance(data, (list, tuple)):
    return any(_has_tensor(v) for v in data)
  return False


class ParallelLoader:
  """Wraps a host data loader; background threads move its batches to the
  devices.

  Args:
    cpu_loader: an iterable of batches (e.g. a torch DataLoader). A batch is
      a tensor or a tree (dict, list, tuple) of them; other leaves pass
      through untouched.
    devices: the devices; batch i goes to devices[i % len(devices)].
    batchdim: the batch dimension (kept for upstream compatibility).
    batches_per_execution: read batches per `torch_xla.sync()` the
      iterator runs (1: one sync, the step boundary, per batch).
    loader_prefetch_size: host batches read ahead, per device.
    device_prefetch_size: batches already on the device waiting to be read,
      per device.
    host_to_device_transfer_threads: transfer threads per device.
    input_sharding: under SPMD, an `xs.ShardingSpec` for every tensor of
      the batch, or a dict {batch key: ShardingSpec or None}.

  Example:
    para_loader = pl.ParallelLoader(train_loader, [device])
    for data, target in para_loader.per_device_loader(device):
      ...
  """

  def __init__(self, cpu_loader, devices, batchdim: int = 0,
               batches_per_execution: int = 1,
               loader_prefetch_size: int = 16,
               device_prefetch_size: int = 8,
               host_to_device_transfer_threads: int = 1,
               input_sharding=None):
    self._cpu_loader = cpu_loader
    self._devices = [torch.device(d) for d in devices]
    if not self._devices:
      raise ValueError("ParallelLoader: devices is empty")
    for name, value in (("batches_per_execution", batches_per_execution),
                        ("loader_prefetch_size", loader_prefetch_size),
                        ("device_prefetch_size", device_prefetch_size),
                        ("host_to_device_transfer_threads",
                         host_to_device_transfer_threads)):
      if not isinstance(value, int) or value < 1:
        raise ValueError(f"ParallelLoader: {name} must be a positive int, "
                         f"got {value!r}")
    self._batchdim = batchdim
    self._batches_per_execution = batches_per_execution
    self._input_sharding = input_sharding
    self._exhausted = set()
    state = _State(len(self._devices), loader_prefetch_size,
                   device_prefetch_size)
    self._state = state
    self._threads = [
        threading.Thread(target=_read_host_batches, args=(state, cpu_loader),
                         name="xla-loader", daemon=True)
    ]
    send = self._make_send(input_sharding)
    for index, device in enumerate(self._devices):
      for _ in range(host_to_device_transfer_threads):
        self._threads.append(
            threading.Thread(target=_transfer_batches,
                             args=(state, index, device, send),
                             name=f"xla-loader-{device}", daemon=True))
    # Dropping the loader stops its threads (they hold only `state`).
    self._finalizer = weakref.finalize(self, state.close)
    for thread in self._threads:
      thread.start()

  @staticmethod
  def _make_send(input_sharding):
    if input_sharding is not None and not isinstance(input_sharding, dict):
      if not hasattr(input_sharding, "apply"):
        raise TypeError(f"input_sharding must be an xs.ShardingSpec or a dict "
                        f"of them, got {type(input_sharding).__name__}")

    def send(batch, device):
      return _send_tree(batch, device, input_sharding)

    return send

  @property
  def batches_per_execution(self) -> int:
    return self._batches_per_execution

  def per_device_loader(self, device) -> "PerDeviceLoader":
    """The iterator of `device`'s batches (already on the device)."""
    device = torch.device(device)
    if device not in self._devices:
      raise ValueError(f"per_device_loader: {device} is not one of this "
                       f"loader's devices {self._devices}")
    return PerDeviceLoader(self, self._devices.index(device))

  def per_device_samples(self) -> int:
    return len(self._cpu_loader) // len(self._devices)

  def _device_done(self, index: int) -> None:
    """A device's data ended; the threads stop once every device's did."""
    self._exhausted.add(index)
    if len(self._exhausted) == len(self._devices):
      self.close()

  def _next_item(self, index: int):
    item = self._state.device[index].get()
    if isinstance(item, _Failure):
      self.close()
      raise item.error
    return item

  def close(self) -> None:
    """Stops the threads and waits for them (a thread reading the host
    loader ends once its current batch is read)."""
    self._finalizer()
    current = threading.current_thread()
    for thread in self._threads:
      if thread is not current:
        thread.join()


class PerDeviceLoader:
  """Iterator over one device's batches of a ParallelLoader.

  Each next() first runs `torch_xla.sync()` (once per
  `batches_per_execution` batches): the step boundary of loops that do not
  compile their step. The end of the data syncs too; once every
  device's data ended, the loader's threads stop.
  """

  def __init__(self, loader: ParallelLoader, index: int):
    self._loader = loader
    self._index = index
    self._per_sync = loader.batches_per_execution
    self._since_sync = self._per_sync  # the first next() syncs

  def __iter__(self):
    return self

  def __next__(self):
    return self.next()

  def __len__(self) -> int:
    return self._loader.per_device_samples()

  def next(self):
    if self._since_sync >= self._per_sync:
      self._since_sync = 0
      torch_xla.sync()
    self._since_sync += 1
    try:
      return self._loader._next_item(self._index)
    except StopIteration:
      torch_xla.sync()
      self._loader._device_done(self._index)
      raise

  def close(self) -> None:
    """Stops the loader's threads (the data need not be exhausted)."""
    self._loader.close()


class MpDeviceLoader:
  """One device's view of a ParallelLoader: what training scripts iterate.

  Args:
    loader: the host loader (e.g. a torch DataLoader).
    device: the device the batches go to.
    **kwargs: ParallelLoader options (loader_prefetch_size,
      device_prefetch_size, host_to_device_transfer_threads,
      batches_per_execution, input_sharding, batchdim). An unknown one
      raises TypeError.

  Example:
    train_device_loader = pl.MpDeviceLoader(train_loader, torch_xla.device())
    for data, target in train_device_loader:
      ...
  """

  def __init__(self, loader, device, **kwargs):
    try:
      inspect.signature(ParallelLoader).bind(loader, [device], **kwargs)
    except TypeError as error:
      raise TypeError(f"MpDeviceLoader: {error}; its options are those of "
                      f"ParallelLoader") from None
    self._loader = loader
    self._device = device
    self._parallel_loader_kwargs = kwargs
    self._current = None  # weakref to the ParallelLoader of the last iter()

  def __iter__(self) -> PerDeviceLoader:
    previous = self._current() if self._current is not None else None
    if previous is not None:
      previous.close()
    parallel = ParallelLoader(self._loader, [self._device],
                              **self._parallel_loader_kwargs)
    self._current = weakref.ref(parallel)
    return parallel.per_device_loader(self._device)

  def __len__(self) -> int:
    return len(self._loader)
