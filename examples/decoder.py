"""A small Llama-style decoder (RMSNorm, rotary embeddings, causal attention,
SiLU-gated MLP), defined here so the demo, tests and benchmarks need no
downloads."""

import dataclasses
import math

import torch
from torch import nn
import torch.nn.functional as F


@dataclasses.dataclass
class DecoderConfig:
  vocab_size: int = 256
  dim: int = 64
  num_layers: int = 2
  num_heads: int = 4
  hidden_dim: int = 172
  max_seq_len: int = 64
  rope_theta: float = 10000.0
  norm_eps: float = 1e-5


class RMSNorm(nn.Module):

  def __init__(self, dim: int, eps: float):
    super().__init__()
    self.eps = eps
    self.weight = nn.Parameter(torch.ones(dim))

  def forward(self, x):
    variance = x.pow(2).mean(-1, keepdim=True)
    return x * torch.rsqrt(variance + self.eps) * self.weight


def rotary_tables(head_dim: int, seq_len: int, theta: float):
  """cos and sin tables [seq_len, head_dim] for rotary embeddings."""
  inv_freq = 1.0 / (theta**(torch.arange(0, head_dim, 2).float() / head_dim))
  angles = torch.outer(torch.arange(seq_len).float(), inv_freq)
  angles = torch.cat([angles, angles], dim=-1)
  return angles.cos(), angles.sin()


def rotate_half(x):
  half = x.shape[-1] // 2
  return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


def apply_rotary(x, cos, sin):
  return x * cos + rotate_half(x) * sin


class Attention(nn.Module):

  def __init__(self, config: DecoderConfig):
    super().__init__()
    self.num_heads = config.num_heads
    self.head_dim = config.dim // config.num_heads
    self.wq = nn.Linear(config.dim, config.dim, bias=False)
    self.wk = nn.Linear(config.dim, config.dim, bias=False)
    self.wv = nn.Linear(config.dim, config.dim, bias=False)
    self.wo = nn.Linear(config.dim, config.dim, bias=False)

  def forward(self, x, cos, sin, mask):
    batch, seq, dim = x.shape
    shape = (batch, seq, self.num_heads, self.head_dim)
    q = self.wq(x).view(shape).transpose(1, 2)
    k = self.wk(x).view(shape).transpose(1, 2)
    v = self.wv(x).view(shape).transpose(1, 2)
    q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.head_dim)
    scores = scores.masked_fill(mask, float("-inf"))
    attention = F.softmax(scores, dim=-1)
    out = (attention @ v).transpose(1, 2).reshape(batch, seq, dim)
    return self.wo(out)


class FeedForward(nn.Module):

  def __init__(self, config: DecoderConfig):
    super().__init__()
    self.w1 = nn.Linear(config.dim, config.hidden_dim, bias=False)
    self.w3 = nn.Linear(config.dim, config.hidden_dim, bias=False)
    self.w2 = nn.Linear(config.hidden_dim, config.dim, bias=False)

  def forward(self, x):
    return self.w2(F.silu(self.w1(x)) * self.w3(x))


def causal_mask(seq: int, device):
  """True above the diagonal: positions a token must not attend to."""
  return torch.ones(seq, seq, dtype=torch.bool, device=device).triu(1)


class DecoderLayer(nn.Module):
  """One block. Called as layer(x) it uses its own rotary tables and a
  causal mask (the form scan_layers needs); the tables and mask can also be
  passed in."""

  def __init__(self, config: DecoderConfig):
    super().__init__()
    self.attention_norm = RMSNorm(config.dim, config.norm_eps)
    self.attention = Attention(config)
    self.ffn_norm = RMSNorm(config.dim, config.norm_eps)
    self.feed_forward = FeedForward(config)
    cos, sin = rotary_tables(config.dim // config.num_heads,
                             config.max_seq_len, config.rope_theta)
    self.register_buffer("cos", cos, persistent=False)
    self.register_buffer("sin", sin, persistent=False)

  def forward(self, x, cos=None, sin=None, mask=None):
    seq = x.shape[1]
    if cos is None:
      cos, sin = self.cos[:seq], self.sin[:seq]
    if mask is None:
      mask = causal_mask(seq, x.device)
    x = x + self.attention(self.attention_norm(x), cos, sin, mask)
    return x + self.feed_forward(self.ffn_norm(x))


class Decoder(nn.Module):
  """With `scan=True` the layers run as one loop (scan_layers): traced
  and compiled once whatever the depth, with the same results."""

  def __init__(self, config: DecoderConfig, scan: bool = False):
    super().__init__()
    self.config = config
    self.scan = scan
    self.embedding = nn.Embedding(config.vocab_size, config.dim)
    self.layers = nn.ModuleList(
        DecoderLayer(config) for _ in range(config.num_layers))
    self.norm = RMSNorm(config.dim, config.norm_eps)
    self.output = nn.Linear(config.dim, config.vocab_size, bias=False)

  def forward(self, tokens):
    x = self.embedding(tokens)
    if self.scan:
      from torch_xla.experimental.scan_layers import scan_layers
      x = scan_layers(self.layers, x)
    else:
      for layer in self.layers:
        x = layer(x)
    return self.output(self.norm(x))


def next_token_loss(model: Decoder, tokens):
  """Cross entropy of predicting tokens[:, 1:] from tokens[:, :-1]."""
  logits = model(tokens[:, :-1])
  return F.cross_entropy(
      logits.reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))


def synthetic_batches(config: DecoderConfig, batch: int, seq: int, steps: int,
                      seed: int = 0):
  """Token sequences with learnable structure: each sequence counts up from
  a random start with a random stride (mod vocab), so the loss can fall."""
  generator = torch.Generator().manual_seed(seed)
  for _ in range(steps):
    start = torch.randint(0, config.vocab_size, (batch, 1), generator=generator)
    stride = torch.randint(1, 4, (batch, 1), generator=generator)
    yield (start + stride * torch.arange(seq + 1)) % config.vocab_size
