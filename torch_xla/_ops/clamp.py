"""clamp, clamp_min, clamp_max and their in-place forms, with eager's
promotion and checks: a Python number bound promotes across categories (an
int tensor clamped by 1.5 gives floats, so the in-place form refuses it),
and a bound the result dtype cannot hold raises eager's overflow error
instead of wrapping (uint8 takes -255..255, wrapping negatives, as eager
does). Tensor bounds promote like binary ops and are never checked (their
values are data). Each rule is one C++ call (ops/select_ops.h)."""

import torch

from torch_xla import _XLAC, _dtypes
from torch_xla._ops._common import code_of
from torch_xla._ops.registry import aten, op


def _clamp_dtype(x, bounds):
  dtype = x.dtype
  for bound in bounds:
    if isinstance(bound, torch.Tensor):
      dtype = torch.promote_types(dtype, bound.dtype)
    elif type(bound) is float and not dtype.is_floating_point:
      dtype = torch.get_default_dtype()
    elif type(bound) is int and dtype is torch.bool:
      dtype = torch.int64
  return dtype


def _clamp(x, low, high, inplace=False):
  """Eager's clamp: numbers promote across categories (an int tensor
  clamped by 1.5 gives floats) and must fit the result dtype (eager's
  overflow error otherwise, raised by the C++ call); one C++ call
  (ops/select_ops.h), which with `inplace` commits the result into x."""
  return _XLAC._clamp(x, low, high, clamp_code(x, low, high, inplace),
                      inplace)


def clamp_code(x, low, high, inplace):
  """The dtype code clamp(x, low, high) computes in, after eager's checks
  (also the _foreach_clamp_min/max rules', optim_ops.py)."""
  if low is None and high is None:
    raise RuntimeError(
        "torch.clamp: At least one of 'min' or 'max' must not be None")
  dtype = _clamp_dtype(x, (low, high))
  if inplace and not torch.can_cast(dtype, x.dtype):
    raise RuntimeError(
        f"result type {_dtypes.scalar_type_name(dtype)} can't be cast to "
        f"the desired output type {_C_TYPE_NAMES.get(x.dtype, x.dtype)}")
  return code_of(dtype)


@op(aten.clamp.default, aten.clamp.Tensor)
def clamp(x, min=None, max=None):
  return _clamp(x, min, max)


@op(aten.clamp_min.default, aten.clamp_min.Tensor)
def clamp_min(x, min):
  return _clamp(x, min, None)


@op(aten.clamp_max.default, aten.clamp_max.Tensor)
def clamp_max(x, max):
  return _clamp(x, None, max)


_C_TYPE_NAMES = {torch.bool: "bool", torch.uint8: "unsigned char",
                 torch.int8: "signed char", torch.int16: "short int",
                 torch.int32: "int", torch.int64: "long int"}


@op(aten.clamp_.default, aten.clamp_.Tensor)
def clamp_(x, min=None, max=None):
  return _clamp(x, min, max, inplace=True)


@op(aten.clamp_min_.default, aten.clamp_min_.Tensor)
def clamp_min_(x, min):
  return _clamp(x, min, None, inplace=True)


@op(aten.clamp_max_.default, aten.clamp_max_.Tensor)
def clamp_max_(x, max):
  return _clamp(x, None, max, inplace=True)
