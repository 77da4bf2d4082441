"""Starting a multi-process job on this host: torch_xla.launch and
xmp.spawn (torch_xla.distributed.xla_multiprocessing.spawn).

Design. The launcher starts worker processes with Python's multiprocessing
(`start_method`, default 'spawn': a fresh interpreter; never fork a process
whose XLA runtime exists). Each worker receives its place through
upstream's environment variables (RANK, WORLD_SIZE, LOCAL_RANK,
LOCAL_WORLD_SIZE, PJRT_LOCAL_PROCESS_RANK, PJRT_LOCAL_PROCESS_COUNT,
MASTER_ADDR, XLA_COORDINATOR_PORT), joins the job
(torch_xla.distributed._world: process 0 serves the key-value store the
runtimes meet through) and calls `fn(index, *args)` once per replica, index
being the replica's global ordinal.

Layout (`layout()`): the host's devices (CPU_NUM_DEVICES on CPU) are split
evenly over PJRT_LOCAL_PROCESS_COUNT processes, upstream's name for the
number of processes on a host (its launcher keeps a value already set). By
default there is one process per device, which sees its device as xla:0
and is itself the replica. With several devices per process (CPU_NUM_DEVICES=4
PJRT_LOCAL_PROCESS_COUNT=2: 2 processes x 2 devices) each worker runs a
thread per device, as upstream does on hosts whose processes drive several
devices (TPU v2/v3: two cores per chip): torch_xla._replica_threads.
spawn_threads, thread i of a process driving xla:i. The replicas are global
either way: the same ordinals, world size and collective values as one
process per device.

Failure model: the launcher waits on every worker at once. The first worker
that exits with an error ends the launch: the others are terminated
(SIGTERM, then SIGKILL after a grace period) and the launch raises
WorkerFailedError with that worker's traceback, which the worker wrote to a
file before exiting. A worker whose launcher dies exits too (it watches its
parent), so nothing is left behind.
"""

import multiprocessing
import multiprocessing.connection
import os
import signal
import socket
import sys
import tempfile
import threading
import time
import traceback

# Importing _world registers the join hook with the C++ runtime.
from torch_xla.distributed import _world  # noqa: F401

_GRACE_S = 3.0


class WorkerFailedError(RuntimeError):
  """A worker of a launch raised or died; `index` is its process index,
  `exitcode` its exit code (negative: killed by that signal) and
  `worker_traceback` the traceback it reported (empty when it died without
  reporting one)."""

  def __init__(self, index, nprocs, exitcode, worker_traceback):
    self.index = index
    self.exitcode = exitcode
    self.worker_traceback = worker_traceback
    if worker_traceback:
      what = "raised an exception"
    elif exitcode < 0:
      what = f"was killed by signal {signal.Signals(-exitcode).name}"
    else:
      what = f"exited with code {exitcode}"
    message = f"process {index} of {nprocs} {what}; the launch was stopped"
    if worker_traceback:
      message += f".\n\nWorker {index}'s traceback:\n{worker_traceback}"
    super().__init__(message)


def _env_count(name, default):
  value = os.environ.get(name, "")
  if not value:
    return default
  try:
    count = int(value)
  except ValueError:
    count = 0
  if count < 1:
    raise ValueError(f"environment variable {name}={value!r} must be a "
                     f"positive integer")
  return count


def _devices_variable() -> str:
  device = (os.environ.get("PJRT_DEVICE") or "CPU").upper()
  return {"CPU": "CPU_NUM_DEVICES", "CUDA": "GPU_NUM_DEVICES",
          "GPU": "GPU_NUM_DEVICES", "TPU": "TPU_NUM_DEVICES"}.get(device, "")


