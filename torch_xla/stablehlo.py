"""torch.export programs as StableHLO modules (upstream's names).

High level design:
- Export is a lowering like any other. The exported program's ATen graph
  runs, node by node, through the same op rules as eager code
  (torch_xla/_ops), on placeholder tensors (shape and dtype, no data) that
  stand for its inputs: the user's arguments and the program's state
  (parameters, buffers, constant tensors). The results' IR is lowered by a
  LoweringContext, so every placeholder becomes a parameter of the module,
  and so does any value the graph itself made (a scalar, a torch.zeros).
  Nothing is lowered twice and nothing here knows any op.
- An op that has no rule and would fall back to the CPU cannot be staged
  out (a fallback reads values; placeholders have none): export stops there
  with NotImplementedError naming the op and its input dtypes.
- The module's parameters are described in order by `input_locations`:
  a user argument (position among the flattened (args, kwargs)), a state
  entry (its name, the value kept in the bundle's state_dict), or a value
  the graph made (kept in `additional_constants`). Calling the result
  assembles those arguments, sends CPU tensors to the device, and runs the
  module (`_XLAC._run_stablehlo`, compiled once per module and device).
- Saved, a program is a directory: functions/<name>.meta (JSON signature),
  functions/<name>.mlir (the text), functions/<name>.bytecode, data/<state
  name> and constants/<i> (numpy .npy). Loading needs neither the model nor
  the exported program: the module text is the artifact.
- Bytecode: this build has no MLIR libraries, so it cannot write MLIR's
  binary bytecode format. `get_stablehlo_bytecode()` returns the module's
  text encoded as UTF-8 bytes: what MLIR's parser accepts in place of
  bytecode, what every PJRT compiler takes and what `_run_stablehlo` runs.
- Not supported: symbolic (dynamic) shapes, higher-order ops (cond, map,
  while_loop), custom ops kept as custom calls, node metadata as locations;
  each raises NotImplementedError at export. In-place updates of buffers
  (BatchNorm's running stats) are not written back, as upstream.

Example:
  exported = torch.export.export(model, (x,))
  program = exported_program_to_stablehlo(exported)
  y = program(x)                       # runs on the XLA device
  text = program.get_stablehlo_text()
  program.save("/tmp/model")
  y2 = StableHLOGraphModule.load("/tmp/model")(x)
"""

import dataclasses
import math
import os
import re
from typing import Any, Mapping, Optional, Set, Tuple

import torch
from torch.utils import _pytree as pytree

import torch_xla
from torch_xla import _XLAC
from torch_xla._stablehlo_bundle import (
    InputLocation, StableHLOFunc, StableHLOFunctionMeta, StableHLOModelBundle,
    VariableSignature, VariableType, dtype_name as _dtype_name, from_numpy as
    _from_numpy, load_bundle, save_bundle, signature as _signature, to_numpy
    as _to_numpy)
from torch_xla.core import xla_builder

__all__ = [
    "StableHLOExportOptions", "StableHLOGraphModule",
    "exported_program_to_stablehlo", "save_as_stablehlo",
    "save_torch_model_as_stablehlo", "VariableType", "VariableSignature",
    "InputLocation", "StableHLOFunctionMeta", "StableHLOFunc",
    "StableHLOModelBundle"
]


@dataclasses.dataclass
class StableHLOExportOptions:
  """How to export (upstream's fields).

  Attributes:
    include_human_readable_text: keep the module's text (get_stablehlo_text
      and the saved .mlir file).
    override_tracing_arguments, override_tracing_kwargs: accepted for
      compatibility; shapes come from the exported program itself.
    save_weights: write the state (data/) when saving.
    inline_all_constant: accepted; values the graph makes are parameters
      kept with the program (constants/), whatever its value.
    export_weights: keep the state's values in the bundle.
    custom_ops_allowed_in_graph: namespaces kept as custom calls: not
      supported (must be empty).
    export_node_metadata: not supported (ignored).
  """
  include_human_readable_text: bool = True
  override_tracing_arguments: Optional[Tuple[Any]] = None
  override_tracing_kwargs: Optional[Mapping[str, Any]] = None
  save_weights: bool = True
  inline_all_constant: bool = True
  export_weights: bool = True
  custom_ops_allowed_in_graph: Set[str] = dataclasses.field(
      default_factory=set)
  export_node_metadata: bool = False


