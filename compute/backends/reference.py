"""`reference`: float64 numpy written to read like the equations. The oracle for every test."""
from __future__ import annotations

import time

import numpy as np

from .. import progress
from ..config import Config
from ..names import layer_values
from ..weights import Weights
from .base import Backend, BackendOutput, allowed_pairs

LN_EPS = 1e-5


def layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray):
    """LayerNorm over the last axis with biased variance: returns mean [T], var [T], out [T, d]."""
    mean = x.mean(axis=-1)                                              # [T]
    var = ((x - mean[:, None]) ** 2).mean(axis=-1)                      # [T]
    out = (x - mean[:, None]) / np.sqrt(var[:, None] + LN_EPS) * w + b  # [T, d]
    return mean, var, out


def gelu(x: np.ndarray) -> np.ndarray:
    """GPT-2's tanh approximation of GELU."""
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


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
        W = {n: a.astype(np.float64) for n, a in weights.items()}
        T, H, dh = len(tokens), cfg.n_heads, cfg.d_head
        out: dict = {"tokens": tokens}
        allowed = allowed_pairs(T, cfg.causal, attn_mask)                   # [T, T]
        scale = 1.0 / np.sqrt(dh) if cfg.scale_scores else 1.0

        embed = W["embed.W_E"][tokens]                                      # [T, d_model]
        pos_embed = W["pos_embed.W_pos"][:T]                                # [T, d_model]
        resid = embed + pos_embed                                           # [T, d_model]
        out["embed"], out["pos_embed"] = embed, pos_embed

        for layer in range(cfg.n_layers):
            p = f"blocks.{layer}."
            resid_pre = resid                                               # [T, d_model]
            ln1_mean, ln1_var, ln1_out = layer_norm(resid_pre, W[p + "ln1.w"], W[p + "ln1.b"])
            q = np.einsum("td,hde->the", ln1_out, W[p + "attn.W_Q"]) + W[p + "attn.b_Q"]  # [T, H, dh]
            k = np.einsum("td,hde->the", ln1_out, W[p + "attn.W_K"]) + W[p + "attn.b_K"]  # [T, H, dh]
            v = np.einsum("td,hde->the", ln1_out, W[p + "attn.W_V"]) + W[p + "attn.b_V"]  # [T, H, dh]
            attn_scores_raw = q.transpose(1, 0, 2) @ k.transpose(1, 2, 0)   # [H, T, T]  q_i . k_j
            attn_scores_scaled = attn_scores_raw * scale                    # [H, T, T]
            attn_scores = np.where(allowed, attn_scores_scaled, -np.inf)    # [H, T, T]
            pattern = softmax_rows(attn_scores)                             # [H, T, T]
            z = (pattern @ v.transpose(1, 0, 2)).transpose(1, 0, 2)         # [T, H, dh]  sum_j p_ij v_j
            z_concat = z.reshape(T, H * dh)                                 # [T, H*dh]
            result = np.einsum("the,hed->thd", z, W[p + "attn.W_O"])        # [T, H, d_model]
            attn_out = result.sum(axis=1) + W[p + "attn.b_O"]               # [T, d_model]
            resid_mid = resid_pre + attn_out                                # [T, d_model]
            ln2_mean, ln2_var, ln2_out = layer_norm(resid_mid, W[p + "ln2.w"], W[p + "ln2.b"])
            mlp_pre = ln2_out @ W[p + "mlp.W_in"] + W[p + "mlp.b_in"]       # [T, d_mlp]
            mlp_post = gelu(mlp_pre)                                        # [T, d_mlp]
            mlp_out = mlp_post @ W[p + "mlp.W_out"] + W[p + "mlp.b_out"]    # [T, d_model]
            resid_post = resid_mid + mlp_out                                # [T, d_model]
            resid = resid_post
            progress.report(f"layer {layer}", (layer + 1) / cfg.n_layers)
            values = layer_values(layer, locals())                          # every name, this layer
            out.update({key: np.ascontiguousarray(value) for key, value in values.items()})

        _, _, ln_final_out = layer_norm(resid, W["ln_final.w"], W["ln_final.b"])  # [T, d_model]
        out["ln_final_out"] = ln_final_out
        W_E = W["embed.W_E"]                                                # [d_vocab, d_model]

        def logits_fn(rows):
            return ln_final_out[rows] @ W_E.T                               # [R, d_vocab] (tied)

        return BackendOutput(out, logits_fn, {"total": (time.perf_counter() - t0) * 1e3})
