"""Matrix products: mm, bmm, addmm, baddbmm, addbmm, dot, mv, addmv.

Every product is one `dot_general`. Half-precision operands (bf16, f16)
accumulate in f32 (the dot's preferred element type) and round once at the
end, like eager PyTorch's CPU kernels; f32/f64 dots ask for HIGHEST
precision so GPUs do not silently use TF32. `beta` and `alpha` are scalar
parameters: changing them between steps does not recompile (only 0 and 1
change the graph, because eager ignores `self` when beta is 0 and skips the
multiplications when a factor is 1).

Each op is one _XLAC call into C++ (torch_xla/csrc/ops/linalg_ops.h: the
product, by the builder the C++ fast rules of mm/bmm call, and AddProduct
for the addmm family's beta * self + alpha * product): this module checks
eager's errors and normalizes the factors.

matmul, linear and outer are CompositeImplicit in PyTorch: they reach the
registry already decomposed into the ops here (plus views and mul), e.g.
F.linear on a 3-d input is view + addmm (or mm) + view.
"""

import torch

from torch_xla import _XLAC, _dtypes
from torch_xla._ops._common import check_same_device
from torch_xla._ops.registry import aten, op

_name = _dtypes.scalar_type_name


def dot(a, b, lhs_contract, rhs_contract):
  """dot_general of two 'xla' tensors of one dtype, with eager's
  accumulation (C++: ops/linalg_ops.h, shared with the fast rules): one
  _XLAC call, returning the product in the operands' dtype."""
  return _XLAC._dot(a, b, list(lhs_contract), list(rhs_contract), [], [],
                    False)


def _check_dtypes(name, a, b, message=None):
  if a.dtype != b.dtype:
    if message is None:
      message = (f"expected m1 and m2 to have the same dtype, but got: "
                 f"{_short(a.dtype)} != {_short(b.dtype)}")
    raise RuntimeError(message)
  if a.dtype == torch.bool or a.dtype.is_complex:
    raise NotImplementedError(
        f"\"{name}\" not implemented for '{str(a.dtype)[6:].capitalize()}'")


def _short(dtype):
  return {torch.float32: "float", torch.float64: "double",
          torch.bfloat16: "c10::BFloat16", torch.float16: "c10::Half",
          torch.int64: "long int", torch.int32: "int"}.get(
              dtype, str(dtype)[6:])


def _check_matrix(x, what):
  if x.dim() != 2:
    raise RuntimeError(f"{what} must be a matrix")


def _check_mm_shapes(a, b):
  if a.shape[1] != b.shape[0]:
    raise RuntimeError(
        f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x"
        f"{a.shape[1]} and {b.shape[0]}x{b.shape[1]})")


def _check_bmm(a, b, name="bmm"):
  if a.dim() != 3:
    raise RuntimeError("batch1 must be a 3D tensor")
  if b.dim() != 3:
    raise RuntimeError("batch2 must be a 3D tensor")
  if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
    if name == "addbmm" and a.shape[0] != b.shape[0]:
      raise RuntimeError(
          f"batch1 and batch2 must have same number of batches, got "
          f"{a.shape[0]} and {b.shape[0]}")
    raise RuntimeError(
        f"Expected size for first two dimensions of batch2 tensor to be: "
        f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, "
        f"{b.shape[1]}].")


@op(aten.mm.default)
def mm(a, b):
  check_same_device("mm", a, b)
  _check_matrix(a, "self")
  _check_matrix(b, "mat2")
  _check_mm_shapes(a, b)
  _check_dtypes("mm", a, b)
  return _XLAC._mm(a, b)


@op(aten.bmm.default)
def bmm(a, b):
  check_same_device("bmm", a, b)
  _check_bmm(a, b)
  _check_dtypes("bmm", a, b)
  return _XLAC._bmm(a, b)


@op(aten.dot.default)
def dot_(a, b):
  check_same_device("dot", a, b)
  if a.dim() != 1 or b.dim() != 1:
    raise RuntimeError(f"1D tensors expected, but got {a.dim()}D and "
                       f"{b.dim()}D tensors")
  if a.shape[0] != b.shape[0]:
    raise RuntimeError(
        f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
        f"[{b.shape[0]}] to have the same number of elements, but got "
        f"{a.shape[0]} and {b.shape[0]} elements respectively")
  _check_dtypes("dot", a, b,
                f"dot : expected both vectors to have same dtype, but found "
                f"{_name(a.dtype)} and {_name(b.dtype)}")
  return dot(a, b, [0], [0])


