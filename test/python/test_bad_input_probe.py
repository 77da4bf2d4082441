"""The bad-input probe: a table of (op call, bad arguments), each run in
eager CPU PyTorch and on 'xla', with one expectation: the same outcome.

- eager raises: we raise the same exception class (a device-side check
  raises at the sync or read the case ends with), and our message shares
  eager's key words (the op, argument or shape it names);
- eager returns: we return the same values, dtype and shape.

A few cases have no eager counterpart (a cpu tensor mixed with an 'xla'
one): they state the expected error themselves. A case whose divergence
lives in a file this probe's owner does not own is a strict xfail with the
reason, so that it flips loudly when fixed.

This file holds the harness and the cases about shapes, dims, views and
joins; test_bad_input_probe_math.py (dtypes, broadcasting, in-place,
scalars, reductions, linear algebra), test_bad_input_probe_nn.py
(indexing, nn ops, random sampling, one_hot, view(dtype), mixed devices)
and test_bad_input_probe_misc.py (indexing syntax, composite ops, memory
formats, autograd misuse) hold the rest.
Everything runs in this process (one compile per case, a few ms).
"""

import collections
import math
import re

import pytest
import torch

import torch_xla
import torch_xla.core.xla_model as xm

Case = collections.namedtuple(
    "Case", "name fn match values expect xfail eager",
    defaults=(None, True, None, None, None))


def case(name, fn, match=None, values=True, expect=None, xfail=None,
         eager=None):
  """One probe row.

  Args:
    name: the test id.
    fn: fn(device) -> the op's result (a tensor, a tuple of them, a number).
    match: a regex our message must match (eager's key words); by default
      our message must share eager's significant words (see _key_words).
    values: False to compare only dtypes and shapes (random results).
    expect: (exception class, regex) when eager has no counterpart.
    xfail: the reason, for a known divergence owned elsewhere.
    eager: the call eager CPU runs instead of fn, where we follow eager
      CUDA on purpose and eager CPU differs (the reason in a comment).
  """
  return Case(name, fn, match, values, expect, xfail, eager)


def params(cases):
  """pytest params for a list of Case rows (strict xfail where marked)."""
  names = [c.name for c in cases]
  duplicates = {n for n in names if names.count(n) > 1}
  assert not duplicates, duplicates
  return [
      pytest.param(c, id=c.name, marks=pytest.mark.xfail(
          strict=True, reason=c.xfail) if c.xfail else ()) for c in cases
  ]


def _to_cpu(out):
  if isinstance(out, torch.Tensor):
    return out.detach().cpu()
  if isinstance(out, (tuple, list)):
    return type(out)(_to_cpu(o) for o in out) if not hasattr(
        out, "_fields") else tuple(_to_cpu(o) for o in out)
  return out


def _drain():
  """Reads (and forgets) device-side checks left by a failed case."""
  try:
    xm.wait_device_ops()
  except Exception:  # noqa: BLE001 - a check of an earlier op
    pass


def outcome(fn, device):
  """('ok', result on cpu) or ('raise', exception). On 'xla' the case ends
  with a read, a sync and xm.wait_device_ops(), where device-side checks
  raise."""
  try:
    out = fn(device)
    if device != "cpu":
      out = _to_cpu(out)
      torch_xla.sync()
      xm.wait_device_ops()
    return "ok", out
  except Exception as e:  # noqa: BLE001 - compared with eager's
    if device != "cpu":
      _drain()
    return "raise", e


# Words every message has; the rest name the op, argument, shape or dtype.
_COMMON = set("""expected tensor tensors must with that have should than
the and but got for not are was were have has input argument arguments
size sizes shape shapes dimension dimensions dim dims found when which
value values type types element elements only support supported instead
this from into cannot could none""".split())


def _key_words(message):
  words = re.findall(r"[A-Za-z_][A-Za-z_0-9]{3,}", message)
  return {w.lower() for w in words} - _COMMON