# Lowering.


def _fallback_counts():
  return {
      name: _XLAC._xla_counter_value(name)
      for name in _XLAC._xla_counter_names()
      if name.startswith("aten::")
  }


def _describe_inputs(args):
  parts = []
  for a in pytree.tree_leaves(args):
    if isinstance(a, torch.Tensor):
      parts.append(f"{_dtype_name(a.dtype)}{list(a.shape)}")
  return ", ".join(parts) or "no tensors"


def _placeholder_for(node, value_hint):
  """The traced stand-in of a graph input: a placeholder tensor for a
  tensor, the specialized value itself for a number."""
  val = node.meta.get("val", value_hint)
  if isinstance(val, torch.Tensor):
    if any(not isinstance(d, int) for d in val.shape):
      raise NotImplementedError(
          f"exported_program_to_stablehlo: input '{node.name}' has a "
          f"symbolic shape {list(val.shape)}; dynamic shapes are not "
          f"supported: export with static shapes")
    try:
      return xla_builder.create_placeholder_tensor(list(val.shape),
                                                   val.dtype)
    except TypeError as e:
      raise NotImplementedError(
          f"exported_program_to_stablehlo: input '{node.name}': {e}") from e
  return val


def _run_node(node, env, device):
  """Runs one call_function node on traced values through the op rules."""

  def load(a):
    return env[a] if isinstance(a, torch.fx.Node) else a

  args = torch.fx.node.map_aggregate(node.args, load)
  kwargs = torch.fx.node.map_aggregate(node.kwargs, load)
  if "device" in kwargs:  # factories were recorded on the export's device
    kwargs = dict(kwargs, device=device)
  target = node.target
  if isinstance(target, torch._ops.HigherOrderOperator):
    raise NotImplementedError(
        f"exported_program_to_stablehlo: node '{node.name}' calls "
        f"{target.name()}, a higher-order op; not supported")
  before = _fallback_counts()
  try:
    result = target(*args, **kwargs)
    failure = None
  except Exception as e:  # noqa: BLE001  (re-raised below, with the op)
    result, failure = None, e
  if _fallback_counts() != before:
    raise NotImplementedError(
        f"exported_program_to_stablehlo: {target} (node '{node.name}', "
        f"inputs {_describe_inputs(args)}) has no lowering for the XLA "
        f"device (it would run on the CPU), so the program cannot be "
        f"exported; add a rule for it (docs/adding_an_op.md)") from failure
  if failure is not None:
    raise type(failure)(
        f"exported_program_to_stablehlo: {target} (node '{node.name}', "
        f"inputs {_describe_inputs(args)}): {failure}") from failure
  return result


def _state_value(exported, spec):
  name = spec.target
  if name in exported.state_dict:
    return exported.state_dict[name]
  if name in exported.constants:
    return exported.constants[name]
  raise NotImplementedError(
      f"exported_program_to_stablehlo: input '{spec.arg.name}' ({spec.kind}) "
      f"has no value in the program's state_dict or constants")


def _param_count(text):
  """Arguments of the module's main function."""
  match = re.search(r"func\.func public @main\((.*?)\)\s*->", text, re.S)
  if match is None:
    raise RuntimeError("exported module has no @main function")
  return len(re.findall(r"%arg\d+\s*:", match.group(1)))


