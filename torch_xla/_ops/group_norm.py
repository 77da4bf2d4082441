"""Group norm (aten.native_group_norm and its backward): layer norm's
statistics over each group of channels and the spatial dims.

The input [N, C, *] is viewed as [N, G, C/G * HxW]; mean and rstd are
taken over the last dim (in f32 for bf16/f16, rounded once at the end, as
eager's CPU kernel) and returned as [N, G]; the per-channel weight and bias
apply in the [N, C, HxW] layout. The backward is layer norm's input
gradient in the grouped layout, with the weight folded into the incoming
gradient first.
"""

from torch_xla import _ir
from torch_xla._ops._common import code_of, scalar
from torch_xla._ops.normalization import (_bin, _mean_into,
                                          _normalized_input_grad, _param)
from torch_xla._ops.reductions import acc_code
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import wrap, xt_of


def _check(x, n, c, hw, group):
  if group <= 0 or c % group:
    raise RuntimeError(
        f"Expected number of channels in input to be divisible by "
        f"num_groups, but got input of shape {list(x.shape)} and "
        f"num_groups={group}")
  if x.numel() != n * c * hw:
    raise RuntimeError(
        f"native_group_norm: input of shape {list(x.shape)} is not "
        f"N={n} x C={c} x HxW={hw}")


@op(aten.native_group_norm.default)
def native_group_norm(x, weight, bias, N, C, HxW, group, eps):
  _check(x, N, C, HxW, group)
  code = code_of(x.dtype)
  acc = acc_code(code)
  v = _ir.reshape(_ir.convert(xt_of(x), acc), [N, group, C // group * HxW])
  mean = _mean_into(v, [2])
  centered = _bin("subtract", v, mean)
  var = _mean_into(_ir.binary("multiply", centered, centered), [2])
  eps_ = _ir.broadcast_to(scalar(eps, acc, x.device.index), var.dims)
  rstd = _ir.unary("rsqrt", _ir.binary("add", var, eps_))
  out = _ir.reshape(_bin("multiply", centered, rstd), [N, C, HxW])
  w = _param(weight, acc, [N, C, HxW], [1])
  b = _param(bias, acc, [N, C, HxW], [1])
  if w is not None:
    out = _ir.binary("multiply", out, w)
  if b is not None:
    out = _ir.binary("add", out, b)
  out = _ir.reshape(out, list(x.shape))
  return (wrap(_ir.convert(out, code)),
          wrap(_ir.convert(_ir.reshape(mean, [N, group]), code)),
          wrap(_ir.convert(_ir.reshape(rstd, [N, group]), code)))


@op(aten.native_group_norm_backward.default)
def native_group_norm_backward(grad_out, x, mean, rstd, weight, N, C, HxW,
                               group, output_mask):
  code = code_of(x.dtype)
  acc = acc_code(code)
  grouped = [N, group, C // group * HxW]
  channels = [N, C, HxW]
  v = _ir.reshape(_ir.convert(xt_of(x), acc), grouped)
  g = _ir.reshape(_ir.convert(xt_of(grad_out), acc), channels)
  mean_ = _ir.reshape(_ir.convert(xt_of(mean), acc), [N, group, 1])
  rstd_ = _ir.reshape(_ir.convert(xt_of(rstd), acc), [N, group, 1])
  x_hat = _bin("multiply", _bin("subtract", v, mean_), rstd_)
  grad_input = grad_weight = grad_bias = None
  if output_mask[0]:
    gx = g
    w = _param(weight, acc, channels, [1])
    if w is not None:
      gx = _ir.binary("multiply", g, w)
    gi = _normalized_input_grad(_ir.reshape(gx, grouped), x_hat, rstd_, [2])
    grad_input = wrap(_ir.convert(_ir.reshape(gi, list(x.shape)), code))
  if output_mask[1]:
    gw = _ir.reduce(
        _ir.binary("multiply", g, _ir.reshape(x_hat, channels)), [0, 2],
        "sum")
    grad_weight = wrap(_ir.convert(gw, code))
  if output_mask[2]:
    grad_bias = wrap(_ir.convert(_ir.reduce(g, [0, 2], "sum"), code))
  return grad_input, grad_weight, grad_bias
