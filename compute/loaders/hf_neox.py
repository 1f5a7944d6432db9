"""Hugging Face folders of GPT-NeoX (model_type gpt_neox: Pythia, GPT-NeoX-20B), mapped to our names.

    cfg, weights, tokenizer = compute.load_checkpoint("~/models/pythia-70m")

GPT-NeoX is GPT-2's LayerNorm (with biases) and biased products, with RoPE on the leading
rotary_pct of each head (Pythia: a quarter), attention and MLP in parallel (use_parallel_residual:
resid_post = x + attn(ln1(x)) + mlp(ln2(x))), the exact erf GELU (hidden_act "gelu") and an untied
unembedding. nn.Linear stores (out, in), so matrices are transposed:
    gpt_neox.embed_in.weight [d_vocab, d_model]                -> embed.W_E
    layers.l.input_layernorm.weight / .bias                    -> blocks.l.ln1.w / .b
    layers.l.attention.query_key_value.weight [3·H·dh, d_model] -> rows per head [q; k; v]: the out axis
                                                                  is [H, 3, dh] (NOT [3, H, dh]), split into
                                                                  blocks.l.attn.W_Q / W_K / W_V [H, d_model, dh]
    layers.l.attention.query_key_value.bias [3·H·dh]           -> blocks.l.attn.b_Q / b_K / b_V [H, dh], same order
    layers.l.attention.dense.weight / .bias                    -> blocks.l.attn.W_O [H, dh, d_model] / b_O
    layers.l.post_attention_layernorm.weight / .bias           -> blocks.l.ln2.w / .b
    layers.l.mlp.dense_h_to_4h.weight / .bias                  -> blocks.l.mlp.W_in [d_model, d_mlp] / b_in
    layers.l.mlp.dense_4h_to_h.weight / .bias                  -> blocks.l.mlp.W_out [d_mlp, d_model] / b_out
    gpt_neox.final_layer_norm.weight / .bias                   -> ln_final.w / .b
    embed_out.weight [d_vocab, d_model]                        -> unembed.W_U [d_model, d_vocab]
q and k rotate in rotate_half order over their first rotary_dim dims (no permutation).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..config import Config, ConfigError
from . import hf_llama
from .hf_llama import _number, _problem, _whole

MODEL_TYPES = ("gpt_neox",)
ARCHITECTURES = ("GPTNeoXForCausalLM", "GPTNeoXModel")
# hidden_act -> our MLP: "gelu" is PyTorch's exact GELU, the tanh ones are GPT-2's.
ACTIVATIONS = {"gelu": "gelu_erf", "gelu_new": "gelu", "gelu_pytorch_tanh": "gelu"}
# Buffers older checkpoints carry (the causal mask, RoPE frequencies): not weights.
IGNORED_SUFFIXES = (".attention.bias", ".attention.masked_bias", ".rotary_emb.inv_freq")
PREFIX = "gpt_neox."


def config_from_json(raw: dict, folder: Path, error) -> Config:
    """Our Config for a gpt_neox config.json (already known to be a JSON object)."""
    archs = raw.get("architectures") or []
    if not isinstance(archs, list) or any(a not in ARCHITECTURES for a in archs):
        raise error(f"unsupported architecture {archs!r}; supported for model_type 'gpt_neox': "
                    f"{', '.join(ARCHITECTURES)}", folder)
    problems: list[str] = []
    act = raw.get("hidden_act", "gelu")
    if act not in ACTIVATIONS:
        _problem(problems, f"hidden_act={act!r} is not supported (supported: {', '.join(ACTIVATIONS)})")
    d_model = _whole(raw, "hidden_size", problems)
    n_heads = _whole(raw, "num_attention_heads", problems)
    n_layers = _whole(raw, "num_hidden_layers", problems)
    d_vocab = _whole(raw, "vocab_size", problems)
    d_mlp = _whole(raw, "intermediate_size", problems)
    n_ctx = _whole(raw, "max_position_embeddings", problems)
    if d_model and n_heads and d_model % n_heads:
        _problem(problems, f"hidden_size={d_model} is not divisible by num_attention_heads={n_heads}")
    eps = _number(raw, "layer_norm_eps", problems, 1e-5)
    # transformers 4 names (rotary_emb_base, rotary_pct) or 5's rope_parameters.
    renamed = {**raw, "rope_theta": raw.get("rotary_emb_base", raw.get("rope_theta", 10000.0)),
               "partial_rotary_factor": raw.get("rotary_pct", raw.get("partial_rotary_factor", 0.25))}
    theta, partial = hf_llama._rope(renamed, problems)
    flags = {key: raw.get(key, default) for key, default in (("use_parallel_residual", True),
                                                              ("attention_bias", True),
                                                              ("tie_word_embeddings", False))}
    for key, value in flags.items():
        if not isinstance(value, bool):
            _problem(problems, f"{key}={value!r} must be true or false")
    if problems:
        raise error(problems, folder)
    d_head = d_model // n_heads
    rotary_dim = int(d_head * partial)
    if rotary_dim < 2:
        raise error(f"config.json: rotary_pct={partial} of head size {d_head} rotates {rotary_dim} dims; "
                    "RoPE needs at least one pair", folder)
    try:
        return Config(d_model=d_model, n_heads=n_heads, d_head=d_head, n_ctx=n_ctx, d_vocab=d_vocab,
                      n_layers=n_layers, d_mlp=d_mlp, norm="layernorm", norm_eps=eps, positions="rope",
                      rope_theta=theta, rotary_dim=rotary_dim - rotary_dim % 2, mlp=ACTIVATIONS[act],
                      tied_embeddings=flags["tie_word_embeddings"], attn_bias=flags["attention_bias"],
                      mlp_bias=True, parallel=flags["use_parallel_residual"], name=folder.name or "checkpoint")
    except ConfigError as exc:
        raise error(f"config.json gives an impossible model: {exc}", folder) from None


def hf_shapes(cfg: Config, model_type: str = "gpt_neox") -> dict[str, tuple[int, ...]]:
    """Every tensor such a checkpoint must have for `cfg`, HF names (without `gpt_neox.`) and shapes."""
    dm, dmlp = cfg.d_model, cfg.d_mlp
    qkv = 3 * cfg.n_heads * cfg.d_head
    shapes = {"embed_in.weight": (cfg.d_vocab, dm)}
    for layer in range(cfg.n_layers):
        p = f"layers.{layer}."
        shapes.update({
            p + "input_layernorm.weight": (dm,), p + "input_layernorm.bias": (dm,),
            p + "attention.query_key_value.weight": (qkv, dm),
            p + "attention.dense.weight": (dm, cfg.d_concat),
            p + "post_attention_layernorm.weight": (dm,), p + "post_attention_layernorm.bias": (dm,),
            p + "mlp.dense_h_to_4h.weight": (dmlp, dm), p + "mlp.dense_h_to_4h.bias": (dmlp,),
            p + "mlp.dense_4h_to_h.weight": (dm, dmlp), p + "mlp.dense_4h_to_h.bias": (dm,),
        })
        if cfg.attn_bias:
            shapes.update({p + "attention.query_key_value.bias": (qkv,), p + "attention.dense.bias": (dm,)})
    shapes.update({"final_layer_norm.weight": (dm,), "final_layer_norm.bias": (dm,)})
    if not cfg.tied_embeddings:
        shapes["embed_out.weight"] = (cfg.d_vocab, dm)
    return shapes


def strip_prefix(entries: dict) -> dict:
    """Drop the `gpt_neox.` prefix of GPTNeoXForCausalLM (embed_out.weight has none)."""
    return {n.removeprefix(PREFIX): e for n, e in entries.items()}


def unexpected(names, expected: dict) -> list[str]:
    """Names that are neither expected nor a known buffer (a tied embed_out is allowed)."""
    return sorted(n for n in names if n not in expected and n != "embed_out.weight"
                  and not n.endswith(IGNORED_SUFFIXES))


def hf_to_ours(cfg: Config, hf: dict[str, np.ndarray], model_type: str = "gpt_neox") -> dict[str, np.ndarray]:
    """GPT-NeoX tensors (names without `gpt_neox.`) to our names and layouts."""
    dm, H, dh = cfg.d_model, cfg.n_heads, cfg.d_head
    out = {"embed.W_E": hf["embed_in.weight"]}                              # [d_vocab, d_model]
    for layer in range(cfg.n_layers):
        h, p = f"layers.{layer}.", f"blocks.{layer}."
        qkv = hf[h + "attention.query_key_value.weight"].reshape(H, 3, dh, dm)   # rows [H, (q, k, v), dh]
        out.update({
            p + "ln1.w": hf[h + "input_layernorm.weight"], p + "ln1.b": hf[h + "input_layernorm.bias"],
            p + "attn.W_Q": qkv[:, 0].transpose(0, 2, 1),                   # [H, d_model, dh]
            p + "attn.W_K": qkv[:, 1].transpose(0, 2, 1),                   # [H, d_model, dh]
            p + "attn.W_V": qkv[:, 2].transpose(0, 2, 1),                   # [H, d_model, dh]
            p + "attn.W_O": hf[h + "attention.dense.weight"].T.reshape(H, dh, dm),  # [H, dh, d_model]
            p + "ln2.w": hf[h + "post_attention_layernorm.weight"],
            p + "ln2.b": hf[h + "post_attention_layernorm.bias"],
            p + "mlp.W_in": hf[h + "mlp.dense_h_to_4h.weight"].T,           # [d_model, d_mlp]
            p + "mlp.b_in": hf[h + "mlp.dense_h_to_4h.bias"],               # [d_mlp]
            p + "mlp.W_out": hf[h + "mlp.dense_4h_to_h.weight"].T,          # [d_mlp, d_model]
            p + "mlp.b_out": hf[h + "mlp.dense_4h_to_h.bias"],              # [d_model]
        })
        if cfg.attn_bias:
            b = hf[h + "attention.query_key_value.bias"].reshape(H, 3, dh)  # [H, (q, k, v), dh]
            out.update({p + "attn.b_Q": b[:, 0], p + "attn.b_K": b[:, 1], p + "attn.b_V": b[:, 2],
                        p + "attn.b_O": hf[h + "attention.dense.bias"]})    # [H, dh] x3, [d_model]
    out["ln_final.w"], out["ln_final.b"] = hf["final_layer_norm.weight"], hf["final_layer_norm.bias"]
    if not cfg.tied_embeddings:
        out["unembed.W_U"] = hf["embed_out.weight"].T                       # [d_model, d_vocab]
    return out


def headline(cfg: Config, entries: dict) -> list[str]:
    """config.json's sizes against the tensors' (one line each, before the per-tensor list)."""
    lines = []
    for name, key, axis, value in (("embed_in.weight", "vocab_size", 0, cfg.d_vocab),
                                   ("embed_in.weight", "hidden_size", 1, cfg.d_model),
                                   ("layers.0.mlp.dense_h_to_4h.weight", "intermediate_size", 0, cfg.d_mlp)):
        shape = entries[name][1] if name in entries else None
        if shape is not None and len(shape) == 2 and shape[axis] != value:
            lines.append(f"config.json says {key}={value} but {name} has shape {shape}")
    return lines
