"""Ops lowered through PyTorch's decompositions behind eager's argument
checks (torch_xla/_ops/decomposition_checks.py): values against eager, and
eager's errors for bad arguments (the decompositions alone failed inside
with a ZeroDivisionError, an AssertionError or a reshape's error).

The backward ops of upsampling and grid_sampler_2d have neither a rule nor
a decomposition yet (they fall back to the CPU), so only pixel_shuffle's
gradient is compared here."""

import pytest
import torch
import torch.nn.functional as F

from op_test_utils import XLA, check_op


@pytest.mark.parametrize("mode,shape,kwargs", [
    ("nearest", (1, 2, 5), dict(size=7)),
    ("nearest", (2, 1, 3, 4), dict(scale_factor=2)),
    ("linear", (1, 2, 5), dict(size=3, align_corners=False)),
    ("bilinear", (1, 2, 3, 4), dict(scale_factor=1.5, align_corners=True)),
    ("bicubic", (1, 1, 4, 4), dict(size=(6, 5), align_corners=False)),
    ("trilinear", (1, 1, 2, 3, 4), dict(size=(3, 3, 3), align_corners=False)),
])
def test_interpolate_matches_eager(mode, shape, kwargs):
  check_op(lambda x: F.interpolate(x, mode=mode, **kwargs),
           torch.randn(*shape), grad=False)


def test_grid_sample_matches_eager():
  check_op(lambda x, g: F.grid_sample(x, g, align_corners=False),
           torch.randn(2, 3, 4, 5),
           torch.rand(2, 3, 2, 2) * 2 - 1, grad=False)


def test_pixel_shuffle_round_trip_matches_eager():
  check_op(lambda x: F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2) * 2,
           torch.randn(1, 8, 3, 2, requires_grad=True))


@pytest.mark.parametrize("call,match", [
    (lambda d: F.interpolate(torch.ones(1, 2, 3, device=d), size=0),
     r"input \(W: 3\) and output \(W: 0\)"),
    (lambda d: F.interpolate(torch.ones(1, 2, 3, 4, device=d),
                             scale_factor=0.2, mode="bilinear"),
     r"input \(H: 3, W: 4\) output \(H: 0, W: 0\)"),
    (lambda d: torch.ops.aten.upsample_nearest2d.default(
        torch.ones(1, 2, 3, 3, device=d), [2]), "output_size equals to 2"),
    (lambda d: F.grid_sample(torch.ones(1, 1, 2, 3, device=d),
                             torch.ones(1, 2, 2, 3, device=d),
                             align_corners=False), "size 2 in last dimension"),
    (lambda d: F.grid_sample(torch.ones(1, 1, 2, 3, device=d),
                             torch.ones(2, 2, 2, 2, device=d),
                             align_corners=False), "same batch size"),
    (lambda d: torch.grid_sampler_2d(torch.ones(1, 1, 0, 3, device=d),
                                     torch.ones(1, 2, 2, 2, device=d), 0, 0,
                                     False), "dimension 2 being empty"),
    (lambda d: F.pixel_shuffle(torch.ones(1, 1, 2, 3, device=d), 2),
     r"input.size\(-3\)=1 is not divisible by 4"),
    (lambda d: F.pixel_shuffle(torch.ones(2, 3, device=d), 2),
     "at least 3 dimensions"),
    (lambda d: F.pixel_unshuffle(torch.ones(1, 4, 3, 2, device=d), 2),
     "height to be divisible"),
    (lambda d: F.pixel_unshuffle(torch.ones(1, 4, 2, 2, device=d), 0),
     "positive downscale_factor, but got 0"),
])
def test_bad_arguments_raise_eagers_error(call, match):
  with pytest.raises(RuntimeError, match=match):
    call("cpu")
  with pytest.raises(RuntimeError, match=match):
    call(XLA)
