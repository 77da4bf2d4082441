"""Group norm (aten.native_group_norm and its backward): layer norm's
statistics over each group of channels and the spatial dims.

The input [N, C, *] is viewed as [N, G, C/G * HxW]; mean and rstd are
taken over the last dim (in f32 for bf16/f16, rounded once at the end, as
eager's CPU kernel) and returned as [N, G]; the per-channel weight and bias
apply in the [N, C, HxW] layout. The backward is layer norm's input
gradient in the grouped layout, with the weight folded into the incoming
gradient first. Both are built in C++ (torch_xla/csrc/ops/norm_ops.h), one
_XLAC call each; the rules check the layout.
"""

from torch_xla import _XLAC
from torch_xla._ops.registry import aten, op


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
  return _XLAC._group_norm(x, weight, bias, N, C, HxW, group, eps)


@op(aten.native_group_norm_backward.default)
def native_group_norm_backward(grad_out, x, mean, rstd, weight, N, C, HxW,
                               group, output_mask):
  _check(x, N, C, HxW, group)
  return _XLAC._group_norm_backward(grad_out, x, mean, rstd, weight, N, C,
                                    HxW, group, list(output_mask))
