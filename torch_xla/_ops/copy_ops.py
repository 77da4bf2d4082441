"""Moving values between host and device, copies, aliases, factories."""

import math

import torch

from torch_xla import _XLAC, _device_checks, _ir
from torch_xla._ops import index_util
from torch_xla._ops._common import code_of, literal, scalar
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import XlaTensor, commit, wrap, xt_of


def to_host(x: XlaTensor) -> torch.Tensor:
  """The value of an 'xla' tensor as a new CPU tensor (runs pending IR).
  Device-side checks of earlier steps that failed raise first."""
  _device_checks.before_read(x)
  return _XLAC._to_cpu_tensor(x)


def from_host(cpu: torch.Tensor, device: int = 0) -> XlaTensor:
  """A CPU tensor's value on an XLA device (transfers now)."""
  code = code_of(cpu.dtype)
  if cpu.numel() == 0:
    return wrap(literal(0, code, cpu.shape, device))
  cpu = cpu.contiguous()
  out = wrap(_XLAC._tensor_from_host(cpu.data_ptr(), list(cpu.shape), code,
                                     device))
  index_util.remember_host_range(out._xt, cpu)
  return out


def to_device(xt, device: int):
  """The value of handle `xt` as a new handle on XLA device `device`, copied
  device to device by PJRT (no host round trip; pending IR runs first on the
  source device). Dtype conversions happen after, on the target device, as
  for a same-device copy."""
  return _XLAC._tensor_to_device(xt, device)


def alias_of(x: XlaTensor) -> XlaTensor:
  """A new torch tensor sharing x's value (in-place updates are shared),
  with x's view metadata (strides too: composites like contiguous() read
  them to decide whether to copy)."""
  return _XLAC._wrap(x._xt, x._view)


def _device_index(device) -> int:
  if device is None:
    return 0
  device = torch.device(device)
  return device.index or 0


def _is_xla_device(device) -> bool:
  return device is None or torch.device(device).type == "xla"


@op(aten._to_copy.default)
def _to_copy(x, dtype=None, layout=None, device=None, pin_memory=None,
             non_blocking=False, memory_format=None):
  dtype = dtype or x.dtype
  if isinstance(x, XlaTensor):
    if not _is_xla_device(device):
      return to_host(x).to(dtype=dtype, device=device)
    value = xt_of(x)
    target = _device_index(device) if device is not None else x.device.index
    if target != x.device.index:
      value = to_device(value, target)
    return wrap(_XLAC._clone(_ir.convert(value, code_of(dtype))))
  # A cpu tensor going to xla.
  return from_host(x.to(dtype), _device_index(device))


_MEMORY_FORMAT_RANKS = {torch.channels_last: (4, "channels_last"),
                        torch.channels_last_3d: (5, "channels_last_3d")}


def check_memory_format(x, memory_format):
  """Eager's error for a channels-last memory format on a tensor of the
  wrong rank (clone, contiguous and the *_like factories)."""
  if memory_format in _MEMORY_FORMAT_RANKS:
    rank, name = _MEMORY_FORMAT_RANKS[memory_format]
    if x.dim() != rank:
      raise RuntimeError(f"required rank {rank} tensor to use {name} format")


@op(aten.clone.default)
def clone(x, memory_format=None):
  check_memory_format(x, memory_format)
  return wrap(_XLAC._clone(xt_of(x)))


@op(aten.detach.default, aten.alias.default, aten.lift_fresh.default)
def detach(x):
  return alias_of(x)


@op(aten._assert_tensor_metadata.default)
def assert_tensor_metadata(a, size=None, stride=None, dtype=None, *,
                           device=None, layout=None):
  """The check torch.export records before a dtype conversion: dtype and
  sizes as recorded (strides, device and layout are the export's, not the
  XLA tensor's)."""
  if dtype is not None and a.dtype != dtype:
    raise RuntimeError(
        f"Tensor dtype mismatch! Expected dtype {dtype}, but got {a.dtype}")
  if size is not None and list(a.shape) != list(size):
    raise RuntimeError(
        f"Tensor size mismatch! Expected size {list(size)}, but got "
        f"{list(a.shape)}")


@op(aten.lift_fresh_copy.default)
def lift_fresh_copy(x):
  return clone(x)


@op(aten.copy_.default)
def copy_(dst, src, non_blocking=False):
  if not isinstance(dst, XlaTensor):  # xla -> cpu tensor
    dst.copy_(to_host(src))
    return dst
  code = code_of(dst.dtype)
  device = dst.device.index
  if isinstance(src, XlaTensor):
    value = xt_of(src)
    if src.device.index != device:
      value = to_device(value, device)
  elif src.dim() == 0 and src.device.type == "cpu":
    value = scalar(src.item(), code, device)
  else:
    host = src.to(dst.dtype)
    value = xt_of(from_host(host, device))
    if list(host.shape) == list(dst.shape):
      out = commit(dst, value)
      index_util.remember_host_range(dst._xt, host)
      return out
  value = _ir.broadcast_to(_ir.convert(value, code), list(dst.shape))
  return commit(dst, value)


