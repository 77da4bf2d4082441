"""clamp, clamp_min, clamp_max and their in-place forms, with eager's
promotion and checks: a Python number bound promotes across categories (an
int tensor clamped by 1.5 gives floats, so the in-place form refuses it),
and a bound the result dtype cannot hold raises eager's overflow error
instead of wrapping (uint8 takes -255..255, wrapping negatives, as eager
does). Tensor bounds promote like binary ops and are never checked (their
values are data)."""

import torch

from torch_xla import _XLAC, _dtypes, _ir
from torch_xla._ops._common import code_of, scalar
from torch_xla._ops.registry import aten, inplace_rule, op
from torch_xla._tensor import XlaTensor, wrap, xt_of


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


def _clamp(x, low, high):
  """Eager's clamp: numbers promote across categories (an int tensor
  clamped by 1.5 gives floats) and must fit the result dtype (eager's
  overflow error otherwise)."""
  code = code_of(_clamp_dtype(x, (low, high)))
  v = _ir.convert(xt_of(x), code)
  device = x.device.index

  def bound_value(bound):
    if isinstance(bound, XlaTensor):
      b = xt_of(bound)
    else:
      _XLAC._check_scalar(bound, code)
      b = scalar(bound, code, device)
    return _ir.broadcast_to(_ir.convert(b, code), v.dims)

  if low is not None:
    v = _ir.binary("maximum", v, bound_value(low))
  if high is not None:
    v = _ir.binary("minimum", v, bound_value(high))
  return wrap(v)


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


def _clamp_inplace(functional):
  """inplace_rule, refusing a result x's dtype cannot hold (an int tensor
  clamped by a float), as eager does."""
  derived = inplace_rule(functional)

  def rule(x, *args, **kwargs):
    out = _clamp_dtype(x, (*args, *kwargs.values()))
    if not torch.can_cast(out, x.dtype):
      raise RuntimeError(
          f"result type {_dtypes.scalar_type_name(out)} can't be cast to "
          f"the desired output type {_C_TYPE_NAMES.get(x.dtype, x.dtype)}")
    return derived(x, *args, **kwargs)

  rule.__name__ = derived.__name__
  return rule


op(aten.clamp_.default, aten.clamp_.Tensor)(_clamp_inplace(clamp))
op(aten.clamp_min_.default)(_clamp_inplace(clamp_min))
op(aten.clamp_max_.default)(_clamp_inplace(clamp_max))
