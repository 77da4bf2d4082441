"""Main demo: the PJRT devices and a small XLA computation on the default one.

Run with scripts/demo.sh (it installs everything first).
"""

import torch

import torch_xla
import torch_xla.debug.metrics as met
import torch_xla.runtime as xr
from torch_xla import _XLAC, _dtypes

_MODULE = """
module @demo {
  func.func public @main(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %0 = "stablehlo.dot_general"(%x, %w) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %1 = "stablehlo.tanh"(%0) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    return %1 : tensor<4x4xf32>
  }
}
"""


def to_device(t: torch.Tensor):
  t = t.contiguous()
  return _XLAC._runtime.transfer_to_device(t.data_ptr(), list(t.shape),
                                           _dtypes.to_code(t.dtype))


def to_host(buffer) -> torch.Tensor:
  out = torch.empty(buffer.dims, dtype=_dtypes.from_code(buffer.dtype))
  _XLAC._runtime.transfer_from_device(buffer, out.data_ptr(), out.nbytes)
  return out


def main() -> None:
  print(f"PJRT device type: {xr.device_type()}, platform "
        f"{_XLAC._runtime.platform_name()} ({_XLAC._runtime.platform_version()})")
  for d in _XLAC._runtime.devices():
    print(f"  xla:{d['ordinal']} id={d['id']} kind={d['kind']}")

  met.clear_all()
  torch.manual_seed(0)
  x, w = torch.randn(4, 4), torch.randn(4, 4)
  executable = _XLAC._runtime.compile(_MODULE)
  (result,), = _XLAC._runtime.execute(executable, [[to_device(x), to_device(w)]])
  got = to_host(result)
  expected = torch.tanh(x @ w)
  print("tanh(x @ w) on", torch_xla.device(), "\n", got)
  print("max |xla - eager| =", (got - expected).abs().max().item())

  for name in ("CompileTime", "ExecuteTime", "TransferToDeviceTime",
               "TransferFromDeviceTime", "OutboundData", "InboundData"):
    count, total, _ = met.metric_data(name)
    unit = "bytes" if name.endswith("Data") else "ms"
    value = total if unit == "bytes" else total / 1e6
    print(f"  {name}: {count} samples, total {value:.3f} {unit}")


if __name__ == "__main__":
  main()
