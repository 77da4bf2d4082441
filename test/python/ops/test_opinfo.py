"""PyTorch's own OpInfo samples (torch.testing._internal) for the ops the
issue lists: values, and gradients in float32, against eager CPU, with no
CPU fallback. The hand-written family tests pick the cases; these bring the
shapes, arguments and corner cases PyTorch itself tests ops with."""

import pytest
import torch
from torch.testing._internal.common_methods_invocations import op_db

from op_test_utils import check_op

# Names, or (name, variant) for ops whose OpInfos are all variants.
OPS = [
    "add", "sub", "mul", ("div", "no_rounding_mode"),
    ("div", "floor_rounding"), ("div", "trunc_rounding"), "matmul", "mm", "bmm", "addmm", "softmax",
    "log_softmax", "nn.functional.relu", "nn.functional.gelu",
    "nn.functional.silu", "tanh", "sigmoid", "exp", "log", "rsqrt", "pow",
    "abs", "neg", "maximum", "minimum", "clamp", "where", "lerp", "addcmul",
    "addcdiv", "sum", "mean", "amax", "amin", "argmax", "argmin",
    ("max", "reduction_with_dim"), ("max", "reduction_no_dim"),
    ("max", "binary"), ("min", "reduction_with_dim"), "var", "std", "cumsum", "topk", "sort", "cat", "stack", "split",
    "chunk", "transpose", "permute", "view", "reshape", "gather", "scatter",
    "index_select", "index_copy", "index_put", "masked_fill",
    "nn.functional.embedding", "nn.functional.layer_norm",
    "nn.functional.cross_entropy", "nn.functional.mse_loss",
    "nn.functional.conv2d", "nn.functional.max_pool2d",
    "nn.functional.avg_pool2d", "linalg.vector_norm",
]
_OPINFOS = {(o.name, o.variant_test_name): o for o in op_db}
MAX_SAMPLES = 6

# Where the comparison with eager does not hold, and why.
SKIPS = {
    ("topk", torch.bfloat16): "the samples have ties in bf16; eager's "
                              "order of equal values is unspecified",
    ("sort", torch.bfloat16): "the samples have ties in bf16; eager's "
                              "(unstable) order of equal values differs",
}
# Boolean-mask indexing has a data-dependent shape: it runs on the CPU
# (documented), and index_put's backward with a mask index uses it.
ALLOW_FALLBACK = {"index_put"}
# Eager's CPU layer norm is inexact when a row's variance is 0 (its
# gradients come out near 3e-5 instead of 0; ours are exact).
TOLERANCES = {("nn.functional.layer_norm", torch.float32):
              dict(atol=1e-4, rtol=1.3e-5)}
# scatter(reduce='multiply') has no XLA scatter here: it falls back (with a
# warning), by design.
SKIP_SAMPLE = {"scatter": lambda s: s.kwargs.get("reduce") == "multiply"}


def _id(op):
  return op if isinstance(op, str) else ".".join(op)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16],
                         ids=["f32", "bf16"])
@pytest.mark.parametrize("op", OPS, ids=[_id(op) for op in OPS])
def test_opinfo_samples(op, dtype):
  name, variant = (op, "") if isinstance(op, str) else op
  opinfo = _OPINFOS[name, variant]
  if dtype not in opinfo.supported_dtypes("cpu"):
    pytest.skip(f"eager CPU does not support {name} in {dtype}")
  if (name, dtype) in SKIPS:
    pytest.skip(SKIPS[name, dtype])
  grad = dtype == torch.float32 and opinfo.supports_autograd
  samples = opinfo.sample_inputs("cpu", dtype, requires_grad=grad)
  for i, sample in enumerate(samples):
    if i == MAX_SAMPLES:
      break
    if SKIP_SAMPLE.get(name, lambda s: False)(sample):
      continue

    def fn(tree):
      inp, args, kwargs = tree
      return opinfo.op(inp, *args, **kwargs)

    try:
      check_op(fn, (sample.input, sample.args, sample.kwargs), grad=grad,
               allow_fallback=name in ALLOW_FALLBACK,
               **TOLERANCES.get((name, dtype), {}))
    except Exception as e:
      raise AssertionError(f"sample {i}: {sample}") from e
