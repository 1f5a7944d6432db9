"""The one vocabulary of names: weights and Trace intermediates, with shapes (docs/ARCHITECTURE.md,
"Names" and "Model families").

A GPT-2 config has exactly the GPT-2 names (LAYER_NAMES, GLOBAL_NAMES, BLOCK_WEIGHTS, kept
for callers that know only GPT-2). Other model families have some names instead of others:
`layer_names(cfg)`, `global_names(cfg)` and `weight_shapes(cfg)` say which a config has, and
`missing_reason(name, cfg)` says in words why a name is absent.
"""
from __future__ import annotations

from functools import lru_cache

from .config import Config
from .i18n import QT_TR_NOOP, Message

# Per-layer intermediates of a GPT-2 block, in the order the block computes them.
LAYER_NAMES: tuple[str, ...] = (
    "resid_pre", "ln1_mean", "ln1_var", "ln1_out",
    "q", "k", "v",
    "attn_scores_raw", "attn_scores_scaled", "attn_scores", "pattern",
    "z", "z_concat", "result", "attn_out", "resid_mid",
    "ln2_mean", "ln2_var", "ln2_out", "mlp_pre", "mlp_post", "mlp_out", "resid_post",
)
# Every per-layer name any model family has, in block order (RMSNorm's scale, QK-norm's normed q
# and k, RoPE's rotated q and k, Gemma 2's soft-capped scores, SwiGLU's linear branch, the norms after
# attention and the MLP are the additions).
ALL_LAYER_NAMES: tuple[str, ...] = (
    "resid_pre", "ln1_mean", "ln1_var", "ln1_scale", "ln1_out",
    "q", "k", "v", "q_normed", "k_normed", "rot_q", "rot_k",
    "attn_scores_raw", "attn_scores_scaled", "attn_scores_capped", "attn_scores", "pattern",
    "z", "z_concat", "result", "attn_out", "attn_out_normed", "resid_mid",
    "ln2_mean", "ln2_var", "ln2_scale", "ln2_out", "router_logits", "router_probs", "expert_weights",
    "expert_out", "mlp_pre", "mlp_pre_linear", "mlp_post", "mlp_out", "mlp_out_normed", "resid_post",
)
# A mixture of experts' router and its chosen experts' outputs (in place of mlp_pre, mlp_post).
EXPERT_NAMES: tuple[str, ...] = ("router_logits", "router_probs", "expert_weights", "expert_out")
_FIRST_MLP = ALL_LAYER_NAMES.index("ln2_mean")
# The attention half of a GPT-2 layer (up to the residual after attention): final before the MLP runs.
ATTENTION_NAMES: tuple[str, ...] = LAYER_NAMES[:LAYER_NAMES.index("resid_mid") + 1]
# The rest: LayerNorm 2, the MLP and the residual after it.
MLP_NAMES: tuple[str, ...] = LAYER_NAMES[len(ATTENTION_NAMES):]
# Whole-model values; they take no layer index. `logits` is computed on first access.
GLOBAL_NAMES: tuple[str, ...] = ("tokens", "embed", "pos_embed", "ln_final_out", "logits")
ALL_GLOBAL_NAMES: tuple[str, ...] = GLOBAL_NAMES


def missing_reason(name: str, cfg: Config) -> str | None:
    """Why `cfg`'s model has no Trace name `name` (None when it has it, or the name is unknown)."""
    why = missing_message(name, cfg)
    return None if why is None else str(why)


