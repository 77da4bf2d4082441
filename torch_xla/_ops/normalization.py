"""Softmax, layer norm, batch norm and RMS norm, forward and backward.

All of them compute in f32 for bf16/f16 inputs and round once at the end,
as eager's CPU kernels do. Softmax subtracts the row max first, so large
logits never overflow exp(); softmax, log_softmax and their backwards are
built in C++ (torch_xla/csrc/ops/softmax_ops.h) by the builders the C++
fast rules call too; layer norm, RMS norm and their backwards likewise
(ops/norm_ops.h), one _XLAC call each. eps and momentum are scalar parameters (a new
value never recompiles); element counts are literals.

Batch norm updates the running statistics in place (commit), as eager does.
"""

import math

import torch

from torch_xla import _XLAC, _dtypes, _ir
from torch_xla._ops._common import (canonical_dim, code_of, literal,
                                    literal_like, scalar)
from torch_xla._ops.reductions import acc_code, keep_dims
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import commit, wrap, xt_of


def _bin(name, a, b):
  """Elementwise op with b broadcast (numpy rules) to a's shape."""
  return _ir.binary(name, a, _ir.broadcast_to(b, a.dims))


def _param(t, code, shape, broadcast_dims):
  """An optional per-feature tensor (weight, bias, stats) as `code`,
  broadcast into `shape` along `broadcast_dims`; None stays None."""
  if t is None:
    return None
  v = _ir.convert(xt_of(t), code)
  return _ir.broadcast_in_dim(v, shape, broadcast_dims)


def _sum_into(v, dims):
  """Sum over dims, keeping them as size 1 (so it broadcasts back)."""
  if not dims:
    return v
  return _ir.reshape(_ir.reduce(v, dims, "sum"), keep_dims(v.dims, dims))


def _mean_into(v, dims):
  count = math.prod(v.dims[d] for d in dims)
  total = _sum_into(v, dims)
  return _ir.binary("divide", total, literal_like(count, v.dtype, total))


# ---------------------------------------------------------------------------
# Softmax.


def _softmax_dims(x, dim):
  d = canonical_dim(dim, x.dim())  # IndexError like eager's
  return [d] if x.dim() else []


def _softmax_code(x, half_to_float, kernel="softmax"):
  """The result's element type; integer inputs raise eager's error (its
  kernels take floats only)."""
  if not (x.dtype.is_floating_point or x.dtype.is_complex):
    raise NotImplementedError(
        f'"{kernel}_lastdim_kernel_impl" not implemented for '
        f"'{_dtypes.scalar_type_name(x.dtype)}'")
  return _ir.F32 if half_to_float else code_of(x.dtype)


@op(aten._softmax.default)
def softmax(x, dim, half_to_float=False):
  # Built by ops/softmax_ops.h, as the C++ fast rule builds it.
  return _XLAC._softmax(x, _softmax_dims(x, dim),
                        _softmax_code(x, half_to_float))


@op(aten._log_softmax.default)
def log_softmax(x, dim, half_to_float=False):
  return _XLAC._softmax(x, _softmax_dims(x, dim),
                        _softmax_code(x, half_to_float, "log_softmax"),
                        log=True)