def layout():
  """(processes, devices per process) of a launch on this host.

  The host's devices (CPU_NUM_DEVICES on CPU, default 1) are split evenly
  over PJRT_LOCAL_PROCESS_COUNT processes (default: one per device).

  Raises:
    ValueError: a count is not a positive integer, or the devices do not
      split evenly over the processes.
  """
  name = _devices_variable()
  devices = _env_count(name, 1) if name else 1
  processes = _env_count("PJRT_LOCAL_PROCESS_COUNT", devices)
  if devices % processes:
    raise ValueError(
        f"torch_xla.launch: {name}={devices} devices do not split evenly over "
        f"PJRT_LOCAL_PROCESS_COUNT={processes} processes; set "
        f"PJRT_LOCAL_PROCESS_COUNT to a divisor of {devices} (or unset it: "
        f"one process per device)")
  return processes, devices // processes


def default_nprocs() -> int:
  """Workers per host: PJRT_LOCAL_PROCESS_COUNT, else one per device
  (CPU_NUM_DEVICES on CPU)."""
  return layout()[0]


def _free_port() -> int:
  with socket.socket() as s:
    s.bind(("localhost", 0))
    return s.getsockname()[1]


def _watch_parent(parent_pid):
  while True:
    if os.getppid() != parent_pid:
      os._exit(1)  # the launcher is gone: do not outlive it
    time.sleep(0.5)


def _exit_barrier(index, nprocs):
  """Process 0 serves the store: it leaves only after every worker is done
  with it (or the wait times out)."""
  from torch_xla.distributed import _world

  store = _world.store()
  if store is None:
    return
  store.add("torch_xla/exit", 1)
  if index == 0:
    deadline = time.monotonic() + _world.timeout_s()
    while store.add("torch_xla/exit", 0) < nprocs:
      if time.monotonic() > deadline:
        break
      time.sleep(0.05)


def _worker(index, nprocs, port, fn, args, error_path, parent_pid,
            device_type, devices_per_process=1):
  env = {
      "RANK": index, "WORLD_SIZE": nprocs, "LOCAL_RANK": index,
      "LOCAL_WORLD_SIZE": nprocs, "PJRT_LOCAL_PROCESS_RANK": index,
      "PJRT_LOCAL_PROCESS_COUNT": nprocs, "MASTER_ADDR": "localhost",
      "XLA_COORDINATOR_PORT": port,
  }
  os.environ.update({k: str(v) for k, v in env.items()})
  if device_type == "CPU":
    os.environ["CPU_NUM_DEVICES"] = str(devices_per_process)
  threading.Thread(target=_watch_parent, args=(parent_pid,),
                   daemon=True).start()
  try:
    from torch_xla.distributed import _world

    _world.join()
    _run_replicas(fn, args, index, error_path)
    _exit_barrier(index, nprocs)
  except BaseException:  # report everything, SystemExit included
    _report_and_exit(error_path, traceback.format_exc())


def _report_and_exit(error_path, text):
  with open(error_path, "w") as f:
    f.write(text)
  sys.stderr.flush()
  os._exit(1)


def _run_replicas(fn, args, process_index, error_path=None):
  """fn(global ordinal, *args) for every replica of this process: itself
  when it drives one device, else a replica thread per device. In a
  launched worker a replica thread that raises reports its traceback and
  ends the process at once (its partners may be computing, not waiting)."""
  from torch_xla import _XLAC

  if len(_XLAC._runtime.devices()) > 1:
    from torch_xla import _replica_threads

    on_error = None
    if error_path is not None:

      def on_error(e):
        _report_and_exit(error_path, "".join(
            traceback.format_exception(type(e), e, e.__traceback__)))

    _replica_threads.spawn_threads(fn, args, on_error)
  else:
    fn(process_index, *args)


def _stop(processes):
  for p in processes:
    if p.is_alive():
      p.terminate()
  deadline = time.monotonic() + _GRACE_S
  for p in processes:
    p.join(max(0.0, deadline - time.monotonic()))
  for p in processes:
    if p.is_alive():
      p.kill()
      p.join()


