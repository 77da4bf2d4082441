"""`scan_layers`: apply a stack of identical layers as one XLA While.

High level design
-----------------
The layers' parameters and buffers are stacked along a new leading
dimension (one `torch.stack` per name, in the graph), and `scan` runs the
first layer's code over those stacks with `torch.func.functional_call`:
the layer is traced once, so program size and compile time do not grow
with depth. Gradients reach the stacks and, through `torch.stack`'s
backward, every original parameter's `.grad`, so any optimizer works
unchanged. The function passed to `scan` is kept per first layer, so
`scan`'s cache recognises the same stack on later steps; for pure layers
(`is_layer_pure=True`) it is kept in `_ONE_LAYER_CACHE` (upstream's name),
keyed by `(id(partition_fn), id(first layer))`.

A tuple `input_data` is passed as positional arguments, `layer(*x)`, and
each layer must return a tuple of the same length (a layer of several
inputs and outputs); anything else is passed whole, `layer(x)`.
"""

import weakref

import torch

from torch_xla.experimental.scan import default_partition, scan

_layer_fns = weakref.WeakKeyDictionary()
# (id(partition_fn), id(first layer)) -> (weakref to that layer, fn), for
# is_layer_pure=True (upstream's name). Cleared by .clear().
_ONE_LAYER_CACHE = {}


def scan_layers(layers, input_data, partition_fn=default_partition,
                is_layer_pure=False):
  """Runs `input_data` through `layers` in order, as one loop.

  Args:
    layers: a sequence (e.g. nn.ModuleList) of modules with the same
      parameter and buffer names, shapes and dtypes, each called as
      `layer(x) -> x'` with `x'` like `x`.
    input_data: the input of the first layer (a tensor or PyTree of
      tensors).
    partition_fn: as in `scan` (`functorch.compile.default_partition` or
      `min_cut_rematerialization_partition`).
    is_layer_pure: promise that the layers' code computes the same thing
      on every call (see `scan`'s `is_fn_pure`).

  Returns:
    The output of the last layer (`input_data` itself when `layers` is
    empty).

  Example:
    layers = nn.ModuleList(nn.Linear(64, 64) for _ in range(8)).to('xla')
    y = scan_layers(layers, x)
  """
  layers = list(layers)
  if not layers:
    return input_data
  first = layers[0]
  expected = _weights(first)
  for i, layer in enumerate(layers[1:], 1):
    _check_like(i, _weights(layer), expected)
  stacked = ({
      name: torch.stack([getattr_path(layer, name) for layer in layers])
      for name in expected[0]
  }, {
      name: torch.stack([getattr_path(layer, name) for layer in layers])
      for name in expected[1]
  })
  fn = _layer_fn(first, partition_fn, is_layer_pure)
  output, _ = scan(fn, input_data, stacked, partition_fn=partition_fn,
                   is_fn_pure=is_layer_pure)
  return output


def _layer_fn(first, partition_fn, is_layer_pure):
  """The function scan runs: the first layer's code on one slice of the
  stacked weights (kept per layer so scan's caches see the same function)."""
  if is_layer_pure:
    key = (id(partition_fn), id(first))
    entry = _ONE_LAYER_CACHE.get(key)
    if entry is not None and entry[0]() is first:
      return entry[1]
    fn = _make_layer_fn(first)
    _ONE_LAYER_CACHE[key] = (weakref.ref(first), fn)
    return fn
  fn = _layer_fns.get(first)
  if fn is None:
    fn = _layer_fns[first] = _make_layer_fn(first)
  return fn


def _make_layer_fn(first):
  reference = weakref.ref(first)

  def one_layer(carry, weights):
    parameters, buffers = weights
    layer = reference()
    args = carry if isinstance(carry, tuple) else (carry,)
    out = torch.func.functional_call(layer, {**parameters, **buffers}, args)
    if isinstance(carry, tuple) and (not isinstance(out, tuple) or
                                     len(out) != len(carry)):
      got = (f"a tuple of {len(out)}" if isinstance(out, tuple) else
             type(out).__name__)
      raise ValueError(
          f"scan_layers: the input is a tuple of {len(carry)} tensors, "
          f"passed to each layer as {len(carry)} positional arguments, so "
          f"each layer must return a tuple of {len(carry)} tensors (the "
          f"next layer's arguments); {type(layer).__name__} returned {got}")
    return out, None

  return one_layer


def _weights(layer):
  """({parameter name: (shape, dtype)}, {buffer name: (shape, dtype)})."""
  return ({n: (tuple(p.shape), p.dtype) for n, p in layer.named_parameters()},
          {n: (tuple(b.shape), b.dtype) for n, b in layer.named_buffers()})


def _check_like(index, got, expected):
  for kind, have, want in (("parameter", got[0], expected[0]),
                           ("buffer", got[1], expected[1])):
    for name, spec in want.items():
      if name not in have:
        raise ValueError(
            f"scan_layers: mismatched keys: layer {index} has no {kind} "
            f"'{name}' but layer 0 does; all layers must have the same "
            f"{kind}s")
      if have[name] != spec:
        raise ValueError(
            f"scan_layers: Shape mismatch: {kind} '{name}' of layer {index} "
            f"is {have[name][1]} {list(have[name][0])}, but layer 0's is "
            f"{spec[1]} {list(spec[0])}; all layers must match")
    for name in have:
      if name not in want:
        raise ValueError(
            f"scan_layers: mismatched keys: layer {index} has a {kind} "
            f"'{name}' that layer 0 lacks; all layers must have the same "
            f"{kind}s")


def getattr_path(module, name):
  for part in name.split("."):
    module = getattr(module, part)
  return module
