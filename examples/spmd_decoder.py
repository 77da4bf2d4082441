"""Sharding the demo decoder over a 2-d mesh ("data", "model").

Tokens split along the batch over "data". Weights split Megatron-style over
"model": the projections into the attention heads and the MLP's hidden units
(wq, wk, wv, w1, w3) by output features, the projections back (wo, w2) by
input features, the embedding and the output layer by the model dimension
and the vocabulary. Norm weights and rotary tables stay replicated.
"""

import torch_xla.distributed.spmd as xs

# Partition specs for nn.Linear weights ([out, in]) and the embedding.
_COLUMN = ("model", None)
_ROW = (None, "model")
_SPECS = {
    "attention.wq.weight": _COLUMN,
    "attention.wk.weight": _COLUMN,
    "attention.wv.weight": _COLUMN,
    "attention.wo.weight": _ROW,
    "feed_forward.w1.weight": _COLUMN,
    "feed_forward.w3.weight": _COLUMN,
    "feed_forward.w2.weight": _ROW,
    "embedding.weight": _ROW,
    "output.weight": _COLUMN,
}


def shard_decoder(model, mesh: xs.Mesh) -> int:
  """Marks the sharding of every weight the table names; returns how many."""
  count = 0
  for name, parameter in model.named_parameters():
    for suffix, spec in _SPECS.items():
      if name.endswith(suffix):
        xs.mark_sharding(parameter, mesh, spec)
        count += 1
  return count


def shard_batch(tokens, mesh: xs.Mesh):
  """Splits a [batch, seq] token batch over the "data" axis."""
  xs.mark_sharding(tokens, mesh, ("data", None))
  return tokens
