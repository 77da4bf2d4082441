"""Upsampling (F.interpolate) and its backward: nearest, nearest-exact,
linear, bilinear, bicubic and trilinear, in 1-d, 2-d and 3-d.

The forward rules live in decomposition_checks.py (eager's argument checks
first); for float inputs they call `forward` here, other dtypes run
PyTorch's decomposition. The backward ops (which had neither a rule nor a
decomposition, and fell back to the CPU) are the rules below. Each rule
checks eager's arguments here and makes one _XLAC call (_upsample,
_upsample_backward) into the C++ builder, torch_xla/csrc/ops/
interpolation_ops.h, which builds what this docstring describes.

Design: these interpolations are separable. Along spatial dim d (input
size n, output size m), out = A_d x, with A_d an [m, n] matrix that depends
only on the sizes, the scale and align_corners. The forward applies A_d
along each spatial dim and the backward is grad_input = A_d^T grad: one
dot_general per dim, f32 accumulation at HIGHEST precision, bf16/f16
computed in f32 and converted back as eager's CPU kernels do (f64 stays
f64). Forward and backward share the matrices, so they agree with each
other and with eager, also where a dim keeps its size under a scale factor
(eager's linear and nearest kernels copy it; the decomposition did not).

A_d is built from iota arithmetic, so it is a constant of the sizes that
XLA folds at compile time (the IR has splat constants only; no host
upload, no parameter). Row o of A_d holds the taps eager's kernels give
output index o, each a (source index, weight) pair; taps that land on the
same index add up. The source arithmetic is eager's (aten/native/UpSample.h),
in f32 (f64 for f64 linear/bicubic) like eager's opmath:
- nearest: index o when m == n, o // 2 when m == 2n, else
  min(floor(o * s), n - 1) with s = 1/scale (the scale when given) or n/m,
  rounded to f32;
- nearest-exact: min(floor((o + 0.5) * s), n - 1);
- linear (the bilinear and trilinear dims too): identity when m == n; else
  the source x = r * o (align_corners, r = (n-1)/(m-1)) or
  max(r * (o + 0.5) - 0.5, 0) (r = s), index i0 = min(floor(x), n-1), i1 =
  i0 + 1 clamped, weights 1 - l, l with l = clamp(x - i0, 0, 1);
- bicubic: the unclamped source x, i = min(floor(x), n-1), t = clamp(x - i,
  0, 1), four taps i-1 .. i+2 clamped into [0, n-1] with Keys' cubic
  convolution weights (A = -0.75); the backward (only) copies when both
  dims keep their size.
Being continuous in x, the linear and cubic weights tolerate the last-bit
differences of fused arithmetic; nearest's floor(o * s) is one f32 multiply,
exact on every backend.

Cost: the matrices are m x n per dim (a 1024 -> 2048 resize: 8 MiB of f32
folded constant), the products O(numel(grad) * n) per dim: the dense form
trades flops for no gathers or scatters, which suits accelerators for the
image sizes interpolation sees.
"""

import math

import torch

from torch_xla import _XLAC
from torch_xla._ops._common import check_same_device
from torch_xla._ops.registry import aten, op

# ops::InterpolationKind's codes (python/misc_op_bindings.cc).
_KIND_CODES = {"nearest": 0, "nearest_exact": 1, "linear": 2, "cubic": 3}


def _check_sizes(grad, output_size, input_size, rank):
  """Eager's checks of the sizes (texts too)."""
  output_size, input_size = list(output_size), list(input_size)
  if len(output_size) != rank:
    raise RuntimeError(f"It is expected output_size equals to {rank}, but "
                       f"got size {len(output_size)}")
  if len(input_size) != rank + 2:
    raise RuntimeError(f"It is expected input_size equals to {rank + 2}, "
                       f"but got size {len(input_size)}")
  if grad.dim() != rank + 2:
    raise RuntimeError(f"Expected grad_output to be a tensor of dimension "
                       f"{rank + 2} but got: dimension {grad.dim()}")
  full = input_size[:2] + output_size
  for i, (want, got) in enumerate(zip(full, grad.shape)):
    if want != got:
      raise RuntimeError(
          f"Expected a tensor of dimension {rank + 2} and tensor.size[{i}] "
          f"== {want} but got: dimension {grad.dim()} and tensor.size[{i}] "
          f"= {got}")
  return output_size, input_size


def _backward(name, kind, grad, output_size, input_size, scales,
              align_corners=False):
  rank = len(scales)
  check_same_device(name, grad)
  output_size, input_size = _check_sizes(grad, output_size, input_size, rank)
  if grad.dtype not in (torch.float32, torch.float64, torch.bfloat16,
                        torch.float16):
    raise NotImplementedError(f"\"{name}\" not implemented for "
                              f"'{grad.dtype}'")
  # One call (ops/interpolation_ops.h): A_d^T along each spatial dim.
  return _XLAC._upsample_backward(grad, _KIND_CODES[kind], input_size,
                                  list(scales), bool(align_corners))


