"""Eager's argument checks for ops lowered through PyTorch's decompositions
(we have no rule of our own): upsampling, pixel_shuffle and
pixel_unshuffle.

The decompositions assume valid arguments. Without these checks, bad ones
fail somewhere inside them (a ZeroDivisionError for an empty upsampling
size, an AssertionError for a grid of the wrong shape, a reshape's error for
pixel_shuffle) instead of raising eager's RuntimeError, which names the
argument at fault. Each rule here checks, then runs the decomposition,
whose ops come back to our rules; upsampling of float inputs runs
interpolation.forward instead (eager's weight matrices, one dot per spatial
dim).
"""

import math

from torch_xla._ops import interpolation, registry
from torch_xla._ops.registry import aten, op


def _bound(overload, args, kwargs):
  """The call's arguments by schema name."""
  names = [a.name for a in overload._schema.arguments]
  bound = dict(zip(names, args))
  bound.update(kwargs)
  return bound


def _checked(overloads, check, lowering=None):
  """Registers, for each overload, a rule that runs `check(name, arguments)`
  and then `lowering(name, arguments)` when given and it returns a result,
  else PyTorch's decomposition."""
  for overload in overloads:
    decomposition = registry._decomposition(overload)
    if decomposition is None:
      continue

    def rule(*args, _overload=overload, _decomposition=decomposition,
             **kwargs):
      name, bound = _overload._schema.name, _bound(_overload, args, kwargs)
      check(name, bound)
      if lowering is not None:
        result = lowering(name, bound)
        if result is not None:
          return result
      return _decomposition(*args, **kwargs)

    rule.__name__ = rule.__qualname__ = overload.__name__.replace(".", "_")
    op(overload)(rule)


# Upsampling ------------------------------------------------------------------

_SPATIAL_NAMES = {1: "W", 2: "HW", 3: "DHW"}


def _upsample_check(name, a):
  x = a["input" if "input" in a else "self"]
  rank = int(name[-2])  # upsample_nearest2d -> 2
  spatial = list(x.shape[2:]) if x.dim() >= 2 else []
  size = a.get("output_size")
  if size is not None:
    size = list(size)
    if len(size) != rank:
      raise RuntimeError(f"It is expected output_size equals to {rank}, but "
                         f"got size {len(size)}")
  else:
    scales = list(a.get("scale_factors") or [])
    if len(scales) != rank or len(spatial) != rank:
      return  # the decomposition raises for these
    size = [math.floor(n * s) for n, s in zip(spatial, scales)]
  if len(spatial) != rank:
    return
  if min(spatial + size) > 0:
    return
  letters = _SPATIAL_NAMES[rank]

  def sizes(values):
    return ", ".join(f"{c}: {v}" for c, v in zip(letters, values))

  joint = " and output" if rank == 1 else " output"  # eager's texts differ
  raise RuntimeError(f"Input and output sizes should be greater than 0, but "
                     f"got input ({sizes(spatial)}){joint} ({sizes(size)})")


_UPSAMPLE = [
    getattr(getattr(aten, f"{prefix}{kind}{rank}d"), overload)
    for prefix, kinds in (("upsample_", ("nearest", "linear", "bilinear",
                                         "bicubic", "trilinear")),
                          ("_upsample_", ("nearest_exact",)))
    for kind in kinds for rank in (1, 2, 3)
    if hasattr(aten, f"{prefix}{kind}{rank}d")
    for overload in ("default", "vec")
    if hasattr(getattr(aten, f"{prefix}{kind}{rank}d"), overload)
]
_checked(_UPSAMPLE, _upsample_check, interpolation.forward)

# pixel_shuffle / pixel_unshuffle ---------------------------------------------


def _pixel_check(name, a):
  x = a["self"]
  factor_name = "upscale_factor" if name.endswith("pixel_shuffle") else (
      "downscale_factor")
  factor = a[factor_name]
  op_name = name.split("::")[-1]
  if x.dim() < 3:
    raise RuntimeError(f"{op_name} expects input to have at least 3 "
                       f"dimensions, but got input with {x.dim()} "
                       f"dimension(s)")
  if factor <= 0:
    raise RuntimeError(f"{op_name} expects a positive {factor_name}, but got "
                       f"{factor}")
  if factor_name == "upscale_factor":
    if x.shape[-3] % (factor * factor):
      raise RuntimeError(
          f"pixel_shuffle expects its input's 'channel' dimension to be "
          f"divisible by the square of upscale_factor, but "
          f"input.size(-3)={x.shape[-3]} is not divisible by "
          f"{factor * factor}")
    return
  for dim, what in ((-2, "height"), (-1, "width")):
    if x.shape[dim] % factor:
      raise RuntimeError(
          f"pixel_unshuffle expects {what} to be divisible by "
          f"downscale_factor, but input.size({dim})={x.shape[dim]} is not "
          f"divisible by {factor}")


_checked([aten.pixel_shuffle.default, aten.pixel_unshuffle.default],
         _pixel_check)
