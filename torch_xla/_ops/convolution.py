"""Convolution (1-d, 2-d, 3-d, grouped, dilated, transposed) and its backward.

Every convolution is one IR `convolution` node (StableHLO's, native on every
PJRT backend): no im2col buffer, memory is the inputs and the result.
bf16/f16 operands accumulate in f32 (the node's preferred result type) and
round once; f32/f64 ask for HIGHEST precision, like matmuls.

Backward, with the forward's window (stride s, padding p, dilation d):
  grad_input  = a convolution of the grad dilated by s (lhs_dilation),
                padded by d*(k-1)-p, with the kernel flipped and its in/out
                channels swapped (stride 1);
  grad_weight = a convolution of the input (channels as the batch dim)
                with the grad as the kernel (batch as its input feature),
                window stride d and kernel dilation s; groups become
                batch_groups;
  grad_bias   = the grad summed over batch and spatial dims.
A transposed convolution is the input gradient of a regular one, so its
forward and backward reuse the same functions with the roles swapped.
"""

import torch

from torch_xla import _ir
from torch_xla._dtypes import scalar_type_name
from torch_xla._ops import linalg
from torch_xla._ops._common import check_same_device, code_of
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import wrap, xt_of


def _expand(value, n, name):
  value = list(value) if isinstance(value, (list, tuple)) else [value]
  if len(value) == 1:
    value = value * n
  if len(value) != n:
    raise RuntimeError(f"expected {name} to be a single integer value or a "
                       f"list of {n} values to match the convolution "
                       f"dimensions, but got {name}={value}")
  return value


def _convolve(x, w, stride, pad_lo, pad_hi, lhs_dilation, rhs_dilation,
              groups=1, batch_groups=1, dims=None):
  """One convolution node in the accumulation dtype. Negative padding (a
  window that stops short of the input's end) crops x first, since the
  node takes padding >= 0. `dims`: (lhs_dims, rhs_dims, out_dims)."""
  nsp = len(stride)
  lhs_dilation = list(lhs_dilation or [1] * nsp)
  if any(p < 0 for p in list(pad_lo) + list(pad_hi)):
    spatial = dims[0][2:] if dims else list(range(2, 2 + nsp))
    rank = len(x.dims)
    lo, hi, interior = [0] * rank, [0] * rank, [0] * rank
    for i, d in enumerate(spatial):
      lo[d], hi[d] = min(pad_lo[i], 0), min(pad_hi[i], 0)
      interior[d] = lhs_dilation[i] - 1
    x = _ir.pad(x, _ir.constant(0, x.dtype, (), x.device), lo, hi, interior)
    pad_lo = [max(p, 0) for p in pad_lo]
    pad_hi = [max(p, 0) for p in pad_hi]
    lhs_dilation = [1] * nsp
  acc = linalg.accumulation_code(x.dtype)
  lhs_dims, rhs_dims, out_dims = dims or (None, None, None)
  return _ir.convolution(
      x, w, strides=stride, pad_lo=pad_lo, pad_hi=pad_hi,
      lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
      feature_groups=groups, batch_groups=batch_groups, lhs_dims=lhs_dims,
      rhs_dims=rhs_dims, out_dims=out_dims,
      code=acc if acc != x.dtype else None,
      precision="HIGHEST" if x.dtype in (_ir.F32, _ir.F64) else None)


def conv(x, w, stride, pad_lo, pad_hi, dilation, groups, lhs_dilation=None):
  """Forward convolution of handles x [N, C, *S] and w [O, C/g, *K].

  Returns [N, O, *out] in the accumulation dtype (f32 for bf16/f16).
  """
  return _convolve(x, w, stride, pad_lo, pad_hi, lhs_dilation, dilation,
                   groups)


