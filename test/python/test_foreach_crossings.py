"""Each `_foreach_*` list op crosses into C++ once per list, and so do
normal(mean, std) with tensors, max_unpool2d/3d and grid_sampler_2d (each
way) (issue 28 §1).

torch.optim's foreach=True steps call a list op per update term over every
parameter; its rule (torch_xla/_ops/optim_ops.py) picks each element's
dtype and makes ONE `_XLAC` call (csrc/python/foreach_bindings.cc) that
builds every element with the single-tensor op's builder. These tests count
the `_XLAC` calls while an op is traced (crossing_counter.py; list ops for
lists of 1, 3 and 75 tensors), check values against eager on lists that mix
shapes and dtypes (test/python/ops/test_optim_ops.py covers the common
cases and whole optimizer steps), count an optimizer step over 75
parameters, and check the other ops' values, gradients and errors against
eager.
"""

import pytest
import torch

import torch_xla
from crossing_counter import crossings

DEV = torch_xla.device()

# (id, list op on (a, b, c, s) lists, the binding its one call is).
LIST_OPS = [
    ("add_list", lambda a, b, c, s: torch._foreach_add(a, b),
     "_foreach_arithmetic"),
    ("add_list_alpha_", lambda a, b, c, s: torch._foreach_add_(a, b, alpha=.5),
     "_foreach_arithmetic"),
    ("sub_scalar", lambda a, b, c, s: torch._foreach_sub(a, 2),
     "_foreach_arithmetic"),
    ("mul_scalar_", lambda a, b, c, s: torch._foreach_mul_(a, 0.9),
     "_foreach_arithmetic"),
    ("mul_tensor", lambda a, b, c, s: torch._foreach_mul(a, s),
     "_foreach_arithmetic"),
    ("div_scalarlist_", lambda a, b, c, s: torch._foreach_div_(
        a, [1.0 + i for i in range(len(a))]), "_foreach_arithmetic"),
    ("maximum_list", lambda a, b, c, s: torch._foreach_maximum(a, b),
     "_foreach_binary"),
    ("minimum_scalar_", lambda a, b, c, s: torch._foreach_minimum_(a, 0.1),
     "_foreach_clamp"),
    ("clamp_min_list", lambda a, b, c, s: torch._foreach_clamp_min(a, b),
     "_foreach_clamp"),
    ("pow_list", lambda a, b, c, s: torch._foreach_pow(c, b),
     "_foreach_binary"),
    ("sqrt", lambda a, b, c, s: torch._foreach_sqrt(c), "_foreach_unary"),
    ("exp_", lambda a, b, c, s: torch._foreach_exp_(a), "_foreach_unary"),
    ("neg", lambda a, b, c, s: torch._foreach_neg(a), "_foreach_unary"),
    ("floor_", lambda a, b, c, s: torch._foreach_floor_(a), "_foreach_unary"),
    ("cosh", lambda a, b, c, s: torch._foreach_cosh(a), "_foreach_unary"),
    ("atan", lambda a, b, c, s: torch._foreach_atan(a), "_foreach_float_math"),
    ("log2_", lambda a, b, c, s: torch._foreach_log2_(c),
     "_foreach_float_math"),
    ("log10", lambda a, b, c, s: torch._foreach_log10(c),
     "_foreach_float_math"),
    ("trunc_", lambda a, b, c, s: torch._foreach_trunc_(a),
     "_foreach_float_math"),
    ("reciprocal", lambda a, b, c, s: torch._foreach_reciprocal(c),
     "_foreach_reciprocal"),
    ("reciprocal_", lambda a, b, c, s: torch._foreach_reciprocal_(c),
     "_foreach_reciprocal"),
    ("addcmul_", lambda a, b, c, s: torch._foreach_addcmul_(a, b, c, value=.1),
     "_foreach_addc"),
    ("addcdiv_scalarlist", lambda a, b, c, s: torch._foreach_addcdiv(
        a, b, c, [0.5] * len(a)), "_foreach_addc"),
    ("lerp_scalar_", lambda a, b, c, s: torch._foreach_lerp_(a, b, 0.1),
     "_foreach_lerp"),
    ("lerp_list", lambda a, b, c, s: torch._foreach_lerp(a, b, c),
     "_foreach_lerp"),
]


