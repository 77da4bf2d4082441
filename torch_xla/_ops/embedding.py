"""Embedding lookups (embedding, embedding_renorm_) and the embedding
gradient (embedding_dense_backward), as gathers and scatters of rows:
each is built in C++ (torch_xla/csrc/ops/index_ops.h, embedding_ops.h),
one _XLAC call per op. Indices known on the host are checked
as eager checks them, others by a device-side check."""

import torch

from torch_xla import _XLAC
from torch_xla._ops.index_util import checked_index, index_and_check
from torch_xla._ops.registry import aten, op


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
  are scaled to it in place (eager's scale: max_norm / (norm + 1e-7)): one
  _XLAC call (ops/embedding_ops.h), max_norm a scalar parameter."""
  idx = checked_index(indices, weight.device.index)
  return _XLAC._embedding_renorm_(weight, idx, float(max_norm),
                                  float(norm_type))


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
