"""torch dtypes <-> the C++ core's DType codes (torch_xla/csrc/ir/shape.h)."""

import torch

# Order matches the C++ enum DType.
_TORCH_DTYPES = (
    torch.float32,
    torch.float64,
    torch.bfloat16,
    torch.float16,
    torch.int64,
    torch.int32,
    torch.int16,
    torch.int8,
    torch.uint8,
    torch.bool,
    torch.uint32,
    torch.uint64,
)
_CODES = {dtype: code for code, dtype in enumerate(_TORCH_DTYPES)}


def to_code(dtype: torch.dtype) -> int:
  """The core's DType code for a torch dtype; TypeError when unsupported."""
  try:
    return _CODES[dtype]
  except KeyError:
    raise TypeError(
        f"dtype {dtype} is not supported on the XLA device; supported: "
        f"{', '.join(str(d) for d in _TORCH_DTYPES)}") from None


def from_code(code: int) -> torch.dtype:
  return _TORCH_DTYPES[code]


# c10's names for the dtypes, which eager's error messages use.
_SCALAR_TYPE_NAMES = {
    torch.float32: "Float",
    torch.float64: "Double",
    torch.bfloat16: "BFloat16",
    torch.float16: "Half",
    torch.int64: "Long",
    torch.int32: "Int",
    torch.int16: "Short",
    torch.int8: "Char",
    torch.uint8: "Byte",
    torch.bool: "Bool",
}


def scalar_type_name(dtype: torch.dtype) -> str:
  """The name eager's error messages use for a dtype ("Float", "Long")."""
  return _SCALAR_TYPE_NAMES.get(dtype, str(dtype))
