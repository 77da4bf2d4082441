"""Helpers shared by the indexing rules (advanced_indexing.py,
index_along_dim.py, gather_scatter.py, masked_ops.py, embedding.py): index
operands as 'xla' tensors with their checks (host-known values checked at
once, the device-side check described for the op's binding to register:
index_and_check), the ranges of small integer uploads, a one-dim scatter
for the IR compositions left (embedding_renorm_), the CPU fallback for
value-dependent shapes."""

import collections
import warnings

import torch

from torch_xla import _XLAC, _ir
from torch_xla._tensor import XlaTensor, xt_of


def index_value(t, device, bounds=None, op=None, error=IndexError):
  """An index tensor as an s64 handle (cpu index tensors are allowed, as in
  eager on accelerators), checked as `checked_index` checks it."""
  return _ir.convert(xt_of(checked_index(t, device, bounds, op, error)),
                     _ir.S64)


def checked_index(t, device, bounds=None, op=None, error=IndexError):
  """An index tensor as an 'xla' tensor (a cpu one is uploaded), checked as
  `index_and_check` says: values computed on the device get their
  device-side check now (one call into C++), for a builder binding that
  takes no check of its own (embedding.py)."""
  t, check = index_and_check(t, device, bounds, op, error)
  if check is not None:
    _XLAC._check_index_on_device(t, check)  # python/device_checks.h
  if not isinstance(t, XlaTensor):
    from torch_xla._ops import copy_ops
    t = copy_ops.from_host(t, device)
  return t


def index_and_check(t, device, bounds=None, op=None, error=IndexError):
  """(index, check): the index tensor (an 'xla' one, or a cpu one that the
  op's binding uploads in its one call: python/index_bindings.cc
  CheckedIndex), and None or the device-side check for the op's binding to
  register inside that call (python/device_checks.h).

  bounds: None, or (size, dim, negative_ok, message) to check index values
  as eager does. Values known on the host (a cpu tensor, or an 'xla' tensor
  whose value was just uploaded from one, see host_range) are checked now;
  values computed on the device get a device-side check that raises at a
  later sync or read, as eager CUDA's asserts do
  (torch_xla/_device_checks.py). message: eager's text, or None for "index
  i is out of bounds for dimension d with size n", or a Prefix of that
  text. op: the op's name, for the device-side check's message. error:
  the exception class eager raises (gather and scatter raise
  RuntimeError).
  """
  if isinstance(t, XlaTensor):
    check = None
    if bounds is not None and t.numel():
      known = host_range(t)
      if known is not None:
        check_bounds(known[0], known[1], None, *bounds, error=error)
      elif not bounded_by(t, -bounds[0] if bounds[2] else 0, bounds[0]):
        check = device_check(*bounds, op=op, error=error)
    return t, check
  if isinstance(t, torch.Tensor):
    if t.device.type != "cpu":
      raise RuntimeError(f"indices on {t.device} cannot index an xla tensor")
    if bounds is not None and t.numel():
      check_bounds(int(t.min()), int(t.max()), t, *bounds, error=error)
    return t, None
  raise TypeError(f"expected an index tensor, got {type(t).__name__}")


# Integer uploads up to this many elements remember their range on the
# host (copy_ops.from_host): a few microseconds next to the transfer, and
# what lets x[[5]] raise as eager does. The newest few are kept, by tensor
# ID, with the handle's version (it counts in-place writes).
HOST_RANGE_LIMIT = 1 << 16
_HOST_RANGES = collections.OrderedDict()
_HOST_RANGES_KEPT = 256


def remember_host_range(xt, cpu: torch.Tensor):
  """Notes the range of the small integer value `cpu` just uploaded into
  handle `xt`, so that indexing with it is checked on the host."""
  if cpu.dtype in _INDEX_DTYPES and 0 < cpu.numel() <= HOST_RANGE_LIMIT:
    lo, hi = torch.aminmax(cpu)
    _HOST_RANGES[xt.id] = (xt.version, int(lo), int(hi))
    if len(_HOST_RANGES) > _HOST_RANGES_KEPT:
      _HOST_RANGES.popitem(last=False)


