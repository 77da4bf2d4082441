"""Random ops on 'xla': statistics, ranges, reproducibility under
torch.manual_seed, dropout semantics and gradients, and that the numbers
are made on the device (rng_bit_generator, seed as a parameter, no
host-to-device transfer while tracing, no recompiles for new seeds).
"""

import math
import re

import pytest
import torch
import torch.nn.functional as F

import torch_xla
import torch_xla.debug.metrics as met
from torch_xla import _XLAC
from op_test_utils import XLA, fallback_counters

N = 100_000
FLOATS = [torch.float32, torch.float64, torch.bfloat16, torch.float16]


@pytest.fixture(autouse=True)
def _no_fallback():
  torch.manual_seed(0)
  before = fallback_counters()
  yield
  assert fallback_counters() == before, "a random op fell back to CPU"


def _host(t):
  assert t.device.type == "xla"
  return t.cpu().double()


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("low,high", [(0.0, 1.0), (-3.0, 5.0)])
def test_uniform(dtype, low, high):
  x = _host(torch.empty(N, dtype=dtype, device=XLA).uniform_(low, high))
  width = high - low
  assert x.min() >= low and x.max() < high or (
      dtype in (torch.bfloat16, torch.float16) and x.max() <= high)
  assert abs(x.mean() - (low + high) / 2) < 0.01 * width
  assert abs(x.std() - width / math.sqrt(12)) < 0.01 * width
  # Every tenth of the range gets about a tenth of the samples.
  counts = torch.histc(x.float(), bins=10, min=low, max=high)
  assert (counts - N / 10).abs().max() < 0.05 * N / 10


def test_rand_is_in_unit_interval_and_uses_all_mantissa_bits():
  x = _host(torch.rand(N, device=XLA))
  assert x.min() >= 0 and x.max() < 1
  assert x.unique().numel() > 0.99 * N  # 23 random bits: few repeats


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("mean,std", [(0.0, 1.0), (2.0, 3.0)])
def test_normal(dtype, mean, std):
  x = _host(torch.empty(N + 1, dtype=dtype, device=XLA).normal_(mean, std))
  assert abs(x.mean() - mean) < 0.02 * std
  assert abs(x.std() - std) < 0.02 * std
  # Tails like a normal: about 4.55% beyond two standard deviations.
  beyond = ((x - mean).abs() > 2 * std).double().mean()
  assert abs(beyond - 0.0455) < 0.005


def test_randn_factory_and_like_ops():
  x = _host(torch.randn(400, 250, device=XLA))
  assert abs(x.mean()) < 0.02 and abs(x.std() - 1) < 0.02
  base = torch.empty(N, device=XLA)
  assert abs(_host(torch.rand_like(base)).mean() - 0.5) < 0.01
  assert abs(_host(torch.randn_like(base)).std() - 1) < 0.02
  r = _host(torch.randint_like(base, 3, 7))
  assert set(r.unique().tolist()) == {3, 4, 5, 6}


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_normal_tensor_mean_std(dtype):
  mean = torch.full((N,), 2.0, dtype=dtype, device=XLA)
  x = _host(torch.normal(mean, 0.5))
  assert abs(x.mean() - 2) < 0.01 and abs(x.std() - 0.5) < 0.01


@pytest.mark.parametrize("dtype", FLOATS)
def test_exponential(dtype):
  x = _host(torch.empty(N, dtype=dtype, device=XLA).exponential_(2.0))
  assert x.min() >= 0
  assert abs(x.mean() - 0.5) < 0.01
  assert abs(x.std() - 0.5) < 0.015


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("mean,std", [(1.0, 2.0), (0.5, 0.25)])
def test_log_normal(dtype, mean, std):
  x = torch.empty(N, dtype=dtype, device=XLA).log_normal_(mean, std)
  assert x.dtype == dtype
  x = _host(x)
  assert x.min() > 0
  # log(x) is normal(mean, std); bf16/f16 rounding moves it by < 0.002.
  logs = x.log()
  assert abs(logs.mean() - mean) < 0.02 * std
  assert abs(logs.std() - std) < 0.02 * std
  assert abs(x.median().log() - mean) < 0.02 * std


def test_log_normal_default_arguments():
  x = _host(torch.empty(N, device=XLA).log_normal_()).log()
  assert abs(x.mean() - 1) < 0.04 and abs(x.std() - 2) < 0.04


