"""Counters and metrics recorded by the C++ core (upstream names).

Example:
  import torch_xla.debug.metrics as met
  met.clear_all()
  ...
  print(met.short_metrics_report())
  count, total_ns, samples = met.metric_data("CompileTime")
"""

from torch_xla import _XLAC


def metrics_report() -> str:
  """Every metric and non-zero counter, human readable."""
  return _XLAC._xla_metrics_report()


def short_metrics_report() -> str:
  """Compile/execute/transfer times and the compile and fallback counters."""
  return _XLAC._short_xla_metrics_report()


def counter_names() -> list:
  """Names of the counters with a non-zero value."""
  return _XLAC._xla_counter_names()


def counter_value(name: str):
  """The counter's value, or None when it was never created."""
  return _XLAC._xla_counter_value(name)


def metric_names() -> list:
  """Names of the metrics that have samples."""
  return _XLAC._xla_metric_names()


def metric_data(name: str):
  """(count, accumulator, [(timestamp_ns, value), ...]) or None.

  Time metrics are in nanoseconds; data metrics in bytes.
  """
  return _XLAC._xla_metric_data(name)


def clear_counters() -> None:
  _XLAC._clear_xla_counters()


def clear_metrics() -> None:
  _XLAC._clear_xla_metrics()


def clear_all() -> None:
  clear_counters()
  clear_metrics()
