"""Small random-init Hugging Face `transformers` models for the model suite
(no downloads): each entry builds a 2-layer model with hidden size 32 and
dropout off, and a batch of inputs with labels (the model computes its own
loss). Seeded: the same call builds the same weights and batches."""

import torch

VOCAB = 64


def _causal_lm_batch(generator):
  ids = torch.randint(0, VOCAB, (2, 8), generator=generator)
  return dict(input_ids=ids, labels=ids)


def llama():
  from transformers import LlamaConfig, LlamaForCausalLM
  return LlamaForCausalLM(
      LlamaConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64,
                  num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, max_position_embeddings=64,
                  attention_dropout=0.0)), _causal_lm_batch


def qwen2():
  from transformers import Qwen2Config, Qwen2ForCausalLM
  return Qwen2ForCausalLM(
      Qwen2Config(vocab_size=VOCAB, hidden_size=32, intermediate_size=64,
                  num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, max_position_embeddings=64,
                  attention_dropout=0.0)), _causal_lm_batch


def gpt2():
  from transformers import GPT2Config, GPT2LMHeadModel
  # Tied input and output embeddings.
  return GPT2LMHeadModel(
      GPT2Config(vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=4,
                 n_positions=64, resid_pdrop=0.0, embd_pdrop=0.0,
                 attn_pdrop=0.0, bos_token_id=0,
                 eos_token_id=0)), _causal_lm_batch


def bert():
  from transformers import BertConfig, BertForMaskedLM

  def batch(generator):
    ids = torch.randint(0, VOCAB, (2, 8), generator=generator)
    labels = torch.where(torch.rand(2, 8, generator=generator) < 0.3, ids,
                         torch.full_like(ids, -100))
    return dict(input_ids=ids, labels=labels)

  return BertForMaskedLM(
      BertConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2,
                 num_attention_heads=4, intermediate_size=64,
                 max_position_embeddings=64, hidden_dropout_prob=0.0,
                 attention_probs_dropout_prob=0.0)), batch


def t5():
  from transformers import T5Config, T5ForConditionalGeneration

  def batch(generator):
    return dict(input_ids=torch.randint(0, VOCAB, (2, 8), generator=generator),
                labels=torch.randint(0, VOCAB, (2, 5), generator=generator))

  # Shared embedding: encoder, decoder and output projection.
  return T5ForConditionalGeneration(
      T5Config(vocab_size=VOCAB, d_model=32, d_kv=8, d_ff=64, num_layers=2,
               num_heads=4, dropout_rate=0.0, decoder_start_token_id=0,
               pad_token_id=0, eos_token_id=1)), batch


def vit():
  from transformers import ViTConfig, ViTForImageClassification

  def batch(generator):
    return dict(pixel_values=torch.randn(2, 3, 16, 16, generator=generator),
                labels=torch.randint(0, 5, (2,), generator=generator))

  return ViTForImageClassification(
      ViTConfig(image_size=16, patch_size=4, num_channels=3, hidden_size=32,
                num_hidden_layers=2, num_attention_heads=4,
                intermediate_size=64, num_labels=5, hidden_dropout_prob=0.0,
                attention_probs_dropout_prob=0.0)), batch


def mixtral():
  from transformers import MixtralConfig, MixtralForCausalLM
  # Mixture of experts: top-2 routing over 4 experts (torch._grouped_mm).
  return MixtralForCausalLM(
      MixtralConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64,
                    num_hidden_layers=2, num_attention_heads=4,
                    num_key_value_heads=2, num_local_experts=4,
                    num_experts_per_tok=2, max_position_embeddings=64,
                    attention_dropout=0.0)), _causal_lm_batch


MODELS = {
    "llama": llama,
    "qwen2": qwen2,
    "gpt2": gpt2,
    "bert": bert,
    "t5": t5,
    "vit": vit,
    "mixtral": mixtral,
}


def build(name, seed=0):
  """(model, batches): the model in train mode, and batches(steps) yielding
  that many input dicts (on the CPU)."""
  torch.manual_seed(seed)
  model, make_batch = MODELS[name]()
  model.train()

  def batches(steps):
    generator = torch.Generator().manual_seed(seed + 1)
    return [make_batch(generator) for _ in range(steps)]

  return model, batches