def missing_message(name: str, cfg: Config) -> Message | None:
    """missing_reason as a Message the window translates (compute/i18n.py)."""
    c = cfg.components
    stat = name[4:] if name[:4] in ("ln1_", "ln2_") else None
    if stat is not None and not c.pre_norm:
        return Message(QT_TR_NOOP("{name}: this model has no norm before attention and the MLP (OLMo 2): they read "
                                  "the residual stream as it is, and their outputs are normed instead "
                                  "(attn_out_normed, mlp_out_normed)"), name=name)
    if name in ("attn_out_normed", "mlp_out_normed") and c.post_norm is None:
        return Message(QT_TR_NOOP("{name}: this model adds attn_out and mlp_out to the residual stream as they are; "
                                  "only Gemma 2/3 and OLMo 2 norm them first"), name=name)
    if stat in ("mean", "var") and stat not in c.norm.stats:
        return Message(QT_TR_NOOP("{name}: this model uses RMSNorm, which subtracts no mean and keeps no variance; "
                                  "see {scale}, sqrt(mean(x²) + eps)"), name=name, scale=f"{name[:3]}_scale")
    if stat == "scale" and stat not in c.norm.stats:
        return Message(QT_TR_NOOP("{name}: this model uses LayerNorm; see {mean} and {var}"), name=name,
                       mean=f"{name[:3]}_mean", var=f"{name[:3]}_var")
    if name in ("q_normed", "k_normed") and c.attention.qk_norm is None:
        return Message(QT_TR_NOOP("{name}: this model has no QK-norm (q and k go to the scores as they are)"),
                       name=name)
    if name == "attn_scores_capped" and c.attention.softcap is None:
        return Message(QT_TR_NOOP("attn_scores_capped: this model does not soft-cap its scores (only Gemma 2 "
                                  "does: cap·tanh(s / cap) before the mask); the mask takes attn_scores_scaled"))
    if name in ("rot_q", "rot_k") and not c.positions.rotates:
        return Message(QT_TR_NOOP("{name}: this model has learned positions, no RoPE"), name=name)
    if name == "pos_embed" and not c.positions.embeds:
        return Message(QT_TR_NOOP("pos_embed: this model has RoPE positions (q and k are rotated), no learned "
                                  "position embedding"))
    if name in EXPERT_NAMES and c.experts is None:
        return Message(QT_TR_NOOP("{name}: this model's MLP is dense (every token goes through the one MLP); "
                                  "only a mixture of experts has a router"), name=name)
    if name in ("mlp_pre", "mlp_pre_linear", "mlp_post") and c.experts is not None:
        return Message(QT_TR_NOOP("{name}: this model's MLP is a mixture of {n} experts, each token through "
                                  "{k} of them; see router_probs, expert_weights and expert_out"),
                       name=name, n=str(c.experts.n_experts), k=str(c.experts.top_k))
    if name == "mlp_pre_linear" and not c.mlp.gated:
        return Message(QT_TR_NOOP("mlp_pre_linear: this model's MLP is GELU (W_in, GELU, W_out); only SwiGLU and "
                                  "GeGLU have a second, linear branch x·W_in"))
    return None


@lru_cache(maxsize=64)                 # a Config is frozen and hashable; asked on every pass
def layer_names(cfg: Config) -> tuple[str, ...]:
    """The per-layer Trace names of `cfg`'s model, in block order (LAYER_NAMES for GPT-2)."""
    return tuple(n for n in ALL_LAYER_NAMES if missing_reason(n, cfg) is None)


def attention_names(cfg: Config) -> tuple[str, ...]:
    """The names of the attention half of a layer, resid_pre to resid_mid."""
    return tuple(n for n in layer_names(cfg) if ALL_LAYER_NAMES.index(n) < _FIRST_MLP)


def mlp_names(cfg: Config) -> tuple[str, ...]:
    """The names of the MLP half, the second norm to resid_post."""
    return tuple(n for n in layer_names(cfg) if ALL_LAYER_NAMES.index(n) >= _FIRST_MLP)


@lru_cache(maxsize=64)                 # a Config is frozen and hashable; asked on every pass
def global_names(cfg: Config) -> tuple[str, ...]:
    """The whole-model Trace names of `cfg`'s model (no pos_embed with RoPE)."""
    return tuple(n for n in ALL_GLOBAL_NAMES if missing_reason(n, cfg) is None)


def layer_values(layer: int, namespace: dict, names: tuple[str, ...] = LAYER_NAMES) -> dict:
    """{(name, layer): namespace[name]} for every per-layer name (or those in `names`). The
    backends name their local variables exactly like the Trace, so `layer_values(layer, locals())`
    collects a layer, and a name a backend forgot is a KeyError at once."""
    return {(name, layer): namespace[name] for name in names}


