"""grid_sampler_2d (F.grid_sample on 4-d input) and its backward: bilinear,
nearest and bicubic, with zeros, border and reflection padding, both
align_corners values; the input's and the grid's gradients.

Each is one call into C++ (_XLAC._grid_sampler_2d and
_grid_sampler_2d_backward), built by ops/grid_sampler_ops.h with eager's
arithmetic (aten/native/GridSampler.h); the rules here check eager's
arguments. The design (taps laid out [N, T, P]: one gather and a weighted
sum forward; a scatter-add and a contraction with the weights' derivatives
backward) is described in that header.
"""

import torch

from torch_xla import _XLAC
from torch_xla._dtypes import scalar_type_name
from torch_xla._ops.registry import aten, op

_MODES = {0: "bilinear", 1: "nearest", 2: "bicubic"}
_PADDINGS = {0: "zeros", 1: "border", 2: "reflection"}
_FLOATS = (torch.float32, torch.float64, torch.bfloat16, torch.float16)


def grid_sampler_2d_check(name, x, grid, interpolation_mode, padding_mode):
  """Eager's checks of grid_sampler_2d's input and grid (its backward's
  too), then of the modes and the kernel's dtypes."""
  if x.dim() != 4 or grid.dim() != 4:
    raise RuntimeError(
        f"grid_sampler(): expected 4D input and grid with same number of "
        f"dimensions, but got input with sizes {list(x.shape)} and grid "
        f"with sizes {list(grid.shape)}")
  if x.shape[0] != grid.shape[0]:
    raise RuntimeError(
        f"grid_sampler(): expected grid and input to have same batch size, "
        f"but got input with sizes {list(x.shape)} and grid with sizes "
        f"{list(grid.shape)}")
  if grid.shape[-1] != 2:
    raise RuntimeError(
        f"grid_sampler(): expected grid to have size 2 in last dimension, "
        f"but got grid with sizes {list(grid.shape)}")
  if x.dtype != grid.dtype:
    raise RuntimeError(f"expected scalar type {scalar_type_name(x.dtype)} "
                       f"but found {scalar_type_name(grid.dtype)}")
  for d in (2, 3):
    if x.shape[d] == 0:
      raise RuntimeError(
          f"grid_sampler(): expected input to have non-empty spatial "
          f"dimensions, but input has sizes {list(x.shape)} with dimension "
          f"{d} being empty")
  if interpolation_mode not in _MODES:
    raise RuntimeError(f"{name}: interpolation_mode must be 0 (bilinear), 1 "
                       f"(nearest) or 2 (bicubic), but got "
                       f"{interpolation_mode}")
  if padding_mode not in _PADDINGS:
    raise RuntimeError(f"{name}: padding_mode must be 0 (zeros), 1 (border) "
                       f"or 2 (reflection), but got {padding_mode}")
  if x.dtype not in _FLOATS:
    raise NotImplementedError(f"\"{name}_cpu_kernel_impl\" not implemented for "
                              f"'{scalar_type_name(x.dtype)}'")


@op(aten.grid_sampler_2d.default)
def grid_sampler_2d(input, grid, interpolation_mode, padding_mode,
                    align_corners):
  grid_sampler_2d_check("grid_sampler_2d", input, grid, interpolation_mode,
                        padding_mode)
  return _XLAC._grid_sampler_2d(input, grid, interpolation_mode,
                                padding_mode, bool(align_corners))


@op(aten.grid_sampler_2d_backward.default)
def grid_sampler_2d_backward(grad_output, input, grid, interpolation_mode,
                             padding_mode, align_corners, output_mask):
  grid_sampler_2d_check("grid_sampler_2d_backward", input, grid,
                        interpolation_mode, padding_mode)
  return _XLAC._grid_sampler_2d_backward(grad_output, input, grid,
                                         interpolation_mode, padding_mode,
                                         bool(align_corners),
                                         bool(output_mask[0]))