def _lower(exported, options) -> StableHLOModelBundle:
  if options.custom_ops_allowed_in_graph:
    raise NotImplementedError(
        "StableHLOExportOptions.custom_ops_allowed_in_graph: custom calls "
        "are not supported; leave it empty")
  device = torch_xla.device()
  graph = exported.graph_module.graph
  InputKind = torch.export.graph_signature.InputKind
  placeholders = [n for n in graph.nodes if n.op == "placeholder"]
  specs = exported.graph_signature.input_specs
  if len(specs) != len(placeholders):
    raise RuntimeError(
        f"exported program: {len(placeholders)} graph inputs but "
        f"{len(specs)} input specs")

  env = {}
  state, user_inputs, user_values = {}, [], {}
  traced_inputs = []  # (tensor, location)
  for position, (node, spec) in enumerate(zip(placeholders, specs)):
    if spec.kind == InputKind.USER_INPUT:
      value = _placeholder_for(node, getattr(spec.arg, "value", None))
      index = len(user_inputs)
      user_inputs.append((node.name, _signature(node.meta.get("val", value))))
      if isinstance(value, torch.Tensor):
        traced_inputs.append((value, InputLocation.input_arg(index)))
      else:
        user_values[node.name] = value
    elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER,
                       InputKind.CONSTANT_TENSOR):
      tensor = _state_value(exported, spec)
      state[spec.target] = tensor
      value = _placeholder_for(node, tensor)
      traced_inputs.append((value, InputLocation.parameter(spec.target)))
    else:
      raise NotImplementedError(
          f"exported_program_to_stablehlo: input '{node.name}' is a "
          f"{spec.kind.name}; not supported")
    env[node] = value

  outputs = None
  with torch.no_grad():
    for node in graph.nodes:
      if node.op == "placeholder":
        continue
      if node.op == "call_function":
        env[node] = _run_node(node, env, device)
      elif node.op == "output":
        outputs = torch.fx.node.map_aggregate(
            node.args[0], lambda a: env[a] if isinstance(a, torch.fx.Node)
            else a)
      elif node.op == "get_attr":
        env[node] = getattr(exported.graph_module, node.target)
        if isinstance(env[node], torch.Tensor):
          env[node] = env[node].to(device)
      else:
        raise NotImplementedError(
            f"exported_program_to_stablehlo: node '{node.name}' is a "
            f"{node.op}; not supported")
  flat_outputs = list(outputs) if isinstance(outputs, (list, tuple)) \
      else [outputs]
  signature = exported.graph_signature
  mutations = len(getattr(signature, "buffers_to_mutate", {})) + len(
      getattr(signature, "user_inputs_to_mutate", {}))
  flat_outputs = flat_outputs[mutations:]
  tensors, literals = [], {}
  for i, value in enumerate(flat_outputs):
    if isinstance(value, torch.Tensor):
      tensors.append(value)
    else:
      literals[str(i)] = value

  context = _XLAC.lowering.LoweringContext("exported_program")
  context.build(tensors)
  text = context.hlo_text()
  count = _param_count(text)
  locations = [None] * count
  signatures = [None] * count
  used = set()
  for tensor, location in traced_inputs:
    index = context.tensor_parameter_id(tensor)
    if index >= 0:
      locations[index] = location
      signatures[index] = _signature(tensor)
      used.add((location.type_, location.position, location.name))
  constants = []
  for index, value in sorted(context.parameter_id_tensor_mapping().items()):
    locations[index] = InputLocation.constant(len(constants))
    signatures[index] = _signature(value)
    constants.append(_to_numpy(value))
  missing = [i for i, loc in enumerate(locations) if loc is None]
  if missing:
    raise RuntimeError(
        f"exported_program_to_stablehlo: module parameters {missing} are "
        f"neither inputs of the program nor values it made")
  unused = [(InputLocation.input_arg(i), sig)
            for i, (_, sig) in enumerate(user_inputs)
            if (VariableType.INPUT_ARG, i, "") not in used]

  spec = exported.call_spec
  meta = StableHLOFunctionMeta(
      name="forward",
      stablehlo_version="1.0.0",
      input_signature=signatures,
      output_signature=[_signature(t) for t in tensors],
      input_locations=locations,
      unused_inputs=unused,
      input_pytree_spec=pytree.treespec_dumps(spec.in_spec)
      if spec.in_spec is not None else None,
      output_pytree_spec=pytree.treespec_dumps(spec.out_spec)
      if spec.out_spec is not None else None,
      user_inputs=user_inputs,
      user_input_values=user_values,
      output_literals=literals,
  )
  state_dict = {}
  if options.export_weights:
    state_dict = {name: _to_numpy(t) for name, t in state.items()}
  func = StableHLOFunc(
      meta=meta, bytecode=text.encode("utf-8"),
      text=text if options.include_human_readable_text else None)
  return StableHLOModelBundle(state_dict=state_dict,
                              additional_constants=constants,
                              stablehlo_funcs=[func])


