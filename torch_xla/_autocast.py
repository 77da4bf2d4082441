"""Mixed precision on the device: `torch.autocast('xla', dtype=...)`.

High level design
-----------------
Every 'xla' tensor carries PyTorch's `AutocastXLA` dispatch key. Outside an
autocast region that key is excluded (PyTorch's thread-local setting), so
it costs nothing; inside `torch.autocast('xla', dtype=torch.bfloat16)` (or
torch.float16) every op on an 'xla' tensor meets it first, above autograd.
PyTorch itself registers no kernel there ("Could not run 'aten::linear'
with arguments from the 'AutocastXLA' backend"); this module registers
upstream PyTorch/XLA's XLA autocast policy:

- a fallthrough for every op (it runs in the dtypes it is given, with
  PyTorch's type promotion);
- LOWER_PRECISION ops (matrix products, convolutions, `relu`, `prelu`,
  `max_pool2d`, `einsum`): floating 'xla' tensor arguments are cast to the
  autocast dtype;
- FP32 ops (softmax, log_softmax, losses, norms of batches, `pow` by a
  scalar, `prod`, linear algebra): cast to float32;
- PROMOTE ops (`cat`, `stack`, `index_copy`): cast to the widest floating
  dtype among the arguments.

float64 tensors and tensors on other devices are never cast, as in
PyTorch's autocast. A kernel casts its arguments (`Tensor.to`, recorded by
autograd, so gradients flow back in the parameters' own dtype), then runs
the op with autocast off for the device, exactly as PyTorch's C++ autocast
kernels do, so the op's composite pieces are not cast again.

Deliberate differences from eager CPU autocast: the policy is XLA's, not the
CPU one. `relu`, `max_pool2d` and `einsum` run in low precision here (the
CPU policy leaves them alone); CPU autocast casts some more ops to float32
that XLA's policy leaves in their input dtype. PyTorch caches the
low-precision copy of each weight within a region; we cast at each use
(the casts are IR nodes: XLA removes the duplicates when it compiles).
"""

import torch

_DEVICE = "xla"
_KEY = "AutocastXLA"

# Upstream PyTorch/XLA's policy (csrc/autocast_mode.cpp): op -> overloads.
# Upstream also lists the named-tensor (Dimname) overloads of softmax,
# log_softmax, prod and index_copy; torch.ops does not expose those.
LOWER_PRECISION = {
    "conv1d": ("default", "padding"),
    "conv2d": ("default", "padding"),
    "conv3d": ("default", "padding"),
    "bmm": ("default",),
    "mm": ("default",),
    "baddbmm": ("default",),
    "addmm": ("default",),
    "addbmm": ("default",),
    "linear": ("default",),
    "matmul": ("default",),
    "conv_tbc": ("default",),
    "conv_transpose1d": ("default",),
    "conv_transpose2d": ("input",),
    "conv_transpose3d": ("input",),
    "prelu": ("default",),
    "relu": ("default",),
    "max_pool2d": ("default",),
    "einsum": ("default",),
}

FP32 = {
    "batch_norm": ("default",),
    "_softmax": ("default",),
    "softmax": ("int",),
    "log_softmax": ("int",),
    "binary_cross_entropy": ("default",),
    "pow": ("Tensor_Scalar",),
    "prod": ("default", "dim_int"),
    "cdist": ("default",),
    "trace": ("default",),
    "cholesky": ("default",),
    "cholesky_inverse": ("default",),
    "cholesky_solve": ("default",),
    "inverse": ("default",),
    "reflection_pad1d": ("default",),
    "reflection_pad2d": ("default",),
    "replication_pad1d": ("default",),
    "replication_pad2d": ("default",),
    "replication_pad3d": ("default",),
    "mse_loss": ("default",),
    "cosine_embedding_loss": ("default",),
    "nll_loss": ("default",),
    "nll_loss2d": ("default",),
    "hinge_embedding_loss": ("default",),
    "smooth_l1_loss": ("default",),
    "cross_entropy_loss": ("default",),
    "l1_loss": ("default",),
    "margin_ranking_loss": ("default",),
    "soft_margin_loss": ("default",),
    "triplet_margin_loss": ("default",),
    "multi_margin_loss": ("default",),
    "ctc_loss": ("IntList", "Tensor"),
    "kl_div": ("default",),
    "multilabel_margin_loss": ("default",),
    "binary_cross_entropy_with_logits": ("default",),
    "qr": ("default",),
    "svd": ("default",),
    "triangular_solve": ("default",),
    "multilabel_margin_loss_forward": ("default",),
    "linalg_svd": ("default",),
    "linalg_inv_ex": ("default",),
}

PROMOTE = {
    "stack": ("default",),
    "cat": ("default",),
    "index_copy": ("default",),
}


def _eligible(t) -> bool:
  return (isinstance(t, torch.Tensor) and t.device.type == _DEVICE and
          t.is_floating_point() and t.dtype != torch.float64)


def _cast(value, dtype):
  """`value` with every eligible tensor (also inside lists) cast to dtype."""
  if isinstance(value, torch.Tensor):
    return value.to(dtype) if _eligible(value) and value.dtype != dtype else (
        value)
  if isinstance(value, (list, tuple)):
    return type(value)(_cast(v, dtype) for v in value)
  return value


def _widest(values, dtype):
  """The promote policy's dtype: float32 if any eligible tensor is float32
  (or wider), else the low-precision dtype."""
  for v in values:
    if isinstance(v, (list, tuple)):
      dtype = _widest(v, dtype)
    elif _eligible(v) and v.dtype != dtype:
      dtype = torch.promote_types(dtype, v.dtype)
  return dtype


def _run_without_autocast(op, args, kwargs):
  torch.set_autocast_enabled(_DEVICE, False)
  try:
    return op(*args, **kwargs)
  finally:
    torch.set_autocast_enabled(_DEVICE, True)


def _lower_precision_kernel(op):

  def kernel(*args, **kwargs):
    dtype = torch.get_autocast_dtype(_DEVICE)
    return _run_without_autocast(op, _cast(args, dtype), _cast(kwargs, dtype))

  return kernel


def _fp32_kernel(op):

  def kernel(*args, **kwargs):
    return _run_without_autocast(op, _cast(args, torch.float32),
                                 _cast(kwargs, torch.float32))

  return kernel


def _promote_kernel(op):

  def kernel(*args, **kwargs):
    dtype = _widest(list(args) + list(kwargs.values()),
                    torch.get_autocast_dtype(_DEVICE))
    return _run_without_autocast(op, _cast(args, dtype), _cast(kwargs, dtype))

  return kernel


_libraries = []


def _register() -> None:
  fallback = torch.library.Library("_", "IMPL")
  fallback.fallback(torch.library.fallthrough_kernel, _KEY)
  aten = torch.library.Library("aten", "IMPL")
  for table, make in ((LOWER_PRECISION, _lower_precision_kernel),
                      (FP32, _fp32_kernel), (PROMOTE, _promote_kernel)):
    for name, overloads in table.items():
      packet = getattr(torch.ops.aten, name)
      for overload in overloads:
        op = getattr(packet, overload)
        aten.impl(op, make(op), _KEY)
  _libraries.extend([fallback, aten])


_register()
