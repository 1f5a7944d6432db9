"""`reference`: float64 numpy written to read like the equations. The oracle for every test.

One block, for every model family of docs/ARCHITECTURE.md, "Model families":
    ln1_out = norm(resid_pre)                       LayerNorm (mean, var, w, b) or RMSNorm (scale, w)
    q, k, v = ln1_out @ W_Q, W_K, W_V (+ b)         k and v have n_kv_heads heads
    rot_q, rot_k = RoPE(q), RoPE(k)                 with RoPE only: each pair (i, i + r/2) rotated
    scores  = q_h · k_{h // n_groups}               query head h reads its group's K/V head
    pattern = softmax(scores / sqrt(d_head), masked: causal, window, attn_mask)
    z = pattern @ v_{h // n_groups};  attn_out = Σ_h z_h @ W_O[h] + b_O
    mlp: GELU(x W_in + b_in) W_out,  or  (SiLU(x W_gate) ⊙ x W_in) W_out
"""
from __future__ import annotations

import time

import numpy as np

from .. import progress
from ..config import Config
from ..names import layer_names, layer_values
from ..weights import Weights
from .base import Backend, BackendOutput, allowed_pairs

LN_EPS = 1e-5


def layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float = LN_EPS):
    """LayerNorm over the last axis with biased variance: returns mean [T], var [T], out [T, d]."""
    mean = x.mean(axis=-1)                                              # [T]
    var = ((x - mean[:, None]) ** 2).mean(axis=-1)                      # [T]
    out = (x - mean[:, None]) / np.sqrt(var[:, None] + eps) * w + b     # [T, d]
    return mean, var, out


def rms_norm(x: np.ndarray, w: np.ndarray, eps: float):
    """RMSNorm over the last axis: returns scale [T] = sqrt(mean(x²) + eps) and out [T, d]."""
    scale = np.sqrt((x ** 2).mean(axis=-1) + eps)                       # [T]
    out = x / scale[:, None] * w                                        # [T, d]
    return scale, out


def norm(cfg: Config, x: np.ndarray, w: np.ndarray, b: np.ndarray | None):
    """The config's norm: {"mean", "var", "out"} (LayerNorm) or {"scale", "out"} (RMSNorm)."""
    if cfg.norm == "rmsnorm":
        scale, out = rms_norm(x, w, cfg.norm_eps)
        return {"scale": scale, "out": out}
    mean, var, out = layer_norm(x, w, b, cfg.norm_eps)
    return {"mean": mean, "var": var, "out": out}


def gelu(x: np.ndarray) -> np.ndarray:
    """GPT-2's tanh approximation of GELU."""
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


def silu(x: np.ndarray) -> np.ndarray:
    """SiLU (swish): x · sigmoid(x)."""
    return x / (1.0 + np.exp(-x))


def rope_angles(T: int, rotary_dim: int, theta: float, start: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin [T, rotary_dim / 2] of position t times frequency theta^(-2i / rotary_dim)."""
    freq = theta ** (-np.arange(0, rotary_dim, 2, dtype=np.float64) / rotary_dim)   # [r/2]
    angle = np.arange(start, start + T, dtype=np.float64)[:, None] * freq[None, :]  # [T, r/2]
    return np.cos(angle), np.sin(angle)


def rope(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """Rotate each pair (x_i, x_{i+r/2}) of the first r dims of every head by its position's angle
    (HF's rotate_half convention); dims from r on pass through. x [T, heads, d_head]."""
    half = cos.shape[1]
    x1, x2, rest = x[..., :half], x[..., half:2 * half], x[..., 2 * half:]   # [T, heads, r/2] ...
    c, s = cos[:, None, :], sin[:, None, :]                                  # [T, 1, r/2]
    return np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s, rest], axis=-1)  # [T, heads, d_head]


def softmax_rows(scores: np.ndarray) -> np.ndarray:
    """Row softmax with the max subtracted; a row that is all -inf (fully masked) becomes zeros."""
    row_max = scores.max(axis=-1, keepdims=True, initial=-np.inf)       # [..., 1]
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)              # fully masked row: any shift
    e = np.exp(scores - row_max)                                        # [..., T] exp(-inf) = 0
    denom = e.sum(axis=-1, keepdims=True)                               # [..., 1]
    return np.divide(e, denom, out=np.zeros_like(e), where=denom > 0)   # [..., T]


