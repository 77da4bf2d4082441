"""The saved form of an exported StableHLO program (torch_xla/stablehlo.py):
its calling convention (which module parameter is which input, weight or
constant; signatures; pytree specs) and the directory layout:

  functions/<name>.meta      the StableHLOFunctionMeta, as JSON
  functions/<name>.mlir      the module's text (when kept)
  functions/<name>.bytecode  the module as bytes (see stablehlo.py)
  data/<state name>          each weight, numpy .npy (bfloat16 as its bits)
  constants/<i>              values the graph made, numpy .npy
"""

import dataclasses
import enum
import json
import os
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import torch


class VariableType(enum.Enum):
  INPUT_ARG = "input_arg"
  PARAMETER = "parameter"
  CONSTANT = "constant"


@dataclasses.dataclass
class VariableSignature:
  """Shape and dtype name ("float32") of a tensor; for a non-tensor user
  input, shape [] and its Python type name."""
  shape: List[int]
  dtype: str
  dynamic_dims: List[int] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class InputLocation:
  """Where a module parameter's value comes from."""
  type_: VariableType
  position: int = -1
  name: str = ""

  @classmethod
  def parameter(cls, name: str):
    return cls(type_=VariableType.PARAMETER, name=name)

  @classmethod
  def input_arg(cls, position: int):
    return cls(type_=VariableType.INPUT_ARG, position=position)

  @classmethod
  def constant(cls, position: int):
    return cls(type_=VariableType.CONSTANT, position=position)