def conv_weight_grad(x, grad, kernel, stride, pad_lo, pad_hi, dilation,
                     groups):
  """d(sum(grad * conv(x, w)))/dw for x [N, C, *S], grad [N, O, *out].

  Returns [O, C/g, *kernel] in the accumulation dtype.
  """
  nsp = len(kernel)
  size = x.dims[2:]
  out = grad.dims[2:]
  expected = [(size[i] + pad_lo[i] + pad_hi[i] - dilation[i] *
               (kernel[i] - 1) - 1) // stride[i] + 1 for i in range(nsp)]
  if expected != out:
    raise RuntimeError(
        f"convolution_backward: grad_output spatial size {out} does not "
        f"match the forward output size {expected}")
  # Windows over x of the grad's extent (dilated by the stride), one per
  # kernel offset (stride = the forward dilation); padding reaches exactly
  # the last input row a window used.
  hi = [stride[i] * (out[i] - 1) + dilation[i] * (kernel[i] - 1) + 1 -
        size[i] - pad_lo[i] for i in range(nsp)]
  spatial = list(range(2, 2 + nsp))
  return _convolve(x, grad, dilation, pad_lo, hi, None, stride,
                   batch_groups=groups,
                   dims=([1, 0] + spatial, [0, 1] + spatial,
                         [1, 0] + spatial))


def _flip_swap(w, groups):
  """[O, C/g, *K] -> [C, O/g, *K] with the kernel flipped: the weight of
  the convolution that computes the input gradient."""
  o, cg = w.dims[:2]
  kernel = w.dims[2:]
  nsp = len(kernel)
  g = groups
  w = _ir.reshape(w, [g, o // g, cg] + kernel)
  w = _ir.transpose(w, [0, 2, 1] + list(range(3, 3 + nsp)))
  w = _ir.reshape(w, [g * cg, o // g] + kernel)
  return _ir.reverse(w, list(range(2, 2 + nsp)))


def conv_input_grad(grad, w, input_spatial, stride, padding, dilation,
                    groups):
  """d(sum(grad * conv(x, w)))/dx for w [O, C/g, *K]: [N, C, *input]."""
  kernel = w.dims[2:]
  nsp = len(kernel)
  out = grad.dims[2:]
  lo, hi = [], []
  for i in range(nsp):
    span = dilation[i] * (kernel[i] - 1)
    # Input rows past the last window get no gradient: pad for them.
    rest = (input_spatial[i] + 2 * padding[i] - span - 1 -
            (out[i] - 1) * stride[i])
    lo.append(span - padding[i])
    hi.append(span - padding[i] + rest)
  return conv(grad, _flip_swap(w, groups), [1] * nsp, lo, hi, dilation,
              groups, lhs_dilation=stride)


def _bias_add(value, bias):
  b = _ir.convert(xt_of(bias), value.dtype)
  return _ir.binary("add", value,
                    _ir.broadcast_in_dim(b, value.dims, [1]))


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
  nsp, stride, padding, dilation, output_padding = _check(
      "convolution", x, w, bias, stride, padding, dilation, transposed,
      output_padding, groups)
  code = code_of(x.dtype)
  xv, wv = xt_of(x), xt_of(w)
  if transposed:
    spatial = [(x.shape[2 + i] - 1) * stride[i] - 2 * padding[i] +
               dilation[i] * (w.shape[2 + i] - 1) + output_padding[i] + 1
               for i in range(nsp)]
    value = conv_input_grad(xv, wv, spatial, stride, padding, dilation,
                            groups)
  else:
    value = conv(xv, wv, stride, padding, padding, dilation, groups)
  if bias is not None:
    value = _bias_add(value, bias)
  return wrap(_ir.convert(value, code))


@op(aten.convolution_backward.default)
def convolution_backward(grad, x, w, bias_sizes, stride, padding, dilation,
                         transposed, output_padding, groups, output_mask):
  nsp, stride, padding, dilation, output_padding = _check(
      "convolution_backward", x, w, None, stride, padding, dilation,
      transposed, output_padding, groups)
  check_same_device("convolution_backward", grad)
  code = code_of(x.dtype)
  g, xv, wv = xt_of(grad), xt_of(x), xt_of(w)
  grad_input = grad_weight = grad_bias = None
  if output_mask[0]:
    if transposed:
      value = conv(g, wv, stride, padding, padding, dilation, groups)
    else:
      value = conv_input_grad(g, wv, x.shape[2:], stride, padding, dilation,
                              groups)
    grad_input = wrap(_ir.convert(value, code))
  if output_mask[1]:
    if transposed:
      value = conv_weight_grad(g, xv, w.shape[2:], stride, padding, padding,
                               dilation, groups)
    else:
      value = conv_weight_grad(xv, g, w.shape[2:], stride, padding, padding,
                               dilation, groups)
    grad_weight = wrap(_ir.convert(value, code))
  if output_mask[2]:
    acc = linalg.accumulation_code(code)
    value = _ir.reduce(_ir.convert(g, acc), [0] + list(range(2, 2 + nsp)),
                       "sum")
    grad_bias = wrap(_ir.convert(value, code))
  return grad_input, grad_weight, grad_bias