@op(aten._safe_softmax.default)
def safe_softmax(x, dim, dtype=None):
  """Softmax whose fully masked rows (all -inf) give 0, not NaN (SDPA)."""
  if dtype is not None and dtype != x.dtype:
    x = wrap(_ir.convert(xt_of(x), code_of(dtype)))
  out = xt_of(softmax(x, dim))
  v = xt_of(x)
  dims = _softmax_dims(x, dim)
  masked = _ir.compare(v, literal_like(-math.inf, v.dtype, v), "EQ")
  if dims:
    masked = _ir.reshape(_ir.reduce(masked, dims, "and"),
                         keep_dims(v.dims, dims))
  masked = _ir.broadcast_to(masked, v.dims)
  return wrap(_ir.select(masked, literal_like(0, out.dtype, out), out))


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
                momentum, eps):
  """-> (out, save_mean, save_invstd, new_running_mean, new_running_var)
  handles; the running values are None when not updated."""
  reduce_dims = _channel_layout("batch_norm", x)
  code = code_of(x.dtype)
  acc = acc_code(code)
  stats_code = code_of(
      _stats_dtype(x, weight, bias, running_mean, running_var))
  device = x.device.index
  v = _ir.convert(xt_of(x), acc)
  shape = v.dims
  eps_ = scalar(eps, acc, device)
  new_mean = new_var = None
  if training:
    count = math.prod(shape[d] for d in reduce_dims)
    mean = _ir.reduce(v, reduce_dims, "sum")
    mean = _ir.binary("divide", mean, literal_like(count, acc, mean))
    centered = _ir.binary("subtract", v,
                          _ir.broadcast_in_dim(mean, shape, [1]))
    var = _ir.reduce(_ir.binary("multiply", centered, centered), reduce_dims,
                     "sum")
    var = _ir.binary("divide", var, literal_like(count, acc, var))
    invstd = _ir.unary("rsqrt", _bin("add", var, eps_))
    if running_mean is not None:
      m = _ir.broadcast_to(scalar(momentum, acc, device), mean.dims)
      keep = _ir.broadcast_to(scalar(1 - momentum, acc, device), mean.dims)
      old = _ir.convert(xt_of(running_mean), acc)
      new_mean = _ir.binary("add", _ir.binary("multiply", keep, old),
                            _ir.binary("multiply", m, mean))
      new_mean = _ir.convert(new_mean, code_of(running_mean.dtype))
    if running_var is not None:
      m = _ir.broadcast_to(scalar(momentum, acc, device), var.dims)
      keep = _ir.broadcast_to(scalar(1 - momentum, acc, device), var.dims)
      unbias = count / (count - 1) if count > 1 else math.inf
      unbiased = _ir.binary("multiply", var, literal_like(unbias, acc, var))
      old = _ir.convert(xt_of(running_var), acc)
      new_var = _ir.binary("add", _ir.binary("multiply", keep, old),
                           _ir.binary("multiply", m, unbiased))
      new_var = _ir.convert(new_var, code_of(running_var.dtype))
    save_mean = _ir.convert(mean, stats_code)
    save_invstd = _ir.convert(invstd, stats_code)
  else:
    if running_mean is None or running_var is None:
      raise RuntimeError("batch_norm: running_mean and running_var must be "
                         "defined in evaluation mode")
    mean = _ir.convert(xt_of(running_mean), acc)
    invstd = _ir.unary("rsqrt",
                       _bin("add", _ir.convert(xt_of(running_var), acc),
                            eps_))
    centered = _ir.binary("subtract", v,
                          _ir.broadcast_in_dim(mean, shape, [1]))
    # Eager returns empty statistics in evaluation mode.
    save_mean = literal(0, stats_code, [0], device)
    save_invstd = literal(0, stats_code, [0], device)
  out = _ir.binary("multiply", centered,
                   _ir.broadcast_in_dim(invstd, shape, [1]))
  w = _param(weight, acc, shape, [1])
  b = _param(bias, acc, shape, [1])
  if w is not None:
    out = _ir.binary("multiply", out, w)
  if b is not None:
    out = _ir.binary("add", out, b)
  return _ir.convert(out, code), save_mean, save_invstd, new_mean, new_var


@op(aten.native_batch_norm.default)
def native_batch_norm(x, weight, bias, running_mean, running_var, training,
                      momentum, eps):
  out, save_mean, save_invstd, new_mean, new_var = _batch_norm(
      x, weight, bias, running_mean, running_var, training, momentum, eps)
  if new_mean is not None:
    commit(running_mean, new_mean)
  if new_var is not None:
    commit(running_var, new_var)
  return wrap(out), wrap(save_mean), wrap(save_invstd)


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
  out, save_mean, save_invstd, new_mean, new_var = _batch_norm(
      x, weight, bias, running_mean, running_var, training, momentum, eps)
  if new_mean is None:
    new_mean = _XLAC._clone(xt_of(running_mean))
    new_var = _XLAC._clone(xt_of(running_var))
  return (wrap(out), wrap(save_mean), wrap(save_invstd), wrap(new_mean),
          wrap(new_var))


def _empty_reserve(device):
  return literal(0, _ir.U8, [0], device)


