"""Losses: nll_loss (1d/2d/nd), mse, binary cross entropy (with and without
logits), smooth L1 and Huber, forward and backward.

cross_entropy, l1_loss and kl_div are composite in ATen: they arrive as
log_softmax + nll_loss (or elementwise ops and reductions) and need no rule.

nll_loss and mse_loss (forward and backward) are built in C++
(torch_xla/csrc/ops/loss_ops.h), one _XLAC call per op; their rules here
check arguments and raise eager's errors. nll_loss picks the target class
with a one-hot mask (iota == target) instead of a gather. A target outside
[0, C) that is not ignore_index raises eager's IndexError: at once when the
host knows the targets, else by a device-side check (docs/device_checks.md).

Like the other families, bf16/f16 compute in f32 and round at the end.
"""

import math

import torch

from torch_xla import _XLAC, _dtypes, _ir
from torch_xla._ops import index_util
from torch_xla._ops._common import (broadcast_shapes, check_same_device,
                                    code_of, literal_like, scalar)
from torch_xla._ops.reductions import acc_code
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import XlaTensor, wrap, xt_of

_NONE, _MEAN, _SUM = 0, 1, 2


def _acc_operands(*tensors):
  """Handles in the accumulation type of the first tensor's dtype,
  broadcast to one shape; and that dtype's code."""
  code = code_of(tensors[0].dtype)
  acc = acc_code(code)
  values = [_ir.convert(xt_of(t), acc) for t in tensors]
  shape = broadcast_shapes(*[v.dims for v in values])
  return [_ir.broadcast_to(v, shape) for v in values], code


def _reduce_loss(loss, reduction):
  """none / mean / sum over every element of the (acc-typed) loss."""
  if reduction == _NONE:
    return loss
  dims = list(range(len(loss.dims)))
  total = _ir.reduce(loss, dims, "sum") if dims else loss
  if reduction == _MEAN:
    total = _ir.binary("divide", total,
                       literal_like(math.prod(loss.dims), total.dtype, total))
  return total


def _grad_scale(grad_output, reduction, like):
  """The upstream gradient broadcast to `like`, divided by the element
  count for mean."""
  g = _ir.broadcast_to(_ir.convert(xt_of(grad_output), like.dtype), like.dims)
  if reduction == _MEAN:
    g = _ir.binary("divide", g, literal_like(math.prod(like.dims), like.dtype, like))
  return g


def _check_reduction(name, reduction):
  if reduction not in (_NONE, _MEAN, _SUM):
    raise ValueError(f"{name}: reduction must be 0 (none), 1 (mean) or 2 "
                     f"(sum), got {reduction}")


# ---------------------------------------------------------------------------
# nll_loss.


def _nll_layout(name, x, target, weight):
  """(class dim, dims of x that the target indexes) after shape checks."""
  if x.dim() == 0:
    raise ValueError(f"{name}: input tensor should have at least 1 dim, "
                     "got a 0-d tensor")
  cd = 0 if x.dim() == 1 else 1
  expected = [s for i, s in enumerate(x.shape) if i != cd]
  if list(target.shape) != expected:
    if x.dim() >= 2 and target.dim() >= 1 and target.shape[0] != x.shape[0]:
      raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match "
                       f"target batch_size ({target.shape[0]}).")
    raise RuntimeError(f"{name}: expected target of shape {expected} for "
                       f"input of shape {list(x.shape)}, got "
                       f"{list(target.shape)}")
  if target.dtype not in (torch.int64, torch.uint8):
    raise RuntimeError("expected target dtype to be Long or Byte, but got "
                       f"{_dtypes.scalar_type_name(target.dtype)}")
  classes = x.shape[cd]
  if weight is not None and weight.numel() != classes:
    raise RuntimeError(
        f"{name}: weight tensor should be defined either for all "
        f"{classes} classes or no classes but got weight tensor of shape: "
        f"{list(weight.shape)}")
  return cd, [i for i in range(x.dim()) if i != cd]


