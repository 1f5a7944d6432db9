"""An independent float64 torch implementation of the model, for tests only.

Written differently from compute/backends/reference.py on purpose: torch's own LayerNorm and GELU,
one head at a time with explicit loops, the causal mask from torch.triu, the softmax from torch,
and each head's output projected through its own slice of W_O. Agreement with `reference` on
random inputs is the evidence that both are right.
"""
from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F


def oracle(cfg, weights, tokens, attn_mask=None) -> dict:
    """Every Trace name as float64 numpy arrays, keyed like the Trace: name or (name, layer)."""
    W = {n: torch.tensor(np.asarray(a), dtype=torch.float64) for n, a in weights.items()}
    tok = torch.as_tensor(np.asarray(tokens, dtype=np.int64))
    T = tok.shape[0]
    out = {}
    x = W["embed.W_E"][tok] + W["pos_embed.W_pos"][:T]
    out["embed"], out["pos_embed"] = W["embed.W_E"][tok], W["pos_embed.W_pos"][:T]
    forbidden = torch.zeros(T, T, dtype=torch.bool)
    if cfg.causal:
        forbidden |= torch.ones(T, T, dtype=torch.bool).triu(diagonal=1)
    if attn_mask is not None:
        forbidden |= ~torch.as_tensor(np.asarray(attn_mask))
    for layer in range(cfg.n_layers):
        p = f"blocks.{layer}."
        out[("resid_pre", layer)] = x
        out[("ln1_mean", layer)] = x.mean(dim=1)
        out[("ln1_var", layer)] = x.var(dim=1, unbiased=False)
        h_in = F.layer_norm(x, (cfg.d_model,), W[p + "ln1.w"], W[p + "ln1.b"], eps=1e-5)
        out[("ln1_out", layer)] = h_in
        qs, ks, vs, raws, scaleds, maskeds, pats, zs, results = [], [], [], [], [], [], [], [], []
        for h in range(cfg.n_heads):
            q = h_in @ W[p + "attn.W_Q"][h] + W[p + "attn.b_Q"][h]          # [T, dh]
            k = h_in @ W[p + "attn.W_K"][h] + W[p + "attn.b_K"][h]
            v = h_in @ W[p + "attn.W_V"][h] + W[p + "attn.b_V"][h]
            raw = q @ k.T                                                   # [T, T]
            scaled = raw / math.sqrt(cfg.d_head) if cfg.scale_scores else raw
            masked = scaled.masked_fill(forbidden, float("-inf"))
            pat = torch.softmax(masked, dim=-1)
            pat = torch.nan_to_num(pat, nan=0.0)                            # fully masked rows -> 0
            z = pat @ v                                                     # [T, dh]
            qs.append(q), ks.append(k), vs.append(v), raws.append(raw), scaleds.append(scaled)
            maskeds.append(masked), pats.append(pat), zs.append(z)
            results.append(z @ W[p + "attn.W_O"][h])                        # [T, d_model]
        out[("q", layer)] = torch.stack(qs, dim=1)
        out[("k", layer)] = torch.stack(ks, dim=1)
        out[("v", layer)] = torch.stack(vs, dim=1)
        out[("attn_scores_raw", layer)] = torch.stack(raws)
        out[("attn_scores_scaled", layer)] = torch.stack(scaleds)
        out[("attn_scores", layer)] = torch.stack(maskeds)
        out[("pattern", layer)] = torch.stack(pats)
        out[("z", layer)] = torch.stack(zs, dim=1)
        out[("z_concat", layer)] = torch.cat(zs, dim=1)
        out[("result", layer)] = torch.stack(results, dim=1)
        attn_out = torch.cat(zs, dim=1) @ W[p + "attn.W_O"].reshape(-1, cfg.d_model) + W[p + "attn.b_O"]
        out[("attn_out", layer)] = attn_out
        x = x + attn_out
        out[("resid_mid", layer)] = x
        out[("ln2_mean", layer)] = x.mean(dim=1)
        out[("ln2_var", layer)] = x.var(dim=1, unbiased=False)
        h2 = F.layer_norm(x, (cfg.d_model,), W[p + "ln2.w"], W[p + "ln2.b"], eps=1e-5)
        out[("ln2_out", layer)] = h2
        pre = F.linear(h2, W[p + "mlp.W_in"].T, W[p + "mlp.b_in"])
        post = F.gelu(pre, approximate="tanh")
        mlp_out = F.linear(post, W[p + "mlp.W_out"].T, W[p + "mlp.b_out"])
        out[("mlp_pre", layer)], out[("mlp_post", layer)], out[("mlp_out", layer)] = pre, post, mlp_out
        x = x + mlp_out
        out[("resid_post", layer)] = x
    final = F.layer_norm(x, (cfg.d_model,), W["ln_final.w"], W["ln_final.b"], eps=1e-5)
    out["ln_final_out"] = final
    out["logits"] = F.linear(final, W["embed.W_E"])
    out["tokens"] = tok
    return {k: v.numpy() for k, v in out.items()}
