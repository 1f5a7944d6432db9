"""Hugging Face folders of the LLaMA family (model_type llama, mistral, qwen2, qwen3, phi3, gemma2, gemma3_text, olmo2,
and the mixtures of experts mixtral, qwen3_moe, olmoe), mapped to our names.

    cfg, weights, tokenizer = compute.load_checkpoint("~/models/SmolLM2-135M")

The same folder layout as GPT-2 (compute.loaders.checkpoint): `config.json`, `model.safetensors` or the
shards of `model.safetensors.index.json`, and `tokenizer.json`. nn.Linear stores weights as
(out, in), so every matrix is transposed to our right-multiplied layout:
    model.embed_tokens.weight [d_vocab, d_model]          -> embed.W_E
    layers.l.input_layernorm.weight                       -> blocks.l.ln1.w (RMSNorm: a scale only)
    layers.l.self_attn.q_proj.weight [H*dh, d_model]      -> blocks.l.attn.W_Q [H, d_model, dh]
    layers.l.self_attn.k_proj / v_proj [KV*dh, d_model]   -> blocks.l.attn.W_K / W_V [KV, d_model, dh]
    layers.l.self_attn.{q,k,v}_proj.bias (Qwen2)          -> blocks.l.attn.b_Q / b_K / b_V
    layers.l.self_attn.o_proj.weight [d_model, H*dh]      -> blocks.l.attn.W_O [H, dh, d_model]
    layers.l.self_attn.q_norm / k_norm.weight [dh] (Qwen3) -> blocks.l.attn.q_norm.w / k_norm.w (QK-norm)
    layers.l.post_attention_layernorm.weight              -> blocks.l.ln2.w
    layers.l.mlp.gate_proj / up_proj [d_mlp, d_model]     -> blocks.l.mlp.W_gate / W_in [d_model, d_mlp]
    layers.l.mlp.down_proj [d_model, d_mlp]               -> blocks.l.mlp.W_out [d_mlp, d_model]
    layers.l.block_sparse_moe.gate [E, d_model] (Mixtral) -> blocks.l.moe.W_router [d_model, E]
      .experts.e.w1 / w3 / w2 (gate, up, down)            -> blocks.l.moe.W_gate / W_in / W_out [E, ...]
    layers.l.mlp.gate, .experts.e.gate_proj ... (Qwen3-MoE) the same, experts of moe_intermediate_size
    model.norm.weight                                     -> ln_final.w
    lm_head.weight [d_vocab, d_model]                     -> unembed.W_U [d_model, d_vocab] (untied)
HF's q/k rows are already in rotate_half order (pairs i, i + d/2): no permutation. Qwen2 has
q/k/v biases and none on o_proj: b_O is zeros. Qwen3 is Qwen2 without those biases (attention_bias,
false by default) and with a QK-norm: a per-head RMSNorm of q and k before RoPE (Config.qk_norm).
Mistral's (and Phi-3's) sliding_window applies to every layer; Qwen2's and Qwen3's to the layers their
layer_types (or use_sliding_window + max_window_layers) name.
Phi-3 is LLaMA with two fused products, split here into the names above:
    layers.l.self_attn.qkv_proj.weight [(H + 2 KV)·dh, d_model]   rows [q_proj; k_proj; v_proj]
    layers.l.mlp.gate_up_proj.weight [2·d_mlp, d_model]           rows [gate_proj; up_proj]

Gemma 2 (gemma2) is Gemma 3 without the QK-norm, with one RoPE base for every layer, every other layer
windowed (the even ones), and soft-capping: scores cap·tanh(s / cap) before the mask (attn_logit_softcapping)
and the logits the same (final_logit_softcapping). Gemma 3 (gemma3_text) has four norms per block (Gemma 2
too) and stores each RMSNorm weight w as Gemma's x·(1 + w) uses it (1 is added here; a GGUF file holds
1 + w already):
    layers.l.input_layernorm / pre_feedforward_layernorm  -> blocks.l.ln1.w / ln2.w (before attention, MLP)
    layers.l.post_attention_layernorm / post_feedforward_layernorm -> blocks.l.ln1_post.w / ln2_post.w (after)
with the tanh-GELU gate (GeGLU), embeddings · √hidden_size, scores · query_pre_attn_scalar^-1/2, and the
sliding layers of layer_types windowed and rotated with their own base (rope_parameters.sliding_attention,
or rope_local_base_freq). OLMo 2 (olmo2) has no norm before attention or the MLP, only after:
    layers.l.post_attention_layernorm / post_feedforward_layernorm -> blocks.l.ln1_post.w / ln2_post.w
and a QK-norm over all heads' q (k) at once: self_attn.q_norm [H*dh], k_norm [KV*dh].
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from ..config import Config, ConfigError

MODEL_TYPES = ("llama", "mistral", "qwen2", "qwen3", "phi3", "gemma2", "gemma3_text", "olmo2", "mixtral", "qwen3_moe",
               "olmoe")
ARCHITECTURES = {"llama": ("LlamaForCausalLM", "LlamaModel"),
                 "mistral": ("MistralForCausalLM", "MistralModel"),
                 "qwen2": ("Qwen2ForCausalLM", "Qwen2Model"),
                 "qwen3": ("Qwen3ForCausalLM", "Qwen3Model"),
                 "phi3": ("Phi3ForCausalLM", "Phi3Model"),
                 "gemma2": ("Gemma2ForCausalLM", "Gemma2Model"),
                 "gemma3_text": ("Gemma3ForCausalLM", "Gemma3TextModel"),
                 "olmo2": ("Olmo2ForCausalLM", "Olmo2Model"),
                 "mixtral": ("MixtralForCausalLM", "MixtralModel"),
                 "qwen3_moe": ("Qwen3MoeForCausalLM", "Qwen3MoeModel"),
                 "olmoe": ("OlmoeForCausalLM", "OlmoeModel")}
GEMMA = ("gemma2", "gemma3_text")
# Gemma 2: soft-capped scores and logits, one RoPE base, every other layer windowed (layer 0 first).
SOFTCAP = ("gemma2",)
# The HF names of each block's norms: (before attention, after it, before the MLP, after it); None = none.
SANDWICH = ("input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm")
NORM_NAMES = {
    "gemma2": SANDWICH,
    "gemma3_text": SANDWICH,
    "olmo2": (None, "post_attention_layernorm", None, "post_feedforward_layernorm"),
}
LLAMA_NORMS = ("input_layernorm", None, "post_attention_layernorm", None)
# The Qwen layout: windows only with use_sliding_window (layer_types or max_window_layers).
QWEN = ("qwen2", "qwen3", "qwen3_moe")
QK_NORM = ("qwen3", "qwen3_moe", "gemma3_text", "olmo2", "olmoe")   # an RMSNorm of q and k before RoPE
QK_NORM_ALL_HEADS = ("olmo2", "olmoe")           # ... over all heads' q (k) at once, not per head
# Mistral's layout: one sliding_window for every layer.
EVERY_LAYER_WINDOW = ("mistral", "phi3")
# Fused q/k/v and gate/up products (rows stacked in that order), split on loading.
FUSED = ("phi3",)
# Mixtures of experts: where each layer's router and experts are, and the names of an expert's
# gate, up and down projections (Mixtral's w1, w3, w2; Qwen3-MoE's as a dense SwiGLU's).
EXPERTS = {"mixtral": ("block_sparse_moe.", ("w1", "w3", "w2")),
           "qwen3_moe": ("mlp.", ("gate_proj", "up_proj", "down_proj")),
           "olmoe": ("mlp.", ("gate_proj", "up_proj", "down_proj"))}
# Buffers older checkpoints carry (RoPE frequencies): not weights.
IGNORED_SUFFIXES = (".rotary_emb.inv_freq",)


def _problem(problems: list[str], text: str) -> None:
    problems.append(f"config.json: {text}")


def _whole(raw: dict, key: str, problems: list[str], default: Any = None) -> int | None:
    value = raw.get(key, default)
    if value is None and default is None:
        if key not in raw:
            _problem(problems, f"{key} is missing")
        else:
            _problem(problems, f"{key}=null must be a whole number >= 1")
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        _problem(problems, f"{key}={value!r} must be a whole number >= 1")
        return None
    return value


def _number(raw: dict, key: str, problems: list[str], default: float) -> float | None:
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        _problem(problems, f"{key}={value!r} must be a positive number")
        return None
    return float(value)


def _rope(raw: dict, problems: list[str]) -> tuple[float | None, float]:
    """(rope_theta, partial_rotary_factor) from transformers 5's rope_parameters or 4's
    rope_theta + rope_scaling; only the default (unscaled) RoPE is supported."""
    params = raw.get("rope_parameters")
    scaling = raw.get("rope_scaling")
    if params is not None and not isinstance(params, dict):
        _problem(problems, f"rope_parameters={params!r} must be an object")
        params = None
    source = params if params else raw
    theta = _number(source, "rope_theta", problems, 10000.0)
    kind = (params or {}).get("rope_type", "default")
    if scaling is not None:
        kind = scaling.get("rope_type", scaling.get("type")) if isinstance(scaling, dict) else scaling
    if kind not in ("default", None):
        _problem(problems, f"RoPE scaling {kind!r} is not supported (only the default RoPE: "
                           "rope_type 'default', rope_scaling null)")
    factor = source.get("partial_rotary_factor", raw.get("partial_rotary_factor", 1.0))
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not 0 < factor <= 1:
        _problem(problems, f"partial_rotary_factor={factor!r} must be in (0, 1]")
        factor = 1.0
    return theta, float(factor)


def _gemma_rope(raw: dict, problems: list[str]) -> tuple[float | None, float | None, float]:
    """(global base, local base, partial_rotary_factor) of a Gemma 3 config: transformers 5's
    rope_parameters per layer type, or 4's rope_theta and rope_local_base_freq."""
    params = raw.get("rope_parameters")
    if isinstance(params, dict) and "full_attention" in params:
        full, sliding = params.get("full_attention"), params.get("sliding_attention", params.get("full_attention"))
        if not isinstance(full, dict) or not isinstance(sliding, dict):
            _problem(problems, "rope_parameters.full_attention and .sliding_attention must be objects")
            return None, None, 1.0
        theta, _ = _rope({"rope_parameters": full}, problems)
        local, _ = _rope({"rope_parameters": sliding}, problems)
        return theta, local, 1.0
    theta, partial = _rope(raw, problems)
    return theta, _number(raw, "rope_local_base_freq", problems, 10000.0), partial