def trace_shape(name: str, cfg: Config, T: int) -> tuple[int, ...]:
    """The shape of a Trace name for T tokens."""
    dm, H, KV, dh, mlp = cfg.d_model, cfg.n_heads, cfg.n_kv_heads, cfg.d_head, cfg.d_mlp
    E, k = cfg.n_experts, cfg.experts_per_token
    shapes = {
        "tokens": (T,), "embed": (T, dm), "pos_embed": (T, dm), "ln_final_out": (T, dm),
        "logits": (T, cfg.d_vocab),
        "resid_pre": (T, dm), "ln1_mean": (T,), "ln1_var": (T,), "ln1_scale": (T,), "ln1_out": (T, dm),
        "q": (T, H, dh), "k": (T, KV, dh), "v": (T, KV, dh), "rot_q": (T, H, dh), "rot_k": (T, KV, dh),
        "q_normed": (T, H, dh), "k_normed": (T, KV, dh),
        "attn_scores_raw": (H, T, T), "attn_scores_scaled": (H, T, T), "attn_scores_capped": (H, T, T),
        "attn_scores": (H, T, T), "pattern": (H, T, T),
        "z": (T, H, dh), "z_concat": (T, H * dh), "result": (T, H, dm),
        "attn_out": (T, dm), "attn_out_normed": (T, dm), "resid_mid": (T, dm),
        "ln2_mean": (T,), "ln2_var": (T,), "ln2_scale": (T,), "ln2_out": (T, dm),
        "router_logits": (T, E), "router_probs": (T, E), "expert_weights": (T, E), "expert_out": (T, k, dm),
        "mlp_pre": (T, mlp), "mlp_pre_linear": (T, mlp), "mlp_post": (T, mlp), "mlp_out": (T, dm),
        "mlp_out_normed": (T, dm), "resid_post": (T, dm),
    }
    return shapes[name]


# The weights of a GPT-2 block by short name ("blocks.l." + short is the full name).
BLOCK_WEIGHTS: tuple[str, ...] = (
    "ln1.w", "ln1.b",
    "attn.W_Q", "attn.W_K", "attn.W_V", "attn.b_Q", "attn.b_K", "attn.b_V", "attn.W_O", "attn.b_O",
    "ln2.w", "ln2.b",
    "mlp.W_in", "mlp.b_in", "mlp.W_out", "mlp.b_out",
)


def block_weight_shapes(cfg: Config) -> dict[str, tuple[int, ...]]:
    """The weights one block of `cfg` has, by short name, with shapes, in canonical order."""
    dm, H, KV, dh, mlp = cfg.d_model, cfg.n_heads, cfg.n_kv_heads, cfg.d_head, cfg.d_mlp
    c = cfg.components
    norm_bias, bias, mlp_bias, gated = c.norm.has_bias, c.attention.has_bias, c.mlp.has_bias, c.mlp.gated
    qk = c.attention.qk_norm is not None
    E = cfg.n_experts
    if c.experts is not None:                     # the experts' weights instead of the one MLP's
        gated = mlp_bias = False
    qw, kw = ((H * dh,), (KV * dh,)) if c.attention.qk_norm_all_heads else ((dh,), (dh,))
    pre, post = c.pre_norm, c.post_norm is not None
    block: dict[str, tuple[int, ...] | None] = {
        "ln1.w": (dm,) if pre else None, "ln1.b": (dm,) if norm_bias and pre else None,
        "attn.W_Q": (H, dm, dh), "attn.W_K": (KV, dm, dh), "attn.W_V": (KV, dm, dh),
        "attn.b_Q": (H, dh) if bias else None, "attn.b_K": (KV, dh) if bias else None,
        "attn.b_V": (KV, dh) if bias else None,
        "attn.q_norm.w": qw if qk else None, "attn.k_norm.w": kw if qk else None,
        "attn.W_O": (H, dh, dm), "attn.b_O": (dm,) if bias else None,
        "ln1_post.w": (dm,) if post else None,
        "ln2.w": (dm,) if pre else None, "ln2.b": (dm,) if norm_bias and pre else None,
        "mlp.W_gate": (dm, mlp) if gated else None, "mlp.b_gate": (mlp,) if gated and mlp_bias else None,
        "mlp.W_in": (dm, mlp) if not E else None, "mlp.b_in": (mlp,) if mlp_bias else None,
        "mlp.W_out": (mlp, dm) if not E else None, "mlp.b_out": (dm,) if mlp_bias else None,
        "moe.W_router": (dm, E) if E else None, "moe.W_gate": (E, dm, mlp) if E else None,
        "moe.W_in": (E, dm, mlp) if E else None, "moe.W_out": (E, mlp, dm) if E else None,
        "ln2_post.w": (dm,) if post else None,
    }
    return {short: shape for short, shape in block.items() if shape is not None}