def _scalar_like(value, like):
  """A scalar parameter of like's element type broadcast to its shape."""
  return _ir.broadcast_to(scalar(value, like.dtype, like.device), like.dims)


def _check_targets(x, target, ignore_index):
  """Eager's IndexError for a target outside [0, classes) that is not
  ignore_index: at once when the host knows the targets' range, else by a
  device-side check read at a later sync or read (docs/device_checks.md)."""
  check_same_device("nll_loss", target)
  if not target.numel():
    return
  classes = x.shape[0 if x.dim() == 1 else 1]
  if isinstance(target, XlaTensor):
    known = index_util.host_range(target)
    if known is None and index_util.bounded_by(target, 0, classes):
      return
  else:  # a cpu 0-dim target (check_same_device allows it)
    known = (int(target), int(target))
  if known is not None:
    lo, hi = known
    for bad in (lo, hi):
      if bad != ignore_index and not 0 <= bad < classes:
        raise IndexError(f"Target {bad} is out of bounds.")
    if lo >= 0 or lo == hi:
      return  # every value is in range or ignore_index
  index_util.check_on_device(xt_of(target), classes, None, False,
                             "a target is out of bounds.", op="nll_loss",
                             exempt=ignore_index)


def _on_device(target, x):
  """The target as an 'xla' tensor (a cpu 0-dim one is uploaded)."""
  if isinstance(target, XlaTensor):
    return target
  from torch_xla._ops import copy_ops
  return copy_ops.from_host(target, x.device.index)


def _nll_forward(x, target, weight, reduction, ignore_index):
  _check_reduction("nll_loss", reduction)
  _nll_layout("nll_loss", x, target, weight)
  _check_targets(x, target, ignore_index)
  # One-hot mask, weights and reduction: ops/loss_ops.h.
  return _XLAC._nll_loss(x, _on_device(target, x), weight, reduction,
                         ignore_index)


def _nll_backward(grad_output, x, target, weight, reduction, ignore_index,
                  total_weight):
  _check_reduction("nll_loss_backward", reduction)
  _nll_layout("nll_loss", x, target, weight)
  return _XLAC._nll_loss_backward(grad_output, x, _on_device(target, x),
                                  weight, reduction, ignore_index,
                                  total_weight)


@op(aten.nll_loss_forward.default)
def nll_loss_forward(x, target, weight, reduction, ignore_index):
  if x.dim() > 2:
    raise ValueError(f"nll_loss: input tensor should be 1D or 2D, got "
                     f"{list(x.shape)}")
  return _nll_forward(x, target, weight, reduction, ignore_index)


@op(aten.nll_loss2d_forward.default)
def nll_loss2d_forward(x, target, weight, reduction, ignore_index):
  if x.dim() != 4:
    raise ValueError(f"nll_loss2d: input tensor should be 4D, got "
                     f"{list(x.shape)}")
  return _nll_forward(x, target, weight, reduction, ignore_index)


@op(aten.nll_loss_backward.default, aten.nll_loss2d_backward.default)
def nll_loss_backward(grad_output, x, target, weight, reduction, ignore_index,
                      total_weight):
  return _nll_backward(grad_output, x, target, weight, reduction,
                       ignore_index, total_weight)


# ---------------------------------------------------------------------------
# mse, smooth L1, Huber.


@op(aten.mse_loss.default)
def mse_loss(x, target, reduction=_MEAN):
  _check_reduction("mse_loss", reduction)
  check_same_device("mse_loss", target)
  return _XLAC._mse_loss(x, target, reduction)  # ops/loss_ops.h


@op(aten.mse_loss_backward.default)
def mse_loss_backward(grad_output, x, target, reduction):
  _check_reduction("mse_loss_backward", reduction)
  check_same_device("mse_loss_backward", target)
  return _XLAC._mse_loss_backward(grad_output, x, target, reduction)