def _windows(raw: dict, model_type: str, n_layers: int, problems: list[str]) -> tuple | None:
    """Per-layer windows: Mistral's sliding_window everywhere; Qwen2's on the layers it names."""
    window = raw.get("sliding_window")
    if window is not None and (isinstance(window, bool) or not isinstance(window, int) or window < 1):
        _problem(problems, f"sliding_window={window!r} must be a whole number >= 1 or null")
        return None
    layer_types = raw.get("layer_types")
    if layer_types is not None:
        if (not isinstance(layer_types, list) or len(layer_types) != n_layers
                or any(t not in ("full_attention", "sliding_attention") for t in layer_types)):
            _problem(problems, f"layer_types must list 'full_attention' or 'sliding_attention' for each of "
                               f"the {n_layers} layers")
            return None
        if "sliding_attention" in layer_types and window is None:
            _problem(problems, "layer_types has sliding_attention layers but sliding_window is null")
            return None
        if model_type in QWEN and not raw.get("use_sliding_window", False):
            return None                           # HF's Qwen2/3 honour layer_types only when enabled
        return tuple(window if t == "sliding_attention" else None for t in layer_types)
    if window is None:
        return None
    if model_type in SOFTCAP:                     # Gemma 2 without layer_types: even layers local (HF's default)
        return tuple(window if layer % 2 == 0 else None for layer in range(n_layers))
    if model_type in GEMMA:                       # no layer_types: every 6th layer global (HF's default)
        return tuple(None if (layer + 1) % 6 == 0 else window for layer in range(n_layers))
    if model_type in EVERY_LAYER_WINDOW:
        return (window,) * n_layers
    if model_type in QWEN and raw.get("use_sliding_window", False):
        first = raw.get("max_window_layers", n_layers)
        if isinstance(first, bool) or not isinstance(first, int) or first < 0:
            _problem(problems, f"max_window_layers={first!r} must be a whole number >= 0")
            return None
        return tuple(window if layer >= first else None for layer in range(n_layers))
    return None


