"""The PJRT runtime from Python: transfers, compile/execute, metrics."""

import pytest
import torch

import torch_xla
import torch_xla.debug.metrics as met
import torch_xla.runtime as xr
from torch_xla import _XLAC, _dtypes

rt = _XLAC._runtime

DTYPES = [
    torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.int64,
    torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool
]


def to_device(t):
  t = t.contiguous()
  return rt.transfer_to_device(t.data_ptr(), list(t.shape),
                               _dtypes.to_code(t.dtype))


def to_host(buffer):
  out = torch.empty(buffer.dims, dtype=_dtypes.from_code(buffer.dtype))
  rt.transfer_from_device(buffer, out.data_ptr(), out.nbytes)
  return out


def random_tensor(dtype, shape=(3, 7)):
  if dtype == torch.bool:
    return torch.rand(shape) > 0.5
  if dtype.is_floating_point:
    return torch.randn(shape).to(dtype)
  info = torch.iinfo(dtype)
  return torch.randint(max(info.min, -1000), min(info.max, 1000), shape,
                       dtype=dtype)


def test_devices_and_platform():
  assert xr.device_type() == "CPU"
  assert rt.platform_name() == "cpu"
  assert xr.addressable_device_count() >= 1
  assert torch_xla.device() == torch.device("xla", 0)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_round_trip_every_dtype(dtype):
  x = random_tensor(dtype)
  buffer = to_device(x)
  assert buffer.dims == [3, 7]
  assert _dtypes.from_code(buffer.dtype) == dtype
  assert torch.equal(to_host(buffer), x)


def test_compile_and_execute_matches_eager():
  module = """
module @py {
  func.func public @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %0 = "stablehlo.multiply"(%a, %b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = "stablehlo.sine"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    return %1 : tensor<2x3xf32>
  }
}"""
  a, b = torch.randn(2, 3), torch.randn(2, 3)
  executable = rt.compile(module)
  (out,), = rt.execute(executable, [[to_device(a), to_device(b)]])
  torch.testing.assert_close(to_host(out), torch.sin(a * b))


def test_compile_error_carries_xla_diagnostic():
  bad = """
module @bad {
  func.func public @main(%a: tensor<2xf32>) -> tensor<3xf32> {
    return %a : tensor<2xf32>
  }
}"""
  with pytest.raises(RuntimeError, match="PJRT_Client_Compile"):
    rt.compile(bad)


def test_donation_deletes_input_and_reading_it_fails():
  module = """
module @donate {
  func.func public @main(%a: tensor<16xf32> {tf.aliasing_output = 0 : i32}) -> tensor<16xf32> {
    %0 = "stablehlo.negate"(%a) : (tensor<16xf32>) -> tensor<16xf32>
    return %0 : tensor<16xf32>
  }
}"""
  a = torch.randn(16)
  buffer = to_device(a)
  (out,), = rt.execute(rt.compile(module), [[buffer]])
  assert buffer.is_deleted()
  torch.testing.assert_close(to_host(out), -a)
  with pytest.raises(RuntimeError, match="deleted or donated"):
    to_host(buffer)


def test_metrics_visible_and_resettable():
  met.clear_all()
  assert met.metric_data("TransferToDeviceTime") is None
  buffer = to_device(torch.ones(8))
  to_host(buffer)
  count, total_ns, samples = met.metric_data("TransferToDeviceTime")
  assert count == 1 and total_ns > 0 and len(samples) == 1
  assert met.metric_data("OutboundData")[1] == 32
  assert met.metric_data("TransferFromDeviceTime")[0] == 1
  assert "TransferToDeviceTime" in met.metric_names()
  assert "TransferToDeviceTime" in met.metrics_report()
  met.clear_metrics()
  assert met.metric_data("TransferToDeviceTime") is None
  _XLAC._xla_increment_counter("aten::demo", 2)
  assert met.counter_value("aten::demo") == 2
  assert "aten::demo" in met.counter_names()
  met.clear_counters()
  assert met.counter_value("aten::demo") == 0


def test_unsupported_dtype_is_a_clear_error():
  with pytest.raises(TypeError, match="complex64 is not supported"):
    _dtypes.to_code(torch.complex64)


def test_tensor_factory_with_data_on_xla():
  a = torch.tensor([1, 2, 3], device="xla")
  assert a.device.type == "xla" and a.dtype == torch.int64
  assert a.tolist() == [1, 2, 3]
  assert torch.tensor(3.5, device="xla").item() == 3.5


def test_plugin_path_and_api_version_are_reported():
  assert xr.plugin_path().endswith(".so")
  major, minor = (int(v) for v in xr.plugin_api_version().split("."))
  assert major == 0 and minor >= 81  # our header's version (startup checks)


def test_empty_plugin_library_path_means_unset():
  import os
  import subprocess
  import sys
  env = dict(os.environ, PJRT_PLUGIN_LIBRARY_PATH="")
  out = subprocess.run(
      [sys.executable, "-c", "import torch_xla.runtime as xr; "
       "print(xr.plugin_path())"], env=env, capture_output=True, text=True,
      check=True)
  assert out.stdout.strip() == xr.plugin_path()
  env["PJRT_PLUGIN_LIBRARY_PATH"] = "/nonexistent/plugin.so"
  out = subprocess.run(
      [sys.executable, "-c", "import torch_xla.runtime as xr; "
       "print(xr.plugin_path())"], env=env, capture_output=True, text=True)
  assert out.returncode != 0
  assert "PJRT_PLUGIN_LIBRARY_PATH=/nonexistent/plugin.so is not a file" in (
      out.stderr)