def _lists(n, device=DEV):
  torch.manual_seed(n)
  shapes = [(3, 4), (5,), (2, 1, 3)]
  make = lambda: [torch.randn(*shapes[i % 3]) for i in range(n)]
  a, b = make(), make()
  c = [t.abs() + 0.5 for t in make()]
  return ([t.to(device) for t in a], [t.to(device) for t in b],
          [t.to(device) for t in c], torch.tensor(1.5).to(device))


@pytest.mark.parametrize("n", [1, 3, 75])
@pytest.mark.parametrize("name,fn,binding", LIST_OPS,
                         ids=[o[0] for o in LIST_OPS])
def test_list_op_is_one_call(name, fn, binding, n):
  lists = _lists(n)
  _, names = crossings(lambda: fn(*lists))
  assert names == [binding], (name, n, names)


def _to_cpu(x):
  if isinstance(x, (list, tuple)):
    return [_to_cpu(t) for t in x]
  return x.cpu() if isinstance(x, torch.Tensor) else x


@pytest.mark.parametrize("name,fn,binding", LIST_OPS,
                         ids=[o[0] for o in LIST_OPS])
def test_list_op_values_match_eager(name, fn, binding):
  cpu = _lists(5, "cpu")
  xla = [[t.to(DEV) for t in l] for l in cpu[:3]] + [cpu[3].to(DEV)]
  want, got = fn(*cpu), fn(*xla)
  if got is None:  # in place: the first list is the result
    want, got = cpu[0], xla[0]
  for w, g in zip(want, _to_cpu(got)):
    assert g.dtype == w.dtype and g.shape == w.shape
    torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)


def _mixed(device):
  """Lists of different dtypes per element, as eager allows."""
  torch.manual_seed(7)
  a = [torch.randn(3, 2), torch.randint(-5, 5, (4,)),
       torch.randn(2, 2).to(torch.bfloat16), torch.randint(-3, 3, (3,),
                                                          dtype=torch.int32)]
  b = [torch.randint(1, 4, (3, 2)), torch.randn(4), torch.randn(2, 2),
       torch.randint(1, 3, (3,), dtype=torch.int32)]
  return [t.to(device) for t in a], [t.to(device) for t in b]


MIXED = [
    ("add_alpha", lambda a, b: torch._foreach_add(a, b, alpha=2)),
    ("sub_int_scalar", lambda a, b: torch._foreach_sub(a, 3)),
    ("mul_float_scalar", lambda a, b: torch._foreach_mul(a, 1.5)),
    ("div_list", lambda a, b: torch._foreach_div(a, b)),
    ("mul_scalarlist", lambda a, b: torch._foreach_mul(a, [2, 0.5, 3, -1])),
    ("maximum", lambda a, b: torch._foreach_maximum(a, b)),
    ("clamp_max_scalar", lambda a, b: torch._foreach_clamp_max(a, 1)),
    ("sqrt_ints", lambda a, b: torch._foreach_sqrt([t.abs() for t in a])),
    ("abs", lambda a, b: torch._foreach_abs(a)),
    ("floor", lambda a, b: torch._foreach_floor(a)),
    ("atan_ints", lambda a, b: torch._foreach_atan(a)),
    ("log10_ints", lambda a, b: torch._foreach_log10([t.abs() + 1 for t in a])),
    ("trunc", lambda a, b: torch._foreach_trunc(a)),
    ("reciprocal_ints", lambda a, b: torch._foreach_reciprocal(
        [t.abs() + 1 for t in a])),
    ("sign", lambda a, b: torch._foreach_sign(a)),
    ("addcmul", lambda a, b: torch._foreach_addcmul(a, b, b, value=2)),
]


@pytest.mark.parametrize("name,fn", MIXED, ids=[m[0] for m in MIXED])
def test_mixed_dtypes_match_eager(name, fn):
  want = fn(*_mixed("cpu"))
  got = _to_cpu(fn(*_mixed(DEV)))
  for w, g in zip(want, got):
    assert g.dtype == w.dtype and g.shape == w.shape, (name, w.dtype, g.dtype)
    tol = 2e-2 if w.dtype == torch.bfloat16 else 1e-5
    torch.testing.assert_close(g, w, rtol=tol, atol=tol)


