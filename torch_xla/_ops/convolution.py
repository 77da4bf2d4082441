"""Convolution (1-d, 2-d, 3-d, grouped, dilated, transposed) and its backward.

The IR has no convolution op, so a convolution is one matrix product over
"im2col" columns:

  out[n, o, p] = sum_{c, k} x_pad[n, c, p * stride + k * dilation] w[o, c, k]

For each kernel offset k, a strided slice of the padded input gives the
patch x_pad[:, :, k*d :: stride] of shape [N, C, *out_spatial]; the patches
are stacked into columns [N, C, prod(K), *out] and one dot_general
contracts (C, K) with the flattened weight [O, C, prod(K)] (groups are a
batch dimension of that dot). bf16/f16 accumulate in f32 and round once.

Cost: the FLOPs of a direct convolution, plus a columns buffer of
N * C * prod(K) * prod(out) elements (prod(K) times the input for stride
1). Exact and fine for small CNNs; a native convolution op would be faster
and leaner on accelerators. (One dot per kernel offset, summed, avoids the
buffer but compiled 2x slower and ran 2x slower on the CPU backend.)

Backward uses the same two building blocks:
  grad_input  = conv of the grad, dilated by the stride (interior padding)
                and padded by dilation*(k-1)-padding, with the kernel
                flipped and its in/out channels swapped (stride 1);
  grad_weight = the columns of the padded input contracted with the grad
                over batch and spatial dims (one dot);
  grad_bias   = the grad summed over batch and spatial dims.
A transposed convolution is the input gradient of a regular one, so its
forward and backward reuse the same functions with the roles swapped.
"""

import torch

from torch_xla import _ir
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


def _columns(x, kernel, stride, pad_lo, pad_hi, dilation, lhs_dilation=None):
  """im2col: pads x [N, C, *S] and stacks the patch of every kernel offset
  into columns [N, C, prod(K), *out]. Returns (columns, out).

  lhs_dilation inserts (d - 1) zeros between input elements (for input
  gradients and transposed convolutions). Negative padding crops.
  """
  nsp = len(kernel)
  interior = [0, 0] + [d - 1 for d in lhs_dilation] if lhs_dilation else None
  if any(pad_lo) or any(pad_hi) or (interior and any(interior)):
    x = _ir.pad(x, _ir.constant(0, x.dtype, (), x.device),
                [0, 0] + list(pad_lo), [0, 0] + list(pad_hi), interior)
  size = x.dims[2:]
  out = [(size[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1
         for i in range(nsp)]
  offsets = [[]]
  for k in kernel:
    offsets = [o + [i] for o in offsets for i in range(k)]
  n, c = x.dims[:2]
  patches = []
  for offset in offsets:
    start = [0, 0] + [offset[i] * dilation[i] for i in range(nsp)]
    limit = [n, c] + [start[2 + i] + (out[i] - 1) * stride[i] + 1
                      for i in range(nsp)]
    patch = _ir.slice_(x, start, limit, [1, 1] + list(stride))
    patches.append(_ir.reshape(patch, [n, c, 1] + out))
  if len(patches) == 1:
    return patches[0], out
  return _ir.concatenate(patches, 2), out


def _prod(values):
  result = 1
  for v in values:
    result *= v
  return result


def conv(x, w, stride, pad_lo, pad_hi, dilation, groups, lhs_dilation=None):
  """Forward convolution of handles x [N, C, *S] and w [O, C/g, *K].

  Returns [N, O, *out] in the accumulation dtype (f32 for bf16/f16).
  """
  kernel = w.dims[2:]
  nsp = len(kernel)
  n, c = x.dims[:2]
  o, cg = w.dims[:2]
  kk = _prod(kernel)
  g = groups
  cols, out = _columns(x, kernel, stride, pad_lo, pad_hi, dilation,
                       lhs_dilation)
  if g == 1:
    # [N, C, K, *out] x [O, C, K] -> [N, *out, O] -> [N, O, *out]
    flat = _ir.reshape(w, [o, cg, kk])
    value = linalg.dot(cols, flat, [1, 2], [1, 2], accumulate=True)
    return _ir.transpose(value, [0, nsp + 1] + list(range(1, nsp + 1)))
  cols = _ir.reshape(cols, [n, g, cg, kk] + out)
  flat = _ir.reshape(w, [g, o // g, cg, kk])
  # -> [g, N, *out, O/g] -> [N, g, O/g, *out] -> [N, O, *out]
  value = linalg.dot(cols, flat, [2, 3], [2, 3], [1], [0], accumulate=True)
  value = _ir.transpose(value, [1, 0, nsp + 2] + list(range(2, nsp + 2)))
  return _ir.reshape(value, [n, o] + out)


def conv_weight_grad(x, grad, kernel, stride, pad_lo, pad_hi, dilation,
                     groups, lhs_dilation=None):
  """d(sum(grad * conv(x, w)))/dw for x [N, C, *S], grad [N, O, *out].

  Returns [O, C/g, *kernel] in the accumulation dtype.
  """
  nsp = len(kernel)
  n, c = x.dims[:2]
  o = grad.dims[1]
  out = grad.dims[2:]
  kk = _prod(kernel)
  g = groups
  cols, col_out = _columns(x, kernel, stride, pad_lo, pad_hi, dilation,
                           lhs_dilation)
  if col_out != out:
    raise RuntimeError(
        f"convolution_backward: grad_output spatial size {out} does not "
        f"match the forward output size {col_out}")
  if g == 1:
    # [N, O, *out] x [N, C, K, *out] -> [O, C, K]
    value = linalg.dot(grad, cols, [0] + list(range(2, 2 + nsp)),
                       [0] + list(range(3, 3 + nsp)), accumulate=True)
  else:
    grad = _ir.reshape(grad, [n, g, o // g] + out)
    cols = _ir.reshape(cols, [n, g, c // g, kk] + out)
    # -> [g, O/g, C/g, K]
    value = linalg.dot(grad, cols, [0] + list(range(3, 3 + nsp)),
                       [0] + list(range(4, 4 + nsp)), [1], [1],
                       accumulate=True)
  return _ir.reshape(value, [o, c // g] + list(kernel))


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
  if nsp < 1 or nsp > 3:
    raise RuntimeError(f"{name}: expected a weight with 3, 4 or 5 dims "
                       f"(1-d, 2-d or 3-d convolution), got {list(w.shape)}")
  if x.dim() != w.dim():
    raise RuntimeError(
        f"Expected {w.dim()}-dimensional input for {w.dim()}-dimensional "
        f"weight {list(w.shape)}, but got {x.dim()}-dimensional input of "
        f"size {list(x.shape)} instead")
  if x.dtype != w.dtype or (bias is not None and bias.dtype != x.dtype):
    other, what = (w, "weight") if x.dtype != w.dtype else (bias, "bias")
    raise RuntimeError(f"{name}: input type ({x.dtype}) and {what} type "
                       f"({other.dtype}) should be the same")
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