def _check_mv(a, v):
  if a.dim() != 2 or v.dim() != 1:
    raise RuntimeError(f"vector + matrix @ vector expected, got 1, "
                       f"{a.dim()}, {v.dim()}")
  if a.shape[1] != v.shape[0]:
    raise RuntimeError(
        f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x"
        f"{a.shape[1]}), vec ({v.shape[0]})")
  _check_dtypes("mv", a, v)


@op(aten.mv.default)
def mv(a, v):
  check_same_device("mv", a, v)
  _check_mv(a, v)
  return dot(a, v, [1], [0])


def _add_product(name, self, a, b, dims, beta, alpha, out_dims,
                 inplace=False):
  """beta * self + alpha * (a . b), like eager's addmm family: one _XLAC
  call (ops/linalg_ops.h AddProduct), the product accumulated in f32 for
  bf16/f16 and rounded once to self's dtype. beta == 0 ignores self
  entirely (NaNs in it do not leak); a factor of 1 is no multiply; other
  factors are scalar parameters (a new value never recompiles). `dims` are
  the dot's (lhs_contract, rhs_contract, lhs_batch, rhs_batch)."""
  with_self = beta != 0
  if with_self:
    _check_expand(name, list(self.shape), out_dims)
  return _XLAC._add_product(self, a, b, *dims,
                            None if beta == 1 else beta,
                            None if alpha == 1 else alpha, with_self,
                            inplace, name if inplace else "")


def _check_expand(name, shape, target):
  """Eager's error when `shape` does not broadcast to `target`."""
  lead = len(target) - len(shape)
  if lead < 0 or any(n != 1 and n != target[lead + i]
                     for i, n in enumerate(shape)):
    raise RuntimeError(f"{name}: {_expand_error(shape, target)}")


def _expand_error(shape, target):
  """Eager's text for expanding `shape` to `target` (which fails)."""
  lead = len(target) - len(shape)
  for i in range(len(target) - 1, -1, -1):
    size = shape[i - lead] if i >= lead else 1
    if size != 1 and size != target[i]:
      return (f"The expanded size of the tensor ({target[i]}) must match "
              f"the existing size ({size}) at non-singleton dimension {i}.  "
              f"Target sizes: {list(target)}.  Tensor sizes: {shape}")
  return (f"the number of sizes provided ({len(target)}) must be greater or "
          f"equal to the number of dimensions in the tensor ({len(shape)})")


def _addmm(self, a, b, beta, alpha, inplace):
  check_same_device("addmm", self, a, b)
  _check_matrix(a, "mat1")
  _check_matrix(b, "mat2")
  _check_mm_shapes(a, b)
  _check_dtypes("addmm", a, b)
  if self.dtype != a.dtype:
    raise RuntimeError(
        f"self and mat2 must have the same dtype, but got "
        f"{_name(self.dtype)} and {_name(a.dtype)}")
  return _add_product("addmm_" if inplace else "addmm", self, a, b,
                      ([1], [0], [], []), beta, alpha,
                      [a.shape[0], b.shape[1]], inplace)


@op(aten.addmm.default)
def addmm(self, a, b, beta=1, alpha=1):
  return _addmm(self, a, b, beta, alpha, False)


@op(aten.addmm_.default)
def addmm_(self, a, b, beta=1, alpha=1):
  return _addmm(self, a, b, beta, alpha, True)


@op(aten.baddbmm.default)
def baddbmm(self, a, b, beta=1, alpha=1):
  check_same_device("baddbmm", self, a, b)
  _check_bmm(a, b)
  _check_dtypes("baddbmm", a, b)
  return _add_product("baddbmm", self, a, b, ([2], [1], [0], [0]), beta,
                      alpha, [a.shape[0], a.shape[1], b.shape[2]])


@op(aten.addbmm.default)
def addbmm(self, a, b, beta=1, alpha=1):
  """beta * self + alpha * sum_i a[i] @ b[i]: one dot contracting the
  batch and inner dimensions together."""
  check_same_device("addbmm", self, a, b)
  _check_bmm(a, b, "addbmm")
  _check_dtypes("addbmm", a, b)
  return _add_product("addbmm", self, a, b, ([0, 2], [0, 1], [], []), beta,
                      alpha, [a.shape[1], b.shape[2]])


@op(aten.addmv.default)
def addmv(self, a, v, beta=1, alpha=1):
  check_same_device("addmv", self, a, v)
  _check_mv(a, v)
  return _add_product("addmv", self, a, v, ([1], [0], [], []), beta, alpha,
                      [a.shape[0]])
