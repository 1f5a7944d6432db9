"""`reference`: float64 numpy written to read like the equations. The oracle for every test.

One block, for every model family of docs/ARCHITECTURE.md, "Model families":
    resid_pre 0 = W_E[tokens] (· √d_model: Gemma) (+ W_pos)
    ln1_out = norm(resid_pre)                       LayerNorm (mean, var, w, b) or RMSNorm (scale, w); OLMo 2: none
    q, k, v = ln1_out @ W_Q, W_K, W_V (+ b)         k and v have n_kv_heads heads
    q_normed, k_normed = RMSNorm(q), RMSNorm(k)     with a QK-norm only: per head (OLMo 2: over all heads)
    rot_q, rot_k = RoPE(q), RoPE(k)                 with RoPE only: each pair (i, i + r/2); the layer's base
    scores  = q_h · k_{h // n_groups}               query head h reads its group's K/V head
    pattern = softmax(scores · scale, masked: causal, window, attn_mask)   1/√d_head or 1/√query_pre_attn_scalar
              (Gemma 2: scores · scale soft-capped to cap·tanh(s / cap) before the mask)
    z = pattern @ v_{h // n_groups};  attn_out = Σ_h z_h @ W_O[h] + b_O
    resid_mid = resid_pre + attn_out                (post norms: + attn_out_normed = RMSNorm(attn_out))
    ln2_out = norm(resid_mid), or norm(resid_pre) in parallel (GPT-NeoX)
    mlp: GELU(x W_in + b_in) W_out (tanh or erf),  or  (SiLU | GELU(x W_gate) ⊙ x W_in) W_out
         or a mixture of experts: the router's top k SwiGLU experts, weighted (components.Experts)
    resid_post = resid_mid + mlp_out                (post norms: + mlp_out_normed = RMSNorm(mlp_out))
"""
from __future__ import annotations

import time

import numpy as np

from .. import progress
from ..config import Config
from ..models.functions import gelu, layer_norm, rms_norm, rope, rope_angles, silu  # noqa: F401 - the API
from ..names import layer_names, layer_values
from ..weights import Weights
from .base import Backend, BackendOutput, allowed_pairs

LN_EPS = 1e-5
# Logits are made this many vocabulary columns at a time (W_U as float64 at once: 1.3 GB for Gemma 3).
LOGIT_COLUMNS = 1 << 15