def _experts(raw: dict, model_type: str, problems: list[str]) -> tuple[int, int, bool]:
    """(n_experts, experts_per_token, norm_topk) of a mixture of experts; (0, 0, True) for a dense MLP.
    Mixtral always renormalises the chosen weights; Qwen3-MoE and OLMoE when norm_topk_prob says so."""
    if model_type not in EXPERTS:
        return 0, 0, True
    # transformers 5 writes num_local_experts for both; Qwen3-MoE folders of the hub say num_experts
    key = "num_experts" if "num_experts" in raw and "num_local_experts" not in raw else "num_local_experts"
    n = _whole(raw, key, problems)
    k = _whole(raw, "num_experts_per_tok", problems)
    norm = True if model_type == "mixtral" else raw.get("norm_topk_prob", False)
    if not isinstance(norm, bool):
        _problem(problems, f"norm_topk_prob={norm!r} must be true or false")
    if model_type == "olmoe" and raw.get("clip_qkv") is not None:
        _problem(problems, f"clip_qkv={raw['clip_qkv']!r} is not supported (q, k and v clamped: only null)")
    if model_type == "qwen3_moe":
        step, dense = raw.get("decoder_sparse_step", 1), raw.get("mlp_only_layers", [])
        if step != 1 or dense:
            _problem(problems, f"decoder_sparse_step={step!r}, mlp_only_layers={dense!r}: layers with a dense MLP "
                               "between the mixtures of experts are not supported (only every layer a mixture)")
    if n is not None and k is not None and k > n:
        _problem(problems, f"num_experts_per_tok={k} is more than the {n} experts")
    return (n or 0), (k or 0), bool(norm)


