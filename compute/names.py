"""The one vocabulary of names (DESIGN.md section 3): weights and Trace intermediates, with shapes."""
from __future__ import annotations

from .config import Config

# Per-layer intermediates, in the order the block computes them.
LAYER_NAMES: tuple[str, ...] = (
    "resid_pre", "ln1_mean", "ln1_var", "ln1_out",
    "q", "k", "v",
    "attn_scores_raw", "attn_scores_scaled", "attn_scores", "pattern",
    "z", "z_concat", "result", "attn_out", "resid_mid",
    "ln2_mean", "ln2_var", "ln2_out", "mlp_pre", "mlp_post", "mlp_out", "resid_post",
)
# The attention half of a layer (up to the residual after attention): final before the MLP runs.
ATTENTION_NAMES: tuple[str, ...] = LAYER_NAMES[:LAYER_NAMES.index("resid_mid") + 1]
# The rest: LayerNorm 2, the MLP and the residual after it.
MLP_NAMES: tuple[str, ...] = LAYER_NAMES[len(ATTENTION_NAMES):]
# Whole-model values; they take no layer index. `logits` is computed on first access.
GLOBAL_NAMES: tuple[str, ...] = ("tokens", "embed", "pos_embed", "ln_final_out", "logits")


def layer_values(layer: int, namespace: dict, names: tuple[str, ...] = LAYER_NAMES) -> dict:
    """{(name, layer): namespace[name]} for every per-layer name (or those in `names`). The
    backends name their local variables exactly like the Trace, so `layer_values(layer, locals())`
    collects a layer, and a name a backend forgot is a KeyError at once."""
    return {(name, layer): namespace[name] for name in names}


def trace_shape(name: str, cfg: Config, T: int) -> tuple[int, ...]:
    """The shape of a Trace name for T tokens."""
    dm, H, dh = cfg.d_model, cfg.n_heads, cfg.d_head
    shapes = {
        "tokens": (T,), "embed": (T, dm), "pos_embed": (T, dm), "ln_final_out": (T, dm),
        "logits": (T, cfg.d_vocab),
        "resid_pre": (T, dm), "ln1_mean": (T,), "ln1_var": (T,), "ln1_out": (T, dm),
        "q": (T, H, dh), "k": (T, H, dh), "v": (T, H, dh),
        "attn_scores_raw": (H, T, T), "attn_scores_scaled": (H, T, T),
        "attn_scores": (H, T, T), "pattern": (H, T, T),
        "z": (T, H, dh), "z_concat": (T, H * dh), "result": (T, H, dm),
        "attn_out": (T, dm), "resid_mid": (T, dm),
        "ln2_mean": (T,), "ln2_var": (T,), "ln2_out": (T, dm),
        "mlp_pre": (T, cfg.d_mlp), "mlp_post": (T, cfg.d_mlp), "mlp_out": (T, dm),
        "resid_post": (T, dm),
    }
    return shapes[name]


BLOCK_WEIGHTS: tuple[str, ...] = (
    "ln1.w", "ln1.b",
    "attn.W_Q", "attn.W_K", "attn.W_V", "attn.b_Q", "attn.b_K", "attn.b_V", "attn.W_O", "attn.b_O",
    "ln2.w", "ln2.b",
    "mlp.W_in", "mlp.b_in", "mlp.W_out", "mlp.b_out",
)


def weight_shapes(cfg: Config) -> dict[str, tuple[int, ...]]:
    """Every weight name (TransformerLens state-dict names) with its shape, in canonical order."""
    dm, H, dh, mlp = cfg.d_model, cfg.n_heads, cfg.d_head, cfg.d_mlp
    block = {
        "ln1.w": (dm,), "ln1.b": (dm,),
        "attn.W_Q": (H, dm, dh), "attn.W_K": (H, dm, dh), "attn.W_V": (H, dm, dh),
        "attn.b_Q": (H, dh), "attn.b_K": (H, dh), "attn.b_V": (H, dh),
        "attn.W_O": (H, dh, dm), "attn.b_O": (dm,),
        "ln2.w": (dm,), "ln2.b": (dm,),
        "mlp.W_in": (dm, mlp), "mlp.b_in": (mlp,), "mlp.W_out": (mlp, dm), "mlp.b_out": (dm,),
    }
    shapes = {"embed.W_E": (cfg.d_vocab, dm), "pos_embed.W_pos": (cfg.n_ctx, dm)}
    for layer in range(cfg.n_layers):
        for short in BLOCK_WEIGHTS:
            shapes[f"blocks.{layer}.{short}"] = block[short]
    shapes["ln_final.w"] = (dm,)
    shapes["ln_final.b"] = (dm,)
    return shapes
