"""A torch eager implementation of one block that materializes the same intermediates as `forward`.

The speed yardstick for the benchmarks (CPU here; CUDA on a lent GPU). Written the way a
PyTorch user would write it; every name of DESIGN.md section 3 is produced as its own tensor.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F


def block_weights(weights, layer: int, device="cpu", dtype=torch.float32) -> dict[str, torch.Tensor]:
    return {short: torch.as_tensor(weights[f"blocks.{layer}.{short}"].copy()).to(device=device, dtype=dtype)
            for short in ("ln1.w", "ln1.b", "attn.W_Q", "attn.W_K", "attn.W_V", "attn.b_Q", "attn.b_K",
                          "attn.b_V", "attn.W_O", "attn.b_O", "ln2.w", "ln2.b", "mlp.W_in", "mlp.b_in",
                          "mlp.W_out", "mlp.b_out")}


@torch.no_grad()
def torch_block(x: torch.Tensor, W: dict[str, torch.Tensor], causal: bool = True, scale_scores: bool = True):
    """One block on resid_pre x [T, d_model]; returns a dict of every per-layer intermediate."""
    T, d_model = x.shape
    H, _, dh = W["attn.W_Q"].shape
    out = {"resid_pre": x}
    out["ln1_mean"] = x.mean(-1)                                            # [T]
    out["ln1_var"] = x.var(-1, unbiased=False)                              # [T]
    out["ln1_out"] = F.layer_norm(x, (d_model,), W["ln1.w"], W["ln1.b"], eps=1e-5)
    q = torch.einsum("td,hde->the", out["ln1_out"], W["attn.W_Q"]) + W["attn.b_Q"]  # [T, H, dh]
    k = torch.einsum("td,hde->the", out["ln1_out"], W["attn.W_K"]) + W["attn.b_K"]
    v = torch.einsum("td,hde->the", out["ln1_out"], W["attn.W_V"]) + W["attn.b_V"]
    out["q"], out["k"], out["v"] = q, k, v
    raw = torch.einsum("qhe,khe->hqk", q, k)                                # [H, T, T]
    scaled = raw / math.sqrt(dh) if scale_scores else raw.clone()
    if causal:
        forbidden = torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1)
        masked = scaled.masked_fill(forbidden, float("-inf"))
    else:
        masked = scaled.clone()
    pattern = torch.softmax(masked, dim=-1)                                 # [H, T, T]
    z = torch.einsum("hqk,khe->qhe", pattern, v)                            # [T, H, dh]
    result = torch.einsum("the,hed->thd", z, W["attn.W_O"])                 # [T, H, d_model]
    attn_out = result.sum(1) + W["attn.b_O"]                                # [T, d_model]
    resid_mid = x + attn_out
    out.update(attn_scores_raw=raw, attn_scores_scaled=scaled, attn_scores=masked, pattern=pattern,
               z=z, z_concat=z.reshape(T, H * dh), result=result, attn_out=attn_out, resid_mid=resid_mid)
    out["ln2_mean"] = resid_mid.mean(-1)
    out["ln2_var"] = resid_mid.var(-1, unbiased=False)
    out["ln2_out"] = F.layer_norm(resid_mid, (d_model,), W["ln2.w"], W["ln2.b"], eps=1e-5)
    out["mlp_pre"] = out["ln2_out"] @ W["mlp.W_in"] + W["mlp.b_in"]         # [T, d_mlp]
    out["mlp_post"] = F.gelu(out["mlp_pre"], approximate="tanh")
    out["mlp_out"] = out["mlp_post"] @ W["mlp.W_out"] + W["mlp.b_out"]     # [T, d_model]
    out["resid_post"] = resid_mid + out["mlp_out"]
    return out
