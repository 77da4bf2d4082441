"""Moving values between host and device, copies, aliases, factories."""

import math

import torch

from torch_xla import _XLAC
from torch_xla._ops import index_util
from torch_xla._ops._common import code_of
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import XlaTensor


def to_host(x: XlaTensor) -> torch.Tensor:
  """The value of an 'xla' tensor as a new CPU tensor (runs pending IR).
  Device-side checks of earlier steps that failed raise first (read in the
  same call; torch_xla/_device_checks.py)."""
  return _XLAC._read_host(x)


def from_host(cpu: torch.Tensor, device: int = 0) -> XlaTensor:
  """A CPU tensor's value on an XLA device (transfers now)."""
  cpu = cpu.contiguous()
  out = _XLAC._from_host(cpu.data_ptr(), list(cpu.shape), code_of(cpu.dtype),
                         device)
  if cpu.numel():
    index_util.remember_host_range(out._xt, cpu)
  return out


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
    # A new tensor in `dtype` (a clone when the dtype does not change) on
    # the target device (copied device to device by PJRT, no host round
    # trip; the conversion runs after, on the target device).
    target = -1 if device is None else _device_index(device)
    return _XLAC._to_dtype(x, code_of(dtype), target)
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
  return _XLAC._to_dtype(x, code_of(x.dtype))  # the same dtype: a clone


@op(aten.detach.default, aten.alias.default)
def detach(x):
  return alias_of(x)


@op(aten.lift_fresh.default)
def lift_fresh(x):
  """torch.tensor(data, device='xla')'s marking of its fresh result: x
  itself, as eager returns it."""
  return x


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
  if isinstance(src, XlaTensor) or (src.dim() == 0 and
                                    src.device.type == "cpu"):
    # ops/copy_ops.h: cast, broadcast (another device's source copied over
    # first) and committed in one call; a cpu 0-dim source is a scalar
    # parameter.
    return _XLAC._copy_(dst, src)
  # A host value: converted on the host, then uploaded and committed in one
  # call (its data, not a graph reading it: under SPMD it stays on the host
  # until dst's sharding is known).
  host = src.to(dst.dtype).contiguous()
  out = _XLAC._copy_from_host(dst, host.data_ptr(), list(host.shape))
  if list(host.shape) == list(dst.shape):
    index_util.remember_host_range(dst._xt, host)
  return out


@op(aten._local_scalar_dense.default)
def local_scalar_dense(x):
  return _XLAC._read_host(x, True)


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


def _fill_value(value):
  return int(value) if isinstance(value, bool) else value


def fill(value, shape, dtype, device: int):
  """A handle for `shape` filled with `value`: host data that costs nothing
  until a graph reading it runs (then it travels like a scalar)."""
  _check_factory_size(shape, dtype)
  return _XLAC._tensor_fill(_fill_value(value), list(shape), code_of(dtype),
                            device)


def full(value, shape, dtype, device: int) -> XlaTensor:
  """fill()'s value as a new 'xla' tensor (one call)."""
  _check_factory_size(shape, dtype)
  return _XLAC._full(_fill_value(value), list(shape), code_of(dtype), device)


@op(aten.zero_.default)
def zero_(x):
  return _XLAC._fill(x, 0, True)


@op(aten.fill_.Scalar)
def fill_scalar_(x, value):
  return _XLAC._fill(x, _fill_value(value), True)


@op(aten.fill_.Tensor)
def fill_tensor_(x, value):
  return _XLAC._fill(x, _tensor_fill_value(value), True)


@op(aten.fill.Scalar)
def fill_scalar(x, value):
  """The functional fill (exported and functionalized programs)."""
  return _XLAC._fill(x, _fill_value(value), False)


@op(aten.fill.Tensor)
def fill_tensor(x, value):
  return _XLAC._fill(x, _tensor_fill_value(value), False)


def _tensor_fill_value(value):
  """fill's 0-dim tensor `value`: an 'xla' one as it is (ops/copy_ops.h
  converts and splats it), another's number."""
  if not isinstance(value, XlaTensor):
    return _fill_value(value.item())
  if value.dim() != 0:
    raise RuntimeError(
        f"fill_ only supports 0-dimension value tensor but got tensor with "
        f"{value.dim()} dimensions.")
  return value


# Factories: ops without tensor arguments do not reach __torch_dispatch__;
# they dispatch on the XLA key, where these kernels are registered. `empty`
# allocates nothing: it is a zero fill until written (see fill()), so the
# first training step's freshly created optimizer state has the same graph
# as every later step's.
_xla_kernels = torch.library.Library("aten", "IMPL", "XLA")


def _empty(size, dtype=None, layout=None, device=None, pin_memory=None,
           memory_format=None):
  dtype = dtype or torch.get_default_dtype()
  return full(0, size, dtype, _device_index(device))


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
  return full(s, [], dtype, _device_index(device))


def _to_copy_kernel(x, dtype=None, layout=None, device=None,
                    pin_memory=None, non_blocking=False, memory_format=None):
  # Reached for a cpu tensor going to 'xla' (x.to('xla'),
  # torch.tensor(data, device='xla')): one upload of its bytes, instead of
  # an empty 'xla' tensor and a copy_ into it.
  return _to_copy(x, dtype=dtype, device=device)


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
_xla_kernels.impl("_to_copy", _to_copy_kernel)
_xla_kernels.impl("scalar_tensor", _scalar_tensor)