def config_from_json(raw: dict, folder: Path, error) -> Config:
    """Our Config for a llama/mistral/qwen2/qwen3 config.json (already known to be a JSON object)."""
    model_type = raw.get("model_type")
    archs = raw.get("architectures") or []
    if not isinstance(archs, list) or any(a not in ARCHITECTURES[model_type] for a in archs):
        raise error(f"unsupported architecture {archs!r}; supported for model_type {model_type!r}: "
                    f"{', '.join(ARCHITECTURES[model_type])}", folder)
    problems: list[str] = []
    gemma = model_type in GEMMA
    if gemma:
        act = raw.get("hidden_activation", raw.get("hidden_act", "gelu_pytorch_tanh"))
        if act not in ("gelu_pytorch_tanh", "gelu_tanh"):
            _problem(problems, f"hidden_activation={act!r} is not supported (Gemma's GeGLU uses 'gelu_pytorch_tanh')")
        if model_type not in SOFTCAP:
            for key in ("final_logit_softcapping", "attn_logit_softcapping"):
                if raw.get(key) is not None:
                    _problem(problems, f"{key}={raw[key]!r}: soft-capping is Gemma 2's; this {model_type} has none")
        if raw.get("use_bidirectional_attention"):
            _problem(problems, "use_bidirectional_attention=true is not supported (a causal decoder only)")
    else:
        act = raw.get("hidden_act", "silu")
        if act != "silu":
            _problem(problems, f"hidden_act={act!r} is not supported (a SwiGLU MLP uses 'silu')")
    if raw.get("pretraining_tp", 1) not in (1, None):
        _problem(problems, f"pretraining_tp={raw.get('pretraining_tp')!r} is not supported (only 1)")
    d_model = _whole(raw, "hidden_size", problems)
    n_heads = _whole(raw, "num_attention_heads", problems)
    n_layers = _whole(raw, "num_hidden_layers", problems)
    d_vocab = _whole(raw, "vocab_size", problems)
    d_mlp = _whole(raw, "intermediate_size", problems)
    n_ctx = _whole(raw, "max_position_embeddings", problems)
    n_kv = raw.get("num_key_value_heads")
    if n_kv is not None:
        n_kv = _whole(raw, "num_key_value_heads", problems)
    head_dim = raw.get("head_dim")
    if head_dim is not None:
        head_dim = _whole(raw, "head_dim", problems)
    elif d_model and n_heads:
        if d_model % n_heads:
            _problem(problems, f"hidden_size={d_model} is not divisible by num_attention_heads={n_heads} "
                               "(and no head_dim is given)")
        head_dim = d_model // n_heads or None
    eps = _number(raw, "rms_norm_eps", problems, 1e-6)
    theta_local, scalar, caps = None, None, (None, None)
    if model_type in SOFTCAP:                     # Gemma 2: one RoPE base for every layer
        theta, partial = _rope(raw, problems)
        scalar = _number(raw, "query_pre_attn_scalar", problems, head_dim or 256)
        caps = tuple(None if raw.get(key) is None else _number(raw, key, problems, 1.0)
                     for key in ("attn_logit_softcapping", "final_logit_softcapping"))
    elif gemma:
        theta, theta_local, partial = _gemma_rope(raw, problems)
        scalar = _number(raw, "query_pre_attn_scalar", problems, head_dim or 256)
    else:
        theta, partial = _rope(raw, problems)
    tied = raw.get("tie_word_embeddings", gemma)
    if not isinstance(tied, bool):
        _problem(problems, f"tie_word_embeddings={tied!r} must be true or false")
    bias = raw.get("attention_bias", False) if model_type != "qwen2" else True
    mlp_bias = raw.get("mlp_bias", False)
    for key, value in (("attention_bias", bias), ("mlp_bias", mlp_bias)):
        if not isinstance(value, bool):
            _problem(problems, f"{key}={value!r} must be true or false")
    windows = _windows(raw, model_type, n_layers, problems) if n_layers else None
    n_experts, top_k, norm_topk = _experts(raw, model_type, problems)
    if model_type == "qwen3_moe":
        d_mlp = _whole(raw, "moe_intermediate_size", problems)      # each expert's width
    if problems:
        raise error(problems, folder)
    rotary_dim = int(head_dim * partial)
    try:
        norms = NORM_NAMES.get(model_type, LLAMA_NORMS)
        return Config(d_model=d_model, n_heads=n_heads, d_head=head_dim, n_ctx=n_ctx, d_vocab=d_vocab,
                      n_layers=n_layers, d_mlp=d_mlp, norm="rmsnorm", norm_eps=eps, positions="rope",
                      rope_theta=theta, rotary_dim=rotary_dim, n_kv_heads=n_kv, mlp="geglu" if gemma else "swiglu",
                      tied_embeddings=tied, attn_bias=bias, mlp_bias=mlp_bias, windows=windows,
                      qk_norm=model_type in QK_NORM, qk_norm_scope="all" if model_type in QK_NORM_ALL_HEADS else "head",
                      pre_norms=norms[0] is not None, post_norms=norms[1] is not None,
                      rope_theta_local=theta_local if windows is not None else None, scale_embed=gemma,
                      query_pre_attn_scalar=scalar, n_experts=n_experts, experts_per_token=top_k,
                      norm_topk=norm_topk, attn_softcap=caps[0], final_softcap=caps[1],
                      name=folder.name or "checkpoint")
    except ConfigError as exc:
        raise error(f"config.json gives an impossible model: {exc}", folder) from None