@dataclasses.dataclass
class StableHLOFunctionMeta:
  """A module's calling convention.

  input_signature / input_locations: one per module parameter, in order.
  unused_inputs: user inputs the module does not read (location,
    signature). user_inputs: every flattened user input's name and
    signature (checked on each call; non-tensor ones by value, in
    user_input_values). output_literals: non-tensor outputs by flat
    position (JSON values).
  """
  name: str
  stablehlo_version: str
  input_signature: List[VariableSignature]
  output_signature: List[VariableSignature]
  input_locations: List[InputLocation]
  unused_inputs: List[Tuple[InputLocation, VariableSignature]]
  input_pytree_spec: Optional[str] = None
  output_pytree_spec: Optional[str] = None
  user_inputs: List[Tuple[str, VariableSignature]] = dataclasses.field(
      default_factory=list)
  user_input_values: Dict[str, Any] = dataclasses.field(default_factory=dict)
  output_literals: Dict[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class StableHLOFunc:
  meta: StableHLOFunctionMeta
  bytecode: bytes
  text: Optional[str]


@dataclasses.dataclass
class StableHLOModelBundle:
  """state_dict: the program's state as numpy arrays, by name;
  additional_constants: values the graph made; stablehlo_funcs: the
  callables (one, 'forward')."""
  state_dict: Dict[str, Any]
  additional_constants: List[np.ndarray]
  stablehlo_funcs: List[StableHLOFunc]


def dtype_name(dtype: torch.dtype) -> str:
  return str(dtype).replace("torch.", "")


def signature(value) -> VariableSignature:
  if isinstance(value, torch.Tensor):
    return VariableSignature(shape=list(value.shape),
                             dtype=dtype_name(value.dtype))
  return VariableSignature(shape=[], dtype=type(value).__name__)


def to_numpy(t: torch.Tensor) -> np.ndarray:
  t = t.detach().cpu()
  if t.dtype == torch.bfloat16:  # numpy has no bfloat16: keep the bits
    return t.view(torch.int16).numpy().view(_BF16_NUMPY)
  return t.numpy()


# bfloat16 arrays travel as a structured int16 dtype so they load back as
# bfloat16 (np.save keeps the field name).
_BF16_NUMPY = np.dtype([("bfloat16", np.int16)])


def from_numpy(a: np.ndarray) -> torch.Tensor:
  if a.dtype == _BF16_NUMPY:
    return torch.from_numpy(a.view(np.int16).copy()).view(torch.bfloat16)
  return torch.from_numpy(np.ascontiguousarray(a))


def _to_json(obj):
  if dataclasses.is_dataclass(obj):
    return {f.name: _to_json(getattr(obj, f.name))
            for f in dataclasses.fields(obj)}
  if isinstance(obj, VariableType):
    return obj.value
  if isinstance(obj, (list, tuple)):
    return [_to_json(v) for v in obj]
  if isinstance(obj, dict):
    return {k: _to_json(v) for k, v in obj.items()}
  return obj


def _meta_from_json(d) -> StableHLOFunctionMeta:

  def sig(v):
    return VariableSignature(**v)

  def loc(v):
    return InputLocation(type_=VariableType(v["type_"]),
                         position=v["position"], name=v["name"])

  return StableHLOFunctionMeta(
      name=d["name"],
      stablehlo_version=d["stablehlo_version"],
      input_signature=[sig(v) for v in d["input_signature"]],
      output_signature=[sig(v) for v in d["output_signature"]],
      input_locations=[loc(v) for v in d["input_locations"]],
      unused_inputs=[(loc(a), sig(b)) for a, b in d["unused_inputs"]],
      input_pytree_spec=d.get("input_pytree_spec"),
      output_pytree_spec=d.get("output_pytree_spec"),
      user_inputs=[(n, sig(v)) for n, v in d.get("user_inputs", [])],
      user_input_values=d.get("user_input_values", {}),
      output_literals=d.get("output_literals", {}),
  )


def save_bundle(bundle, directory, options):
  functions = os.path.join(directory, "functions")
  os.makedirs(functions, exist_ok=True)
  if options.save_weights:
    os.makedirs(os.path.join(directory, "data"), exist_ok=True)
    for name, value in bundle.state_dict.items():
      with open(os.path.join(directory, "data", name), "wb") as f:
        np.save(f, value)
  os.makedirs(os.path.join(directory, "constants"), exist_ok=True)
  for i, value in enumerate(bundle.additional_constants):
    with open(os.path.join(directory, "constants", str(i)), "wb") as f:
      np.save(f, value)
  for func in bundle.stablehlo_funcs:
    base = os.path.join(functions, func.meta.name)
    with open(base + ".meta", "w") as f:
      json.dump(_to_json(func.meta), f)
    with open(base + ".bytecode", "wb") as f:
      f.write(func.bytecode)
    if func.text is not None:
      with open(base + ".mlir", "w") as f:
        f.write(func.text)


def _load_arrays(directory):
  if not os.path.isdir(directory):
    return {}
  arrays = {}
  for name in os.listdir(directory):
    with open(os.path.join(directory, name), "rb") as f:
      arrays[name] = np.load(f, allow_pickle=False)
  return arrays


def load_bundle(directory) -> StableHLOModelBundle:
  functions = os.path.join(directory, "functions")
  if not os.path.isdir(functions):
    raise FileNotFoundError(
        f"StableHLOGraphModule.load: {directory} has no functions/ "
        f"directory; is it a directory written by save_as_stablehlo?")
  state_dict = _load_arrays(os.path.join(directory, "data"))
  constants = _load_arrays(os.path.join(directory, "constants"))
  funcs = []
  for name in sorted(os.listdir(functions)):
    if not name.endswith(".meta"):
      continue
    base = os.path.join(functions, name[:-len(".meta")])
    with open(base + ".meta") as f:
      meta = _meta_from_json(json.load(f))
    with open(base + ".bytecode", "rb") as f:
      bytecode = f.read()
    text = None
    if os.path.exists(base + ".mlir"):
      with open(base + ".mlir") as f:
        text = f.read()
    funcs.append(StableHLOFunc(meta=meta, bytecode=bytecode, text=text))
  if not funcs:
    raise FileNotFoundError(
        f"StableHLOGraphModule.load: no functions/*.meta in {directory}")
  return StableHLOModelBundle(
      state_dict=state_dict,
      additional_constants=[constants[k] for k in sorted(constants, key=int)],
      stablehlo_funcs=funcs)