class ReferenceBackend(Backend):
    name = "reference"
    dtype = np.dtype(np.float64)

    def label(self) -> str:
        return "reference (numpy float64)"

    def run(self, cfg: Config, weights: Weights, tokens: np.ndarray,
            attn_mask: np.ndarray | None) -> BackendOutput:
        t0 = time.perf_counter()

        def W(name: str) -> np.ndarray | None:
            """A weight in float64 (converted when used: a real model's set is ~1 GB as float64),
            or None for a bias this model does not have."""
            return weights[name].astype(np.float64) if name in weights else None

        def plus(x: np.ndarray, b: np.ndarray | None) -> np.ndarray:
            return x if b is None else x + b

        T, H, dh = len(tokens), cfg.n_heads, cfg.d_head
        out: dict = {"tokens": tokens}
        scale = 1.0 / np.sqrt(dh) if cfg.scale_scores else 1.0
        kv_of = np.arange(H) // cfg.n_groups                                # [H] K/V head of each query head
        if cfg.positions == "rope":
            cos, sin = rope_angles(T, cfg.rotary_dim, cfg.rope_theta)       # [T, r/2] each
        names = layer_names(cfg)

        embed = W("embed.W_E")[tokens]                                      # [T, d_model]
        out["embed"] = embed
        if cfg.positions == "learned":
            pos_embed = W("pos_embed.W_pos")[:T]                            # [T, d_model]
            resid = embed + pos_embed                                       # [T, d_model]
            out["pos_embed"] = pos_embed
        else:
            resid = embed                                                   # [T, d_model] RoPE: positions enter q, k

        for layer in range(cfg.n_layers):
            p = f"blocks.{layer}."
            allowed = allowed_pairs(T, cfg.causal, attn_mask, cfg.window(layer))  # [T, T]
            resid_pre = resid                                               # [T, d_model]
            n1 = norm(cfg, resid_pre, W(p + "ln1.w"), W(p + "ln1.b"))
            ln1_mean, ln1_var, ln1_scale = n1.get("mean"), n1.get("var"), n1.get("scale")  # [T] each
            ln1_out = n1["out"]                                             # [T, d_model]
            q = plus(np.einsum("td,hde->the", ln1_out, W(p + "attn.W_Q")), W(p + "attn.b_Q"))  # [T, H, dh]
            k = plus(np.einsum("td,hde->the", ln1_out, W(p + "attn.W_K")), W(p + "attn.b_K"))  # [T, KV, dh]
            v = plus(np.einsum("td,hde->the", ln1_out, W(p + "attn.W_V")), W(p + "attn.b_V"))  # [T, KV, dh]
            if cfg.positions == "rope":
                rot_q, rot_k = rope(q, cos, sin), rope(k, cos, sin)         # [T, H, dh], [T, KV, dh]
                q_pos, k_pos = rot_q, rot_k
            else:
                q_pos, k_pos = q, k
            k_h, v_h = k_pos[:, kv_of], v[:, kv_of]                         # [T, H, dh] each head's K and V
            attn_scores_raw = q_pos.transpose(1, 0, 2) @ k_h.transpose(1, 2, 0)   # [H, T, T]  q_i . k_j
            attn_scores_scaled = attn_scores_raw * scale                    # [H, T, T]
            attn_scores = np.where(allowed, attn_scores_scaled, -np.inf)    # [H, T, T]
            pattern = softmax_rows(attn_scores)                             # [H, T, T]
            z = (pattern @ v_h.transpose(1, 0, 2)).transpose(1, 0, 2)       # [T, H, dh]  sum_j p_ij v_j
            z_concat = z.reshape(T, H * dh)                                 # [T, H*dh]
            result = np.einsum("the,hed->thd", z, W(p + "attn.W_O"))        # [T, H, d_model]
            attn_out = plus(result.sum(axis=1), W(p + "attn.b_O"))          # [T, d_model]
            resid_mid = resid_pre + attn_out                                # [T, d_model]
            n2 = norm(cfg, resid_mid, W(p + "ln2.w"), W(p + "ln2.b"))
            ln2_mean, ln2_var, ln2_scale = n2.get("mean"), n2.get("var"), n2.get("scale")  # [T] each
            ln2_out = n2["out"]                                             # [T, d_model]
            if cfg.mlp == "swiglu":
                mlp_pre = plus(ln2_out @ W(p + "mlp.W_gate"), W(p + "mlp.b_gate"))      # [T, d_mlp] gate
                mlp_pre_linear = plus(ln2_out @ W(p + "mlp.W_in"), W(p + "mlp.b_in"))   # [T, d_mlp] up
                mlp_post = silu(mlp_pre) * mlp_pre_linear                   # [T, d_mlp]
            else:
                mlp_pre = plus(ln2_out @ W(p + "mlp.W_in"), W(p + "mlp.b_in"))  # [T, d_mlp]
                mlp_post = gelu(mlp_pre)                                    # [T, d_mlp]
            mlp_out = plus(mlp_post @ W(p + "mlp.W_out"), W(p + "mlp.b_out"))   # [T, d_model]
            resid_post = resid_mid + mlp_out                                # [T, d_model]
            resid = resid_post
            progress.report(f"layer {layer}", (layer + 1) / cfg.n_layers)
            values = layer_values(layer, locals(), names)                   # every name of this model
            out.update({key: np.ascontiguousarray(value) for key, value in values.items()})

        ln_final_out = norm(cfg, resid, W("ln_final.w"), W("ln_final.b"))["out"]  # [T, d_model]
        out["ln_final_out"] = ln_final_out
        unembed = W("embed.W_E").T if cfg.tied_embeddings else W("unembed.W_U")   # [d_model, d_vocab]

        def logits_fn(rows):
            return ln_final_out[rows] @ unembed                             # [R, d_vocab]

        return BackendOutput(out, logits_fn, {"total": (time.perf_counter() - t0) * 1e3})
