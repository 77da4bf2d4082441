"""Bad values reaching the _XLAC bindings give clear Python exceptions, never
undefined behaviour (an op kind past the rule table, an unparsable or negative
shape, an unknown dtype code, a device ordinal past the cached device list)."""

import os
import subprocess
import sys

import pytest
import torch

import torch_xla
from torch_xla import _XLAC

XLA = torch_xla.device()


@pytest.mark.parametrize("build", [
    lambda t: _XLAC._op(10**6, [t._xt]),
    lambda t: _XLAC._op(-1, [t._xt]),
    lambda t: _XLAC._op_multi(500, [t._xt]),
    lambda t: _XLAC._elementwise(999, [t, t], 0),
], ids=["op_huge", "op_negative", "op_multi", "elementwise"])
def test_unknown_op_kind(build):
  t = torch.ones(2).to(XLA)
  with pytest.raises(ValueError, match="unknown op kind .*_op_kind"):
    build(t)


@pytest.mark.parametrize("shape,message", [
    ("f32[2,x]", "dimension 'x' is not an integer"),
    ("f32[3,-2]", r"f32\[3,-2\]: dimensions must be >= 0"),
    ([-1, 2], "dimensions must be >= 0"),
    ("f32[2", "expected e.g. 'f32\\[2,3\\]'"),
])
def test_bad_placeholder_shapes(shape, message):
  with pytest.raises(ValueError, match=message):
    _XLAC._xla_create_placeholder_tensor(shape)


def test_unknown_dtype_code_in_a_shape_object():

  class Spec:
    dims = [2]
    dtype = 99

  with pytest.raises(ValueError, match="unknown element type code 99"):
    _XLAC._xla_create_placeholder_tensor(Spec())


def test_device_ordinals_past_the_cached_device_list():
  # 64 torch.device objects are cached; a client may have more devices.
  code = ("import torch, torch_xla\n"
          "y = torch.ones(2).to('xla:65') * 2\n"
          "print(y.device, y.cpu().tolist())\n")
  out = subprocess.run([sys.executable, "-c", code],
                       env=dict(os.environ, CPU_NUM_DEVICES="66"),
                       capture_output=True, text=True, timeout=300)
  assert out.returncode == 0, out.stderr[-2000:]
  assert out.stdout.strip().splitlines()[-1] == "xla:65 [2.0, 2.0]"


@pytest.mark.parametrize("value,message", [
    (torch.ones(2), r"got a tensor on cpu; move it with .to\('xla'\)"),
    (3, "got <class 'int'>"),
    ("x", "got <class 'str'>"),
])
def test_a_tensor_argument_that_is_not_xla_names_what_was_passed(value,
                                                                  message):
  with pytest.raises(TypeError, match="expected an 'xla' tensor, " + message):
    _XLAC._get_graph_hash([value])


def test_a_view_argument_is_read_as_its_current_value():
  # A binding reading a view whose root changed in place sees the view of
  # the new root, as an op on the view would.
  x = torch.arange(4.).to(XLA)
  v = x[1:]
  x.add_(10)
  assert _XLAC._get_graph_hash([v]) == _XLAC._get_graph_hash([x[1:]])
  assert _XLAC._get_graph_hash([v]) != _XLAC._get_graph_hash(
      [torch.arange(4.).to(XLA)[1:]])
  torch.testing.assert_close(_XLAC._to_cpu_tensor(v),
                             torch.arange(4.)[1:] + 10)
