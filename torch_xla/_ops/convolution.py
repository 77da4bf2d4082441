"""Convolution (1-d, 2-d, 3-d, grouped, dilated, transposed) and its backward.

The IR has no convolution op, so a convolution is a sum of matrix products,
one per kernel offset ("shift and multiply"):

  out[n, o, p] = sum_k sum_c x_pad[n, c, p * stride + k * dilation] w[o, c, k]

For each offset k, a strided slice of the padded input gives the patch
x_pad[:, :, k*d :: stride] of shape [N, C, *out_spatial], and one dot_general
contracts its channels with w[:, :, k] (groups are a batch dimension of that
dot). The partial products accumulate in f32 for bf16/f16 and round once.

Cost: prod(kernel) slices and dots of N*C*prod(out) x C*O/groups each, i.e.
the FLOPs of a direct convolution and one patch of extra memory at a time;
no im2col buffer. Fine for small CNNs; a native convolution op would be
faster on accelerators.

Backward uses the same two building blocks:
  grad_input  = conv of the grad, dilated by the stride (interior padding)
                and padded by dilation*(k-1)-padding, with the kernel
                flipped and its in/out channels swapped (stride 1);
  grad_weight = for each kernel offset, the patch of the padded input
                contracted with the grad over batch and spatial dims;
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


def _patches(x, kernel, stride, pad_lo, pad_hi, dilation, lhs_dilation=None):
  """Pads x [N, C, *S] and yields (offset index, patch [N, C, *out]).

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
  for index, offset in enumerate(offsets):
    start = [0, 0] + [offset[i] * dilation[i] for i in range(nsp)]
    limit = [n, c] + [start[2 + i] + (out[i] - 1) * stride[i] + 1
                      for i in range(nsp)]
    yield index, _ir.slice_(x, start, limit, [1, 1] + list(stride)), out


def _kernel_slice(flat, index):
  """w[:, :, k] of a weight flattened to [O, C, prod(K)]: [O, C]."""
  o, c = flat.dims[:2]
  return _ir.reshape(
      _ir.slice_(flat, [0, 0, index], [o, c, index + 1]), [o, c])


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
  o = w.dims[0]
  g = groups
  flat = _ir.reshape(w, [o, w.dims[1], _prod(kernel)])
  total = None
  out = None
  for index, patch, out in _patches(x, kernel, stride, pad_lo, pad_hi,
                                    dilation, lhs_dilation):
    wk = _kernel_slice(flat, index)  # [O, C/g]
    if g == 1:
      # [N, C, *out] x [O, C] -> [N, *out, O]
      part = linalg.dot(patch, wk, [1], [1], accumulate=True)
    else:
      patch = _ir.reshape(patch, [n, g, c // g] + out)
      wk = _ir.reshape(wk, [g, o // g, c // g])
      # -> [g, N, *out, O/g]
      part = linalg.dot(patch, wk, [2], [2], [1], [0], accumulate=True)
    total = part if total is None else _ir.binary("add", total, part)
  if g == 1:
    # [N, *out, O] -> [N, O, *out]
    return _ir.transpose(total, [0, nsp + 1] + list(range(1, nsp + 1)))
  # [g, N, *out, O/g] -> [N, g, O/g, *out] -> [N, O, *out]
  total = _ir.transpose(total,
                        [1, 0, nsp + 2] + list(range(2, nsp + 2)))
  return _ir.reshape(total, [n, o] + out)


def conv_weight_grad(x, grad, kernel, stride, pad_lo, pad_hi, dilation,
                     groups, lhs_dilation=None):
  """d(sum(grad * conv(x, w)))/dw for x [N, C, *S], grad [N, O, *out].

  Returns [O, C/g, *kernel] in the accumulation dtype.
  """
  nsp = len(kernel)
  n, c = x.dims[:2]
  o = grad.dims[1]
  g = groups
  spatial = list(range(2, 2 + nsp))
  parts = []
  out = grad.dims[2:]
  if g > 1:
    grad = _ir.reshape(grad, [n, g, o // g] + out)
  for _, patch, pout in _patches(x, kernel, stride, pad_lo, pad_hi, dilation,
                                 lhs_dilation):
    if pout != out:
      raise RuntimeError(
          f"convolution_backward: grad_output spatial size {out} does not "
          f"match the forward output size {pout}")
    if g == 1:
      # [N, O, *out] x [N, C, *out] -> [O, C]
      part = linalg.dot(grad, patch, [0] + spatial, [0] + spatial,
                        accumulate=True)
    else:
      patch = _ir.reshape(patch, [n, g, c // g] + out)
      sp = [s + 1 for s in spatial]
      # -> [g, O/g, C/g]
      part = linalg.dot(grad, patch, [0] + sp, [0] + sp, [1], [1],
                        accumulate=True)
      part = _ir.reshape(part, [o, c // g])
    parts.append(_ir.reshape(part, [o, c // g, 1]))
  stacked = parts[0] if len(parts) == 1 else _ir.concatenate(parts, 2)
  return _ir.reshape(stacked, [o, c // g] + list(kernel))


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


def _bias_add(value, bias, nsp):
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
    other = w if x.dtype != w.dtype else bias
    raise RuntimeError(
        f"{name}: input type ({x.dtype}) and {'weight' if other is w else 'bias'} "
        f"type ({other.dtype}) should be the same")
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
  if transposed:
    if any(op_ >= max(s, d) for op_, s, d in zip(output_padding, stride,
                                                 dilation)):
      raise RuntimeError(
          f"output padding must be smaller than either stride or dilation, "
          f"but got output_padding={output_padding}, stride={stride}, "
          f"dilation={dilation}")
    if w.shape[0] % groups:
      raise RuntimeError(
          f"Given groups={groups}, expected weight to be divisible by "
          f"{groups} at dimension 0, but got weight of size "
          f"[{list(w.shape)}] instead")
    if x.shape[1] != w.shape[0]:
      raise RuntimeError(
          f"Given transposed=1, weight of size {list(w.shape)}, expected "
          f"input{list(x.shape)} to have {w.shape[0]} channels, but got "
          f"{x.shape[1]} channels instead")
    out_channels = w.shape[1] * groups
  else:
    if w.shape[0] % groups:
      raise RuntimeError(
          f"Given groups={groups}, expected weight to be divisible by "
          f"{groups} at dimension 0, but got weight of size "
          f"[{list(w.shape)}] instead")
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
    value = _bias_add(value, bias, nsp)
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
