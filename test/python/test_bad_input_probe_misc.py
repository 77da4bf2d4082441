"""The bad-input probe (see test_bad_input_probe.py for the harness): Python
indexing syntax, memory formats, dtypes the device does not have, autograd
misuse, composite ops (einsum, tensordot, interpolate, fold, grid_sample,
pixel_shuffle), and values only the device knows (masked_scatter)."""

import pytest
import torch
import torch.nn.functional as F

from test_bad_input_probe import case, f, ints, params, run

_A = "helper A (elementwise, masked_ops, csrc/ops): "
_B = "helper B (reductions): "
_NO_RULE = "no rule (PyTorch's decomposition runs): "
_CLONE_FAST = ("csrc/python/fast_view_rules.cc: the fast clone rule ignores "
               "memory_format (copy_ops.clone checks the rank eager needs "
               "for channels_last; the fast rule should decline to it)")
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
         xfail=_NO_RULE + "upsample's decomposition divides by the output "
         "size (ZeroDivisionError); eager raises RuntimeError"),
    case("interpolate scale 0", lambda d: F.interpolate(
        f(d, 1, 2, 3), scale_factor=0.0), xfail=_NO_RULE + "upsample's "
         "decomposition divides by the output size (ZeroDivisionError)"),
    case("interpolate bilinear of 3-d", lambda d: F.interpolate(
        f(d, 1, 2, 3), size=4, mode="bilinear")),
    case("grid_sample grid shape", lambda d: F.grid_sample(
        f(d, 1, 1, 2, 3), f(d, 1, 2, 2, 3), align_corners=False),
         xfail=_NO_RULE + "grid_sampler's decomposition asserts "
         "(AssertionError); eager raises RuntimeError"),
    case("pixel_shuffle channels", lambda d: F.pixel_shuffle(
        f(d, 1, 1, 2, 3), 2), xfail=_NO_RULE + "pixel_shuffle's "
         "decomposition fails in a reshape; eager names the channel dim"),
    # Memory formats.
    case("contiguous channels_last of 2-d", lambda d: f(d, 2, 3).contiguous(
        memory_format=torch.channels_last), xfail=_CLONE_FAST),
    case("clone channels_last of 3-d", lambda d: f(d, 1, 2, 3).clone(
        memory_format=torch.channels_last), xfail=_CLONE_FAST),
    case("clone channels_last_3d of 4-d", lambda d: f(d, 1, 1, 2, 3).clone(
        memory_format=torch.channels_last_3d), xfail=_CLONE_FAST),
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
    case("sum dtype bool", lambda d: f(d, 2, 3).sum(dtype=torch.bool),
         xfail=_B + "a pred sum is a ValueError from the IR; eager "
         "returns any()"),
    case("rsub of bool", lambda d: 1 - (f(d, 3) > 0), xfail=_A + "1 - bool "
         "computes; eager raises (Subtraction ... with a bool tensor)"),
    case("heaviside dtypes differ", lambda d: torch.heaviside(f(d, 3), ints(
        d, [1])), xfail=_A + "heaviside of two dtypes computes; eager "
         "raises"),
    case("where scalars ok", lambda d: torch.where(f(d, 3) > 0, 1, 2.5)),
    # Values only the device knows.
    case("masked_scatter source too small", lambda d: f(d, 2, 3)
         .masked_scatter(f(d, 2, 3) > -0.9, f(d, 2)), xfail=_A + "reads "
         "past the source silently; eager raises (a device-side check "
         "would do)"),
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
