"""Softmax, layer norm, batch norm and RMS norm, forward and backward.

All of them compute in f32 for bf16/f16 inputs and round once at the end,
as eager's CPU kernels do. Softmax subtracts the row max first, so large
logits never overflow exp(); softmax, log_softmax and their backwards are
built in C++ (torch_xla/csrc/ops/softmax_ops.h) by the builders the C++
fast rules call too; _safe_softmax, layer norm, RMS norm, batch norm and
their backwards likewise (ops/norm_ops.h, batch_norm_ops.h), one _XLAC
call each: the rules
here check arguments and raise eager's errors. eps and momentum are scalar
parameters (a new value never recompiles); element counts are literals.

Batch norm updates the running statistics in place (committed by its
binding), as eager does.
"""

import torch

from torch_xla import _XLAC, _dtypes, _ir
from torch_xla._ops._common import canonical_dim, code_of
from torch_xla._ops.registry import aten, op


# ---------------------------------------------------------------------------
# Softmax.


def _softmax_dims(x, dim):
  d = canonical_dim(dim, x.dim())  # IndexError like eager's
  return [d] if x.dim() else []


def _softmax_code(dtype, half_to_float=False, kernel="softmax"):
  """The result's element type; integer inputs raise eager's error (its
  kernels take floats only)."""
  if not (dtype.is_floating_point or dtype.is_complex):
    raise NotImplementedError(
        f'"{kernel}_lastdim_kernel_impl" not implemented for '
        f"'{_dtypes.scalar_type_name(dtype)}'")
  return _ir.F32 if half_to_float else code_of(dtype)


@op(aten._softmax.default)
def softmax(x, dim, half_to_float=False):
  # Built by ops/softmax_ops.h, as the C++ fast rule builds it.
  return _XLAC._softmax(x, _softmax_dims(x, dim),
                        _softmax_code(x.dtype, half_to_float))


@op(aten._log_softmax.default)
def log_softmax(x, dim, half_to_float=False):
  return _XLAC._softmax(x, _softmax_dims(x, dim),
                        _softmax_code(x.dtype, half_to_float, "log_softmax"),
                        log=True)


@op(aten._safe_softmax.default)
def safe_softmax(x, dim, dtype=None):
  """Softmax whose fully masked rows (all -inf) give 0, not NaN (SDPA;
  ops/softmax_ops.h)."""
  return _XLAC._safe_softmax(x, _softmax_dims(x, dim),
                             _softmax_code(dtype or x.dtype))


@op(aten._softmax_backward_data.default)
def softmax_backward(grad_output, output, dim, input_dtype):
  # d softmax: y * (g - sum(g * y)) (ops/softmax_ops.h)
  return _XLAC._softmax_backward(grad_output, output,
                                 _softmax_dims(output, dim),
                                 code_of(input_dtype))


@op(aten._log_softmax_backward_data.default)
def log_softmax_backward(grad_output, output, dim, input_dtype):
  # d log_softmax: g - exp(y) * sum(g) (ops/softmax_ops.h)
  return _XLAC._softmax_backward(grad_output, output,
                                 _softmax_dims(output, dim),
                                 code_of(input_dtype), log=True)


# ---------------------------------------------------------------------------
# Layer norm and RMS norm: statistics over the trailing normalized dims.


def _normalized_axis(x, normalized_shape):
  """First normalized dim; RuntimeError like eager's when shapes differ."""
  normalized_shape = list(normalized_shape)
  axis = x.dim() - len(normalized_shape)
  if axis < 0 or list(x.shape[axis:]) != normalized_shape:
    raise RuntimeError(
        f"Given normalized_shape={normalized_shape}, expected input "
        f"with shape [*, {', '.join(map(str, normalized_shape))}], but got "
        f"input of size{list(x.shape)}")
  return axis


@op(aten.native_layer_norm.default)
def native_layer_norm(x, normalized_shape, weight, bias, eps):
  axis = _normalized_axis(x, normalized_shape)
  return _XLAC._layer_norm(x, axis, weight, bias, eps)  # ops/norm_ops.h


@op(aten.native_layer_norm_backward.default)
def native_layer_norm_backward(grad_out, x, normalized_shape, mean, rstd,
                               weight, bias, output_mask):
  axis = _normalized_axis(x, normalized_shape)
  return _XLAC._layer_norm_backward(grad_out, x, axis, mean, rstd, weight,
                                    bias, list(output_mask))


@op(aten._fused_rms_norm.default)
def fused_rms_norm(x, normalized_shape, weight, eps):
  """-> (x * rsqrt(mean(x^2) + eps) * weight, rstd). eps None: dtype eps."""
  axis = _normalized_axis(x, normalized_shape)
  if eps is None:
    eps = torch.finfo(x.dtype).eps
  return _XLAC._rms_norm(x, axis, weight, eps)  # ops/norm_ops.h


