"""torch._grouped_mm (mixture-of-experts products, torch_xla/_ops/
grouped_mm.py) against eager CPU: every operand layout, values and
gradients, no CPU fallback."""

import pytest
import torch

from op_test_utils import check_op

# Sizes are multiples of 4 floats: eager's CPU kernel wants 16-byte strides.
OFFS = torch.tensor([3, 3, 8], dtype=torch.int32)  # an empty group too


def test_2d_by_3d_groups_rows():
  check_op(lambda a, b, offs: torch._grouped_mm(a, b, offs=offs),
           torch.randn(8, 12), torch.randn(3, 12, 4), OFFS)


def test_2d_by_2d_groups_inner_dim():
  check_op(lambda a, b, offs: torch._grouped_mm(a, b, offs=offs),
           torch.randn(4, 8), torch.randn(8, 12), OFFS)


def test_3d_by_2d_groups_columns():
  check_op(lambda a, b, offs: torch._grouped_mm(a, b, offs=offs),
           torch.randn(3, 4, 12), torch.randn(12, 8), OFFS)


def test_3d_by_3d_is_bmm():
  check_op(lambda a, b: torch._grouped_mm(a, b), torch.randn(3, 4, 8),
           torch.randn(3, 8, 4))


def test_functional_grouped_mm_rows_past_the_last_offset():
  # Rows past offs[-1] are ignored (eager leaves them and their gradients
  # uninitialised): compare the grouped rows' values.
  offs = torch.tensor([2, 5], dtype=torch.int32)
  check_op(lambda a, b, offs: torch.nn.functional.grouped_mm(
      a, b, offs=offs)[:5], torch.randn(8, 8), torch.randn(2, 8, 4), offs,
           grad=False)


def test_bad_offs_dtype_names_the_argument():
  a = torch.randn(8, 12, device="xla")
  b = torch.randn(3, 12, 4, device="xla")
  with pytest.raises(RuntimeError, match="offs must be a 1D int32"):
    torch._grouped_mm(a, b, offs=OFFS.to(torch.int64).to("xla"))