# The callable.


def _check_value(name, expected: VariableSignature, value):
  if isinstance(value, torch.Tensor):
    got = _signature(value)
    if got.shape != list(expected.shape) or got.dtype != expected.dtype:
      raise ValueError(
          f"StableHLOGraphModule: input '{name}' is {got.dtype}"
          f"{got.shape} but the program was exported for "
          f"{expected.dtype}{list(expected.shape)}")
  elif expected.dtype not in (type(value).__name__,):
    raise ValueError(
        f"StableHLOGraphModule: input '{name}' is a "
        f"{type(value).__name__} but the program was exported for a "
        f"{expected.dtype} {expected.shape or ''}".rstrip())


class StableHLOGraphModule:
  """A lowered program: call it with the exported program's inputs (CPU or
  'xla' tensors, the same pytree); it runs on the XLA device and returns
  'xla' tensors in the program's output structure.

  Args:
    bundle: a StableHLOModelBundle (from exported_program_to_stablehlo or
      StableHLOGraphModule.load).
  """

  def __init__(self, bundle: StableHLOModelBundle):
    self._bundle = bundle
    self._funcs = {f.meta.name: f for f in bundle.stablehlo_funcs}
    self._default_method = bundle.stablehlo_funcs[0].meta.name
    self._device_values = {}  # (kind, key) -> 'xla' tensor

  def _device_value(self, kind, key, array, device):
    cached = self._device_values.get((kind, key))
    if cached is None:
      cached = _from_numpy(array).to(device)
      self._device_values[(kind, key)] = cached
    return cached

  def _flat_user_inputs(self, meta, args, kwargs):
    flat, spec = pytree.tree_flatten((tuple(args), dict(kwargs)))
    if meta.input_pytree_spec is not None:
      expected = pytree.treespec_loads(meta.input_pytree_spec)
      if spec != expected:
        flat_args, spec_args = pytree.tree_flatten(tuple(args))
        if not kwargs and spec_args == expected:
          flat = flat_args
        else:
          raise ValueError(
              f"StableHLOGraphModule: the inputs' structure {spec} is not "
              f"the exported program's {expected}")
    if len(flat) != len(meta.user_inputs):
      raise ValueError(
          f"StableHLOGraphModule: got {len(flat)} inputs, the program "
          f"takes {len(meta.user_inputs)} "
          f"({', '.join(n for n, _ in meta.user_inputs)})")
    for value, (name, signature) in zip(flat, meta.user_inputs):
      _check_value(name, signature, value)
      if name in meta.user_input_values:
        exported_value = meta.user_input_values[name]
        if value != exported_value and not (
            isinstance(value, float) and math.isnan(value) and
            math.isnan(exported_value)):
          raise ValueError(
              f"StableHLOGraphModule: input '{name}' is {value!r}, but the "
              f"program was specialized to {exported_value!r} at export")
    return flat

  def evaluate(self, method_name: str, args, kwargs=None):
    """Runs `method_name` on (args, kwargs); see the class docstring."""
    func = self._funcs[method_name]
    meta = func.meta
    flat = self._flat_user_inputs(meta, args, kwargs or {})
    device = torch_xla.device()
    call_args = []
    for location in meta.input_locations:
      if location.type_ == VariableType.INPUT_ARG:
        value = flat[location.position]
        call_args.append(value.to(device))
      elif location.type_ == VariableType.PARAMETER:
        if location.name not in self._bundle.state_dict:
          raise ValueError(
              f"StableHLOGraphModule: the program needs weight "
              f"'{location.name}', which was not exported (export_weights="
              f"False) or not saved (save_weights=False)")
        call_args.append(
            self._device_value("state", location.name,
                               self._bundle.state_dict[location.name],
                               device))
      else:
        call_args.append(
            self._device_value(
                "constant", location.position,
                self._bundle.additional_constants[location.position], device))
    results = _XLAC._run_stablehlo(func.bytecode.decode("utf-8"), call_args,
                                   device.index or 0)
    outputs, it = [], iter(results)
    for i in range(len(results) + len(meta.output_literals)):
      key = str(i)
      outputs.append(meta.output_literals[key]
                     if key in meta.output_literals else next(it))
    if meta.output_pytree_spec is not None:
      return pytree.tree_unflatten(
          outputs, pytree.treespec_loads(meta.output_pytree_spec))
    return outputs

  def __call__(self, *args, **kwargs):
    return self.evaluate(self._default_method, args, kwargs)

  def get_stablehlo_text(self, method_name: Optional[str] = None) -> str:
    """The module as StableHLO text (MLIR generic form)."""
    func = self._funcs[method_name or self._default_method]
    return func.text if func.text is not None else func.bytecode.decode(
        "utf-8")

  def get_stablehlo_bytecode(self, method_name: Optional[str] = None) -> bytes:
    """The module as bytes: its text in UTF-8 (this build has no MLIR
    libraries to write MLIR's binary bytecode; MLIR's parser and PJRT
    compilers take the text in its place)."""
    return self._funcs[method_name or self._default_method].bytecode

  def save(self, directory_path: os.PathLike,
           options: Optional[StableHLOExportOptions] = None) -> None:
    """Writes the program to a directory (see the module docstring)."""
    save_bundle(self._bundle, directory_path,
                 options or StableHLOExportOptions())

  @classmethod
  def load(cls, directory_path: os.PathLike) -> "StableHLOGraphModule":
    """A program saved by save() / save_as_stablehlo, in any process."""
    return cls(load_bundle(directory_path))