@op(aten._fused_rms_norm_backward.default)
def fused_rms_norm_backward(grad_out, x, normalized_shape, rstd, weight,
                            output_mask):
  axis = _normalized_axis(x, normalized_shape)
  return _XLAC._rms_norm_backward(grad_out, x, axis, rstd, weight,
                                  list(output_mask))


# ---------------------------------------------------------------------------
# Batch norm: statistics per channel (dim 1) over every other dim.


def _channel_layout(name, x):
  if x.dim() < 2:
    raise RuntimeError(f"{name}: expected an input with at least 2 dims "
                       f"(N, C, ...), got {list(x.shape)}")
  return [d for d in range(x.dim()) if d != 1]


def _stats_dtype(x, *params):
  """Eager's mixed-type rule: bf16/f16 input with f32 params keeps its
  statistics in the params' dtype; otherwise in the input's."""
  for p in params:
    if p is not None:
      return p.dtype
  return x.dtype


def _batch_norm(x, weight, bias, running_mean, running_var, training,
                momentum, eps, functional=False, reserve=False):
  """One call of the builder (ops/batch_norm_ops.h): (out, save_mean,
  save_invstd[, reserve][, new_mean, new_var with `functional`]); without
  `functional` the new running statistics are committed in place."""
  _channel_layout("batch_norm", x)
  if not training and (running_mean is None or running_var is None):
    raise RuntimeError("batch_norm: running_mean and running_var must be "
                       "defined in evaluation mode")
  stats = code_of(_stats_dtype(x, weight, bias, running_mean, running_var))
  return _XLAC._batch_norm(x, weight, bias, running_mean, running_var,
                           training, momentum, 1 - momentum, eps, stats,
                           functional, reserve)


@op(aten.native_batch_norm.default)
def native_batch_norm(x, weight, bias, running_mean, running_var, training,
                      momentum, eps):
  return _batch_norm(x, weight, bias, running_mean, running_var, training,
                     momentum, eps)


@op(aten._native_batch_norm_legit.default)
def native_batch_norm_legit(x, weight, bias, running_mean, running_var,
                            training, momentum, eps):
  return native_batch_norm(x, weight, bias, running_mean, running_var,
                           training, momentum, eps)


@op(aten._native_batch_norm_legit.no_stats)
def native_batch_norm_legit_no_stats(x, weight, bias, training, momentum,
                                     eps):
  return native_batch_norm(x, weight, bias, None, None, True, momentum, eps)


@op(aten._native_batch_norm_legit_no_training.default)
def native_batch_norm_legit_no_training(x, weight, bias, running_mean,
                                        running_var, momentum, eps):
  return native_batch_norm(x, weight, bias, running_mean, running_var, False,
                           momentum, eps)


@op(aten._native_batch_norm_legit_functional.default)
def native_batch_norm_legit_functional(x, weight, bias, running_mean,
                                       running_var, training, momentum, eps):
  """Like native_batch_norm, but returns the new running statistics."""
  return _batch_norm(x, weight, bias, running_mean, running_var, training,
                     momentum, eps, functional=True)


@op(aten._batch_norm_with_update.default)
def batch_norm_with_update(x, weight, bias, running_mean, running_var,
                           momentum, eps):
  return _batch_norm(x, weight, bias, running_mean, running_var, True,
                     momentum, eps, reserve=True)


@op(aten._batch_norm_with_update_functional.default)
def batch_norm_with_update_functional(x, weight, bias, running_mean,
                                      running_var, momentum, eps):
  return _batch_norm(x, weight, bias, running_mean, running_var, True,
                     momentum, eps, functional=True, reserve=True)


@op(aten._batch_norm_no_update.default)
def batch_norm_no_update(x, weight, bias, running_mean, running_var, momentum,
                         eps):
  """Evaluation mode: normalizes with the running statistics."""
  return _batch_norm(x, weight, bias, running_mean, running_var, False,
                     momentum, eps, reserve=True)


@op(aten.native_batch_norm_backward.default)
def native_batch_norm_backward(grad_out, x, weight, running_mean, running_var,
                               save_mean, save_invstd, train, eps,
                               output_mask):
  _channel_layout("batch_norm_backward", x)
  return _XLAC._batch_norm_backward(grad_out, x, weight, running_mean,
                                    running_var, save_mean, save_invstd,
                                    train, eps, list(output_mask))


@op(aten.batch_norm_backward.default)
def batch_norm_backward(grad_out, x, weight, running_mean, running_var,
                        save_mean, save_var, update, eps, output_mask,
                        reserve):
  # save_var holds the inverse std here, as in native_batch_norm_backward.
  return native_batch_norm_backward(grad_out, x, weight, running_mean,
                                    running_var, save_mean, save_var, update,
                                    eps, output_mask)
