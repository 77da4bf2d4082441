"""Convolution (1-d, 2-d, 3-d, grouped, dilated, transposed) and its backward.

Every convolution is one IR `convolution` node (StableHLO's, native on every
PJRT backend): no im2col buffer, memory is the inputs and the result.
bf16/f16 operands accumulate in f32 (the node's preferred result type) and
round once; f32/f64 ask for HIGHEST precision, like matmuls. The windows of
the forward and of both gradients (and why a transposed convolution is the
input gradient of a regular one) are the C++ builders' (ops/conv_ops.h);
these rules check eager's arguments, raise eager's errors and make one
_XLAC call per op.
"""

import torch

from torch_xla import _XLAC
from torch_xla._dtypes import scalar_type_name
from torch_xla._ops._common import check_same_device
from torch_xla._ops.registry import aten, op


def _expand(value, n, name):
  value = list(value) if isinstance(value, (list, tuple)) else [value]
  if len(value) == 1:
    value = value * n
  if len(value) != n:
    raise RuntimeError(f"expected {name} to be a single integer value or a "
                       f"list of {n} values to match the convolution "
                       f"dimensions, but got {name}={value}")
  return value


def _check(name, x, w, bias, stride, padding, dilation, transposed,
           output_padding, groups):
  check_same_device(name, x, w, bias)
  nsp = w.dim() - 2
  if nsp < 1:
    raise RuntimeError(f"weight should have at least three dimensions "
                       f"({name}: got a weight of shape {list(w.shape)})")
  if nsp > 3:
    raise RuntimeError(f"{name}: expected a weight with 3, 4 or 5 dims "
                       f"(1-d, 2-d or 3-d convolution), got {list(w.shape)}")
  if x.dim() != w.dim():
    raise RuntimeError(
        f"Expected {w.dim()}-dimensional input for {w.dim()}-dimensional "
        f"weight {list(w.shape)}, but got {x.dim()}-dimensional input of "
        f"size {list(x.shape)} instead")
  if x.dtype != w.dtype or (bias is not None and bias.dtype != x.dtype):
    other, what = (w, "weight") if x.dtype != w.dtype else (bias, "bias")
    raise RuntimeError(
        f"expected scalar type {scalar_type_name(x.dtype)} but found "
        f"{scalar_type_name(other.dtype)} ({name}: input type ({x.dtype}) "
        f"and {what} type ({other.dtype}) should be the same)")
  if x.dtype == torch.bool or x.dtype.is_complex:
    raise NotImplementedError(f"{name}: not implemented for {x.dtype}")
  stride = _expand(stride, nsp, "stride")
  padding = _expand(padding, nsp, "padding")
  dilation = _expand(dilation, nsp, "dilation")
  output_padding = _expand(output_padding, nsp, "output_padding")
  if any(s <= 0 for s in stride):
    raise RuntimeError("non-positive stride is not supported")
  if any(p < 0 for p in padding):
    raise RuntimeError("negative padding is not supported")
  if any(d <= 0 for d in dilation):
    raise RuntimeError("dilation should be greater than zero")
  if groups <= 0:
    raise RuntimeError("non-positive groups is not supported")
  if w.shape[0] < groups:
    raise RuntimeError(
        f"Given groups={groups}, expected weight to be at least {groups} at "
        f"dimension 0, but got weight of size {list(w.shape)} instead")
  if w.shape[0] % groups:
    raise RuntimeError(
        f"Given groups={groups}, expected weight to be divisible by "
        f"{groups} at dimension 0, but got weight of size "
        f"[{list(w.shape)}] instead")
  if transposed:
    if any(op_ >= max(s, d) for op_, s, d in zip(output_padding, stride,
                                                 dilation)):
      raise RuntimeError(
          f"output padding must be smaller than either stride or dilation, "
          f"but got output_padding={output_padding}, stride={stride}, "
          f"dilation={dilation}")
    if x.shape[1] != w.shape[0]:
      raise RuntimeError(
          f"Given transposed=1, weight of size {list(w.shape)}, expected "
          f"input{list(x.shape)} to have {w.shape[0]} channels, but got "
          f"{x.shape[1]} channels instead")
    out_channels = w.shape[1] * groups
    size = [x.shape[2 + i] for i in range(nsp)]
    out = [(size[i] - 1) * stride[i] - 2 * padding[i] + dilation[i] *
           (w.shape[2 + i] - 1) + output_padding[i] + 1 for i in range(nsp)]
    if any(o <= 0 for o in out):
      raise RuntimeError(
          f"Given input size per channel: ({' x '.join(map(str, size))}). "
          f"Calculated output size per channel: "
          f"({' x '.join(map(str, out))}). Output size is too small")
  else:
    if x.shape[1] != w.shape[1] * groups:
      raise RuntimeError(
          f"Given groups={groups}, weight of size {list(w.shape)}, expected "
          f"input{list(x.shape)} to have {w.shape[1] * groups} channels, but "
          f"got {x.shape[1]} channels instead")
    padded = [x.shape[2 + i] + 2 * padding[i] for i in range(nsp)]
    span = [dilation[i] * (w.shape[2 + i] - 1) + 1 for i in range(nsp)]
    if any(p < s for p, s in zip(padded, span)):
      raise RuntimeError(
          f"Calculated padded input size per channel: "
          f"({' x '.join(map(str, padded))}). Kernel size: "
          f"({' x '.join(map(str, span))}). Kernel size can't be greater "
          f"than actual input size")
    out_channels = w.shape[0]
  if bias is not None and (bias.dim() != 1 or bias.shape[0] != out_channels):
    raise RuntimeError(
        f"Given weight of size {list(w.shape)}, expected bias to be "
        f"1-dimensional with {out_channels} elements, but got bias of size "
        f"{list(bias.shape)} instead")
  return nsp, stride, padding, dilation, output_padding


@op(aten.convolution.default)
def convolution(x, w, bias, stride, padding, dilation, transposed,
                output_padding, groups):
  _, stride, padding, dilation, output_padding = _check(
      "convolution", x, w, bias, stride, padding, dilation, transposed,
      output_padding, groups)
  return _XLAC._convolution(x, w, bias, stride, padding, dilation,
                            bool(transposed), output_padding, groups)


@op(aten.convolution_backward.default)
def convolution_backward(grad, x, w, bias_sizes, stride, padding, dilation,
                         transposed, output_padding, groups, output_mask):
  _, stride, padding, dilation, output_padding = _check(
      "convolution_backward", x, w, None, stride, padding, dilation,
      transposed, output_padding, groups)
  check_same_device("convolution_backward", grad)
  return _XLAC._convolution_backward(grad, x, w, stride, padding, dilation,
                                     bool(transposed), output_padding, groups,
                                     [bool(m) for m in output_mask])
