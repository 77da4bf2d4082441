"""Optimizer math: lerp, addcmul, addcdiv and the `_foreach_*` list ops.

torch.optim's foreach=True paths (SGD, Adam, AdamW, ...) and
clip_grad_norm_ call `_foreach_*` ops on lists of parameters, gradients and
state. On 'xla' a list op is just the single-tensor op traced once per
element (they all land in one graph anyway), so every `_foreach_X` here
loops and calls the registry's rule for X; in-place variants commit the
result into each tensor. Scalars (lr, betas, bias corrections) become scalar
parameters through the single-tensor rules: a new learning rate or step
count never recompiles.

lerp/addcmul/addcdiv follow eager's formulas (and its f32 "opmath" for
bf16/f16) so results match eager PyTorch closely; they are built in C++
(torch_xla/csrc/ops/optim_ops.h) by the builders the C++ fast rules of
lerp_/addcmul_/addcdiv_ call too. This module checks eager's errors.
"""

import torch

from torch_xla import _XLAC, _dtypes, _ir
from torch_xla._ops import registry
from torch_xla._ops._common import (check_same_device, code_of, literal,
                                    scalar)
from torch_xla._ops.reductions import acc_code
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import XlaTensor, commit, wrap, xt_of

_opmath = acc_code


def _dtype_name(dtype):
  """dtype names as eager's C++ messages print them."""
  return {torch.float32: "float", torch.float64: "double",
          torch.bfloat16: "c10::BFloat16", torch.float16: "c10::Half",
          torch.int64: "long int", torch.int32: "int"}.get(
              dtype, str(dtype).replace("torch.", ""))


def _commit_inplace(name, x, value):
  """x.op_(...): the result, in x's dtype, must keep x's shape."""
  if value.dims != list(x.shape):
    raise RuntimeError(
        f"{name}: output with shape {list(x.shape)} doesn't match the "
        f"broadcast shape {value.dims}")
  return commit(x, _ir.convert(value, code_of(x.dtype)))


# lerp ------------------------------------------------------------------------


def _check_lerp(x, end, weight):
  """Eager's errors; the formula (|w| < 0.5 ? x + w (end - x) :
  end - (end - x)(1 - w), in opmath) is ops/optim_ops.h's."""
  check_same_device("lerp", x, end, weight)
  is_tensor = isinstance(weight, torch.Tensor)
  if not (x.dtype.is_floating_point or x.dtype.is_complex):
    kernel = "lerp_kernel_tensor" if is_tensor else "lerp_kernel_scalar"
    raise NotImplementedError(
        f'"{kernel}" not implemented for '
        f"'{_dtypes.scalar_type_name(x.dtype)}'")
  if end.dtype != x.dtype:
    raise RuntimeError(f"expected dtype {_dtype_name(x.dtype)} for `end` but "
                       f"got dtype {_dtype_name(end.dtype)}")
  if is_tensor and weight.dtype != x.dtype:
    raise RuntimeError(f"expected dtype {_dtype_name(x.dtype)} for `weight` "
                       f"but got dtype {_dtype_name(weight.dtype)}")

@op(aten.lerp.Scalar, aten.lerp.Tensor)
def lerp(x, end, weight):
  _check_lerp(x, end, weight)
  return _XLAC._lerp(x, end, weight, False)


@op(aten.lerp_.Scalar, aten.lerp_.Tensor)
def lerp_(x, end, weight):
  _check_lerp(x, end, weight)
  return _XLAC._lerp(x, end, weight, True)


# addcmul / addcdiv -----------------------------------------------------------


