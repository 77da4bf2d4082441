"""Grouped matrix products (`torch._grouped_mm`, `F.grouped_mm`): the
experts of a mixture-of-experts layer (Hugging Face Mixtral, Qwen-MoE).

`offs` (int32, increasing) cuts the jagged dimension of a 2D operand into
groups: group g is [offs[g-1], offs[g]) (offs[-1] for g = -1 is 0). The
cases, as in eager:

  a (M, K)    b (G, K, N)  offs over M -> (M, N): rows of group g use b[g]
  a (M, K)    b (K, N)     offs over K -> (G, M, N): out[g] = a[:, g] @ b[g, :]
  a (G, M, K) b (K, N)     offs over N -> (M, N): columns of g use a[g]
  a (G, M, K) b (G, K, N)  no offs     -> (G, M, N): bmm

Cost model: XLA needs static shapes, and the group sizes are data, so each
case is one batched product over all G groups with the operand masked to
the group's rows (a (G, M, N) intermediate, G times the flops of the
jagged products). Exact: masked entries are zeros, and every output element
sums the same products as eager's. Rows past offs[-1], which eager leaves
uninitialised, are zeros here. The gradient is PyTorch's own formula
(GroupedMmBackward0), whose products come back to this rule.
"""

import torch

from torch_xla._ops.registry import aten, op


def _group_mask(offs, length, groups):
  """(groups, length) bool: position p is in group g."""
  ends = offs.to(torch.int64)
  starts = torch.cat([torch.zeros_like(ends[:1]), ends[:-1]])
  positions = torch.arange(length, device=offs.device)
  return (positions[None, :] >= starts[:, None]) & (positions[None, :] <
                                                    ends[:, None])


def _check(a, b, offs):
  for name, t in (("mat_a", a), ("mat_b", b)):
    if t.dim() not in (2, 3):
      raise RuntimeError(f"_grouped_mm: {name} must be 2D or 3D, got shape "
                         f"{list(t.shape)}")
  if a.dtype != b.dtype:
    raise RuntimeError(f"_grouped_mm: mat_a and mat_b must have the same "
                       f"dtype, got {a.dtype} and {b.dtype}")
  if (a.dim() == 2 or b.dim() == 2) and offs is None:
    raise RuntimeError("_grouped_mm: offs is required when mat_a or mat_b is "
                       "2D (it cuts the 2D operand into groups)")
  if offs is not None and (offs.dim() != 1 or offs.dtype != torch.int32):
    raise RuntimeError(f"_grouped_mm: offs must be a 1D int32 tensor, got "
                       f"{offs.dtype} of shape {list(offs.shape)}")
  if a.shape[-1] != b.shape[-2]:
    raise RuntimeError(f"_grouped_mm: contraction sizes differ: mat_a "
                       f"{list(a.shape)}, mat_b {list(b.shape)}")


@op(aten._grouped_mm.default)
def grouped_mm(mat_a, mat_b, offs=None, bias=None, out_dtype=None):
  _check(mat_a, mat_b, offs)
  if out_dtype is not None and out_dtype != mat_a.dtype:
    mat_a, mat_b = mat_a.to(out_dtype), mat_b.to(out_dtype)
  if mat_a.dim() == 2 and mat_b.dim() == 3:
    groups, rows = mat_b.shape[0], mat_a.shape[0]
    if offs.shape[0] != groups:
      raise RuntimeError(f"_grouped_mm: offs has {offs.shape[0]} groups, "
                         f"mat_b {groups}")
    mask = _group_mask(offs, rows, groups).to(mat_a.dtype)
    out = torch.bmm(mat_a[None] * mask[:, :, None], mat_b).sum(0)
  elif mat_a.dim() == 2 and mat_b.dim() == 2:
    groups, inner = offs.shape[0], mat_a.shape[1]
    mask = _group_mask(offs, inner, groups).to(mat_a.dtype)
    out = torch.bmm(mat_a[None] * mask[:, None, :],
                    mat_b[None].expand(groups, *mat_b.shape))
  elif mat_a.dim() == 3 and mat_b.dim() == 2:
    groups, cols = mat_a.shape[0], mat_b.shape[1]
    if offs.shape[0] != groups:
      raise RuntimeError(f"_grouped_mm: offs has {offs.shape[0]} groups, "
                         f"mat_a {groups}")
    mask = _group_mask(offs, cols, groups).to(mat_a.dtype)
    out = torch.bmm(mat_a, mat_b[None] * mask[:, None, :]).sum(0)
  else:
    if mat_a.shape[0] != mat_b.shape[0]:
      raise RuntimeError(f"_grouped_mm: batch sizes differ: mat_a "
                         f"{list(mat_a.shape)}, mat_b {list(mat_b.shape)}")
    out = torch.bmm(mat_a, mat_b)
  if bias is not None:
    out = out + bias.to(out.dtype)
  return out
