"""Small helpers that training scripts import (upstream name:
torch_xla.utils.utils, imported as xu): environment parsing, temporary
folders, fake data for smoke-testing a model script, timing prints.

None of them touches a device; they are plain Python.
"""

import os
import re
import shutil
import sys
import tempfile
import time
import weakref


class Cleaner:
  """Calls `func()` when this object is garbage collected.

  Args:
    func: a callable with no arguments.
  """

  def __init__(self, func):
    self.func = func

  def __del__(self):
    self.func()


class TmpFolder:
  """A temporary folder, deleted when the object is collected or at exit.

  Also a context manager that deletes it when the block ends.

  Example:
    with TmpFolder() as tmp:
      xm.save(model.state_dict(), os.path.join(tmp.name, 'model.pt'))
  """

  def __init__(self):
    self.name = tempfile.mkdtemp()
    # weakref.finalize also runs at interpreter exit, unlike __del__.
    self._finalizer = weakref.finalize(self, shutil.rmtree, self.name, True)

  def cleanup(self) -> None:
    self._finalizer()

  def __enter__(self):
    return self

  def __exit__(self, *exc):
    self.cleanup()


class SampleGenerator:
  """Yields the same `data` `sample_count` times: a stand-in data loader to
  check that a model script runs (no dataset, no input pipeline cost).

  Args:
    data: what each iteration returns, e.g. an (inputs, target) pair.
    sample_count: the number of iterations (also len()).
  """

  def __init__(self, data, sample_count: int):
    self._data = data
    self._sample_count = sample_count

  def __len__(self) -> int:
    return self._sample_count

  def __iter__(self):
    for _ in range(self._sample_count):
      yield self._data


class FnDataGenerator:
  """Yields `count` batches `(data, func(data))` with
  `data = gen_tensor(batch_size, *dims)`: fake data with a learnable target.

  Args:
    func: computes the target from the data.
    batch_size: first dimension of each batch.
    gen_tensor: makes a tensor from a shape, e.g. torch.randn.
    dims: the other dimensions (default [1]).
    count: number of batches (also len()).
  """

  def __init__(self, func, batch_size, gen_tensor, dims=None, count=1):
    self._func = func
    self._batch_size = batch_size
    self._gen_tensor = gen_tensor
    self._dims = list(dims) if dims else [1]
    self._count = count

  def __len__(self) -> int:
    return self._count

  def __iter__(self):
    for _ in range(self._count):
      data = self._gen_tensor(self._batch_size, *self._dims)
      yield data, self._func(data)


def as_list(value) -> list:
  """`value` itself when it is a list or tuple, else `[value]`."""
  return value if isinstance(value, (list, tuple)) else [value]


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off", "")


def getenv_as(name: str, type, defval=None):
  """The environment variable `name` converted with `type`, or `defval`
  when it is not set.

  Args:
    name: the variable's name (see torch_xla.core.xla_env_vars).
    type: int, float, str or bool. bool accepts 1/0, true/false, yes/no,
      on/off (any case).
    defval: returned when the variable is not set.

  Returns:
    The converted value, or `defval`.

  Raises:
    ValueError: the value does not convert, naming the variable.
  """
  value = os.environ.get(name)
  if value is None:
    return defval
  if type is bool:
    lowered = value.strip().lower()
    if lowered in _TRUE:
      return True
    if lowered in _FALSE:
      return False
    raise ValueError(f"environment variable {name}={value!r} is not a "
                     f"boolean; use 1/0, true/false, yes/no or on/off")
  try:
    return type(value)
  except ValueError as e:
    raise ValueError(f"environment variable {name}={value!r} is not a valid "
                     f"{getattr(type, '__name__', type)}: {e}") from None


def parse_xla_device(device):
  """Splits a device name such as 'xla:1' or 'CPU:0' into (kind, index).

  Args:
    device: a string 'KIND:INDEX' or a torch.device with an index.

  Returns:
    (kind, index) with index an int, e.g. ('xla', 1).

  Raises:
    ValueError: `device` is not of that form.
  """
  text = str(device)
  match = re.fullmatch(r"([A-Za-z_]+):(\d+)", text)
  if match is None:
    raise ValueError(f"parse_xla_device: {text!r} is not a device name of the "
                     f"form KIND:INDEX, e.g. 'xla:0'")
  return match.group(1), int(match.group(2))


def for_each_instance(value, cls, fn) -> None:
  """Calls `fn(x)` for every `x` of exactly type `cls` found in `value`,
  walking dicts (keys and values), lists, tuples, sets and object
  attributes."""
  if type(value) is cls:
    fn(value)
  elif isinstance(value, dict):
    for k, v in value.items():
      for_each_instance(k, cls, fn)
      for_each_instance(v, cls, fn)
  elif isinstance(value, (list, tuple, set, frozenset)):
    for v in value:
      for_each_instance(v, cls, fn)
  elif hasattr(value, "__dict__"):
    for v in vars(value).values():
      for_each_instance(v, cls, fn)


def shape(inputs) -> list:
  """The nesting shape of lists/tuples: [3, 2] for three pairs.

  Raises:
    ValueError: the nested sequences have different shapes.
  """
  if not isinstance(inputs, (list, tuple)):
    return []
  inner = None
  for item in inputs:
    item_shape = shape(item)
    if inner is None:
      inner = item_shape
    elif item_shape != inner:
      raise ValueError(f"shape: ragged nesting, {inner} and {item_shape}")
  return [len(inputs)] + (inner or [])


def flatten_nested_tuple(inputs) -> tuple:
  """The leaves of nested lists/tuples, in order, as one tuple."""
  if not isinstance(inputs, (list, tuple)):
    return (inputs,)
  flat = []
  for item in inputs:
    flat.extend(flatten_nested_tuple(item))
  return tuple(flat)


def list_copy_append(items, item) -> list:
  """A new list: `items` followed by `item`."""
  return list(items) + [item]


def null_print(*args, **kwargs) -> None:
  """Prints nothing (the print function when debugging is off)."""


def eprint(*args, **kwargs) -> None:
  """print() to stderr."""
  print(*args, file=sys.stderr, **kwargs)


def get_print_fn(debug=None):
  """eprint when debugging is on, else null_print.

  Args:
    debug: on or off; None reads the DEBUG environment variable (an int).
  """
  if debug is None:
    debug = getenv_as("DEBUG", int, 0)
  return eprint if debug else null_print


def timed(fn, msg: str = "", printfn=eprint):
  """Runs `fn()`, prints `msg` followed by the elapsed milliseconds and
  returns what `fn` returned. printfn=None: get_print_fn()."""
  printfn = printfn or get_print_fn()
  start = time.perf_counter()
  result = fn()
  printfn(f"{msg}{1000 * (time.perf_counter() - start):.3f}ms")
  return result


class TimedScope:
  """A `with` block that prints `msg` and its elapsed milliseconds at exit,
  unless set_error() was called or the block raised."""

  def __init__(self, msg: str = "", printfn=eprint):
    self._msg = msg
    self._printfn = printfn or get_print_fn()
    self._error = None

  def __enter__(self):
    self._start = time.perf_counter()
    return self

  def __exit__(self, exc_type, exc, tb):
    if self._error is None and exc_type is None:
      self._printfn(f"{self._msg}"
                    f"{1000 * (time.perf_counter() - self._start):.3f}ms")

  def set_error(self, error) -> None:
    self._error = error
