"""torch dtypes <-> the C++ core's DType codes (torch_xla/csrc/ir/shape.h).

The order of the codes is the C++ core's (`_XLAC._dtype_names()`); this file
only says which torch dtype each element type name is.
"""

import torch

from torch_xla import _XLAC

# The core's element type names -> torch dtypes.
_BY_NAME = {
    "f32": torch.float32,
    "f64": torch.float64,
    "bf16": torch.bfloat16,
    "f16": torch.float16,
    "s64": torch.int64,
    "s32": torch.int32,
    "s16": torch.int16,
    "s8": torch.int8,
    "u8": torch.uint8,
    "pred": torch.bool,
    "u32": torch.uint32,
    "u64": torch.uint64,
}

# Element type names by DType code, as the core numbers them.
NAMES = tuple(_XLAC._dtype_names())
# torch dtypes by DType code.
TORCH_DTYPES = tuple(_BY_NAME[name] for name in NAMES)
_CODES = {dtype: code for code, dtype in enumerate(TORCH_DTYPES)}
# DType code by element type name ("f32" -> 0).
CODE_OF_NAME = {name: code for code, name in enumerate(NAMES)}


def to_code(dtype: torch.dtype) -> int:
  """The core's DType code for a torch dtype; TypeError when unsupported."""
  try:
    return _CODES[dtype]
  except KeyError:
    raise TypeError(
        f"dtype {dtype} is not supported on the XLA device; supported: "
        f"{', '.join(str(d) for d in TORCH_DTYPES)}") from None


def from_code(code: int) -> torch.dtype:
  return TORCH_DTYPES[code]


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