def _quantile(x, q):
  return x.sort().values[int(q * (x.numel() - 1))].item()


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("median,sigma", [(0.0, 1.0), (1.0, 2.0)])
def test_cauchy(dtype, median, sigma):
  x = torch.empty(N, dtype=dtype, device=XLA).cauchy_(median, sigma)
  assert x.dtype == dtype
  x = _host(x)
  if dtype != torch.float16:  # f16 overflows beyond 65504, as in eager
    assert torch.isfinite(x).all()
  # No mean: check the median and the quartiles (median -+ sigma).
  assert abs(_quantile(x, 0.5) - median) < 0.04 * sigma
  assert abs(_quantile(x, 0.25) - (median - sigma)) < 0.06 * sigma
  assert abs(_quantile(x, 0.75) - (median + sigma)) < 0.06 * sigma
  # Heavy tails: P(|x - median| > 10 sigma) = 2 atan(1 / 10) / pi.
  tail = ((x - median).abs() > 10 * sigma).double().mean()
  assert abs(tail - 2 * math.atan(0.1) / math.pi) < 0.005


GEOMETRIC_DTYPES = FLOATS + [torch.int64, torch.int32, torch.int16,
                             torch.int8, torch.uint8]


@pytest.mark.parametrize("dtype", GEOMETRIC_DTYPES)
@pytest.mark.parametrize("p", [0.2, 0.7])
def test_geometric(dtype, p):
  x = torch.empty(N, dtype=dtype, device=XLA).geometric_(p)
  assert x.dtype == dtype
  x = _host(x)
  assert x.min() >= 1 and (x == x.round()).all()
  assert abs(x.mean() - 1 / p) < 0.02 / p
  # P(k) = (1 - p)^(k - 1) p for the first few k.
  for k in (1, 2, 3):
    expected = (1 - p)**(k - 1) * p
    assert abs((x == k).double().mean() - expected) < 0.01


@pytest.mark.parametrize("dtype,p", [(torch.float32, 1e-300),
                                     (torch.float32, 1e-40),
                                     (torch.float64, 5e-324)])
def test_geometric_tiny_p_stays_finite(dtype, p):
  x = _host(torch.empty(1000, dtype=dtype, device=XLA).geometric_(p))
  assert torch.isfinite(x).all() and x.min() >= 1


WEIGHTS = torch.tensor([[0.1, 0.0, 0.6, 0.3], [2.0, 1.0, 1.0, 0.0]])


def _frequencies(samples, n):
  return torch.stack([(samples == i).double().mean(-1) for i in range(n)], -1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_multinomial_with_replacement(dtype):
  samples = torch.multinomial(WEIGHTS.to(dtype).to(XLA), N, True)
  assert samples.dtype == torch.int64 and samples.shape == (2, N)
  expected = WEIGHTS / WEIGHTS.sum(1, keepdim=True)
  freq = _frequencies(samples.cpu(), 4)
  torch.testing.assert_close(freq, expected.double(), atol=0.01, rtol=0)
  assert (freq[expected == 0] == 0).all()  # zero weight: never drawn


def test_multinomial_without_replacement():
  rows = WEIGHTS[:1].repeat(N, 1)
  samples = torch.multinomial(rows.to(XLA), 3).cpu()
  assert samples.shape == (N, 3)
  for row in samples[:200]:
    assert len(set(row.tolist())) == 3  # distinct categories
  assert not (samples == 1).any()  # zero weight, enough others
  # The first draw follows the weights; the second, the weights of the
  # rest: P(second = 3) = sum over first != 3 of p(first) p3 / (1 - p1st).
  p = WEIGHTS[0].double()
  torch.testing.assert_close(_frequencies(samples[:, 0], 4), p, atol=0.01,
                             rtol=0)
  second_3 = sum(p[i] * p[3] / (1 - p[i]) for i in (0, 2))
  assert abs((samples[:, 1] == 3).double().mean() - second_3) < 0.01


def test_multinomial_of_a_vector_and_reproducibility():
  probs = torch.rand(50).to(XLA)
  torch.manual_seed(3)
  a = torch.multinomial(probs, 10).cpu()
  torch.manual_seed(3)
  b = torch.multinomial(probs, 10).cpu()
  assert a.shape == (10,) and torch.equal(a, b)
  assert len(set(a.tolist())) == 10


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64,
                                   torch.bool])