def run_processes(fn, args, nprocs, start_method="spawn",
                  devices_per_process=1):
  """Runs fn(index, *args) in `nprocs` worker processes, each driving
  `devices_per_process` devices (a replica thread per device when more
  than one); see the module docstring. Returns when all finished; raises
  WorkerFailedError for the first that failed."""
  from torch_xla import _XLAC

  if _XLAC._distributed.is_initialized():
    raise RuntimeError(
        "the XLA runtime is already initialized in this process: do not use "
        "an XLA device before torch_xla.launch / xmp.spawn (the workers each "
        "start their own runtime)")
  device_type = (os.environ.get("PJRT_DEVICE") or "CPU").upper()
  port = int(os.environ.get("XLA_COORDINATOR_PORT") or _free_port())
  context = multiprocessing.get_context(start_method)
  with tempfile.TemporaryDirectory(prefix="torch_xla_launch_") as tmp:
    errors = [os.path.join(tmp, f"worker{i}.err") for i in range(nprocs)]
    processes = [
        context.Process(
            target=_worker,
            args=(i, nprocs, port, fn, args, errors[i], os.getpid(),
                  device_type, devices_per_process),
            name=f"torch_xla-worker-{i}") for i in range(nprocs)
    ]
    try:
      for p in processes:
        p.start()
      waiting = {p.sentinel: i for i, p in enumerate(processes)}
      while waiting:
        for sentinel in multiprocessing.connection.wait(list(waiting)):
          i = waiting.pop(sentinel)
          processes[i].join()
          if processes[i].exitcode != 0:
            _stop(processes)
            text = ""
            if os.path.exists(errors[i]):
              with open(errors[i]) as f:
                text = f.read()
            raise WorkerFailedError(i, nprocs, processes[i].exitcode, text)
    finally:
      _stop(processes)


def spawn(fn, args=(), nprocs=None, join=True, daemon=False,
          start_method="spawn"):
  """Runs fn(index, *args) once per device of this host: a process per
  device, or a process per PJRT_LOCAL_PROCESS_COUNT with a replica thread
  per device (see layout()).

  Args:
    fn: called as fn(index, *args) with the replica's global ordinal. With
      start_method 'spawn' it must be picklable (a module-level function).
    args: the further arguments.
    nprocs: None (layout(): one process per device by default) or a number
      of processes, over which the host's devices are split when they split
      evenly (else one device each); 1 runs fn in this process.
    join, daemon: accepted for upstream compatibility; the launch always
      waits for its workers.
    start_method: the multiprocessing start method ('spawn', 'forkserver';
      'fork' only if this process has not used XLA).

  Returns:
    None.

  Raises:
    WorkerFailedError: a worker raised or died; the others were stopped.
  """
  del join, daemon
  if nprocs is None:
    n, per_process = layout()
  else:
    n = int(nprocs)
    name = _devices_variable()
    devices = _env_count(name, 1) if name else 1
    per_process = devices // n if n >= 1 and devices % n == 0 else 1
  if n < 1:
    raise ValueError(f"spawn: nprocs must be at least 1, got {nprocs}")
  if n == 1:
    from torch_xla.distributed import _world

    _world.join()
    if per_process > 1:  # PJRT_LOCAL_PROCESS_COUNT=1: a thread per device
      _run_replicas(fn, args, 0)
    else:
      fn(0, *args)
    return None
  run_processes(fn, args, n, start_method, per_process)
  return None


def launch(fn, args=(), start_method="spawn", debug_single_process=False):
  """torch_xla.launch: runs fn(index, *args) on every device of this host,
  one process per device, or PJRT_LOCAL_PROCESS_COUNT processes with a
  replica thread per device (see layout()).

  Args:
    fn: called as fn(index, *args), index being the global ordinal.
    args: the further arguments.
    start_method: the multiprocessing start method (default 'spawn').
    debug_single_process: run fn in this process only (index 0).

  Raises:
    WorkerFailedError: a worker raised or died; the others were stopped.
  """
  if os.environ.get("TORCHELASTIC_RUN_ID"):  # started by torchrun
    from torch_xla.distributed import _world

    _world.join()
    fn(int(os.environ.get("LOCAL_RANK", "0")), *args)
    return
  spawn(fn, args=args, nprocs=1 if debug_single_process else None,
        start_method=start_method)