def _addc(kind, x, t1, t2, value, inplace, inplace_name=None):
  """x + value * t1 * t2 (kind "multiply") or x + value * t1 / t2
  ("divide"), evaluated left to right like eager, in opmath
  (ops/optim_ops.h); a new tensor, or x updated with `inplace` (errors
  name `inplace_name`, default addcmul_/addcdiv_)."""
  name = "addcmul" if kind == "multiply" else "addcdiv"
  check_same_device(name, x, t1, t2)
  dtype = torch.promote_types(torch.promote_types(x.dtype, t1.dtype),
                              t2.dtype)
  if kind == "divide" and not dtype.is_floating_point:
    raise RuntimeError(
        "Integer division with addcdiv is no longer supported, and in a "
        "future  release addcdiv will perform a true division of tensor1 "
        "and tensor2. The historic addcdiv behavior can be implemented as "
        "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) "
        "for integer inputs and as (input + value * tensor1 / tensor2) for "
        "float inputs. The future addcdiv behavior is just the latter "
        "implementation: (input + value * tensor1 / tensor2), for all "
        "dtypes.")
  if isinstance(value, (int, float)) and value == 1:
    value = None  # no multiplication, as eager
  return _XLAC._addc(_ir.K[kind], x, t1, t2, value, code_of(dtype), inplace,
                     inplace_name or f"{name}_")


@op(aten.addcmul.default)
def addcmul(x, t1, t2, value=1):
  return _addc("multiply", x, t1, t2, value, False)


@op(aten.addcmul_.default)
def addcmul_(x, t1, t2, value=1):
  return _addc("multiply", x, t1, t2, value, True)


@op(aten.addcdiv.default)
def addcdiv(x, t1, t2, value=1):
  return _addc("divide", x, t1, t2, value, False)


@op(aten.addcdiv_.default)
def addcdiv_(x, t1, t2, value=1):
  return _addc("divide", x, t1, t2, value, True)


# _foreach_* ------------------------------------------------------------------


def _check_lists(name, *lists):
  n = len(lists[0])
  for other in lists[1:]:
    if len(other) != n:
      raise RuntimeError(f"{name}: Tensor lists must have the same number of "
                         f"tensors, got {n} and {len(other)}")


def _scalars_of(name, scalars, n):
  """A ScalarList or a 1-d tensor of scalars as a list of n entries."""
  if isinstance(scalars, XlaTensor):
    # One 0-dim handle per entry: the values stay on the device.
    v = xt_of(scalars)
    values = [
        wrap(_ir.reshape(_ir.slice_(v, [i], [i + 1]), []))
        for i in range(scalars.shape[0])
    ]
  elif isinstance(scalars, torch.Tensor):
    values = scalars.tolist()
  else:
    values = list(scalars)
  if len(values) != n:
    raise RuntimeError(f"{name}: Tensor list must have same number of "
                       f"elements as scalar list, got {n} and {len(values)}")
  return values


def _apply(fn, inplace, name, tensors, *per_item):
  """fn(tensor, *items) for each tensor; commits for in-place ops."""
  results = []
  for t, *items in zip(tensors, *per_item):
    out = fn(t, *items)
    if inplace:
      _commit_inplace(name, t, xt_of(out))
    else:
      results.append(out)
  return None if inplace else results


def _single(overload):
  """Calls the registry for one single-tensor ATen overload."""
  dispatch = registry.dispatch

  def call(*args, **kwargs):
    return dispatch(overload, args, kwargs)

  return call