def test_inplace_errors_match_eager():
  """An in-place list op whose result an element cannot hold raises eager's
  error, naming the op."""
  for device in ("cpu", DEV):
    ints = [torch.arange(3).to(device)]
    with pytest.raises(RuntimeError, match="can't be cast"):
      torch._foreach_mul_(ints, 1.5)
    floats = [torch.randn(3).to(device)]
    with pytest.raises(RuntimeError, match="doesn't match the broadcast"):
      torch._foreach_add_(floats, [torch.randn(2, 3).to(device)])
    with pytest.raises(RuntimeError, match="same number"):
      torch._foreach_add(floats, [])


@pytest.mark.parametrize("make,calls", [
    (lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, foreach=True), 3),
    (lambda p: torch.optim.Adam(p, lr=0.01, foreach=True), 7),
    (lambda p: torch.optim.AdamW(p, lr=0.01, weight_decay=0.1,
                                 foreach=True), 8),
], ids=["sgd_momentum", "adam", "adamw"])
def test_optimizer_step_calls_and_values(make, calls):
  """A foreach step over 75 parameters is a few calls (one per list op, not
  per parameter), and 3 steps match eager's."""
  torch.manual_seed(0)
  cpu = [torch.nn.Parameter(torch.randn(2 + i % 3, 3)) for i in range(75)]
  xla = [torch.nn.Parameter(p.detach().to(DEV)) for p in cpu]
  opts = [make(cpu), make(xla)]
  for step in range(3):
    grads = [torch.randn_like(p) for p in cpu]
    for p, g in zip(cpu, grads):
      p.grad = g
    for p, g in zip(xla, grads):
      p.grad = g.to(DEV)
    opts[0].step()
    if step == 1:
      _, names = crossings(opts[1].step, warm=False)
      assert len(names) == calls, names
      assert all(n.startswith("_foreach_") for n in names), names
    else:
      opts[1].step()
  for c, x in zip(cpu, xla):
    torch.testing.assert_close(x.detach().cpu(), c.detach(), rtol=1e-5,
                               atol=1e-5)


# normal(mean, std) with tensors --------------------------------------------

NORMAL = [
    ("tensor_tensor", lambda m, s: torch.normal(m, s)),
    ("tensor_float", lambda m, s: torch.normal(m, 0.5)),
    ("float_tensor", lambda m, s: torch.normal(0.25, s)),
]


def _mean_std(device, dtype=torch.float32):
  torch.manual_seed(3)
  return (torch.randn(4, 3).to(device, dtype),
          (torch.rand(4, 3) * 2).to(device, dtype))


@pytest.mark.parametrize("name,fn", NORMAL, ids=[c[0] for c in NORMAL])
def test_normal_is_one_call(name, fn):
  m, s = _mean_std(DEV)
  _, names = crossings(lambda: fn(m, s))
  assert names == ["_normal"], names


@pytest.mark.parametrize("name,fn", NORMAL, ids=[c[0] for c in NORMAL])
def test_normal_is_mean_plus_std_times_a_normal_draw(name, fn):
  """The same seed draws the same standard normal z as normal_; the
  result is mean + std * z elementwise."""
  m, s = _mean_std(DEV)
  torch.manual_seed(11)
  got = fn(m, s).cpu()
  torch.manual_seed(11)
  z = torch.empty(4, 3, device=DEV).normal_().cpu()
  mean = m.cpu() if name != "float_tensor" else 0.25
  std = s.cpu() if name != "tensor_float" else 0.5
  torch.testing.assert_close(got, mean + std * z)


@pytest.mark.parametrize("mean,std", [
    (torch.bfloat16, torch.float32), (torch.float32, torch.bfloat16),
    (torch.float64, torch.float32), (torch.float32, torch.int64),
    (torch.int64, torch.float32), (None, torch.int64), (torch.int64, None),
    (None, torch.bfloat16),
], ids=str)
def test_normal_dtypes_shapes_and_errors_match_eager(mean, std):
  def run(device):
    m = 0.5 if mean is None else torch.zeros(2, 1, dtype=mean).to(device)
    s = 2.0 if std is None else torch.ones(3, dtype=std).to(device)
    try:
      r = torch.normal(m, s)
      return r.dtype, r.shape
    except (RuntimeError, NotImplementedError) as e:
      return type(e), str(e)

  assert run(DEV) == run("cpu")


