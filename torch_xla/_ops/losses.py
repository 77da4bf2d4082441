"""Losses: nll_loss (1d/2d/nd), mse, binary cross entropy (with and without
logits), smooth L1 and Huber, forward and backward.

cross_entropy, l1_loss and kl_div are composite in ATen: they arrive as
log_softmax + nll_loss (or elementwise ops and reductions) and need no rule.

Each loss and its backward is built in C++ (torch_xla/csrc/ops/
loss_ops.h), one _XLAC call per op; the rules here check arguments and
raise eager's errors. nll_loss picks the target class
with a one-hot mask (iota == target) instead of a gather. A target outside
[0, C) that is not ignore_index raises eager's IndexError: at once when the
host knows the targets, else by a device-side check (docs/device_checks.md).

Like the other families, bf16/f16 compute in f32 and round at the end.
"""

import torch

from torch_xla import _XLAC, _dtypes
from torch_xla._ops import index_util
from torch_xla._ops._common import check_same_device
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import XlaTensor

_NONE, _MEAN, _SUM = 0, 1, 2


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


def _check_targets(x, target, ignore_index):
  """Eager's IndexError for a target outside [0, classes) that is not
  ignore_index: raised at once when the host knows the targets' range;
  else returns the device-side check (read at a later sync or read,
  docs/device_checks.md) that the op's binding registers. None: nothing
  left to check."""
  check_same_device("nll_loss", target)
  if not target.numel():
    return None
  classes = x.shape[0 if x.dim() == 1 else 1]
  if isinstance(target, XlaTensor):
    known = index_util.host_range(target)
    if known is None and index_util.bounded_by(target, 0, classes):
      return None
  else:  # a cpu 0-dim target (check_same_device allows it)
    known = (int(target), int(target))
  if known is not None:
    lo, hi = known
    for bad in (lo, hi):
      if bad != ignore_index and not 0 <= bad < classes:
        raise IndexError(f"Target {bad} is out of bounds.")
    if lo >= 0 or lo == hi:
      return None  # every value is in range or ignore_index
  return index_util.device_check(classes, None, False,
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
  check = _check_targets(x, target, ignore_index)
  # One-hot mask, weights and reduction: ops/loss_ops.h.
  return _XLAC._nll_loss(x, _on_device(target, x), weight, reduction,
                         ignore_index, check)


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


@op(aten.smooth_l1_loss.default)
def smooth_l1_loss(x, target, reduction=_MEAN, beta=1.0):
  _check_reduction("smooth_l1_loss", reduction)
  if beta < 0:
    raise RuntimeError("smooth_l1_loss does not support negative values "
                       "for beta.")
  check_same_device("smooth_l1_loss", target)
  return _XLAC._smooth_l1_loss(x, target, reduction, beta or None)


@op(aten.smooth_l1_loss_backward.default)
def smooth_l1_loss_backward(grad_output, x, target, reduction, beta):
  check_same_device("smooth_l1_loss_backward", target)
  return _XLAC._smooth_l1_loss_backward(grad_output, x, target, reduction,
                                        beta or None)


@op(aten.huber_loss.default)
def huber_loss(x, target, reduction=_MEAN, delta=1.0):
  _check_reduction("huber_loss", reduction)
  if delta <= 0:
    raise RuntimeError("huber_loss does not support non-positive values for "
                       "delta.")
  check_same_device("huber_loss", target)
  return _XLAC._huber_loss(x, target, reduction, delta)


@op(aten.huber_loss_backward.default)
def huber_loss_backward(grad_output, x, target, reduction, delta):
  check_same_device("huber_loss_backward", target)
  return _XLAC._huber_loss_backward(grad_output, x, target, reduction, delta)


# ---------------------------------------------------------------------------
# Binary cross entropy (eager clamps log(p) at -100 and floors p (1 - p) at
# 1e-12 in the backward: ops/loss_ops.h).


@op(aten.binary_cross_entropy_with_logits.default)
def binary_cross_entropy_with_logits(x, target, weight=None, pos_weight=None,
                                     reduction=_MEAN):
  """(1 - t) x - (1 + (pos_weight - 1) t) log_sigmoid(x), times weight."""
  _check_reduction("binary_cross_entropy_with_logits", reduction)
  check_same_device("binary_cross_entropy_with_logits", target, weight,
                    pos_weight)
  return _XLAC._binary_cross_entropy_with_logits(x, target, weight,
                                                 pos_weight, reduction)


@op(aten.binary_cross_entropy.default)
def binary_cross_entropy(x, target, weight=None, reduction=_MEAN):
  """-w (t log(p) + (1 - t) log(1 - p)), logs clamped at -100 like eager."""
  _check_reduction("binary_cross_entropy", reduction)
  if list(x.shape) != list(target.shape):
    raise ValueError(
        f"Using a target size ({target.shape}) that is different to the "
        f"input size ({x.shape}) is deprecated. Please ensure they have the "
        "same size.")
  check_same_device("binary_cross_entropy", target, weight)
  # Eager's RuntimeError for an element of x or target outside [0, 1] (or
  # NaN): the values are the device's, so the binding registers device-side
  # checks that raise at the next sync or read (docs/device_checks.md).
  return _XLAC._binary_cross_entropy(x, target, weight, reduction,
                                     check_values=True)


@op(aten.binary_cross_entropy_backward.default)
def binary_cross_entropy_backward(grad_output, x, target, weight=None,
                                  reduction=_MEAN):
  """g w (p - t) / max(p (1 - p), 1e-12)."""
  check_same_device("binary_cross_entropy_backward", target, weight)
  return _XLAC._binary_cross_entropy_backward(grad_output, x, target, weight,
                                              reduction)


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