@op(aten.upsample_nearest1d_backward.default)
def upsample_nearest1d_backward(grad, output_size, input_size, scales=None):
  return _backward("upsample_nearest1d_backward", "nearest", grad,
                   output_size, input_size, [scales])


@op(aten.upsample_nearest2d_backward.default)
def upsample_nearest2d_backward(grad, output_size, input_size, scales_h=None,
                                scales_w=None):
  return _backward("upsample_nearest2d_backward", "nearest", grad,
                   output_size, input_size, [scales_h, scales_w])


@op(aten.upsample_nearest3d_backward.default)
def upsample_nearest3d_backward(grad, output_size, input_size, scales_d=None,
                                scales_h=None, scales_w=None):
  return _backward("upsample_nearest3d_backward", "nearest", grad,
                   output_size, input_size, [scales_d, scales_h, scales_w])


@op(aten._upsample_nearest_exact1d_backward.default)
def upsample_nearest_exact1d_backward(grad, output_size, input_size,
                                      scales=None):
  return _backward("_upsample_nearest_exact1d_backward", "nearest_exact",
                   grad, output_size, input_size, [scales])


@op(aten._upsample_nearest_exact2d_backward.default)
def upsample_nearest_exact2d_backward(grad, output_size, input_size,
                                      scales_h=None, scales_w=None):
  return _backward("_upsample_nearest_exact2d_backward", "nearest_exact",
                   grad, output_size, input_size, [scales_h, scales_w])


@op(aten._upsample_nearest_exact3d_backward.default)
def upsample_nearest_exact3d_backward(grad, output_size, input_size,
                                      scales_d=None, scales_h=None,
                                      scales_w=None):
  return _backward("_upsample_nearest_exact3d_backward", "nearest_exact",
                   grad, output_size, input_size,
                   [scales_d, scales_h, scales_w])


@op(aten.upsample_linear1d_backward.default)
def upsample_linear1d_backward(grad, output_size, input_size, align_corners,
                               scales=None):
  return _backward("upsample_linear1d_backward", "linear", grad, output_size,
                   input_size, [scales], align_corners)


@op(aten.upsample_bilinear2d_backward.default)
def upsample_bilinear2d_backward(grad, output_size, input_size, align_corners,
                                 scales_h=None, scales_w=None):
  return _backward("upsample_bilinear2d_backward", "linear", grad,
                   output_size, input_size, [scales_h, scales_w],
                   align_corners)


@op(aten.upsample_trilinear3d_backward.default)
def upsample_trilinear3d_backward(grad, output_size, input_size,
                                  align_corners, scales_d=None, scales_h=None,
                                  scales_w=None):
  return _backward("upsample_trilinear3d_backward", "linear", grad,
                   output_size, input_size, [scales_d, scales_h, scales_w],
                   align_corners)


@op(aten.upsample_bicubic2d_backward.default)
def upsample_bicubic2d_backward(grad, output_size, input_size, align_corners,
                                scales_h=None, scales_w=None):
  return _backward("upsample_bicubic2d_backward", "cubic", grad, output_size,
                   input_size, [scales_h, scales_w], align_corners)


# The forward ------------------------------------------------------------------

_KINDS = {
    "upsample_nearest": "nearest",
    "_upsample_nearest_exact": "nearest_exact",
    "upsample_linear": "linear",
    "upsample_bilinear": "linear",
    "upsample_trilinear": "linear",
    "upsample_bicubic": "cubic",
}

_SCALE_NAMES = {
    1: ["scales"],
    2: ["scales_h", "scales_w"],
    3: ["scales_d", "scales_h", "scales_w"]
}


def forward(schema_name, a):
  """The upsampling op `schema_name` ("aten::upsample_bilinear2d") on its
  arguments by schema name (checked): A_d applied along each spatial dim,
  the same matrices as the backward, so values and gradients agree with
  eager's kernels (also where a dim keeps its size under a scale factor,
  which eager copies). None where the decomposition should run instead
  (non-float input, unusual argument forms)."""
  name = schema_name.split("::")[-1]
  rank = int(name[-2])
  kind = _KINDS[name[:-2]]
  x = a["input" if "input" in a else "self"]
  if x.dtype not in (torch.float32, torch.float64, torch.bfloat16,
                     torch.float16) or x.dim() != rank + 2:
    return None
  spatial = list(x.shape[2:])
  if "scale_factors" in a:  # the .vec overload
    size, factors = a.get("output_size"), a.get("scale_factors")
    if (size is None) == (factors is None):
      return None
    if size is None:
      if len(factors) != rank:
        return None
      size = [int(math.floor(n * s)) for n, s in zip(spatial, factors)]
      scales = list(factors)
    else:
      scales = [None] * rank
  else:
    size = a["output_size"]
    scales = [a.get(k) for k in _SCALE_NAMES[rank]]
  size = list(size)
  if len(size) != rank or min(spatial + size) <= 0:
    return None
  check_same_device(name, x)
  # One call (ops/interpolation_ops.h): A_d along each spatial dim (unlike
  # the backward, eager's cubic forward never copies).
  return _XLAC._upsample(x, _KIND_CODES[kind], size, scales,
                         bool(a.get("align_corners") or False))