def test_normal_std_checks_match_eager():
  with pytest.raises(RuntimeError, match="found std -2"):
    torch.normal(torch.zeros(3, device=DEV), -2.0)
  with pytest.raises(RuntimeError, match="must match the size"):
    torch.normal(torch.zeros(2, device=DEV), torch.ones(3, device=DEV))
  out = torch.normal(torch.zeros(2, device=DEV), -torch.ones(2, device=DEV))
  with pytest.raises(RuntimeError, match="all elements of std >= 0.0"):
    out.cpu()


# max_unpool2d / 3d -----------------------------------------------------------

F = torch.nn.functional


def _pooled(nsp, device, dtype=torch.float32, requires_grad=False):
  torch.manual_seed(nsp)
  x = torch.randn((2, 3) + (4,) * nsp).to(dtype)
  pool = F.max_pool2d if nsp == 2 else F.max_pool3d
  out, idx = pool(x, 2, return_indices=True)
  out = out.to(device).detach().requires_grad_(requires_grad)
  return out, idx.to(device)


def _unpool(nsp, out, idx):
  if nsp == 2:
    return F.max_unpool2d(out, idx, 2, output_size=(5, 4))
  return F.max_unpool3d(out, idx, 2, output_size=(4, 5, 4))


@pytest.mark.parametrize("nsp", [2, 3])
def test_max_unpool_is_one_call(nsp):
  out, idx = _pooled(nsp, DEV)
  op = (torch.ops.aten.max_unpool2d if nsp == 2 else
        lambda *a: torch.ops.aten.max_unpool3d(*a, [2] * 3, [0] * 3))
  size = [5, 4] if nsp == 2 else [4, 5, 4]
  _, names = crossings(lambda: op(out, idx, size))
  assert names == ["_max_unpool"], names


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("nsp", [2, 3])
def test_max_unpool_values_and_gradients_match_eager(nsp, dtype):
  results = []
  for device in ("cpu", DEV):
    out, idx = _pooled(nsp, device, dtype, requires_grad=True)
    y = _unpool(nsp, out, idx)
    g = torch.randn(y.shape, generator=torch.Generator().manual_seed(1)).to(
        device, dtype)
    y.backward(g)
    results.append((y.detach().cpu(), out.grad.cpu()))
  for want, got in zip(*results):
    assert got.dtype == want.dtype
    torch.testing.assert_close(got, want)


def _unpool_case(device, case):
  x = torch.randn(1, 2, 2, 2).to(device)
  i = torch.zeros(1, 2, 2, 2, dtype=torch.long).to(device)
  u2, u3 = torch.ops.aten.max_unpool2d, torch.ops.aten.max_unpool3d
  return {
      "unbatched": lambda: u2(x[0], i[0], [4, 4]).shape,
      "int32 indices": lambda: u2(x, i.int(), [4, 4]),
      "three sizes": lambda: u2(x, i, [4, 4, 4]),
      "2d input": lambda: u2(x[0, 0], i[0, 0], [4, 4]),
      "shape mismatch": lambda: u2(x, i[..., :1], [4, 4]),
      "empty channels": lambda: u2(x[:, :0], i[:, :0], [4, 4]),
      "empty batch": lambda: u2(x[:0], i[:0], [4, 4]).shape,
      "negative size": lambda: u2(x, i, [-1, 4]),
      "long input": lambda: u2(x.long(), i, [4, 4]),
      "3d": lambda: u3(x[None], i[None], [2, 4, 4], [1] * 3, [0] * 3).shape,
      "3d zero stride": lambda: u3(x[None], i[None], [2, 4, 4], [0, 1, 1],
                                   [0] * 3),
      "3d two strides": lambda: u3(x[None], i[None], [2, 4, 4], [1, 1],
                                   [0] * 3),
      "3d 3d input": lambda: u3(x, i, [2, 4, 4], [1] * 3, [0] * 3).shape,
  }[case]


