"""_XLAC._get_xla_tensors_text: upstream's spelling of data leaves."""

import torch

import torch_xla
import torch_xla.core.xla_builder as xb
from torch_xla import _XLAC

XLA = torch_xla.device()


def test_data_leaves_print_shape_with_row_major_layout():
  a = torch.randn(3, 4).to(XLA)
  v = torch.randn(5).to(XLA)
  s = torch.tensor(2.0).to(XLA)
  torch_xla.sync()
  text = _XLAC._get_xla_tensors_text([a.sum(1) * v[:3] + s])
  assert "f32[3,4]{1,0} xla::device_data()" in text
  assert "f32[5]{0} xla::device_data()" in text
  # Rank 0 has no layout; op results keep the plain shape.
  assert "= f32[] xla::device_data()" in text
  assert "f32[3] reduce(" in text and "{0} reduce(" not in text


def test_placeholders_print_as_device_data():
  p = xb.create_placeholder_tensor((2, 3, 4), torch.bfloat16)
  text = _XLAC._get_xla_tensors_text([p.cos()])
  assert "%0 = bf16[2,3,4]{2,1,0} xla::device_data()" in text