def same_message(ours, eager):
  """Our message names what eager's does: at least half of eager's key
  words (at least one) appear in ours."""
  want = _key_words(eager)
  if not want:
    return True
  have = _key_words(ours)
  return len(want & have) * 2 >= len(want) or len(want & have) >= 3


def _compare(got, want, values, where="result"):
  if isinstance(want, torch.Tensor):
    assert isinstance(got, torch.Tensor), f"{where}: {type(got)}"
    assert got.dtype == want.dtype, f"{where}: {got.dtype} vs {want.dtype}"
    assert got.shape == want.shape, f"{where}: {got.shape} vs {want.shape}"
    if values:
      if want.dtype.is_floating_point or want.dtype.is_complex:
        torch.testing.assert_close(got, want, equal_nan=True, rtol=1e-5,
                                   atol=1e-5, msg=where)
      else:
        assert torch.equal(got, want), f"{where}: {got} vs {want}"
  elif isinstance(want, (tuple, list)):
    assert isinstance(got, (tuple, list)) and len(got) == len(want), where
    for k, (g, w) in enumerate(zip(got, want)):
      _compare(g, w, values, f"{where}[{k}]")
  elif isinstance(want, float) and math.isnan(want):
    assert isinstance(got, float) and math.isnan(got), f"{where}: {got}"
  else:
    assert type(got) is type(want) and got == want, f"{where}: {got!r} vs " \
        f"{want!r}"


def run(c):
  """Asserts case c behaves on 'xla' as in eager (or as c.expect says)."""
  _drain()  # a check an earlier test left pending is not this case's
  ours = outcome(c.fn, torch_xla.device())
  if c.expect is not None:
    cls, pattern = c.expect
    assert ours[0] == "raise", f"{c.name}: expected {cls.__name__}, got " \
        f"{ours[1]!r}"
    assert isinstance(ours[1], cls), f"{c.name}: {ours[1]!r}"
    assert re.search(pattern, str(ours[1])), str(ours[1])
    return
  eager = outcome(c.eager or c.fn, "cpu")
  if eager[0] == "raise":
    e = eager[1]
    assert ours[0] == "raise", f"{c.name}: eager raises {e!r}, we returned " \
        f"{ours[1]!r}"
    assert isinstance(ours[1], type(e)), \
        f"{c.name}: eager raises {e!r}, we raise {ours[1]!r}"
    if c.match is not None:
      assert re.search(c.match, str(ours[1])), \
          f"{c.name}: {ours[1]!r} does not match {c.match!r} (eager: {e!r})"
    else:
      assert same_message(str(ours[1]), str(e)), \
          f"{c.name}: eager says {e!r}, we say {ours[1]!r}"
  else:
    assert ours[0] == "ok", f"{c.name}: eager returns, we raise {ours[1]!r}"
    _compare(ours[1], eager[1], c.values)


def f(d, *shape):
  """A float32 tensor of `shape` with distinct values, uploaded to d."""
  return (torch.arange(math.prod(shape), dtype=torch.float32) / 4 -
          1).reshape(shape).to(d)


def ints(d, values, dtype=torch.int64):
  """An integer tensor uploaded to d (the host knows its values)."""
  return torch.tensor(values, dtype=dtype).to(d)


def computed(d, values, dtype=torch.int64):
  """A tensor computed on d (the host does not know its values)."""
  base = torch.tensor(values, dtype=dtype).to(d)
  return base * 2 - base


# Shapes, dims, views and joins.

_VIEW_STRIDES = ("views.py/tensor/view_ops.h: view never checks strides (a documented difference); eager raises for a view that spans non-contiguous subspaces")

