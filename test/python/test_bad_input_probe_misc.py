"""The bad-input probe (see test_bad_input_probe.py for the harness): Python
indexing syntax, memory formats, dtypes the device does not have, autograd
misuse, composite ops (einsum, tensordot, interpolate, fold, grid_sample,
pixel_shuffle), pooling and convolution corners, gathers and puts,
distances, histograms, factories, float-to-integer conversion, and values
only the device knows (masked_scatter)."""

import pytest
import torch
import torch.nn.functional as F

from test_bad_input_probe import case, f, ints, params, run

_NAN, _INF = float("nan"), float("inf")

_A = "helper A (elementwise, masked_ops, csrc/ops): "
_COMPLEX = ("complex dtypes are not supported on the XLA device (a clear "
            "TypeError; eager computes)")


def _b(d, values):
  return torch.tensor(values, dtype=torch.bool).to(d)


def _grad_of(d):
  x = f(d, 2, 3).detach().requires_grad_()
  return torch.autograd.grad((x * 2).sum(), [x, f(d, 2)])


CASES = [
    # Python indexing syntax.
    case("slice step 0", lambda d: f(d, 2, 3)[::0]),
    case("slice negative step", lambda d: f(d, 2, 3)[::-1]),
    case("two ellipses", lambda d: f(d, 2, 3)[..., ...]),
    case("None and ellipsis ok", lambda d: f(d, 2, 3)[None, ..., None, 1]),
    case("empty slice ok", lambda d: f(d, 2, 3)[1:0]),
    case("slice past the end ok", lambda d: f(d, 2, 3)[:, 2:9]),
    case("select 0-d", lambda d: f(d, 1).sum().select(0, 0)),
    case("narrow 0-d", lambda d: f(d, 1).sum().narrow(0, 0, 1)),
    case("index 0-d with list", lambda d: f(d, 1).sum()[[0]]),
    # Composite ops.
    case("einsum sizes", lambda d: torch.einsum("ij,jk->ik", f(d, 2, 3),
                                                f(d, 2, 3))),
    case("einsum bad equation", lambda d: torch.einsum("ij->k", f(d, 2, 3))),
    case("tensordot ok", lambda d: torch.tensordot(f(d, 2, 3), f(d, 2, 3),
                                                   dims=([1], [1]))),
    case("tensordot sizes", lambda d: torch.tensordot(f(d, 2, 3), f(d, 2, 3),
                                                      dims=([0], [1]))),
    case("diff negative n", lambda d: torch.diff(f(d, 3), n=-1)),
    case("glu odd", lambda d: F.glu(f(d, 2, 3), -1)),
    case("prelu weight size", lambda d: F.prelu(f(d, 2, 3), f(d, 2))),
    case("label_smoothing 2", lambda d: F.cross_entropy(
        f(d, 2, 3), ints(d, [0, 1]), label_smoothing=2.0)),
    case("nll_loss weight size", lambda d: F.nll_loss(
        f(d, 2, 3), ints(d, [0, 1]), weight=f(d, 2))),
    case("embedding_bag offsets", lambda d: F.embedding_bag(
        ints(d, [0, 1]), f(d, 2, 3), ints(d, [1, 0]))),
    case("ctc_loss lengths", lambda d: F.ctc_loss(
        f(d, 2, 3).log_softmax(1)[None], ints(d, [[1]]), [1], [2])),
    case("fold channels", lambda d: F.fold(f(d, 1, 2, 3), (4, 4), 2)),
    case("softmax dtype int", lambda d: f(d, 2, 3).softmax(
        0, dtype=torch.int64)),
    case("cumsum dtype int ok", lambda d: (f(d, 2, 3) * 4).cumsum(
        0, dtype=torch.int32)),
    case("count_nonzero duplicate dims", lambda d: torch.count_nonzero(
        f(d, 2, 3), (0, 0))),
    case("logcumsumexp int", lambda d: ints(d, [1, 2]).logcumsumexp(0)),
    case("cummax dim 2", lambda d: f(d, 2, 3).cummax(2)),
    case("std_mean dim 3", lambda d: torch.std_mean(f(d, 2, 3), 3)),
    case("var correction 5 ok", lambda d: f(d, 2, 3).var(correction=5)),
    case("roll empty shifts", lambda d: f(d, 2, 3).roll(())),
    case("unfold negative size", lambda d: f(d, 2, 3).unfold(1, -1, 1)),
    case("movedim repeated destination", lambda d: f(d, 2, 3).movedim(
        (0, 1), (1, 1))),
    case("interpolate size 0", lambda d: F.interpolate(f(d, 1, 2, 3), size=0),
         match="greater than 0"),
    case("interpolate scale 0", lambda d: F.interpolate(
        f(d, 1, 2, 3), scale_factor=0.0), match="greater than 0"),
    case("interpolate bilinear size 0", lambda d: F.interpolate(
        f(d, 1, 2, 3, 4), size=(0, 2), mode="bilinear"),
         match="greater than 0"),
    case("interpolate bilinear of 3-d", lambda d: F.interpolate(
        f(d, 1, 2, 3), size=4, mode="bilinear")),
    case("grid_sample grid shape", lambda d: F.grid_sample(
        f(d, 1, 1, 2, 3), f(d, 1, 2, 2, 3), align_corners=False),
         match="size 2 in last dimension"),
    case("grid_sample batch differs", lambda d: F.grid_sample(
        f(d, 1, 1, 2, 3), f(d, 2, 2, 2, 2), align_corners=False),
         match="same batch size"),
    case("pixel_shuffle channels", lambda d: F.pixel_shuffle(
        f(d, 1, 1, 2, 3), 2), match="'channel' dimension"),
    case("pixel_unshuffle width", lambda d: F.pixel_unshuffle(
        f(d, 1, 4, 2, 3), 2), match="width to be divisible"),
    # Memory formats.
    case("contiguous channels_last of 2-d", lambda d: f(d, 2, 3).contiguous(
        memory_format=torch.channels_last)),
    case("clone channels_last of 3-d", lambda d: f(d, 1, 2, 3).clone(
        memory_format=torch.channels_last)),
    case("clone channels_last_3d of 4-d", lambda d: f(d, 1, 1, 2, 3).clone(
        memory_format=torch.channels_last_3d)),
    case("contiguous channels_last ok", lambda d: f(d, 1, 2, 2, 3).contiguous(
        memory_format=torch.channels_last)),
    # Autograd misuse.
    case("backward of non-scalar", lambda d: f(d, 2).detach().requires_grad_(
    ).mul(2).backward()),
    case("grad of unused input", _grad_of),
    case("backward twice", lambda d: _backward_twice(d)),
    # Dtypes.
    case("complex tensor", lambda d: f(d, 2).to(torch.complex64) * 2,
         xfail=_COMPLEX),
    case("polar", lambda d: torch.polar(f(d, 2), f(d, 2)), xfail=_COMPLEX),
    case("sum dtype bool", lambda d: f(d, 2, 3).sum(dtype=torch.bool)),
    case("sum dim dtype bool", lambda d: ints(d, [[2, -2], [0, 0]]).sum(
        1, dtype=torch.bool)),
    case("prod dtype bool", lambda d: f(d, 2, 3).prod(1, dtype=torch.bool)),
    case("nansum dtype bool", lambda d: torch.tensor([_NAN, 0.0]).to(
        d).nansum(dtype=torch.bool)),
    case("cumsum dtype bool", lambda d: f(d, 3).cumsum(0, dtype=torch.bool),
         match="\"cumsum_out_cpu\" not implemented for 'Bool'"),
    case("rsub of bool", lambda d: 1 - (f(d, 3) > 0),
         match="Subtraction, the `-` operator, with a bool tensor"),
    case("float minus bool", lambda d: f(d, 3) - (f(d, 3) > 0),
         match="Subtraction, the `-` operator, with a bool tensor"),
    case("bool sub_ 1", lambda d: (f(d, 3) > 0).sub_(1),
         match="Subtraction, the `-` operator, with a bool tensor"),
    case("heaviside dtypes differ", lambda d: torch.heaviside(f(d, 3), ints(
        d, [1])), match="heaviside is not yet implemented for tensors with "
         "different dtypes"),
    case("heaviside ok", lambda d: torch.heaviside(
        f(d, 4) * torch.tensor([1.0, 0.0, -1.0, 0.0]).to(d), f(d, 4))),
    case("heaviside_ ints ok", lambda d: ints(d, [-2, 0, 3]).heaviside_(
        ints(d, [5]))),
    case("heaviside of bools ok", lambda d: torch.heaviside(
        _b(d, [True, False]), _b(d, [False, True]))),
    case("where scalars ok", lambda d: torch.where(f(d, 3) > 0, 1, 2.5)),
    # Pooling and convolution corners.
    case("max_pool2d dilation 0", lambda d: F.max_pool2d(
        f(d, 1, 1, 5, 5), 2, dilation=0)),
    case("max_pool2d negative stride", lambda d: F.max_pool2d(
        f(d, 1, 1, 5, 5), 2, stride=-1)),
    case("max_pool2d kernel of 3 for 2-d", lambda d: F.max_pool2d(
        f(d, 1, 1, 5, 5), (2, 2, 2))),
    case("max_pool2d ceil_mode ok", lambda d: F.max_pool2d(
        f(d, 1, 1, 5, 5), 3, stride=2, padding=1, ceil_mode=True)),
    case("max_pool2d empty batch ok", lambda d: F.max_pool2d(
        f(d, 0, 1, 5, 5), 2, return_indices=True)),
    case("max_pool2d empty channels", lambda d: F.max_pool2d(
        f(d, 1, 0, 5, 5), 2)),
    case("max_pool2d bool", lambda d: F.max_pool2d(f(d, 1, 1, 4, 4) > 0, 2)),
    case("max_pool3d output too small", lambda d: F.max_pool3d(
        f(d, 1, 1, 2, 2, 2), 3)),
    case("avg_pool2d empty batch ok", lambda d: F.avg_pool2d(
        f(d, 0, 1, 5, 5), 2)),
    case("avg_pool2d bool", lambda d: F.avg_pool2d(f(d, 1, 1, 4, 4) > 0, 2)),
    case("avg_pool3d pad too big", lambda d: F.avg_pool3d(
        f(d, 1, 1, 2, 2, 2), 2, padding=2)),
    case("adaptive_max_pool2d negative size", lambda d: F.adaptive_max_pool2d(
        f(d, 1, 1, 5, 5), -1)),
    case("adaptive_avg_pool3d of 2-d", lambda d: F.adaptive_avg_pool3d(
        f(d, 5, 5), 2)),
    case("max_unpool2d ok", lambda d: F.max_unpool2d(*F.max_pool2d(
        f(d, 1, 1, 4, 4), 2, return_indices=True), 2)),
    case("conv2d padding string", lambda d: F.conv2d(
        f(d, 1, 1, 4, 4), f(d, 1, 1, 2, 2), padding="full")),
    case("conv2d same even kernel ok", lambda d: F.conv2d(
        f(d, 1, 1, 4, 4), f(d, 1, 1, 2, 2), padding="same")),
    case("conv2d groups 0", lambda d: F.conv2d(f(d, 1, 2, 4, 4),
                                               f(d, 2, 1, 2, 2), groups=0)),
    case("conv2d weight without out channels", lambda d: F.conv2d(
        f(d, 1, 1, 4, 4), f(d, 0, 1, 3, 3))),
    case("conv2d stride of 3 for 2-d", lambda d: F.conv2d(
        f(d, 1, 1, 4, 4), f(d, 1, 1, 3, 3), stride=(1, 1, 1))),
    case("conv2d 5-d input", lambda d: F.conv2d(f(d, 1, 1, 2, 4, 4),
                                                f(d, 1, 1, 3, 3))),
    case("conv_transpose2d groups", lambda d: F.conv_transpose2d(
        f(d, 1, 4, 4, 4), f(d, 4, 1, 2, 2), groups=3)),
    case("conv_transpose2d output too small", lambda d: F.conv_transpose2d(
        f(d, 1, 2, 1, 1), f(d, 2, 1, 1, 1), padding=2)),
    case("conv reflect padding too big", lambda d: F.conv2d(F.pad(
        f(d, 1, 1, 4, 4), (5, 5, 5, 5), mode="reflect"), f(d, 1, 1, 3, 3))),
    # Gathers, scatters and puts.
    case("gather dim 2", lambda d: torch.gather(f(d, 2, 3), 2, ints(d,
                                                                    [[0]]))),
    case("gather float index", lambda d: torch.gather(f(d, 2, 3), 1,
                                                      f(d, 2, 1))),
    case("gather empty index ok", lambda d: torch.gather(f(d, 2, 3), 1, ints(
        d, [[], []]))),
    case("scatter int32 index", lambda d: f(d, 3).scatter(0, ints(
        d, [0], torch.int32), 1.0)),
    case("scatter 1-d value", lambda d: f(d, 3).scatter(0, ints(d, [0]),
                                                        f(d, 2))),
    case("scatter index wider than src", lambda d: torch.zeros(2, 3).to(d)
         .scatter(1, ints(d, [[0, 1, 2]]), f(d, 1, 2))),
    case("scatter_reduce amax without self ok", lambda d: f(d, 3)
         .scatter_reduce(0, ints(d, [0, 0]), f(d, 2) * 4, "amax",
                         include_self=False)),
    case("put_ sizes differ", lambda d: f(d, 3).put_(ints(d, [0, 1]),
                                                     f(d, 3))),
    case("put_ dtypes differ", lambda d: f(d, 3).put_(ints(d, [0]),
                                                      ints(d, [1]))),
    case("put_ accumulate duplicates ok", lambda d: f(d, 3).put_(
        ints(d, [0, 0]), f(d, 2), accumulate=True)),
    case("index_reduce computed", lambda d: f(d, 3).index_reduce(
        0, ints(d, [0]) * 5, f(d, 1), "amax")),
    case("index_copy 0-d ok", lambda d: f(d, 1).sum().index_copy(
        0, ints(d, [0]), f(d, 1).sum() * 3)),
    # Distances, histograms, factories.
    case("cdist p 0 ok", lambda d: torch.cdist(f(d, 2, 3), f(d, 2, 3) * 2,
                                               p=0)),
    case("cdist ints", lambda d: torch.cdist(ints(d, [[1, 2]]),
                                             ints(d, [[1, 2]]))),
    case("cdist batches differ", lambda d: torch.cdist(f(d, 2, 2, 3),
                                                       f(d, 3, 2, 3))),
    case("pdist ints", lambda d: F.pdist(ints(d, [[1, 2], [3, 4]]))),
    case("histc nan bound", lambda d: torch.histc(f(d, 4), 4, _NAN, 1)),
    case("histc all nan data", lambda d: torch.histc(f(d, 4) * _NAN, 4)),
    case("histc inf data", lambda d: torch.histc(f(d, 4) + _INF, 4)),
    case("histc nan data in range ok", lambda d: torch.histc(
        f(d, 4) * _NAN, 4, 0, 1)),
    case("triu_indices ok", lambda d: torch.triu_indices(3, 4, 1, device=d)),
    case("tril_indices int32 ok", lambda d: torch.tril_indices(
        3, 2, dtype=torch.int32, device=d)),
    case("triu_indices negative row", lambda d: torch.triu_indices(
        -1, 3, device=d)),
    case("eye of 2 sizes ok", lambda d: torch.eye(2, 3, dtype=torch.int8,
                                                  device=d)),
    case("empty_like channels_last of 2-d", lambda d: torch.empty_like(
        f(d, 2, 3), memory_format=torch.channels_last)),
    case("zeros_like channels_last_3d of 4-d", lambda d: torch.zeros_like(
        f(d, 1, 2, 3, 4), memory_format=torch.channels_last_3d)),
    # Float to integer out of range: undefined in C++; eager CPU wraps
    # through int32, eager CUDA (PTX cvt) and XLA saturate. We follow CUDA.
    case("float to int8 out of range", lambda d: (f(d, 3) * 1000).to(
        torch.int8), eager=lambda d: (f(d, 3) * 1000).clamp(-128, 127).to(
            torch.int8)),
    case("negative float to uint8", lambda d: f(d, 3).to(torch.uint8),
         eager=lambda d: f(d, 3).clamp(0, 255).to(torch.uint8)),
    case("inf to int32", lambda d: (f(d, 3) / 0).to(torch.int32),
         eager=lambda d: torch.tensor([-2**31, -2**31, -2**31],
                                      dtype=torch.int32)),
    case("nan to bool ok", lambda d: (f(d, 3) * _NAN).bool()),
    # Values only the device knows.
    case("masked_scatter source too small", lambda d: f(d, 2, 3)
         .masked_scatter(f(d, 2, 3) > -0.9, f(d, 2)),
         match="Number of elements of source < number of ones in mask"),
    case("masked_scatter_ empty source", lambda d: f(d, 2, 3)
         .masked_scatter_(f(d, 2, 3) > -0.9, f(d, 0)),
         match="Number of elements of source < number of ones in mask"),
    case("masked_scatter_ exact source ok", lambda d: f(d, 2, 3)
         .masked_scatter_(f(d, 2, 3) > -9, f(d, 6))),
    case("masked_scatter ok", lambda d: f(d, 2, 3).masked_scatter(
        f(d, 2, 3) > 0, f(d, 6) * 10)),
    case("nonzero ok", lambda d: torch.nonzero(f(d, 2, 3))),
    case("unique ok", lambda d: torch.unique(f(d, 2, 3).round())),
]

def _backward_twice(d):
  x = f(d, 2).detach().requires_grad_()
  y = (x.exp() * 2).sum()
  y.backward()
  y.backward()
  return x.grad


@pytest.mark.parametrize("c", params(CASES))
def test_misc(c):
  run(c)
