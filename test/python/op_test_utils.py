"""Compare an op on 'xla' with eager CPU PyTorch: values and gradients.

  check_op(lambda x, w: torch.nn.functional.linear(x, w),
           torch.randn(4, 3), torch.randn(5, 3))

runs the function on CPU inputs and on copies moved to 'xla', compares the
outputs (and, for float inputs that require grad, the gradients of the sum of
the outputs times a fixed random weighting), and asserts that nothing fell
back to CPU (no `aten::` counter moved).
"""

import pytest
import torch
from torch.utils._pytree import tree_flatten, tree_map

import torch_xla
import torch_xla.debug.metrics as met

XLA = torch.device("xla", 0)

# Per-dtype tolerances (atol, rtol).
TOLERANCES = {
    torch.float32: (1e-5, 1.3e-5),
    torch.float64: (1e-10, 1e-10),
    torch.bfloat16: (1e-2, 1.6e-2),
    torch.float16: (1e-3, 1e-3),
}


def fallback_counters():
  return {
      name: met.counter_value(name)
      for name in met.counter_names()
      if name.startswith("aten::")
  }


def to_xla(x):
  if isinstance(x, torch.Tensor):
    y = x.detach().to(XLA)
    if x.requires_grad:
      y.requires_grad_(True)
    return y
  return x


def to_cpu(x):
  if isinstance(x, torch.Tensor) and x.device.type == "xla":
    return x.detach().cpu()
  return x


def check_op(fn, *inputs, grad=True, atol=None, rtol=None,
             allow_fallback=False, **kwargs):
  """Runs fn(*inputs, **kwargs) on cpu and xla and compares everything.

  Float tensor inputs get requires_grad when `grad` is true; pass tensors
  that already require grad to choose which ones.
  """
  explicit = any(isinstance(x, torch.Tensor) and x.requires_grad
                 for x in tree_flatten(inputs)[0])
  if grad and not explicit:
    inputs = tree_map(
        lambda x: x.detach().requires_grad_(True)
        if isinstance(x, torch.Tensor) and x.is_floating_point() else x,
        inputs)
  xla_inputs = tree_map(to_xla, inputs)

  before = fallback_counters()
  expected = fn(*inputs, **kwargs)
  actual = fn(*xla_inputs, **kwargs)

  exp_flat = [x for x in tree_flatten(expected)[0]]
  act_flat = [x for x in tree_flatten(actual)[0]]
  assert len(exp_flat) == len(act_flat)
  for e, a in zip(exp_flat, act_flat):
    if isinstance(e, torch.Tensor):
      assert a.device.type == "xla", f"result on {a.device}, expected xla"
      _assert_close(a.detach().cpu(), e.detach(), atol, rtol)
    else:
      assert a == e or (isinstance(e, float) and abs(a - e) <= 1e-5)

  diff_outputs = [
      (e, a) for e, a in zip(exp_flat, act_flat)
      if isinstance(e, torch.Tensor) and e.requires_grad
  ]
  grad_inputs = [(c, x) for c, x in zip(
      tree_flatten(inputs)[0], tree_flatten(xla_inputs)[0])
                 if isinstance(c, torch.Tensor) and c.requires_grad]
  if grad and diff_outputs and grad_inputs:
    weights = [torch.randn(e.shape, dtype=e.dtype) for e, _ in diff_outputs]
    loss_cpu = sum((e * w).sum() for (e, _), w in zip(diff_outputs, weights))
    loss_xla = sum((a * w.to(XLA)).sum()
                   for (_, a), w in zip(diff_outputs, weights))
    grads_cpu = torch.autograd.grad(
        loss_cpu, [c for c, _ in grad_inputs], allow_unused=True)
    grads_xla = torch.autograd.grad(
        loss_xla, [x for _, x in grad_inputs], allow_unused=True)
    for gc, gx in zip(grads_cpu, grads_xla):
      if gc is None:
        assert gx is None or not gx.cpu().any()
        continue
      _assert_close(gx.cpu(), gc, atol, rtol)

  if not allow_fallback:
    after = fallback_counters()
    assert after == before, f"fell back to CPU: {after} (before {before})"
  return actual


def _assert_close(actual, expected, atol, rtol):
  default_atol, default_rtol = TOLERANCES.get(expected.dtype, (0, 0))
  torch.testing.assert_close(
      actual,
      expected,
      atol=default_atol if atol is None else atol,
      rtol=default_rtol if rtol is None else rtol,
      equal_nan=True)


def random_tensor(shape, dtype=torch.float32):
  """Random values of any dtype: normal floats, small ints, random bools."""
  if dtype.is_floating_point:
    return torch.randn(shape, dtype=dtype)
  if dtype == torch.bool:
    return torch.randint(0, 2, shape).bool()
  return torch.randint(-5, 6, shape, dtype=dtype)


def check_error(exc, pattern, fn, *inputs):
  """fn raises `exc` matching `pattern` on CPU inputs and on the same inputs
  moved to 'xla' (non-tensor arguments are passed as they are)."""
  with pytest.raises(exc, match=pattern):
    fn(*inputs)
  with pytest.raises(exc, match=pattern):
    fn(*[x.to(XLA) if isinstance(x, torch.Tensor) else x for x in inputs])
