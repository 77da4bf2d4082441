"""Embedding lookups (embedding, embedding_renorm_) and the embedding
gradient (embedding_dense_backward), as gathers and scatters of rows:
embedding and its gradient are built in C++ (torch_xla/csrc/ops/
index_ops.h), one _XLAC call each. Indices known on the host are checked
as eager checks them, others by a device-side check."""

import torch

from torch_xla import _XLAC, _ir
from torch_xla._ops._common import code_of, literal, scalar
from torch_xla._ops.index_util import (checked_index, index_and_check,
                                       index_value, scatter_dim)
from torch_xla._ops.registry import aten, op
from torch_xla._tensor import commit, wrap, xt_of


# Embedding.


@op(aten.embedding.default)
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False,
              sparse=False):
  if indices.dtype not in (torch.int64, torch.int32):
    raise RuntimeError(
        f"Expected tensor for argument #1 'indices' to have one of the "
        f"following scalar types: Long, Int; but got "
        f"{indices.type()} instead (while checking arguments for embedding)")
  if weight.dim() != 2:
    raise RuntimeError("'weight' must be 2-D")
  idx, check = index_and_check(
      indices, weight.device.index,
      (weight.shape[0], 0, False, "index out of range in self"),
      op="embedding")
  # One gather (ops/index_ops.h), the device-side check registered in the
  # same call.
  return _XLAC._embedding(weight, idx, check)


@op(aten.embedding_renorm_.default)
def embedding_renorm_(weight, indices, max_norm, norm_type):
  """Rows of `weight` that `indices` use and whose norm exceeds max_norm
  are scaled to it in place (eager's scale: max_norm / (norm + 1e-7))."""
  device = weight.device.index
  rows, dim = weight.shape
  code = code_of(weight.dtype)
  acc = _ir.F32 if code in (_ir.BF16, _ir.F16) else code
  w = _ir.convert(xt_of(weight), acc)
  norm = xt_of(torch.linalg.vector_norm(wrap(w), norm_type, dim=1))
  n = indices.numel()
  used = scatter_dim(literal(False, _ir.PRED, [rows], device), 0,
                      _ir.reshape(index_value(indices, device), [n]),
                      literal(True, _ir.PRED, [n], device), "replace")
  too_long = _ir.binary(
      "and", used,
      _ir.compare(norm, _ir.broadcast_to(scalar(max_norm, acc, device),
                                         [rows]), "GT"))
  scale = _ir.binary(
      "divide", _ir.broadcast_to(scalar(max_norm, acc, device), [rows]),
      _ir.binary("add", norm, literal(1e-7, acc, [rows], device)))
  scale = _ir.select(too_long, scale, literal(1, acc, [rows], device))
  scaled = _ir.binary("multiply", w,
                      _ir.broadcast_in_dim(scale, [rows, dim], [0]))
  return commit(weight, _ir.convert(scaled, code))


@op(aten.embedding_dense_backward.default)
def embedding_dense_backward(grad, indices, num_weights, padding_idx,
                             scale_grad_by_freq):
  """Rows of grad summed into their weight rows (one scatter-add,
  ops/index_ops.h); rows of padding_idx get nothing; scale_grad_by_freq
  divides by the counts."""
  idx = checked_index(indices, grad.device.index)
  pad = padding_idx if padding_idx is not None and padding_idx >= 0 else None
  return _XLAC._embedding_backward(grad, idx, num_weights, pad,
                                   scale_grad_by_freq)