def _register_binary(base, list_op, scalar_op, tensor_op=None):
  """_foreach_<base>[_].{List, Scalar, ScalarList, Tensor}."""
  list_fn, scalar_fn = _single(list_op), _single(scalar_op)
  tensor_fn = _single(tensor_op) if tensor_op is not None else None
  for inplace in (False, True):
    name = f"_foreach_{base}{'_' if inplace else ''}"
    packet = getattr(aten, name)
    overloads = packet.overloads()

    def on_list(self, other, alpha=None, _inplace=inplace, _name=name):
      _check_lists(_name, self, other)
      kw = {} if alpha is None else {"alpha": alpha}
      return _apply(lambda a, b: list_fn(a, b, **kw), _inplace, _name, self,
                    other)

    def on_scalar(self, scalar_, _inplace=inplace, _name=name):
      return _apply(lambda a: scalar_fn(a, scalar_), _inplace, _name, self)

    def on_scalar_list(self, scalars, _inplace=inplace, _name=name):
      values = _scalars_of(_name, scalars, len(self))
      return _apply(lambda a, s: scalar_fn(a, s), _inplace, _name, self,
                    values)

    def on_tensor(self, other, alpha=None, _inplace=inplace, _name=name):
      kw = {} if alpha is None else {"alpha": alpha}
      return _apply(lambda a: tensor_fn(a, other, **kw), _inplace, _name,
                    self)

    op(packet.List)(on_list)
    op(packet.Scalar)(on_scalar)
    op(packet.ScalarList)(on_scalar_list)
    if "Tensor" in overloads and tensor_fn is not None:
      op(packet.Tensor)(on_tensor)


_register_binary("add", aten.add.Tensor, aten.add.Scalar, aten.add.Tensor)
_register_binary("sub", aten.sub.Tensor, aten.sub.Scalar)
_register_binary("mul", aten.mul.Tensor, aten.mul.Scalar, aten.mul.Tensor)
_register_binary("div", aten.div.Tensor, aten.div.Scalar, aten.div.Tensor)
# Like eager's foreach kernels, maximum/minimum with a scalar are clamps.
_register_binary("maximum", aten.maximum.default, aten.clamp_min.default)
_register_binary("minimum", aten.minimum.default, aten.clamp_max.default)
_register_binary("clamp_min", aten.clamp_min.Tensor, aten.clamp_min.default)
_register_binary("clamp_max", aten.clamp_max.Tensor, aten.clamp_max.default)
_register_binary("pow", aten.pow.Tensor_Tensor, aten.pow.Tensor_Scalar)


@op(aten._foreach_pow.ScalarAndTensor)
def _foreach_pow_scalar_and_tensor(base, exponents):
  pow_ = _single(aten.pow.Scalar)
  return [pow_(base, e) for e in exponents]


_UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc",
          "exp", "expm1", "floor", "frac", "lgamma", "log", "log10", "log1p",
          "log2", "neg", "reciprocal", "round", "rsqrt", "sigmoid", "sign",
          "sin", "sinh", "sqrt", "tan", "tanh", "trunc")


def _register_unary(base):
  fn = _single(getattr(aten, base).default)

  @op(getattr(aten, f"_foreach_{base}").default)
  def functional(self):
    return [fn(t) for t in self]

  name = f"_foreach_{base}_"

  @op(getattr(aten, name).default)
  def inplace(self):
    return _apply(fn, True, name, self)


for _base in _UNARY:
  _register_unary(_base)


def _register_addc(base, kind):
  for inplace in (False, True):
    name = f"_foreach_{base}{'_' if inplace else ''}"
    packet = getattr(aten, name)

    def one(x, t1, t2, value, _inplace=inplace, _name=name):
      return _addc(kind, x, t1, t2, value, _inplace, _name)

    def on_scalar(self, t1, t2, value=1, _inplace=inplace, _name=name,
                  _one=one):
      _check_lists(_name, self, t1, t2)
      out = [_one(x, a, b, value) for x, a, b in zip(self, t1, t2)]
      return None if _inplace else out

    def on_scalars(self, t1, t2, scalars, _inplace=inplace, _name=name,
                   _one=one):
      _check_lists(_name, self, t1, t2)
      values = _scalars_of(_name, scalars, len(self))
      out = [_one(x, a, b, v) for x, a, b, v in zip(self, t1, t2, values)]
      return None if _inplace else out

    op(packet.Scalar)(on_scalar)
    op(packet.ScalarList, packet.Tensor)(on_scalars)


_register_addc("addcmul", "multiply")
_register_addc("addcdiv", "divide")


