"""Progress printing and TensorBoard helpers that training scripts import
(upstream name: torch_xla.test.test_utils, imported as test_utils).

The summary functions take a writer or None, so a script runs unchanged
without TensorBoard: None makes them do nothing.
"""

import datetime
import time

import torch_xla.debug.metrics as met


def _ordinal() -> int:
  # One process drives every device of this runtime: it is ordinal 0.
  return 0


def _get_device_spec(device) -> str:
  """'xla:0/0': the device and this process's ordinal."""
  return f"{device}/{_ordinal()}"


def now(format: str = "%H:%M:%S") -> str:
  """The local time as text."""
  return datetime.datetime.now().strftime(format)


def write_to_summary(summary_writer, global_step=None, dict_to_write=None,
                     write_xla_metrics: bool = False) -> None:
  """Writes scalars to a TensorBoard SummaryWriter.

  Args:
    summary_writer: a SummaryWriter (anything with add_scalar), or None to
      write nothing.
    global_step: the step of these points (None: not set).
    dict_to_write: {name: scalar} to write.
    write_xla_metrics: also write every XLA counter (its value) and metric
      (its accumulated total), plus 'aten_ops_sum', the number of CPU
      fallbacks (counters named aten::*).
  """
  if summary_writer is None:
    return
  for name, value in (dict_to_write or {}).items():
    summary_writer.add_scalar(name, value, global_step)
  if write_xla_metrics:
    fallbacks = 0
    for name in met.counter_names():
      value = met.counter_value(name)
      if name.startswith("aten::"):
        fallbacks += value
      summary_writer.add_scalar(name, value, global_step)
    for name in met.metric_names():
      summary_writer.add_scalar(name, met.metric_data(name)[1], global_step)
    summary_writer.add_scalar("aten_ops_sum", fallbacks, global_step)


def close_summary_writer(summary_writer) -> None:
  """Flushes and closes a SummaryWriter; None does nothing."""
  if summary_writer is not None:
    summary_writer.flush()
    summary_writer.close()


def get_summary_writer(logdir):
  """A TensorBoard SummaryWriter writing to `logdir`, or None without one.

  Args:
    logdir: a folder, or None/'' for no writer.

  Returns:
    tensorboardX's SummaryWriter, else torch.utils.tensorboard's; None when
    `logdir` is empty.

  Raises:
    ImportError: `logdir` is given but neither tensorboardX nor tensorboard
      is installed.
  """
  if not logdir:
    return None
  try:
    from tensorboardX import SummaryWriter
  except ImportError:
    try:
      from torch.utils.tensorboard import SummaryWriter
    except ImportError:
      raise ImportError(
          f"get_summary_writer({logdir!r}) needs TensorBoard: pip install "
          f"tensorboardX (or tensorboard), or pass logdir=None to write no "
          f"summaries") from None
  writer = SummaryWriter(log_dir=logdir)
  write_to_summary(writer, 0,
                   dict_to_write={"TensorboardStartTimestamp": time.time()})
  return writer


def _print_update(fields) -> None:
  print("|", " ".join(f for f in fields if f), flush=True)


def print_training_update(device, step, loss, rate, global_rate, epoch=None,
                          summary_writer=None) -> None:
  """Prints one line of training progress, e.g.
  `| Training Device=xla:0/0 Epoch=1 Step=20 Loss=0.12345 Rate=10.00
  GlobalRate=9.50 Time=12:00:00`.

  Args:
    device: the device the numbers come from.
    step: the step number.
    loss: the loss (a float; read it in a step closure to avoid a sync).
    rate: examples per second for this batch.
    global_rate: examples per second since training began.
    epoch: the epoch, printed when given.
    summary_writer: also write the rates there when given.
  """
  _print_update([
      "Training", f"Device={_get_device_spec(device)}",
      f"Epoch={epoch}" if epoch is not None else None, f"Step={step}",
      f"Loss={float(loss):.5f}", f"Rate={rate:.2f}",
      f"GlobalRate={global_rate:.2f}", f"Time={now()}"
  ])
  if summary_writer:
    write_to_summary(summary_writer, dict_to_write={
        "examples/sec": rate,
        "average_examples/sec": global_rate
    })


def print_test_update(device, accuracy, epoch=None, step=None) -> None:
  """Prints one line of evaluation results, e.g.
  `| Test Device=xla:0/0 Step=5 Epoch=1 Accuracy=97.50 Time=12:00:00`.

  Args:
    device: the device the numbers come from.
    accuracy: a float, or None to leave it out.
    epoch, step: printed when given.
  """
  _print_update([
      "Test", f"Device={_get_device_spec(device)}",
      f"Step={step}" if step is not None else None,
      f"Epoch={epoch}" if epoch is not None else None,
      f"Accuracy={float(accuracy):.2f}" if accuracy is not None else None,
      f"Time={now()}"
  ])