CASES = [
    # Dims out of range.
    case("sum dim 2 of 2-d", lambda d: f(d, 2, 3).sum(2)),
    case("sum dim -3 of 2-d", lambda d: f(d, 2, 3).sum(-3)),
    case("sum duplicate dims", lambda d: f(d, 2, 3).sum((0, 0))),
    case("sum dim 0 of 0-d", lambda d: f(d, 1).sum().sum(0)),
    case("sum dim 1 of 0-d", lambda d: f(d, 1).sum().sum(1)),
    case("mean dim 5", lambda d: f(d, 2, 3).mean(5)),
    case("amax duplicate dims", lambda d: f(d, 2, 3).amax((1, -1))),
    case("softmax dim 2", lambda d: f(d, 2, 3).softmax(2)),
    case("log_softmax dim -3", lambda d: f(d, 2, 3).log_softmax(-3)),
    case("cumsum dim 2", lambda d: f(d, 2, 3).cumsum(2)),
    case("cumprod dim -3", lambda d: f(d, 2, 3).cumprod(-3)),
    case("cumsum of 0-d dim 0", lambda d: f(d, 1).sum().cumsum(0)),
    case("sort dim 2", lambda d: f(d, 2, 3).sort(2)),
    case("argsort dim -3", lambda d: f(d, 2, 3).argsort(-3)),
    case("argmax dim 2", lambda d: f(d, 2, 3).argmax(2)),
    case("max dim 3", lambda d: f(d, 2, 3).max(3)),
    case("logsumexp dim 2", lambda d: f(d, 2, 3).logsumexp(2)),
    case("prod dim 2", lambda d: f(d, 2, 3).prod(2)),
    case("any dim 2", lambda d: (f(d, 2, 3) > 0).any(2)),
    case("norm dim 2", lambda d: f(d, 2, 3).norm(dim=2)),
    case("var dim 3", lambda d: f(d, 2, 3).var(3)),
    case("transpose 0 2", lambda d: f(d, 2, 3).transpose(0, 2)),
    case("squeeze dim 3", lambda d: f(d, 2, 3).squeeze(3)),
    case("unsqueeze dim 3", lambda d: f(d, 2, 3).unsqueeze(3)),
    case("unsqueeze dim -4", lambda d: f(d, 2, 3).unsqueeze(-4)),
    case("unsqueeze dim 2 ok", lambda d: f(d, 2, 3).unsqueeze(2)),
    case("flatten end 3", lambda d: f(d, 2, 3).flatten(0, 3)),
    case("flatten start > end", lambda d: f(d, 2, 3, 4).flatten(2, 1)),
    case("movedim to 3", lambda d: f(d, 2, 3).movedim(0, 3)),
    case("movedim repeated", lambda d: f(d, 2, 3, 4).movedim((0, 0),
                                                             (1, 2))),
    case("select dim 2", lambda d: f(d, 2, 3).select(2, 0)),
    case("select index 5", lambda d: f(d, 2, 3).select(1, 5)),
    case("select index -4", lambda d: f(d, 2, 3).select(1, -4)),
    case("diagonal same dims", lambda d: f(d, 3, 3).diagonal(0, 1, 1)),
    case("diagonal offset past end", lambda d: f(d, 3, 3).diagonal(5)),
    case("flip duplicate dims", lambda d: f(d, 2, 3).flip((0, 0))),
    case("flip dim 2", lambda d: f(d, 2, 3).flip(2)),
    case("roll shifts and dims differ", lambda d: f(d, 2, 3).roll(
        (1, 2), (0,))),
    case("roll dim 2", lambda d: f(d, 2, 3).roll(1, 2)),
    case("unbind dim 2", lambda d: f(d, 2, 3).unbind(2)),
    # Reshapes and views.
    case("reshape bad numel", lambda d: f(d, 2, 3).reshape(4)),
    case("reshape two -1", lambda d: f(d, 2, 3).reshape(-1, -1)),
    case("reshape -2", lambda d: f(d, 2, 3).reshape(-2, 3)),
    case("reshape empty ambiguous", lambda d: f(d, 0, 3).reshape(-1, 0)),
    case("reshape empty ok", lambda d: f(d, 0, 3).reshape(3, -1, 0)),
    case("view bad numel", lambda d: f(d, 2, 3).view(7)),
    case("view of transpose", lambda d: f(d, 2, 3).t().view(6),
         xfail=_VIEW_STRIDES),
    case("view of transpose ok", lambda d: f(d, 2, 3).t().view(3, 2)),
    case("view of slice", lambda d: f(d, 4, 3)[:, :2].view(8),
         xfail=_VIEW_STRIDES),
    case("unflatten bad sizes", lambda d: f(d, 2, 6).unflatten(1, (4, 2))),
    case("unflatten two -1", lambda d: f(d, 2, 6).unflatten(1, (-1, -1))),
    case("permute duplicate", lambda d: f(d, 2, 3).permute(0, 0)),
    case("permute too few", lambda d: f(d, 2, 3, 4).permute(1, 0)),
    case("permute out of range", lambda d: f(d, 2, 3).permute(0, 2)),
    case("repeat too few dims", lambda d: f(d, 2, 3).repeat(2)),
    case("repeat negative", lambda d: f(d, 2, 3).repeat(2, -1)),
    case("repeat zero ok", lambda d: f(d, 2, 3).repeat(0, 2)),
    case("repeat_interleave negative", lambda d: f(d, 3).repeat_interleave(
        ints(d, [1, -1, 2]))),
    case("repeat_interleave wrong length", lambda d: f(
        d, 3).repeat_interleave(ints(d, [1, 2]))),
    case("repeat_interleave scalar -1", lambda d: f(d, 3).repeat_interleave(
        -1)),
    case("tile fewer dims ok", lambda d: f(d, 2, 3).tile(2)),
    case("expand smaller", lambda d: f(d, 2, 3).expand(3, 3)),
    case("expand fewer dims", lambda d: f(d, 2, 3).expand(3)),
    case("expand -1 on new dim", lambda d: f(d, 2, 3).expand(-1, 2, 3)),
    # Eager's text is an accident ("numel: integer multiplication overflow").
    case("expand -2", lambda d: f(d, 1, 3).expand(-2, 3), match="-2"),
    case("expand_as mismatch", lambda d: f(d, 2, 3).expand_as(f(d, 3, 2))),
    case("broadcast_to bad", lambda d: f(d, 2, 3).broadcast_to((2, 4))),
    case("broadcast_tensors bad", lambda d: torch.broadcast_tensors(
        f(d, 2, 3), f(d, 4))),
    case("t of 3-d", lambda d: f(d, 2, 3, 4).t()),
    case("t_ of 3-d", lambda d: f(d, 2, 3, 4).t_()),
    case("unsqueeze_ dim 4", lambda d: f(d, 2, 3).unsqueeze_(4)),
    case("squeeze_ dim 3", lambda d: f(d, 2, 3).squeeze_(3)),
    case("transpose_ 0 3", lambda d: f(d, 2, 3).transpose_(0, 3)),
    case("as_strided past storage", lambda d: f(d, 2, 3).as_strided(
        (3, 3), (3, 1))),
    case("as_strided negative stride", lambda d: f(d, 6).as_strided(
        (2,), (-1,))),
    # Narrow, split, chunk, unfold.
    case("narrow dim 2", lambda d: f(d, 2, 3).narrow(2, 0, 1)),
    case("narrow start past end", lambda d: f(d, 2, 3).narrow(1, 4, 1)),
    case("narrow too long", lambda d: f(d, 2, 3).narrow(1, 1, 3)),
    case("narrow negative length", lambda d: f(d, 2, 3).narrow(1, 0, -1)),
    case("narrow negative start ok", lambda d: f(d, 2, 3).narrow(1, -2, 2)),
    case("split size 0", lambda d: f(d, 2, 3).split(0, 1)),
    case("split negative", lambda d: f(d, 2, 3).split(-1, 1)),
    case("split_with_sizes bad sum", lambda d: f(d, 2, 3).split([1, 1], 1)),
    case("split_with_sizes negative", lambda d: f(d, 2, 3).split([4, -1],
                                                                 1)),
    case("chunk 0", lambda d: f(d, 2, 3).chunk(0)),
    case("chunk negative", lambda d: f(d, 2, 3).chunk(-2, 1)),
    case("chunk more than size ok", lambda d: f(d, 2, 3).chunk(5, 1)),
    case("tensor_split 0 sections", lambda d: f(d, 2, 3).tensor_split(0, 1)),
    case("unfold size too big", lambda d: f(d, 3).unfold(0, 5, 1)),
    case("unfold step 0", lambda d: f(d, 3).unfold(0, 2, 0)),
    case("unfold dim 1 of 1-d", lambda d: f(d, 3).unfold(1, 2, 1)),
    case("unfold of 0-d ok", lambda d: f(d, 1).sum().unfold(0, 1, 1)),
    # Joins.
    case("cat mismatch", lambda d: torch.cat([f(d, 2, 3), f(d, 2, 4)])),
    case("cat dim 2", lambda d: torch.cat([f(d, 2, 3), f(d, 2, 3)], 2)),
    case("cat 0-d", lambda d: torch.cat([f(d, 1).sum(), f(d, 1).sum()])),
    case("cat ranks differ", lambda d: torch.cat([f(d, 2, 3), f(d, 3)])),
    case("cat legacy empty ok", lambda d: torch.cat([f(d, 0), f(d, 2, 3)])),
    case("cat int and float ok", lambda d: torch.cat(
        [ints(d, [1, 2]), f(d, 2)])),
    case("stack mismatch", lambda d: torch.stack([f(d, 2, 3), f(d, 3, 2)])),
    case("stack dim 4", lambda d: torch.stack([f(d, 2, 3), f(d, 2, 3)], 4)),
    case("hstack ranks differ", lambda d: torch.hstack([f(d, 2, 3),
                                                        f(d, 2)])),
    case("cat out= wrong dtype", lambda d: torch.cat(
        [f(d, 2), f(d, 2)], out=ints(d, [0, 0, 0, 0])), match="cast"),
    case("add out= empty resized", lambda d: torch.add(
        f(d, 2), 1, out=f(d, 0))),
    case("add out= wrong dtype", lambda d: torch.add(
        f(d, 2), 1, out=ints(d, [0, 0])), match="can't be cast"),
    case("eye ok", lambda d: torch.eye(3, 2, device=d)),
    case("eye negative", lambda d: torch.eye(-1, device=d)),
]