def hf_shapes(cfg: Config, model_type: str) -> dict[str, tuple[int, ...]]:
    """Every tensor such a checkpoint must have for `cfg`, HF names (without `model.`) and shapes."""
    dm, H, KV, dh, mlp = cfg.d_model, cfg.n_heads, cfg.n_kv_heads, cfg.d_head, cfg.d_mlp
    shapes = {"embed_tokens.weight": (cfg.d_vocab, dm)}
    norms = [n for n in NORM_NAMES.get(model_type, LLAMA_NORMS) if n is not None]
    qw, kw = ((H * dh,), (KV * dh,)) if cfg.components.attention.qk_norm_all_heads else ((dh,), (dh,))
    for layer in range(cfg.n_layers):
        p = f"layers.{layer}."
        shapes.update({
            **{p + n + ".weight": (dm,) for n in norms},
            p + "self_attn.q_proj.weight": (H * dh, dm), p + "self_attn.k_proj.weight": (KV * dh, dm),
            p + "self_attn.v_proj.weight": (KV * dh, dm), p + "self_attn.o_proj.weight": (dm, H * dh),
            **({p + "self_attn.q_norm.weight": qw, p + "self_attn.k_norm.weight": kw} if cfg.qk_norm else {}),
        })
        if cfg.n_experts:                                                # the router and each expert
            where, (gate, up, down) = EXPERTS[model_type]
            shapes[p + where + "gate.weight"] = (cfg.n_experts, dm)
            for e in range(cfg.n_experts):
                x = f"{p}{where}experts.{e}."
                shapes.update({x + gate + ".weight": (mlp, dm), x + up + ".weight": (mlp, dm),
                               x + down + ".weight": (dm, mlp)})
        else:
            shapes.update({p + "mlp.gate_proj.weight": (mlp, dm), p + "mlp.up_proj.weight": (mlp, dm),
                           p + "mlp.down_proj.weight": (dm, mlp)})
        if cfg.attn_bias:
            shapes.update({p + "self_attn.q_proj.bias": (H * dh,), p + "self_attn.k_proj.bias": (KV * dh,),
                           p + "self_attn.v_proj.bias": (KV * dh,)})
            if model_type != "qwen2":
                shapes[p + "self_attn.o_proj.bias"] = (dm,)
        if cfg.mlp_bias:
            shapes.update({p + "mlp.gate_proj.bias": (mlp,), p + "mlp.up_proj.bias": (mlp,),
                           p + "mlp.down_proj.bias": (dm,)})
    shapes["norm.weight"] = (dm,)
    if not cfg.tied_embeddings:
        shapes["lm_head.weight"] = (cfg.d_vocab, dm)
    return _fused_shapes(shapes) if model_type in FUSED else shapes