# Entry points.


def exported_program_to_stablehlo(
    exported_model: "torch.export.ExportedProgram",
    options: Optional[StableHLOExportOptions] = None) -> StableHLOGraphModule:
  """Lowers an exported program to a StableHLO module and returns it as a
  callable.

  Args:
    exported_model: from torch.export.export(model, args, kwargs).
    options: a StableHLOExportOptions (defaults if None).

  Returns:
    A StableHLOGraphModule: program(*args, **kwargs) gives the model's
    outputs (computed on the XLA device) for inputs of the exported shapes.

  Raises:
    NotImplementedError: an op of the program has no lowering (named), or
      the program uses what export does not support (symbolic shapes,
      higher-order ops).
  """
  bundle = _lower(exported_model, options or StableHLOExportOptions())
  return StableHLOGraphModule(bundle)


def save_as_stablehlo(exported_model: "torch.export.ExportedProgram",
                      stablehlo_dir: os.PathLike,
                      options: Optional[StableHLOExportOptions] = None):
  """Lowers an exported program and writes it to `stablehlo_dir`; load it
  with StableHLOGraphModule.load(stablehlo_dir).

  Args:
    exported_model: from torch.export.export.
    stablehlo_dir: a directory (created if needed).
    options: a StableHLOExportOptions (defaults if None).
  """
  options = options or StableHLOExportOptions()
  exported_program_to_stablehlo(exported_model, options).save(
      stablehlo_dir, options)


def save_torch_model_as_stablehlo(
    torchmodel: torch.nn.Module, args: Tuple[Any], path: os.PathLike,
    options: Optional[StableHLOExportOptions] = None) -> None:
  """torch.export.export(torchmodel, args), then save_as_stablehlo."""
  save_as_stablehlo(torch.export.export(torchmodel, tuple(args)), path,
                    options)