@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
def test_bernoulli_float_p(dtype, p):
  x = torch.empty(N, dtype=dtype, device=XLA).bernoulli_(p)
  assert x.dtype == dtype
  values = _host(x)
  assert set(values.unique().tolist()) <= {0.0, 1.0}
  assert abs(values.mean() - p) < 0.01


def test_bernoulli_tensor_p():
  p = torch.tensor([0.0, 0.2, 0.5, 0.9, 1.0]).repeat(N // 5)
  x = _host(torch.bernoulli(p.to(XLA))).view(-1, 5)
  torch.testing.assert_close(x.mean(0), p[:5].double(), atol=0.015, rtol=0)
  y = _host(torch.zeros(N // 5, 5, device=XLA).bernoulli_(p[:5].to(XLA)))
  torch.testing.assert_close(y.mean(0), p[:5].double(), atol=0.015, rtol=0)
  z = _host(torch.bernoulli(torch.zeros(N, device=XLA), 0.25))
  assert abs(z.mean() - 0.25) < 0.01


@pytest.mark.parametrize("dtype,low,high", [
    (torch.int64, 0, 10),
    (torch.int64, -5, 5),
    (torch.int32, -(2**31), 2**31 - 1),
    (torch.int8, -128, 128),
    (torch.uint8, 0, 256),
    (torch.float32, -3, 4),
    (torch.bfloat16, 0, 5),
])
def test_randint_ranges(dtype, low, high):
  x = torch.randint(low, high, (N,), dtype=dtype, device=XLA)
  assert x.dtype == dtype
  values = x.cpu().long()
  assert values.min() >= low and values.max() <= high - 1
  if high - low <= 256:
    counts = torch.bincount(values - low, minlength=high - low)
    assert counts.numel() == high - low and (counts > 0).all()
    assert (counts.double() - N / (high - low)).abs().max() < 0.2 * N / (
        high - low)
  else:
    assert values.double().mean() / 2**31 == pytest.approx(0, abs=0.01)


def test_random_default_ranges():
  ints = torch.empty(N, dtype=torch.int64, device=XLA).random_().cpu()
  assert ints.min() >= 0 and ints.double().mean() > 2**61  # [0, 2^63 - 1]
  floats = _host(torch.empty(N, device=XLA).random_())
  assert floats.min() >= 0 and floats.max() <= 2**24
  assert (floats == floats.round()).all()
  bools = torch.empty(N, dtype=torch.bool, device=XLA).random_().cpu()
  assert 0.48 < bools.double().mean() < 0.52
  to = torch.empty(N, dtype=torch.int16, device=XLA).random_(7).cpu()
  assert set(to.unique().tolist()) == set(range(7))


@pytest.mark.parametrize("n", [0, 1, 2, 5, 64, 1000, 1025])
def test_randperm_is_a_permutation(n):
  p = torch.randperm(n, device=XLA)
  assert p.dtype == torch.int64 and p.shape == (n,)
  assert torch.equal(p.cpu().sort().values, torch.arange(n))


def test_randperm_is_uniform_and_seeded():
  # One small graph run many times (cached), not one graph of many perms.
  perms = torch.stack(
      [torch.randperm(4, device=XLA).cpu() for _ in range(400)])
  counts = torch.stack([torch.bincount(c, minlength=4) for c in perms.t()])
  assert (counts - 100).abs().max() < 40  # each value in each position
  torch.manual_seed(3)
  a = torch.randperm(50, device=XLA).cpu()
  torch.manual_seed(3)
  b = torch.randperm(50, device=XLA).cpu()
  assert torch.equal(a, b) and not torch.equal(a, torch.arange(50))


@pytest.mark.parametrize("make", [
    lambda: torch.rand(1000, device=XLA),
    lambda: torch.randn(1000, device=XLA),
    lambda: torch.randint(0, 1 << 30, (1000,), device=XLA),
    lambda: torch.empty(1000, device=XLA).exponential_(),
    lambda: torch.empty(1000, device=XLA).bernoulli_(0.5),
    lambda: F.dropout(torch.ones(1000, device=XLA), 0.5),
    lambda: torch.randperm(1000, device=XLA),
    lambda: torch.empty(1000, device=XLA).log_normal_(),
    lambda: torch.empty(1000, device=XLA).cauchy_(),
    lambda: torch.empty(1000, dtype=torch.int64, device=XLA).geometric_(0.5),
], ids=["rand", "randn", "randint", "exponential", "bernoulli", "dropout",
        "randperm", "log_normal", "cauchy", "geometric"])
def test_reproducible_under_manual_seed(make):
  torch.manual_seed(1234)
  a, b = make().cpu(), make().cpu()
  torch.manual_seed(1234)
  c, d = make().cpu(), make().cpu()
  torch.manual_seed(4321)
  e = make().cpu()
  assert torch.equal(a, c) and torch.equal(b, d)
  assert not torch.equal(a, b)  # consecutive calls differ
  assert not torch.equal(a, e)  # another seed differs


def test_generator_argument():
  g = torch.Generator().manual_seed(7)
  a = torch.rand(100, device=XLA, generator=g).cpu()
  g.manual_seed(7)
  b = torch.empty(100, device=XLA).uniform_(generator=g).cpu()
  assert torch.equal(a, b)


@pytest.mark.parametrize("fill", [
    lambda x, g: x.log_normal_(generator=g),
    lambda x, g: x.cauchy_(generator=g),
    lambda x, g: x.geometric_(0.3, generator=g),
], ids=["log_normal", "cauchy", "geometric"])
def test_generator_argument_of_distributions(fill):
  g = torch.Generator().manual_seed(7)
  a = fill(torch.empty(100, device=XLA), g).cpu()
  g.manual_seed(7)
  b = fill(torch.empty(100, device=XLA), g).cpu()
  assert torch.equal(a, b)


@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_dropout_scaling_mask_and_grad(p):
  x = (torch.rand(200, 500) + 0.5).to(XLA).requires_grad_()
  y = F.dropout(x, p, training=True)
  kept = y.detach().cpu() != 0
  assert abs(1 - kept.double().mean() - p) < 0.01
  torch.testing.assert_close(y.detach().cpu()[kept],
                             x.detach().cpu()[kept] / (1 - p))
  (grad,) = torch.autograd.grad((y * 3).sum(), x)
  expected = kept.float() * 3 / (1 - p)
  torch.testing.assert_close(grad.cpu(), expected)


def test_dropout_edge_cases():
  x = torch.randn(1000).to(XLA)
  torch.testing.assert_close(F.dropout(x, 0.0).cpu(), x.cpu())
  assert not F.dropout(x, 1.0).cpu().any()
  torch.testing.assert_close(F.dropout(x, 0.5, training=False).cpu(), x.cpu())
  module = torch.nn.Dropout(0.5).eval()
  torch.testing.assert_close(module(x).cpu(), x.cpu())


@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
def test_native_dropout_and_backward(p):
  x = torch.randn(N).to(XLA)
  out, mask = torch.ops.aten.native_dropout(x, p, True)
  assert mask.dtype == torch.bool
  m = mask.cpu()
  assert abs(1 - m.double().mean() - p) < 0.01
  scale = 0.0 if p == 1 else 1 / (1 - p)
  torch.testing.assert_close(out.cpu(), x.cpu() * m * scale)
  g = torch.randn(N)
  back = torch.ops.aten.native_dropout_backward(g.to(XLA), mask, scale)
  torch.testing.assert_close(back.cpu(), g * m * scale)
  same, ones = torch.ops.aten.native_dropout(x, p, False)
  assert torch.equal(same.cpu(), x.cpu()) and ones.cpu().all()


def test_values_are_made_on_the_device():
  x = torch.rand(8, device=XLA)
  hlo = _XLAC._get_stablehlo([x._xt]).decode()
  assert "stablehlo.rng_bit_generator" in hlo
  assert "rng_algorithm THREE_FRY" in hlo
  # The seed is the one parameter: a u64 scalar (in the graph's packed u64
  # scalars), not a baked constant.
  assert re.search(r"func.func public @main\(%arg0: tensor<1xui64>\)", hlo), hlo


def test_no_transfer_while_tracing_and_no_recompile_for_new_seeds():
  x = torch.randn(64, 64).to(XLA)
  torch_xla.sync()

  def transfers():
    data = met.metric_data("TransferToDeviceTime")
    return 0 if data is None else data[0]

  outputs = []
  compiles = []
  for _ in range(3):
    before_transfers = transfers()
    before_compiles = met.counter_value("UncachedCompile") or 0
    y = (F.dropout(x, 0.3) + torch.rand(64, 64, device=XLA) +
         torch.randn(64, 64, device=XLA) +
         torch.empty(64, 64, device=XLA).bernoulli_(0.4) +
         torch.randint(0, 5, (64, 64), device=XLA) +
         torch.empty(64, 64, device=XLA).exponential_(3.0))
    assert transfers() == before_transfers, "tracing transferred data"
    torch_xla.sync()
    compiles.append((met.counter_value("UncachedCompile") or 0) -
                    before_compiles)
    outputs.append(y.cpu())
  assert compiles[1:] == [0, 0], compiles
  assert not torch.equal(outputs[0], outputs[1])


def test_new_bounds_do_not_recompile():
  compiles = []
  for low, high, p in [(0, 5, 0.1), (3, 9, 0.7), (-2, 100, 0.4)]:
    before = met.counter_value("UncachedCompile") or 0
    a = torch.randint(low, high, (10,), device=XLA)
    b = torch.empty(10, device=XLA).uniform_(low, high)
    c = torch.empty(10, device=XLA).bernoulli_(p)
    torch_xla.sync()
    compiles.append((met.counter_value("UncachedCompile") or 0) - before)
    assert a.cpu().min() >= low and a.cpu().max() < high
    assert b.cpu().min() >= low and b.cpu().max() < high
    c.cpu()
  assert compiles[1:] == [0, 0], compiles


def test_new_distribution_parameters_do_not_recompile():
  # Values differ within a step: equal numbers share one parameter (the
  # scalar cache), which would change the graph.
  compiles = []
  for mean, std, median, sigma, p in [(1.0, 2.0, 0.0, 3.0, 0.5),
                                      (-0.5, 0.3, 4.0, 0.1, 0.05),
                                      (0.25, 1.5, -2.0, 7.0, 0.9)]:
    before = met.counter_value("UncachedCompile") or 0
    a = torch.empty(10, device=XLA).log_normal_(mean, std)
    b = torch.empty(10, device=XLA).cauchy_(median, sigma)
    c = torch.empty(10, device=XLA).geometric_(p)
    d = torch.empty(10, dtype=torch.int32, device=XLA).geometric_(p)
    torch_xla.sync()
    compiles.append((met.counter_value("UncachedCompile") or 0) - before)
    assert a.cpu().min() > 0 and torch.isfinite(b.cpu()).all()
    assert c.cpu().min() >= 1 and d.cpu().min() >= 1
  assert compiles[1:] == [0, 0], compiles


@pytest.mark.parametrize("fill,user_values", [
    (lambda x: x.log_normal_(0.5, 3.0), 2),
    (lambda x: x.cauchy_(0.5, 3.0), 2),
    (lambda x: x.geometric_(0.25), 1),
    (lambda x: x.to(torch.int8).geometric_(0.25), 1),
], ids=["log_normal", "cauchy", "geometric", "geometric_int8"])
def test_distribution_values_are_parameters(fill, user_values):
  y = fill(torch.empty(8, device=XLA))
  hlo = _XLAC._get_stablehlo([y._xt]).decode()
  assert "stablehlo.rng_bit_generator" in hlo
  # The user values as f32 scalars (not baked constants), then the seed: the
  # graph's scalars travel packed, one vector per dtype.
  assert re.search(
      r"func.func public @main\(%arg0: tensor<" + str(user_values) +
      r"xf32>, %arg1: tensor<1xui64>\)", hlo), hlo


@pytest.mark.parametrize("fill", [
    lambda x: x.log_normal_(),
    lambda x: x.cauchy_(),
    lambda x: x.geometric_(0.5),
    lambda x: x.long().log_normal_(),  # eager skips the dtype check here
    lambda x: x.bool().geometric_(0.5),
], ids=["log_normal", "cauchy", "geometric", "log_normal_long",
        "geometric_bool"])
def test_distributions_on_empty_tensors(fill):
  for shape in [(0,), (3, 0)]:
    expected = fill(torch.empty(shape))
    y = fill(torch.empty(shape, device=XLA))
    assert y.shape == expected.shape and y.dtype == expected.dtype
    assert y.cpu().numel() == 0


@pytest.mark.parametrize("fn,error,message", [
    (lambda x: x.uniform_(2, 1), RuntimeError,
     "uniform_ expects to return a [from, to) range, but found from=2 > to=1"),
    (lambda x: x.normal_(0, -1), RuntimeError,
     "normal expects std >= 0.0, but found std -1"),
    (lambda x: x.random_(5, 5), RuntimeError,
     "random_ expects 'from' to be less than 'to', but got from=5 >= to=5"),
    (lambda x: x.bernoulli_(1.5), RuntimeError,
     "bernoulli_ expects p to be in [0, 1], but got p=1.5"),
    (lambda x: x.exponential_(0), RuntimeError,
     "exponential_ expects lambda > 0.0, but found lambda=0"),
    (lambda x: x.long().uniform_(), NotImplementedError,
     "\"check_uniform_bounds\" not implemented for 'Long'"),
    (lambda x: x.to(torch.int8).random_(0, 1000), RuntimeError,
     "to - 1 is out of bounds for signed char"),
    (lambda x: x.log_normal_(std=-1), RuntimeError,
     "log_normal_ expects std > 0.0, but found std=-1"),
    (lambda x: x.log_normal_(1.0, 0.0), RuntimeError,
     "log_normal_ expects std > 0.0, but found std=0"),
    (lambda x: x.log_normal_(0, -1234567.5), RuntimeError,
     "log_normal_ expects std > 0.0, but found std=-1.23457e+06"),
    (lambda x: x.long().log_normal_(), NotImplementedError,
     "\"log_normal_cpu\" not implemented for 'Long'"),
    (lambda x: x.long().log_normal_(std=-1), RuntimeError,
     "log_normal_ expects std > 0.0, but found std=-1"),
    (lambda x: x.cauchy_(sigma=0), RuntimeError,
     "cauchy_ expects sigma > 0.0, but found sigma=0"),
    (lambda x: x.cauchy_(1.0, -0.5), RuntimeError,
     "cauchy_ expects sigma > 0.0, but found sigma=-0.5"),
    (lambda x: x.long().cauchy_(), RuntimeError,
     "Cauchy distribution is a continuous probability distribution. dtype "
     "must be a floating point but you specified long int"),
    (lambda x: x.to(torch.uint8)[:0].cauchy_(), RuntimeError,
     "dtype must be a floating point but you specified unsigned char"),
    (lambda x: x.geometric_(p=0), RuntimeError,
     "geometric_ expects p to be in (0, 1), but got p=0"),
    (lambda x: x.geometric_(1.5), RuntimeError,
     "geometric_ expects p to be in (0, 1), but got p=1.5"),
    (lambda x: x.geometric_(1), RuntimeError,
     "geometric_ expects p to be in (0, 1), but got p=1"),
    (lambda x: x.geometric_(float("nan")), RuntimeError,
     "geometric_ expects p to be in (0, 1), but got p=nan"),
    (lambda x: x.bool().geometric_(0.5), NotImplementedError,
     "\"geometric_cpu\" not implemented for 'Bool'"),
    (lambda x: x.to(torch.uint32).geometric_(0.5), NotImplementedError,
     "\"geometric_cpu\" not implemented for 'UInt32'"),
    (lambda x: torch.multinomial(x.abs(), 0), RuntimeError,
     "cannot sample n_sample <= 0 samples"),
    (lambda x: torch.multinomial(x.abs()[:3], 4), RuntimeError,
     "cannot sample n_sample > prob_dist.size(-1) samples without "
     "replacement"),
    (lambda x: torch.multinomial(x.abs().expand(2, 2, 3), 1), RuntimeError,
     "prob_dist must be 1 or 2 dim"),
    (lambda x: torch.multinomial(x.long(), 1), RuntimeError,
     "multinomial only supports floating-point dtypes for input, got: Long"),
])
def test_errors_match_eager(fn, error, message):
  with pytest.raises(error, match=re.escape(message)):
    fn(torch.zeros(3))
  with pytest.raises(error, match=re.escape(message)):
    fn(torch.zeros(3, device=XLA))