# The fused tensor each separate one is a block of rows of (Phi-3), in row order.
_FUSED_PARTS = {"self_attn.qkv_proj": ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj"),
                "mlp.gate_up_proj": ("mlp.gate_proj", "mlp.up_proj")}


def _fused_shapes(shapes: dict) -> dict:
    """The separate q/k/v and gate/up shapes replaced by their fused tensors' (rows stacked)."""
    out = {}
    for name, shape in shapes.items():
        for fused, parts in _FUSED_PARTS.items():
            part = next((q for q in parts if f".{q}." in name), None)
            if part is None:
                continue
            if part == parts[0]:                                            # the fused tensor, once
                rows = sum(shapes[name.replace(part, other)][0] for other in parts)
                out[name.replace(part, fused)] = (rows, *shape[1:])
            break
        else:
            out[name] = shape
    return out


def unfused(cfg: Config, hf: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Phi-3's fused qkv_proj and gate_up_proj split by rows into the llama names (no copy)."""
    dh, H, KV = cfg.d_head, cfg.n_heads, cfg.n_kv_heads
    sizes = {"self_attn.qkv_proj": (H * dh, KV * dh, KV * dh), "mlp.gate_up_proj": (cfg.d_mlp, cfg.d_mlp)}
    out = {}
    for name, arr in hf.items():
        fused = next((f for f in _FUSED_PARTS if f".{f}." in name), None)
        if fused is None:
            out[name] = arr
            continue
        edges = np.cumsum((0, *sizes[fused]))                               # row offsets of the parts
        for part, a, b in zip(_FUSED_PARTS[fused], edges[:-1], edges[1:], strict=True):
            out[name.replace(fused, part)] = arr[a:b]                      # [rows of this part, ...]
    return out


def strip_prefix(entries: dict) -> dict:
    """Drop the `model.` prefix of *ForCausalLM (lm_head.weight has none)."""
    return {n.removeprefix("model."): e for n, e in entries.items()}


def unexpected(names, expected: dict) -> list[str]:
    """Names that are neither expected nor a known buffer (a tied lm_head is allowed)."""
    return sorted(n for n in names if n not in expected and n != "lm_head.weight"
                  and not n.endswith(IGNORED_SUFFIXES))


def hf_to_ours(cfg: Config, hf: dict[str, np.ndarray], model_type: str = "llama",
               norms_plus_one: bool | None = None) -> dict[str, np.ndarray]:
    """HF llama-family tensors (names without `model.`) to our names and layouts
    (docs/ARCHITECTURE.md, "Model families"). Gemma's norm weights w become 1 + w unless
    `norms_plus_one` is False (a GGUF file stores 1 + w)."""
    dm, H, KV, dh = cfg.d_model, cfg.n_heads, cfg.n_kv_heads, cfg.d_head
    hf = unfused(cfg, hf)                                                # Phi-3's fused products, split
    plus_one = model_type in GEMMA if norms_plus_one is None else norms_plus_one
    pre1, post1, pre2, post2 = NORM_NAMES.get(model_type, LLAMA_NORMS)

    def norm_w(w: np.ndarray) -> np.ndarray:
        """The factor that multiplies the normalized x: Gemma's x·(1 + w)."""
        return (w + np.float32(1.0)).astype(w.dtype) if plus_one else w

    def heads_in(w: np.ndarray, n: int) -> np.ndarray:
        return w.reshape(n, dh, dm).transpose(0, 2, 1)                  # (n*dh, d_model) -> [n, d_model, dh]

    out = {"embed.W_E": hf["embed_tokens.weight"]}                       # [d_vocab, d_model]
    for layer in range(cfg.n_layers):
        h, p = f"layers.{layer}.", f"blocks.{layer}."
        norms = {"ln1.w": pre1, "ln1_post.w": post1, "ln2.w": pre2, "ln2_post.w": post2}
        out.update({p + ours: norm_w(hf[h + theirs + ".weight"])            # [d_model] each
                    for ours, theirs in norms.items() if theirs})
        out.update({
            p + "attn.W_Q": heads_in(hf[h + "self_attn.q_proj.weight"], H),  # [H, d_model, dh]
            p + "attn.W_K": heads_in(hf[h + "self_attn.k_proj.weight"], KV),  # [KV, d_model, dh]
            p + "attn.W_V": heads_in(hf[h + "self_attn.v_proj.weight"], KV),  # [KV, d_model, dh]
            # o_proj is (out, in): z_concat @ o_proj.T, whose rows h*dh + e split by head.
            p + "attn.W_O": hf[h + "self_attn.o_proj.weight"].T.reshape(H, dh, dm),  # [H, dh, d_model]
        })
        if cfg.n_experts:                                                # E experts stacked, (out, in) transposed
            where, (gate, up, down) = EXPERTS[model_type]
            x = [f"{h}{where}experts.{e}." for e in range(cfg.n_experts)]
            out.update({
                p + "moe.W_router": hf[h + where + "gate.weight"].T,         # [d_model, E]
                p + "moe.W_gate": np.stack([hf[e + gate + ".weight"].T for e in x]),   # [E, d_model, d_mlp]
                p + "moe.W_in": np.stack([hf[e + up + ".weight"].T for e in x]),       # [E, d_model, d_mlp]
                p + "moe.W_out": np.stack([hf[e + down + ".weight"].T for e in x]),    # [E, d_mlp, d_model]
            })
        else:
            out.update({
                p + "mlp.W_gate": hf[h + "mlp.gate_proj.weight"].T,          # [d_model, d_mlp]
                p + "mlp.W_in": hf[h + "mlp.up_proj.weight"].T,              # [d_model, d_mlp]
                p + "mlp.W_out": hf[h + "mlp.down_proj.weight"].T,           # [d_mlp, d_model]
            })
        if cfg.qk_norm:                                                  # per head (OLMo 2: all heads)
            out[p + "attn.q_norm.w"] = norm_w(hf[h + "self_attn.q_norm.weight"])  # [dh] ([H*dh])
            out[p + "attn.k_norm.w"] = norm_w(hf[h + "self_attn.k_norm.weight"])  # [dh] ([KV*dh])
        if cfg.attn_bias:
            out.update({
                p + "attn.b_Q": hf[h + "self_attn.q_proj.bias"].reshape(H, dh),    # [H, dh]
                p + "attn.b_K": hf[h + "self_attn.k_proj.bias"].reshape(KV, dh),   # [KV, dh]
                p + "attn.b_V": hf[h + "self_attn.v_proj.bias"].reshape(KV, dh),   # [KV, dh]
                p + "attn.b_O": hf.get(h + "self_attn.o_proj.bias", np.zeros(dm, np.float32)),  # [d_model]
            })
        if cfg.mlp_bias:
            out.update({p + "mlp.b_gate": hf[h + "mlp.gate_proj.bias"], p + "mlp.b_in": hf[h + "mlp.up_proj.bias"],
                        p + "mlp.b_out": hf[h + "mlp.down_proj.bias"]})
    out["ln_final.w"] = norm_w(hf["norm.weight"])                         # [d_model]
    if not cfg.tied_embeddings:
        out["unembed.W_U"] = hf["lm_head.weight"].T                       # [d_model, d_vocab]
    return out


def headline(cfg: Config, entries: dict) -> list[str]:
    """config.json's sizes against the tensors' (one line each, before the per-tensor list)."""
    lines = []
    for name, key, axis, value in (("embed_tokens.weight", "vocab_size", 0, cfg.d_vocab),
                                   ("embed_tokens.weight", "hidden_size", 1, cfg.d_model),
                                   ("layers.0.mlp.up_proj.weight", "intermediate_size", 0, cfg.d_mlp),
                                   ("layers.0.self_attn.k_proj.weight", "num_key_value_heads * head_dim", 0,
                                    cfg.n_kv_heads * cfg.d_head)):
        shape = entries[name][1] if name in entries else None
        if shape is not None and len(shape) == 2 and shape[axis] != value:
            lines.append(f"config.json says {key}={value} but {name} has shape {shape}")
    return lines