def _register_lerp():
  for inplace in (False, True):
    name = f"_foreach_lerp{'_' if inplace else ''}"
    packet = getattr(aten, name)

    def one(x, end, w, _inplace=inplace, _name=name):
      _check_lerp(x, end, w)
      return _XLAC._lerp(x, end, w, _inplace, _name)

    def on_list(self, ends, weights, _inplace=inplace, _name=name, _one=one):
      _check_lists(_name, self, ends, weights)
      out = [_one(x, e, w) for x, e, w in zip(self, ends, weights)]
      return None if _inplace else out

    def on_scalar(self, ends, weight, _inplace=inplace, _name=name,
                  _one=one):
      _check_lists(_name, self, ends)
      out = [_one(x, e, weight) for x, e in zip(self, ends)]
      return None if _inplace else out

    def on_scalars(self, ends, weights, _inplace=inplace, _name=name,
                   _one=one):
      _check_lists(_name, self, ends)
      values = _scalars_of(_name, weights, len(self))
      out = [_one(x, e, w) for x, e, w in zip(self, ends, values)]
      return None if _inplace else out

    op(packet.List)(on_list)
    op(packet.Scalar)(on_scalar)
    op(packet.ScalarList)(on_scalars)


_register_lerp()


def _power_sum(v, ord_, acc, device):
  """sum(|v|^ord) over all elements of handle v (in `acc`)."""
  shape = v.dims
  a = _ir.unary("abs", _ir.convert(v, acc))
  if ord_ == 2:
    p = _ir.binary("multiply", a, a)
  elif ord_ == 1:
    p = a
  else:
    p = _ir.binary("power", a, literal(ord_, acc, shape, device))
  return _ir.reduce(p, list(range(len(shape))), "sum")


@op(aten._foreach_norm.Scalar)
def _foreach_norm(self, ord=2, dtype=None):
  """Each tensor's vector norm: one _XLAC call for the list
  (ops/reduction_ops.h VectorNorm, in opmath)."""
  for t in self:
    if not (dtype or t.dtype).is_floating_point:
      raise RuntimeError(f"_foreach_norm: expected a floating point tensor, "
                         f"got {t.dtype}")
  return _XLAC._foreach_vector_norm(
      list(self), float(ord), None if dtype is None else code_of(dtype))


@op(aten._foreach_powsum.Scalar)
def _foreach_powsum(self, ord=2, dtype=None):
  out = []
  for t in self:
    code = code_of(dtype or t.dtype)
    acc = _opmath(code)
    out.append(wrap(_ir.convert(
        _power_sum(xt_of(t), float(ord), acc, t.device.index), code)))
  return out


@op(aten._foreach_max.default)
def _foreach_max(self):
  for t in self:
    if t.numel() == 0:
      raise RuntimeError("_foreach_max: max(): Expected reduction dim to be "
                         "specified for input.numel() == 0.")
  return _XLAC._foreach_max(list(self))  # one call (ops/reduction_ops.h)


@op(aten._foreach_zero_.default)
def _foreach_zero_(self):
  _XLAC._foreach_zero(list(self), True)


@op(aten._foreach_zero.default)
def _foreach_zero(self):
  return _XLAC._foreach_zero(list(self), False)


@op(aten._foreach_copy_.default)
def _foreach_copy_(self, src, non_blocking=False):
  _check_lists("_foreach_copy_", self, src)
  copy = _single(aten.copy_.default)
  for dst, s in zip(self, src):
    copy(dst, s, non_blocking)


@op(aten._foreach_copy.default)
def _foreach_copy(self, src, non_blocking=False):
  _check_lists("_foreach_copy", self, src)
  clone = _single(aten.clone.default)
  copy = _single(aten.copy_.default)
  return [copy(clone(dst), s, non_blocking) for dst, s in zip(self, src)]


@op(aten._foreach_clone.default)
def _foreach_clone(self):
  clone = _single(aten.clone.default)
  return [clone(t) for t in self]
