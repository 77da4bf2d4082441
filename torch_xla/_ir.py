"""Thin Python builders over the C++ IR (torch_xla/csrc/ir).

Everything here works on C++ tensor handles (_XLAC.TensorHandle), never on
torch tensors: the ATen rules in torch_xla/_ops unwrap their arguments, build
IR with these helpers and wrap the result once. Op and attribute names are
the C++ rule table's (see ir/*_shape_rules.cc).
"""

import torch

from torch_xla import _XLAC, _dtypes

_op = _XLAC._op
_op_multi = _XLAC._op_multi

# Op kind codes by name, as the core numbers them (ir/op_kind.h).
K = {name: code for code, name in enumerate(_XLAC._op_kind_names())}

# _XLAC.DType members by code (attribute values must be the enum).
DT = [_XLAC.DType(code) for code in range(len(_dtypes.NAMES))]

# DType codes by the core's element type names.
_C = _dtypes.CODE_OF_NAME
F32, F64, BF16, F16 = _C["f32"], _C["f64"], _C["bf16"], _C["f16"]
S64, S32, S16, S8 = _C["s64"], _C["s32"], _C["s16"], _C["s8"]
U8, PRED, U32, U64 = _C["u8"], _C["pred"], _C["u32"], _C["u64"]
FLOAT_CODES = frozenset((F32, F64, BF16, F16))


def code_of(dtype: torch.dtype) -> int:
  return _dtypes.to_code(dtype)


def dims(x):
  return x.dims


def unary(name: str, x):
  return _op(K[name], [x])


def binary(name: str, a, b):
  return _op(K[name], [a, b])


def compare(a, b, direction: str):
  return _op(K["compare"], [a, b], {"direction": direction})


def select(pred, on_true, on_false):
  return _op(K["select"], [pred, on_true, on_false])


def convert(x, code: int):
  if x.dtype == code:
    return x
  return _op(K["convert"], [x], {"dtype": DT[code]})


def constant(value, code: int, shape=(), device: int = 0):
  """A literal baked into the module (not a parameter)."""
  if code in FLOAT_CODES:
    value = float(value)
  elif code == PRED:
    value = bool(value)
  else:
    value = int(value)
  return _op(K["constant"], [], {
      "value": value,
      "dtype": DT[code],
      "dims": list(shape)
  }, device)


def iota(code: int, shape, dimension: int, device: int = 0):
  return _op(K["iota"], [], {
      "dtype": DT[code],
      "dims": list(shape),
      "dimension": dimension
  }, device)


def broadcast_in_dim(x, shape, broadcast_dims):
  return _op(K["broadcast_in_dim"], [x], {
      "dims": list(shape),
      "broadcast_dims": list(broadcast_dims)
  })


def broadcast_to(x, shape):
  """Numpy-style broadcast of x to `shape` (trailing dimensions align); x
  itself when nothing changes."""
  return _XLAC._broadcast_to(x, list(shape))


def reshape(x, shape):
  shape = list(shape)
  if x.dims == shape:
    return x
  return _op(K["reshape"], [x], {"dims": shape})


def transpose(x, permutation):
  permutation = list(permutation)
  if permutation == list(range(len(permutation))):
    return x
  return _op(K["transpose"], [x], {"permutation": permutation})


def reverse(x, dims_):
  return _op(K["reverse"], [x], {"dims": list(dims_)})


def slice_(x, start, limit, strides=None):
  attrs = {"start": list(start), "limit": list(limit)}
  if strides is not None:
    attrs["strides"] = list(strides)
  return _op(K["slice"], [x], attrs)


def dynamic_slice(x, starts, sizes):
  return _op(K["dynamic_slice"], [x] + list(starts), {"sizes": list(sizes)})


def dynamic_update_slice(x, update, starts):
  return _op(K["dynamic_update_slice"], [x, update] + list(starts))


def concatenate(xs, dimension: int):
  return _op(K["concatenate"], list(xs), {"dimension": dimension})


def pad(x, padding_value, low, high, interior=None):
  attrs = {"low": list(low), "high": list(high)}
  if interior is not None:
    attrs["interior"] = list(interior)
  return _op(K["pad"], [x, padding_value], attrs)