def block_weight_names(cfg: Config) -> tuple[str, ...]:
    """Short names of one block's weights (BLOCK_WEIGHTS for GPT-2)."""
    return tuple(block_weight_shapes(cfg))


def weight_shapes(cfg: Config) -> dict[str, tuple[int, ...]]:
    """Every weight name (TransformerLens state-dict names) with its shape, in canonical order."""
    return dict(_weight_shapes(cfg))                     # a copy: callers may change theirs


@lru_cache(maxsize=16)
def _weight_shapes(cfg: Config) -> dict[str, tuple[int, ...]]:
    dm = cfg.d_model
    shapes = {"embed.W_E": (cfg.d_vocab, dm)}
    if cfg.components.positions.embeds:
        shapes["pos_embed.W_pos"] = (cfg.n_ctx, dm)
    block = block_weight_shapes(cfg)
    for layer in range(cfg.n_layers):
        for short, shape in block.items():
            shapes[f"blocks.{layer}.{short}"] = shape
    shapes["ln_final.w"] = (dm,)
    if cfg.components.norm.has_bias:
        shapes["ln_final.b"] = (dm,)
    if not cfg.tied_embeddings:
        shapes["unembed.W_U"] = (dm, cfg.d_vocab)
    return shapes


def missing_weight_reason(name: str, cfg: Config) -> str | None:
    """Why `cfg`'s model has no weight `name` (None when it has it or the name means nothing)."""
    why = missing_weight_message(name, cfg)
    return None if why is None else str(why)


def missing_weight_message(name: str, cfg: Config) -> Message | None:
    """missing_weight_reason as a Message the window translates."""
    short = name.split(".", 2)[-1] if name.startswith("blocks.") else name
    c = cfg.components
    if short in ("ln1.w", "ln1.b", "ln2.w", "ln2.b") and not c.pre_norm:
        return Message(QT_TR_NOOP("{name}: this model has no norm before attention and the MLP (OLMo 2); see "
                                  "ln1_post.w and ln2_post.w"), name=name)
    if short in ("ln1_post.w", "ln2_post.w") and c.post_norm is None:
        return Message(QT_TR_NOOP("{name}: this model has no norm after attention and the MLP (only Gemma 2/3 and "
                                  "OLMo 2 have one)"), name=name)
    if short in ("ln1.b", "ln2.b", "ln_final.b") and not c.norm.has_bias:
        return Message(QT_TR_NOOP("{name}: RMSNorm has a scale w and no bias"), name=name)
    if name == "pos_embed.W_pos" and not c.positions.embeds:
        return Message(QT_TR_NOOP("{name}: this model has RoPE positions, no learned position embedding"), name=name)
    if short in ("attn.b_Q", "attn.b_K", "attn.b_V", "attn.b_O") and not c.attention.has_bias:
        return Message(QT_TR_NOOP("{name}: this model's attention has no biases (attn_bias=False)"), name=name)
    if short in ("mlp.b_in", "mlp.b_out", "mlp.b_gate") and not c.mlp.has_bias:
        return Message(QT_TR_NOOP("{name}: this model's MLP has no biases (mlp_bias=False)"), name=name)
    if short in ("attn.q_norm.w", "attn.k_norm.w") and c.attention.qk_norm is None:
        return Message(QT_TR_NOOP("{name}: this model has no QK-norm"), name=name)
    if short.startswith("moe.") and c.experts is None:
        return Message(QT_TR_NOOP("{name}: this model's MLP is dense; only a mixture of experts has a router "
                                  "and expert weights"), name=name)
    if short.startswith("mlp.") and c.experts is not None:
        return Message(QT_TR_NOOP("{name}: this model's MLP is a mixture of experts; its weights are "
                                  "moe.W_router, moe.W_gate, moe.W_in and moe.W_out"), name=name)
    if short in ("mlp.W_gate", "mlp.b_gate") and not c.mlp.gated:
        return Message(QT_TR_NOOP("{name}: only a gated MLP (SwiGLU, GeGLU) has a gate; this one is GELU"), name=name)
    if name == "unembed.W_U" and c.tied_embeddings:
        return Message(QT_TR_NOOP("{name}: the unembedding is tied to W_E (logits = ln_final_out @ W_Eᵀ)"), name=name)
    return None