def _abs_diff(x, target):
  (v, t), code = _acc_operands(x, target)
  d = _ir.binary("subtract", v, t)
  return d, _ir.unary("abs", d), code


@op(aten.smooth_l1_loss.default)
def smooth_l1_loss(x, target, reduction=_MEAN, beta=1.0):
  _check_reduction("smooth_l1_loss", reduction)
  if beta < 0:
    raise RuntimeError("smooth_l1_loss does not support negative values "
                       "for beta.")
  d, a, code = _abs_diff(x, target)
  if beta == 0:
    return wrap(_ir.convert(_reduce_loss(a, reduction), code))
  beta_ = _scalar_like(beta, a)
  half = literal_like(0.5, a.dtype, a)
  quadratic = _ir.binary(
      "divide", _ir.binary("multiply", half, _ir.binary("multiply", a, a)),
      beta_)
  linear = _ir.binary("subtract", a, _ir.binary("multiply", half, beta_))
  loss = _ir.select(_ir.compare(a, beta_, "LT"), quadratic, linear)
  return wrap(_ir.convert(_reduce_loss(loss, reduction), code))


@op(aten.smooth_l1_loss_backward.default)
def smooth_l1_loss_backward(grad_output, x, target, reduction, beta):
  d, a, code = _abs_diff(x, target)
  sign = _ir.unary("sign", d)
  if beta == 0:
    grad = sign
  else:
    beta_ = _scalar_like(beta, d)
    grad = _ir.select(
        _ir.compare(a, beta_, "LT"), _ir.binary("divide", d, beta_), sign)
  return wrap(
      _ir.convert(
          _ir.binary("multiply", grad, _grad_scale(grad_output, reduction,
                                                   d)), code))


@op(aten.huber_loss.default)
def huber_loss(x, target, reduction=_MEAN, delta=1.0):
  _check_reduction("huber_loss", reduction)
  if delta <= 0:
    raise RuntimeError("huber_loss does not support non-positive values for "
                       "delta.")
  d, a, code = _abs_diff(x, target)
  delta_ = _scalar_like(delta, a)
  half = literal_like(0.5, a.dtype, a)
  quadratic = _ir.binary("multiply", half, _ir.binary("multiply", a, a))
  linear = _ir.binary(
      "multiply", delta_,
      _ir.binary("subtract", a, _ir.binary("multiply", half, delta_)))
  loss = _ir.select(_ir.compare(a, delta_, "LT"), quadratic, linear)
  return wrap(_ir.convert(_reduce_loss(loss, reduction), code))


@op(aten.huber_loss_backward.default)
def huber_loss_backward(grad_output, x, target, reduction, delta):
  d, a, code = _abs_diff(x, target)
  delta_ = _scalar_like(delta, d)
  grad = _ir.select(
      _ir.compare(a, delta_, "LT"), d,
      _ir.binary("multiply", delta_, _ir.unary("sign", d)))
  return wrap(
      _ir.convert(
          _ir.binary("multiply", grad, _grad_scale(grad_output, reduction,
                                                   d)), code))


# ---------------------------------------------------------------------------
# Binary cross entropy.


def _log_sigmoid(v):
  """log(sigmoid(v)) = min(v, 0) - log1p(exp(-|v|)), stable for any v."""
  zero = literal_like(0, v.dtype, v)
  return _ir.binary(
      "subtract", _ir.binary("minimum", v, zero),
      _ir.unary("log_plus_one",
                _ir.unary("exponential", _ir.unary("negate",
                                                   _ir.unary("abs", v)))))


