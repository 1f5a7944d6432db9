"""Tiny random Hugging Face checkpoints of the LLaMA family, saved as real folders, and HF's own
float64 forward pass on them (the oracle the loaders and backends are compared with).

HF's modules compute RMSNorm, the RoPE frequencies and the softmax in float32 even in a float64
model; `float64_hf()` runs them in float64 (their code, with torch.float32 read as float64), so a
comparison at 1e-8 measures the mapping and the math, not HF's rounding.
"""
from __future__ import annotations

import contextlib
import json
import math
from pathlib import Path

import numpy as np
import torch

CORPUS = ["the cat sat on the mat", "the dog ran to the big red hat", "a cat and a dog saw it",
          "it is the mat of the cat", "the capital of france is paris", "the capital of germany is berlin"]


def write_bpe_tokenizer(folder: Path, vocab_size: int = 60, bos: bool = False) -> None:
    """A small BPE (trained here on CORPUS) saved as tokenizer.json; with `bos`, it prepends <s>."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tok.train_from_iterator(CORPUS * 4, trainers.BpeTrainer(vocab_size=vocab_size,
                                                            special_tokens=["<unk>", "<s>", "</s>"]))
    if bos:
        tok.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 1)])
    tok.save(str(folder / "tokenizer.json"))


class _Float64Torch:
    """`torch` as a module sees it, with float32 (and float) meaning float64."""

    def __init__(self, real):
        self._real = real

    def __getattr__(self, name):
        if name in ("float32", "float"):
            return self._real.float64
        return getattr(self._real, name)


_FAMILY_MODULES = ("llama", "mistral", "qwen2", "qwen3", "phi3", "gpt_neox", "olmo2", "mixtral", "qwen3_moe", "olmoe",
                   "gemma2")


def _mixtral_router_float64(self, hidden_states):
    """MixtralTopKRouter.forward with its `router_logits.float()` (a float32 cast torch's module
    attribute cannot reach) left in the model's dtype; otherwise HF's own steps."""
    hidden_states = hidden_states.reshape(-1, self.hidden_dim)
    router_logits = torch.nn.functional.linear(hidden_states, self.weight)             # (seq_len, E)
    router_probs = torch.nn.functional.softmax(router_logits, dim=-1)
    router_top_value, router_indices = torch.topk(router_probs, self.top_k, dim=-1)    # (seq_len, k)
    router_top_value /= router_top_value.sum(dim=-1, keepdim=True)
    return router_logits, router_top_value, router_indices


@contextlib.contextmanager
def float64_hf():
    """Within: HF's llama/mistral/qwen2/qwen3/phi3/gpt_neox/olmo2/mixtral/qwen3_moe/olmoe/gemma2 modules compute in
    float64 where they would cast to float32."""
    import importlib

    mods = [importlib.import_module(f"transformers.models.{m}.modeling_{m}") for m in _FAMILY_MODULES]
    saved = [m.torch for m in mods]
    router = mods[_FAMILY_MODULES.index("mixtral")].MixtralTopKRouter
    saved_router = router.forward
    gemma2_norm = mods[_FAMILY_MODULES.index("gemma2")].Gemma2RMSNorm     # its x.float(): a tensor method
    saved_norm = gemma2_norm.forward
    try:
        for m in mods:
            m.torch = _Float64Torch(torch)
        router.forward = _mixtral_router_float64
        gemma2_norm.forward = lambda self, x: self._norm(x) * (1.0 + self.weight)
        yield
    finally:
        for m, t in zip(mods, saved, strict=True):
            m.torch = t
        router.forward = saved_router
        gemma2_norm.forward = saved_norm


def make_hf_model(model_type: str, seed: int = 0, **config):
    """A random HF model of the family, weights re-drawn large enough that every pattern is
    far from uniform and every bias and norm scale matters."""
    import transformers

    cls_cfg = {"llama": transformers.LlamaConfig, "mistral": transformers.MistralConfig,
               "qwen2": transformers.Qwen2Config, "qwen3": transformers.Qwen3Config,
               "phi3": transformers.Phi3Config, "gpt_neox": transformers.GPTNeoXConfig,
               "olmo2": transformers.Olmo2Config,
               "mixtral": transformers.MixtralConfig, "qwen3_moe": transformers.Qwen3MoeConfig,
               "olmoe": transformers.OlmoeConfig, "gemma2": transformers.Gemma2Config}[model_type]
    cls_model = {"llama": transformers.LlamaForCausalLM, "mistral": transformers.MistralForCausalLM,
                 "qwen2": transformers.Qwen2ForCausalLM, "qwen3": transformers.Qwen3ForCausalLM,
                 "phi3": transformers.Phi3ForCausalLM, "gpt_neox": transformers.GPTNeoXForCausalLM,
                 "olmo2": transformers.Olmo2ForCausalLM, "mixtral": transformers.MixtralForCausalLM,
                 "qwen3_moe": transformers.Qwen3MoeForCausalLM, "olmoe": transformers.OlmoeForCausalLM,
                 "gemma2": transformers.Gemma2ForCausalLM}[model_type]
    base = dict(vocab_size=60, hidden_size=16, intermediate_size=24, num_hidden_layers=2,
                num_attention_heads=4, max_position_embeddings=64, tie_word_embeddings=False)
    if model_type == "gpt_neox":                    # LayerNorm, no K/V sharing
        base.update(layer_norm_eps=1e-5)
    else:
        base.update(num_key_value_heads=2, rms_norm_eps=1e-5)
    base.update(config)
    hf_cfg = cls_cfg(**base)
    hf_cfg._attn_implementation = "eager"
    hf_cfg._experts_implementation = "eager"            # a mixture of experts: the per-expert loop (float64)
    torch.manual_seed(seed)
    with float64_hf():
        model = cls_model(hf_cfg)
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith(".bias"):               # (a LayerNorm's bias too)
                p.copy_(0.3 * torch.randn(p.shape, generator=gen))
            elif name.endswith("norm.weight") or "layernorm" in name:
                p.copy_(1.0 + 0.3 * torch.randn(p.shape, generator=gen))
            elif "embed_tokens" in name or "lm_head" in name or "embed_in" in name or "embed_out" in name:
                p.copy_(torch.randn(p.shape, generator=gen))
            else:                                           # ([experts,] out, in): unit-variance outputs
                p.copy_(torch.randn(p.shape, generator=gen) * 1.5 / math.sqrt(p.shape[-1]))
    model.eval()
    return model


def save_hf_folder(model, folder: Path, bos: bool = False) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder, safe_serialization=True)
    write_bpe_tokenizer(folder, vocab_size=model.config.vocab_size, bos=bos)
    return folder


def hf_forward(model, ids) -> tuple[np.ndarray, list[np.ndarray]]:
    """HF's float64 logits [T, vocab] and each layer's attention pattern [H, T, T]."""
    out = hf_outputs(model, ids)
    return out.logits[0].numpy(), [a[0].numpy() for a in out.attentions]


def hf_outputs(model, ids, **kwargs):
    """HF's float64 forward's whole output (kwargs: output_router_logits=True, ...)."""
    double = model.double()
    with torch.no_grad(), float64_hf():
        out = double(torch.tensor([list(ids)]), output_attentions=True, use_cache=False, **kwargs)
    model.float()
    return out


def config_json(folder: Path) -> dict:
    return json.loads((folder / "config.json").read_text())