def norm(cfg: Config, x: np.ndarray, w: np.ndarray, b: np.ndarray | None):
    """The config's norm: {"mean", "var", "out"} (LayerNorm) or {"scale", "out"} (RMSNorm)."""
    return cfg.components.norm.reference(x, w, b)


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
        c = cfg.components                                                  # the model's parts, chosen once
        out: dict = {"tokens": tokens}
        scale = c.attention.scale                                           # 1/sqrt(d_head), or 1
        kv_of = np.arange(H) // c.attention.n_groups                        # [H] K/V head of each query head
        names = layer_names(cfg)

        # the rows first, then float64: a 262k-row W_E is 1.3 GB as float64
        embed = weights["embed.W_E"][tokens].astype(np.float64) * c.embed_scale   # [T, d_model]
        out["embed"] = embed
        if c.positions.embeds:
            pos_embed = W("pos_embed.W_pos")[:T]                            # [T, d_model]
            resid = embed + pos_embed                                       # [T, d_model]
            out["pos_embed"] = pos_embed
        else:
            resid = embed                                                   # [T, d_model] RoPE: positions enter q, k

        for layer in range(cfg.n_layers):
            p = f"blocks.{layer}."
            allowed = allowed_pairs(T, cfg.causal, attn_mask, c.layer(layer).window)  # [T, T]
            resid_pre = resid                                               # [T, d_model]
            if c.pre_norm:
                n1 = c.norm.reference(resid_pre, W(p + "ln1.w"), W(p + "ln1.b"))
                ln1_mean, ln1_var, ln1_scale = n1.get("mean"), n1.get("var"), n1.get("scale")  # [T] each
                ln1_out = n1["out"]                                         # [T, d_model]
            else:
                ln1_out = resid_pre                                         # OLMo 2: no norm before attention
            q = plus(np.einsum("td,hde->the", ln1_out, W(p + "attn.W_Q")), W(p + "attn.b_Q"))  # [T, H, dh]
            k = plus(np.einsum("td,hde->the", ln1_out, W(p + "attn.W_K")), W(p + "attn.b_K"))  # [T, KV, dh]
            v = plus(np.einsum("td,hde->the", ln1_out, W(p + "attn.W_V")), W(p + "attn.b_V"))  # [T, KV, dh]
            if c.attention.qk_norm is not None:                             # per head, over d_head
                q_normed = c.attention.qk_norm_reference(q, W(p + "attn.q_norm.w"))   # [T, H, dh]
                k_normed = c.attention.qk_norm_reference(k, W(p + "attn.k_norm.w"))   # [T, KV, dh]
                q_pos, k_pos = q_normed, k_normed
            else:
                q_pos, k_pos = q, k
            if c.positions.rotates:
                rope_ = c.rotary(layer)                                     # this layer's base
                cos, sin = rope_.angles(T)                                  # [T, r/2] each
                rot_q, rot_k = rope_.rotate(q_pos, cos, sin), rope_.rotate(k_pos, cos, sin)  # [T, H|KV, dh]
                q_pos, k_pos = rot_q, rot_k
            k_h, v_h = k_pos[:, kv_of], v[:, kv_of]                         # [T, H, dh] each head's K and V
            attn_scores_raw = q_pos.transpose(1, 0, 2) @ k_h.transpose(1, 2, 0)   # [H, T, T]  q_i . k_j
            attn_scores_scaled = attn_scores_raw * scale                    # [H, T, T]
            capped = attn_scores_scaled
            if c.attention.softcap is not None:                             # Gemma 2: before the mask
                attn_scores_capped = capped = c.attention.softcap.reference(attn_scores_scaled)   # [H, T, T]
            attn_scores = np.where(allowed, capped, -np.inf)                # [H, T, T]
            pattern = softmax_rows(attn_scores)                             # [H, T, T]
            z = (pattern @ v_h.transpose(1, 0, 2)).transpose(1, 0, 2)       # [T, H, dh]  sum_j p_ij v_j
            z_concat = z.reshape(T, H * dh).copy()                          # [T, H*dh] its own (T = 1: z is a view)
            result = np.einsum("the,hed->thd", z, W(p + "attn.W_O"))        # [T, H, d_model]
            attn_out = plus(result.sum(axis=1), W(p + "attn.b_O"))          # [T, d_model]
            if c.post_norm is not None:                                     # Gemma 2/3, OLMo 2
                attn_out_normed = c.post_norm.reference(attn_out, W(p + "ln1_post.w"))["out"]  # [T, d_model]
                resid_mid = resid_pre + attn_out_normed                     # [T, d_model]
            else:
                resid_mid = resid_pre + attn_out                            # [T, d_model]
            mlp_in = c.mlp_reads(resid_pre, resid_mid)                      # [T, d_model] resid_pre when parallel
            if c.pre_norm:
                n2 = c.norm.reference(mlp_in, W(p + "ln2.w"), W(p + "ln2.b"))
                ln2_mean, ln2_var, ln2_scale = n2.get("mean"), n2.get("var"), n2.get("scale")  # [T] each
                ln2_out = n2["out"]                                         # [T, d_model]
            else:
                ln2_out = mlp_in                                            # OLMo 2: no norm before the MLP
            if c.experts is not None:                                       # a mixture of experts
                router_logits = ln2_out @ W(p + "moe.W_router")             # [T, E]
                router_probs = softmax_rows(router_logits)                  # [T, E]
                expert_weights, chosen = c.experts.choose(router_probs)     # [T, E] (0 unless chosen), [T, k]
                expert_out = c.experts.run(ln2_out, chosen, *(weights[p + n] for n in ("moe.W_gate", "moe.W_in",
                                                                                       "moe.W_out")))  # [T, k, d_model]
                mlp_out = c.experts.mix(expert_weights, chosen, expert_out)  # [T, d_model]
            else:
                if c.mlp.gated:
                    mlp_pre = plus(ln2_out @ W(p + "mlp.W_gate"), W(p + "mlp.b_gate"))      # [T, d_mlp] gate
                    mlp_pre_linear = plus(ln2_out @ W(p + "mlp.W_in"), W(p + "mlp.b_in"))   # [T, d_mlp] up
                else:
                    mlp_pre, mlp_pre_linear = plus(ln2_out @ W(p + "mlp.W_in"), W(p + "mlp.b_in")), None  # [T, d_mlp]
                mlp_post = c.mlp.activation(mlp_pre, mlp_pre_linear)        # [T, d_mlp] GELU, or SiLU|GELU(gate) ⊙ up
                mlp_out = plus(mlp_post @ W(p + "mlp.W_out"), W(p + "mlp.b_out"))   # [T, d_model]
            if c.post_norm is not None:
                mlp_out_normed = c.post_norm.reference(mlp_out, W(p + "ln2_post.w"))["out"]  # [T, d_model]
                resid_post = resid_mid + mlp_out_normed                     # [T, d_model]
            else:
                resid_post = resid_mid + mlp_out                            # [T, d_model]
            resid = resid_post
            progress.report(f"layer {layer}", (layer + 1) / cfg.n_layers)
            values = layer_values(layer, locals(), names)                   # every name of this model
            out.update({key: np.ascontiguousarray(value) for key, value in values.items()})

        ln_final_out = c.norm.reference(resid, W("ln_final.w"), W("ln_final.b"))["out"]  # [T, d_model]
        out["ln_final_out"] = ln_final_out
        unembed = weights["embed.W_E"].T if c.tied_embeddings else weights["unembed.W_U"]   # [d_model, d_vocab]

        def logits_fn(rows):
            x = ln_final_out[rows]                                          # [R, d_model]
            out = np.empty((len(x), unembed.shape[1]))                      # [R, d_vocab]
            for v0 in range(0, unembed.shape[1], LOGIT_COLUMNS):            # float64 a slice at a time
                out[:, v0:v0 + LOGIT_COLUMNS] = x @ unembed[:, v0:v0 + LOGIT_COLUMNS].astype(np.float64)
            return out if c.final_softcap is None else c.final_softcap.reference(out)   # Gemma 2: capped

        return BackendOutput(out, logits_fn, {"total": (time.perf_counter() - t0) * 1e3})
