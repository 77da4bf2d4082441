"""Interpolation, grid sampling and pixel shuffles on 'xla' against eager.

Upsampling and the pixel shuffles run through PyTorch's decompositions
behind eager's argument checks (torch_xla/_ops/decomposition_checks.py);
upsampling's backward and grid_sampler_2d (both ways) have rules of their
own (torch_xla/_ops/interpolation.py, grid_sampler.py). check_op compares
values and gradients and fails on any CPU fallback; the bad-argument cases
check eager's errors (the decompositions alone failed inside with a
ZeroDivisionError, an AssertionError or a reshape's error)."""

import pytest
import torch
import torch.nn.functional as F

from op_test_utils import XLA, check_op


@pytest.mark.parametrize("mode,shape,kwargs", [
    ("nearest", (1, 2, 5), dict(size=7)),
    ("nearest", (1, 2, 4), dict(size=8)),  # eager's 2x shortcut
    ("nearest", (2, 1, 3, 4), dict(scale_factor=1.7)),
    ("nearest", (1, 1, 2, 3, 4), dict(scale_factor=(1.5, 2, 0.75))),
    ("nearest-exact", (1, 2, 5), dict(size=3)),
    ("nearest-exact", (1, 2, 5, 6), dict(scale_factor=1.3)),
    ("nearest-exact", (1, 1, 3, 5, 6), dict(size=(4, 2, 9))),
    ("linear", (1, 2, 5), dict(size=3, align_corners=False)),
    ("linear", (1, 2, 5), dict(scale_factor=2.5, align_corners=True)),
    ("bilinear", (1, 2, 3, 4), dict(scale_factor=1.5, align_corners=True)),
    ("bilinear", (2, 2, 6, 5), dict(size=(4, 5), align_corners=False)),
    ("bicubic", (1, 1, 4, 4), dict(size=(6, 5), align_corners=False)),
    ("bicubic", (1, 2, 5, 4), dict(scale_factor=1.6, align_corners=True)),
    ("trilinear", (1, 1, 2, 3, 4), dict(size=(3, 3, 3), align_corners=False)),
    ("trilinear", (1, 1, 2, 3, 4),
     dict(scale_factor=(2, 1.5, 0.5), align_corners=True)),
    # A dim keeping its size under a scale factor: eager's linear and
    # nearest kernels copy it, its cubic forward does not (the
    # decomposition got the first two wrong).
    ("bilinear", (1, 2, 3, 4), dict(scale_factor=(1.2, 1.5),
                                    align_corners=False)),
    ("nearest", (1, 2, 3, 4), dict(scale_factor=(1.2, 0.5))),
    ("bicubic", (1, 2, 3, 4), dict(scale_factor=1.2, align_corners=False)),
])
def test_interpolate_values_and_grads_match_eager(mode, shape, kwargs):
  check_op(lambda x: F.interpolate(x, mode=mode, **kwargs),
           torch.randn(*shape))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float64])
def test_interpolate_grads_in_other_dtypes(dtype):
  # bf16 accumulates in f32 as eager does; f64 builds f64 weights.
  check_op(lambda x: F.interpolate(x, scale_factor=1.5, mode="bicubic",
                                   align_corners=False),
           torch.randn(1, 2, 4, 5, dtype=dtype))


def test_interpolate_integer_input_matches_eager():
  # Not a float: the decomposition runs (no matrix of weights).
  check_op(lambda x: F.interpolate(x, scale_factor=1.5, mode="nearest"),
           torch.randint(0, 255, (1, 2, 3, 4), dtype=torch.uint8))


@pytest.mark.parametrize("mode,padding_mode,align_corners", [
    ("bilinear", "zeros", False),
    ("bilinear", "border", True),
    ("bilinear", "reflection", False),
    ("bilinear", "reflection", True),
    ("nearest", "zeros", True),
    ("nearest", "reflection", False),
    ("bicubic", "zeros", False),
    ("bicubic", "border", True),
    ("bicubic", "reflection", False),
])
def test_grid_sample_values_and_grads_match_eager(mode, padding_mode,
                                                  align_corners):
  # The grid reaches past [-1, 1] so that padding matters.
  check_op(lambda x, g: F.grid_sample(x, g, mode=mode,
                                      padding_mode=padding_mode,
                                      align_corners=align_corners),
           torch.randn(2, 3, 4, 5),
           torch.rand(2, 3, 2, 2) * 2.6 - 1.3)


def test_grid_sample_grid_grad_only_and_bf16():
  # Only the grid requires grad: the backward's output_mask skips the
  # input's gradient.
  check_op(lambda x, g: F.grid_sample(x, g, align_corners=False),
           torch.randn(1, 2, 3, 4),
           (torch.rand(1, 2, 3, 2) * 2 - 1).requires_grad_())
  check_op(lambda x, g: F.grid_sample(x, g, align_corners=True),
           torch.randn(1, 2, 3, 4, dtype=torch.bfloat16),
           torch.rand(1, 2, 3, 2, dtype=torch.bfloat16) * 2 - 1)


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
    (lambda d: torch.ops.aten.upsample_nearest1d_backward(
        torch.ones(1, 2, 4, device=d), [5], [1, 2, 3]),
     r"tensor.size\[2\] == 5 but got: dimension 3 and tensor.size\[2\] = 4"),
    (lambda d: torch.ops.aten.upsample_bilinear2d_backward(
        torch.ones(1, 2, 4, device=d), [5, 4], [1, 2, 3, 3], False),
     "grad_output to be a tensor of dimension 4 but got: dimension 3"),
    (lambda d: F.grid_sample(torch.ones(1, 1, 2, 3, device=d),
                             torch.ones(1, 2, 2, 3, device=d),
                             align_corners=False), "size 2 in last dimension"),
    (lambda d: F.grid_sample(torch.ones(1, 1, 2, 3, device=d),
                             torch.ones(2, 2, 2, 2, device=d),
                             align_corners=False), "same batch size"),
    (lambda d: F.grid_sample(torch.ones(1, 1, 2, 3, device=d),
                             torch.ones(1, 2, 2, 2, device=d).double(),
                             align_corners=False),
     "expected scalar type Float but found Double"),
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