@pytest.mark.parametrize("c", params(CASES))
def test_shapes_dims_views(c):
  run(c)


def test_key_words_catch_a_different_message():
  """The default message check is not vacuous."""
  eager = ("Dimension out of range (expected to be in range of [-2, 1], but "
           "got 2)")
  assert same_message("sum: Dimension out of range (expected to be in range "
                      "of [-2, 1], but got 2)", eager)
  assert not same_message("unsupported op", eager)
  assert not same_message("reshape failed", "shape '[4]' is invalid for "
                          "input of size 6")


def test_raising_cases_leave_no_live_tensor():
  """A bad call that raises leaves no 'xla' tensor (no device buffer)
  behind: the cases where eager raises run once (RNG state and caches
  warm up), then again, and the live tensor count is back where it
  was."""
  import gc

  from torch_xla import _XLAC

  import test_bad_input_probe_math
  import test_bad_input_probe_misc
  import test_bad_input_probe_nn
  cases = (CASES + test_bad_input_probe_math.CASES +
           test_bad_input_probe_nn.CASES + test_bad_input_probe_misc.CASES)
  raising = [c for c in cases if c.expect or outcome(c.fn, "cpu")[0] ==
             "raise"]
  assert len(raising) > 200
  for c in raising:  # warm up (RNG state, caches)
    outcome(c.fn, torch_xla.device())
  gc.collect()
  before = _XLAC._live_tensor_count()
  for c in raising:
    outcome(c.fn, torch_xla.device())
  gc.collect()
  assert _XLAC._live_tensor_count() <= before