_INDEX_DTYPES = (torch.int64, torch.int32, torch.int16, torch.int8,
                 torch.uint8)


def host_range(t):
  """(min, max) of an 'xla' tensor's value when it is still the value
  uploaded from the host, else None."""
  if t._view is not None:
    return None
  return _uploaded_range(t._xt)


def _uploaded_range(xt):
  known = _HOST_RANGES.get(xt.id)
  if known is None or known[0] != xt.version:  # written since
    return None
  return known[1], known[2]


def bounded_by(t, low, high):
  """True when the host knows that every value of the 'xla' tensor `t` is
  in [low, high): its uploaded range says so, or `t` is a view (of the same
  dtype, so its values are some of its root's) of a root whose does
  (`labels.view(-1)` of uploaded labels needs no device-side check)."""
  if t._view is None:
    known = _uploaded_range(t._xt)
  else:
    root = t._view.root
    known = _uploaded_range(root) if root.dtype == t._xt.dtype else None
  return known is not None and low <= known[0] and known[1] < high


def device_check(size, dim, negative_ok, message, op=None, exempt=None,
                 error=IndexError):
  """The device-side check that every index is in range, as the builder
  bindings take it: (low, size, exempt, message, error). A check of an
  index traced on placeholders (a scan body, assume_pure) is not made: the
  trace never runs by itself, so its flag could never be read. error: the
  class it raises at the read (eager's: RuntimeError for gather and
  scatter)."""
  if isinstance(message, str) and not isinstance(message, Prefix):
    text = message
  elif callable(message):
    text = message("i")
  else:
    text = (f"{message or ''}an index is out of bounds for dimension {dim} "
            f"with size {size}")
  op = op or "indexing"
  # A Prefix naming the op already ("index_copy_(): ...") is not repeated.
  text = text if text.startswith(op) else f"{op}: {text}"
  return (-size if negative_ok else 0, size, exempt, text, error)


class Prefix(str):
  """A message that prefixes eager's "index i is out of bounds..." text."""


def check_bounds(lo, hi, values, size, dim, negative_ok, message,
                 error=IndexError):
  """`error` (IndexError) unless every index in [lo, hi] is valid for a dim
  of `size` ([-size, size) when negative_ok, else [0, size)); values: the
  cpu index tensor, to name the first bad index as eager does. A message
  that is a callable makes the text from the first bad index."""
  low = -size if negative_ok else 0
  if lo >= low and hi < size:
    return
  if isinstance(message, str) and not isinstance(message, Prefix):
    raise error(message)
  if values is not None:
    flat = values.reshape(-1)
    bad = int(flat[((flat < low) | (flat >= size)).nonzero()[0, 0]])
  else:
    bad = hi if hi >= size else lo
  if callable(message):
    raise error(message(bad))
  prefix = message or ""
  raise error(f"{prefix}index {bad} is out of bounds for dimension "
              f"{dim} with size {size}")


def check_index_dtype(t, what):
  if t.dtype not in (torch.int64, torch.int32):
    raise RuntimeError(f"{what}: Expected dtype int32 or int64 for index, "
                       f"got {t.dtype}")


def fallback(func, args, kwargs, reason):
  warnings.warn(f"{func}: {reason}; running it on CPU (this executes the "
                f"pending graph)", stacklevel=3)
  from torch_xla._ops import cpu_fallback
  return cpu_fallback.cpu_fallback(func, args, kwargs)


def index_mask(mask, device):
  if isinstance(mask, XlaTensor):
    return mask  # the binding reads it (a view re-derived there)
  from torch_xla._ops import copy_ops
  return xt_of(copy_ops.from_host(mask, device))


def scatter_dim(v, d, idx, updates, kind):
  rank = len(v.dims)
  return _ir.scatter(v, idx, updates,
                     window_dims=[i for i in range(rank) if i != d],
                     inserted_dims=[d], scatter_dim_map=[d], index_vec_dim=1,
                     kind=kind)