@op(aten._local_scalar_dense.default)
def local_scalar_dense(x):
  return to_host(x).item()


def _check_factory_size(shape, dtype):
  """Eager's errors (RuntimeError, its text) for a factory's bad size; the
  binding would raise ValueError, as for any bad shape passed to it."""
  nbytes = dtype.itemsize
  for d in shape:
    if d < 0:
      raise RuntimeError(f"Trying to create tensor with negative dimension "
                         f"{d}: {list(shape)}")
    nbytes *= d
  if nbytes >= 2**63:
    raise RuntimeError(f"Storage size calculation overflowed with "
                       f"sizes={list(shape)}")


def fill(value, shape, dtype, device: int):
  """A handle for `shape` filled with `value`: host data that costs nothing
  until a graph reading it runs (then it travels like a scalar)."""
  if isinstance(value, bool):
    value = int(value)
  _check_factory_size(shape, dtype)
  return _XLAC._tensor_fill(value, list(shape), code_of(dtype), device)


@op(aten.zero_.default)
def zero_(x):
  return commit(x, fill(0, x.shape, x.dtype, x.device.index))


@op(aten.fill_.Scalar)
def fill_scalar_(x, value):
  return commit(x, fill(value, x.shape, x.dtype, x.device.index))


@op(aten.fill_.Tensor)
def fill_tensor_(x, value):
  return commit(x, _filled_like(x, value))


@op(aten.fill.Scalar)
def fill_scalar(x, value):
  """The functional fill (exported and functionalized programs)."""
  return wrap(fill(value, x.shape, x.dtype, x.device.index))


@op(aten.fill.Tensor)
def fill_tensor(x, value):
  return wrap(_filled_like(x, value))


def _filled_like(x, value):
  """x's shape filled with the 0-dim tensor `value` in x's dtype."""
  if not isinstance(value, XlaTensor):
    return fill(value.item(), x.shape, x.dtype, x.device.index)
  if value.dim() != 0:
    raise RuntimeError(
        f"fill_ only supports 0-dimension value tensor but got tensor with "
        f"{value.dim()} dimensions.")
  v = _ir.convert(xt_of(value), code_of(x.dtype))
  return _ir.broadcast_to(_ir.reshape(v, []), list(x.shape))


# Factories: ops without tensor arguments do not reach __torch_dispatch__;
# they dispatch on the XLA key, where these kernels are registered. `empty`
# allocates nothing: it is a zero fill until written (see fill()), so the
# first training step's freshly created optimizer state has the same graph
# as every later step's.
_xla_kernels = torch.library.Library("aten", "IMPL", "XLA")


def _empty(size, dtype=None, layout=None, device=None, pin_memory=None,
           memory_format=None):
  dtype = dtype or torch.get_default_dtype()
  return wrap(fill(0, size, dtype, _device_index(device)))


def _empty_strided(size, stride, dtype=None, layout=None, device=None,
                   pin_memory=None):
  return _empty(size, dtype=dtype, device=device)


_REDUCED_FLOAT_MAX = {torch.float16: 65504.0, torch.bfloat16: 3.3895e38}


def _scalar_tensor(s, dtype=None, layout=None, device=None, pin_memory=None):
  """Eager's scalar_tensor (how torch.where wraps a number): a bf16/f16
  value goes through f32 unchecked, so a large finite value rounds to inf
  instead of raising as fill_ does."""
  dtype = dtype or torch.get_default_dtype()
  limit = _REDUCED_FLOAT_MAX.get(dtype)
  if limit is not None and type(s) in (int, float) and \
      math.isfinite(s) and abs(s) > limit:
    s = torch.tensor(s, dtype=torch.float32).to(dtype).item()
  return wrap(fill(s, [], dtype, _device_index(device)))


def _copy_from(src, dst, non_blocking=False):
  # Reached when PyTorch copies into an 'xla' tensor below the Python
  # dispatch key (e.g. torch.tensor(data, device='xla')).
  return copy_(dst, src)


def _triangle_indices(which):
  """tril_indices / triu_indices: a small index table that depends only on
  Python numbers, computed on the host by eager (its checks and errors
  included) and uploaded."""
  cpu_op = getattr(torch.ops.aten, which).default

  def kernel(row, col, offset=0, dtype=None, layout=None, device=None,
             pin_memory=None):
    table = cpu_op(row, col, offset, dtype=dtype or torch.int64)
    return from_host(table, _device_index(device))

  kernel.__name__ = which
  return kernel


_xla_kernels.impl("tril_indices", _triangle_indices("tril_indices"))
_xla_kernels.impl("triu_indices", _triangle_indices("triu_indices"))
_xla_kernels.impl("empty.memory_format", _empty)
_xla_kernels.impl("empty_strided", _empty_strided)
_xla_kernels.impl("_copy_from", _copy_from)
_xla_kernels.impl("scalar_tensor", _scalar_tensor)