@op(aten.binary_cross_entropy_with_logits.default)
def binary_cross_entropy_with_logits(x, target, weight=None, pos_weight=None,
                                     reduction=_MEAN):
  """(1 - t) x - (1 + (pos_weight - 1) t) log_sigmoid(x), times weight."""
  _check_reduction("binary_cross_entropy_with_logits", reduction)
  extra = [p for p in (weight, pos_weight) if p is not None]
  values, code = _acc_operands(x, target, *extra)
  v, t = values[0], values[1]
  one = literal_like(1, v.dtype, v)
  log_sig = _log_sigmoid(v)
  if pos_weight is not None:
    pw = values[-1]
    log_weight = _ir.binary(
        "add", one,
        _ir.binary("multiply", _ir.binary("subtract", pw, one), t))
    log_sig = _ir.binary("multiply", log_weight, log_sig)
  loss = _ir.binary("subtract",
                    _ir.binary("multiply", _ir.binary("subtract", one, t), v),
                    log_sig)
  if weight is not None:
    loss = _ir.binary("multiply", loss, values[2])
  return wrap(_ir.convert(_reduce_loss(loss, reduction), code))


_BCE_LOG_FLOOR = -100.0  # eager clamps log(p) at -100
_BCE_EPSILON = 1e-12  # eager's floor for p (1 - p) in the backward


@op(aten.binary_cross_entropy.default)
def binary_cross_entropy(x, target, weight=None, reduction=_MEAN):
  """-w (t log(p) + (1 - t) log(1 - p)), logs clamped at -100 like eager."""
  _check_reduction("binary_cross_entropy", reduction)
  if list(x.shape) != list(target.shape):
    raise ValueError(
        f"Using a target size ({target.shape}) that is different to the "
        f"input size ({x.shape}) is deprecated. Please ensure they have the "
        "same size.")
  extra = [weight] if weight is not None else []
  values, code = _acc_operands(x, target, *extra)
  v, t = values[0], values[1]
  one = literal_like(1, v.dtype, v)
  floor = literal_like(_BCE_LOG_FLOOR, v.dtype, v)
  log_p = _ir.binary("maximum", _ir.unary("log", v), floor)
  log_q = _ir.binary("maximum",
                     _ir.unary("log", _ir.binary("subtract", one, v)), floor)
  loss = _ir.unary(
      "negate",
      _ir.binary(
          "add", _ir.binary("multiply", t, log_p),
          _ir.binary("multiply", _ir.binary("subtract", one, t), log_q)))
  if weight is not None:
    loss = _ir.binary("multiply", loss, values[2])
  return wrap(_ir.convert(_reduce_loss(loss, reduction), code))


@op(aten.binary_cross_entropy_backward.default)
def binary_cross_entropy_backward(grad_output, x, target, weight=None,
                                  reduction=_MEAN):
  """g w (p - t) / max(p (1 - p), 1e-12)."""
  extra = [weight] if weight is not None else []
  values, code = _acc_operands(x, target, *extra)
  v, t = values[0], values[1]
  one = literal_like(1, v.dtype, v)
  denominator = _ir.binary(
      "maximum", _ir.binary("multiply", _ir.binary("subtract", one, v), v),
      literal_like(_BCE_EPSILON, v.dtype, v))
  grad = _ir.binary("divide", _ir.binary("subtract", v, t), denominator)
  if weight is not None:
    grad = _ir.binary("multiply", grad, values[2])
  return wrap(
      _ir.convert(
          _ir.binary("multiply", grad, _grad_scale(grad_output, reduction,
                                                   v)), code))


# torch.ctc_loss with tensor lengths on a tensor subclass takes ATen's
# composite path, which divides the 'xla' loss by the length tensor as it
# is (a CPU tensor is allowed there: eager reads the lengths as lists). An
# AutogradXLA kernel does what eager does: read the lengths as lists and
# call the list overload (its mean divides by an 'xla' tensor of them).
_ctc_library = torch.library.Library("aten", "IMPL")


def _ctc_loss_tensor_lengths(log_probs, targets, input_lengths,
                             target_lengths, blank=0, reduction=1,
                             zero_infinity=False):
  return torch.ops.aten.ctc_loss.IntList(
      log_probs, targets, input_lengths.tolist(), target_lengths.tolist(),
      blank, reduction, zero_infinity)


_ctc_library.impl("ctc_loss.Tensor", _ctc_loss_tensor_lengths, "AutogradXLA")