def dot_general(a,
                b,
                lhs_contract,
                rhs_contract,
                lhs_batch=(),
                rhs_batch=(),
                code=None):
  attrs = {
      "lhs_contract": list(lhs_contract),
      "rhs_contract": list(rhs_contract),
      "lhs_batch": list(lhs_batch),
      "rhs_batch": list(rhs_batch),
  }
  if code is not None:
    attrs["dtype"] = DT[code]
  return _op(K["dot_general"], [a, b], attrs)


def reduce(x, dims_, kind: str):
  return _op(K["reduce"], [x], {"dims": list(dims_), "kind": kind})


def gather(x, indices, **attrs):
  return _op(K["gather"], [x, indices], attrs)


def scatter(x, indices, updates, **attrs):
  return _op(K["scatter"], [x, indices, updates], attrs)


def sort(operands, dimension: int, descending: bool = False,
         num_keys: int = 1, stable: bool = True):
  """Sorts `operands` (same dims) together along `dimension`, -> a list.

  The first `num_keys` are keys compared lexicographically (floats in
  PyTorch's order: NaN largest, -0.0 equal to 0.0); the rest ride along.
  """
  return _op_multi(K["sort"], list(operands), {
      "dimension": dimension,
      "descending": descending,
      "num_keys": num_keys,
      "stable": stable,
  })


def convolution(lhs, rhs, strides=None, pad_lo=None, pad_hi=None,
                lhs_dilation=None, rhs_dilation=None, feature_groups=1,
                batch_groups=1, lhs_dims=None, rhs_dims=None, out_dims=None,
                code=None, precision=None):
  """StableHLO convolution; defaults: NCHW input, OIHW kernel, NCHW result.

  Window arguments have one entry per spatial dim; `lhs_dims` is [batch,
  feature, *spatial], `rhs_dims` [in_feature, out_feature, *spatial],
  `out_dims` [batch, feature, *spatial]; `code` the preferred result type.
  """
  attrs = {"feature_groups": feature_groups, "batch_groups": batch_groups}
  for name, value in (("strides", strides), ("pad_lo", pad_lo),
                      ("pad_hi", pad_hi), ("lhs_dilation", lhs_dilation),
                      ("rhs_dilation", rhs_dilation), ("lhs_dims", lhs_dims),
                      ("rhs_dims", rhs_dims), ("out_dims", out_dims)):
    if value is not None:
      attrs[name] = [int(v) for v in value]
  if code is not None:
    attrs["dtype"] = DT[code]
  if precision is not None:
    attrs["precision"] = precision
  return _op(K["convolution"], [lhs, rhs], attrs)


def _window_attrs(window, strides, pad_lo, pad_hi):
  attrs = {"window": [int(v) for v in window]}
  for name, value in (("strides", strides), ("pad_lo", pad_lo),
                      ("pad_hi", pad_hi)):
    if value is not None:
      attrs[name] = [int(v) for v in value]
  return attrs


def reduce_window(operands, kind: str, window, strides=None, pad_lo=None,
                  pad_hi=None, base_dilation=None, win_dilation=None):
  """Window reduction (one entry per operand dim), -> a list of results.

  kind: "sum" | "max" | "min" over one operand, or "argmax" over
  (values, indices): the first maximum and its index (a NaN beats numbers,
  the last NaN wins; padding never does).
  """
  attrs = _window_attrs(window, strides, pad_lo, pad_hi)
  attrs["kind"] = kind
  if base_dilation is not None:
    attrs["base_dilation"] = [int(v) for v in base_dilation]
  if win_dilation is not None:
    attrs["win_dilation"] = [int(v) for v in win_dilation]
  return _op_multi(K["reduce_window"], list(operands), attrs)


def select_and_scatter(operand, source, kind: str, window, strides=None,
                       pad_lo=None, pad_hi=None):
  """Adds each source element at the position its window of `operand`
  selects (kind "max" | "min": first extreme, last NaN)."""
  attrs = _window_attrs(window, strides, pad_lo, pad_hi)
  attrs["kind"] = kind
  return _op(K["select_and_scatter"], [operand, source], attrs)


def rng_bit_generator(state, code: int, shape):
  """-> (new_state, bits)."""
  return _op_multi(K["rng_bit_generator"], [state], {
      "dtype": DT[code],
      "dims": list(shape)
  })


def optimization_barrier(xs):
  return _op_multi(K["optimization_barrier"], list(xs))