@op(aten._batch_norm_with_update.default)
def batch_norm_with_update(x, weight, bias, running_mean, running_var,
                           momentum, eps):
  out, save_mean, save_invstd = native_batch_norm(
      x, weight, bias, running_mean, running_var, True, momentum, eps)
  return out, save_mean, save_invstd, wrap(_empty_reserve(x.device.index))


@op(aten._batch_norm_with_update_functional.default)
def batch_norm_with_update_functional(x, weight, bias, running_mean,
                                      running_var, momentum, eps):
  out, save_mean, save_invstd, new_mean, new_var = (
      native_batch_norm_legit_functional(x, weight, bias, running_mean,
                                         running_var, True, momentum, eps))
  return (out, save_mean, save_invstd, wrap(_empty_reserve(x.device.index)),
          new_mean, new_var)


@op(aten._batch_norm_no_update.default)
def batch_norm_no_update(x, weight, bias, running_mean, running_var, momentum,
                         eps):
  """Evaluation mode: normalizes with the running statistics."""
  out, save_mean, save_invstd, _, _ = _batch_norm(
      x, weight, bias, running_mean, running_var, False, momentum, eps)
  return (wrap(out), wrap(save_mean), wrap(save_invstd),
          wrap(_empty_reserve(x.device.index)))


def _normalized_input_grad(g, x_hat, rstd, dims):
  """rstd * (g - mean(g) - x_hat * mean(g * x_hat)): the gradient through
  (x - mean) * rstd with the statistics taken over `dims`."""
  mean_g = _mean_into(g, dims)
  mean_gx = _mean_into(_ir.binary("multiply", g, x_hat), dims)
  inner = _bin("subtract", _bin("subtract", g, mean_g),
               _bin("multiply", x_hat, mean_gx))
  return _bin("multiply", inner, rstd)


@op(aten.native_batch_norm_backward.default)
def native_batch_norm_backward(grad_out, x, weight, running_mean, running_var,
                               save_mean, save_invstd, train, eps,
                               output_mask):
  reduce_dims = _channel_layout("batch_norm_backward", x)
  code = code_of(x.dtype)
  acc = acc_code(code)
  v = _ir.convert(xt_of(x), acc)
  g = _ir.convert(xt_of(grad_out), acc)
  shape = v.dims
  if train:
    mean = _ir.convert(xt_of(save_mean), acc)
    invstd = _ir.convert(xt_of(save_invstd), acc)
  else:
    mean = _ir.convert(xt_of(running_mean), acc)
    eps_ = scalar(eps, acc, x.device.index)
    invstd = _ir.unary("rsqrt",
                       _bin("add", _ir.convert(xt_of(running_var), acc),
                            eps_))
  invstd_b = _ir.broadcast_in_dim(invstd, shape, [1])
  x_hat = _ir.binary(
      "multiply",
      _ir.binary("subtract", v, _ir.broadcast_in_dim(mean, shape, [1])),
      invstd_b)
  grad_input = None
  if output_mask[0]:
    gx = g
    w = _param(weight, acc, shape, [1])
    if w is not None:
      gx = _ir.binary("multiply", g, w)
    if train:
      gi = _normalized_input_grad(gx, x_hat, invstd_b, reduce_dims)
    else:
      gi = _ir.binary("multiply", gx, invstd_b)
    grad_input = wrap(_ir.convert(gi, code))
  grad_weight, grad_bias = None, None
  if output_mask[1]:
    gw = _ir.reduce(_ir.binary("multiply", g, x_hat), reduce_dims, "sum")
    wdtype = weight.dtype if weight is not None else x.dtype
    grad_weight = wrap(_ir.convert(gw, code_of(wdtype)))
  if output_mask[2]:
    gb = _ir.reduce(g, reduce_dims, "sum")
    grad_bias = wrap(
        _ir.convert(gb, code_of(weight.dtype if weight is not None else
                                x.dtype)))
  return grad_input, grad_weight, grad_bias


@op(aten.batch_norm_backward.default)
def batch_norm_backward(grad_out, x, weight, running_mean, running_var,
                        save_mean, save_var, update, eps, output_mask,
                        reserve):
  # save_var holds the inverse std here, as in native_batch_norm_backward.
  return native_batch_norm_backward(grad_out, x, weight, running_mean,
                                    running_var, save_mean, save_var, update,
                                    eps, output_mask)