@pytest.mark.parametrize("case", [
    "unbatched", "int32 indices", "three sizes", "2d input", "shape mismatch",
    "empty channels", "empty batch", "negative size", "long input", "3d",
    "3d zero stride", "3d two strides", "3d 3d input"
])
def test_max_unpool_checks_match_eager(case):
  def run(device):
    try:
      return _unpool_case(device, case)()
    except (RuntimeError, NotImplementedError) as e:
      return type(e), str(e)

  assert run(DEV) == run("cpu")


def test_max_unpool_index_outside_the_plane_raises_on_read():
  x = torch.randn(1, 1, 2, 2, device=DEV)
  i = torch.tensor([[[[0, 1], [2, 16]]]], device=DEV)
  y = F.max_unpool2d(x, i, 2)
  with pytest.raises(RuntimeError, match="Found an invalid max index"):
    y.cpu()


# grid_sampler_2d and its backward --------------------------------------------


def _grid_inputs(device, dtype=torch.float32):
  torch.manual_seed(5)
  x = torch.randn(2, 3, 4, 5, dtype=dtype)
  # Past [-1, 1], so that padding matters, and exact borders.
  g = torch.rand(2, 3, 2, 2, dtype=dtype) * 2.6 - 1.3
  g[0, 0, 0] = torch.tensor([1.0, -1.0], dtype=dtype)
  return x.to(device), g.to(device)


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_grid_sampler_is_one_call_each_way(mode):
  x, g = _grid_inputs(DEV)
  out = torch.ops.aten.grid_sampler_2d(x, g, mode, 1, False)
  go = torch.randn_like(out)
  _, names = crossings(lambda: torch.ops.aten.grid_sampler_2d(
      x, g, mode, 1, False))
  assert names == ["_grid_sampler_2d"], names
  _, names = crossings(lambda: torch.ops.aten.grid_sampler_2d_backward(
      go, x, g, mode, 1, False, [True, True]))
  assert names == ["_grid_sampler_2d_backward"], names


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("padding", [0, 1, 2])
@pytest.mark.parametrize("mode", [0, 1, 2])
def test_grid_sampler_values_and_gradients_match_eager(mode, padding, align):
  results = []
  for device in ("cpu", DEV):
    x, g = _grid_inputs(device, torch.float64)
    out = torch.ops.aten.grid_sampler_2d(x, g, mode, padding, align)
    go = torch.linspace(-1, 1, out.numel(), dtype=torch.float64).reshape(
        out.shape).to(device)
    gi, gg = torch.ops.aten.grid_sampler_2d_backward(go, x, g, mode, padding,
                                                     align, [True, True])
    if device != "cpu":
      torch_xla.sync()  # one program for the three results
    results.append([t.cpu() for t in (out, gi, gg)])
  for want, got in zip(*results):
    torch.testing.assert_close(got, want)


def test_grid_sampler_checks_match_eager():
  def run(device, make):
    try:
      return make(device).shape
    except (RuntimeError, NotImplementedError) as e:
      return type(e), str(e)

  x, g = _grid_inputs("cpu")
  for make in (
      lambda d: torch.ops.aten.grid_sampler_2d(x.to(d).long(), g.to(d).long(),
                                               0, 0, False),
      lambda d: torch.ops.aten.grid_sampler_2d(x.to(d), g.to(d).double(), 0,
                                               0, False),
      lambda d: torch.ops.aten.grid_sampler_2d(x[:, :, :0].to(d), g.to(d), 0,
                                               0, False),
      lambda d: torch.ops.aten.grid_sampler_2d(x.to(d), g[..., :1].to(d), 0,
                                               0, False),
  ):
    assert run(DEV, make) == run("cpu", make)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_reciprocal_in_place_is_one_call(dtype):
  cpu = (torch.rand(3, 4) + 0.5).to(dtype)
  x = cpu.to(DEV)
  _, names = crossings(lambda: x.clone().reciprocal_())
  assert names == ["_reciprocal"], names
  x.reciprocal_()
  torch.testing.assert_close(x.cpu(), cpu.reciprocal_())


def test_reciprocal_in_place_of_integers_is_eagers_error():
  with pytest.raises(RuntimeError) as want:
    torch.arange(1, 4).reciprocal_()
  with pytest.raises(RuntimeError) as got:
    torch.arange(1, 4).to(DEV).reciprocal_()
  assert str(got.value) == str(want.value)
