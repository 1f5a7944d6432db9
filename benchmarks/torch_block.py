"""A torch eager implementation of one block that materializes the same intermediates as `forward`.

The speed yardstick for the benchmarks (CPU here; CUDA on a lent GPU). Written the way a
PyTorch user would write it; every name of docs/ARCHITECTURE.md, "Names", is produced as its own tensor.
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


def family_block_weights(weights, layer: int, device="cpu", dtype=torch.float32) -> dict[str, torch.Tensor]:
    """Every weight of one block of any model family (compute.names.block_weight_names)."""
    return {short: torch.as_tensor(arr.copy()).to(device=device, dtype=dtype)
            for short, arr in weights.block(layer).items()}


def rope_tables(T: int, rotary_dim: int, theta: float, device="cpu", dtype=torch.float32):
    """cos, sin [T, rotary_dim / 2] (angles in float64, like compute's backends)."""
    freq = theta ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)   # [r/2]
    angle = torch.arange(T, dtype=torch.float64)[:, None] * freq[None, :]                  # [T, r/2]
    return angle.cos().to(device, dtype), angle.sin().to(device, dtype)


@torch.no_grad()
def torch_family_block(x: torch.Tensor, W: dict[str, torch.Tensor], cfg, cos=None, sin=None, window=None):
    """One block of any model family (RMSNorm, QK-norm, RoPE, GQA, SwiGLU / GeGLU, exact GELU, parallel, a
    window, norms after attention and the MLP, a mixture of experts) on resid_pre x [T, d_model], the way a
    PyTorch user writes it; every per-layer name as its own tensor. cos, sin: the layer's own RoPE tables
    (Gemma 3: local or global base)."""
    T, d_model = x.shape
    H, dh = cfg.n_heads, cfg.d_head
    out = {"resid_pre": x}

    def norm(t, w, b, prefix):
        if "scale" in cfg.components.norm.stats:                                         # RMSNorm
            scale = torch.sqrt(t.pow(2).mean(-1) + cfg.norm_eps)                         # [T]
            out[prefix + "_scale"] = scale
            return t / scale[:, None] * w
        out[prefix + "_mean"] = t.mean(-1)
        out[prefix + "_var"] = t.var(-1, unbiased=False)
        return F.layer_norm(t, (d_model,), w, b, eps=cfg.norm_eps)

    def plus(t, name):
        return t + W[name] if name in W else t

    c_ = cfg.components

    def post(t, name):                                                                   # Gemma 2/3, OLMo 2
        return t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + c_.post_norm.eps) * W[name]

    if c_.pre_norm:
        h = out["ln1_out"] = norm(x, W["ln1.w"], W.get("ln1.b"), "ln1")
    else:
        h = x                                                                            # OLMo 2: no norm before
    q = plus(torch.einsum("td,hde->the", h, W["attn.W_Q"]), "attn.b_Q")                 # [T, H, dh]
    k = plus(torch.einsum("td,hde->the", h, W["attn.W_K"]), "attn.b_K")                 # [T, KV, dh]
    v = plus(torch.einsum("td,hde->the", h, W["attn.W_V"]), "attn.b_V")                 # [T, KV, dh]
    out["q"], out["k"], out["v"] = q, k, v
    if c_.attention.qk_norm_all_heads:                                                   # OLMo 2: all heads at once
        eps = c_.attention.qk_norm.eps
        q = out["q_normed"] = (q.reshape(T, -1) * torch.rsqrt(q.reshape(T, -1).pow(2).mean(-1, keepdim=True) + eps)
                               * W["attn.q_norm.w"]).reshape(q.shape)
        k = out["k_normed"] = (k.reshape(T, -1) * torch.rsqrt(k.reshape(T, -1).pow(2).mean(-1, keepdim=True) + eps)
                               * W["attn.k_norm.w"]).reshape(k.shape)
    elif c_.attention.qk_norm is not None:                                               # Qwen3, Gemma 3: per head
        eps = c_.attention.qk_norm.eps
        q = out["q_normed"] = q * torch.rsqrt(q.pow(2).mean(-1, keepdim=True) + eps) * W["attn.q_norm.w"]
        k = out["k_normed"] = k * torch.rsqrt(k.pow(2).mean(-1, keepdim=True) + eps) * W["attn.k_norm.w"]
    if cfg.components.positions.rotates:
        half = cos.shape[1]
        c, s = cos[:, None, :], sin[:, None, :]

        def rot(t):
            t1, t2 = t[..., :half], t[..., half:2 * half]
            return torch.cat([t1 * c - t2 * s, t2 * c + t1 * s, t[..., 2 * half:]], dim=-1)

        q, k = out["rot_q"], out["rot_k"] = rot(q), rot(k)
    k_h = k.repeat_interleave(cfg.n_groups, dim=1)                                       # [T, H, dh]
    v_h = v.repeat_interleave(cfg.n_groups, dim=1)                                       # [T, H, dh]
    raw = torch.einsum("qhe,khe->hqk", q, k_h)                                          # [H, T, T]
    scaled = raw * c_.attention.scale                       # 1/√d_head (Gemma: 1/√query_pre_attn_scalar), or 1
    i = torch.arange(T, device=x.device)
    forbidden = (i[None, :] > i[:, None]) if cfg.causal else torch.zeros(T, T, dtype=torch.bool, device=x.device)
    if window is not None:
        forbidden = forbidden | ((i[:, None] - i[None, :]).abs() >= window)
    capped = scaled
    if c_.attention.softcap is not None:                    # Gemma 2: cap·tanh(s / cap) before the mask
        cap = c_.attention.softcap.cap
        capped = out["attn_scores_capped"] = torch.tanh(scaled / cap) * cap             # [H, T, T]
    masked = capped.masked_fill(forbidden, float("-inf"))
    pattern = torch.softmax(masked, dim=-1)                                             # [H, T, T]
    z = torch.einsum("hqk,khe->qhe", pattern, v_h)                                      # [T, H, dh]
    result = torch.einsum("the,hed->thd", z, W["attn.W_O"])                             # [T, H, d_model]
    attn_out = plus(result.sum(1), "attn.b_O")                                          # [T, d_model]
    if c_.post_norm is not None:
        out["attn_out_normed"] = post(attn_out, "ln1_post.w")
        resid_mid = x + out["attn_out_normed"]
    else:
        resid_mid = x + attn_out
    out.update(attn_scores_raw=raw, attn_scores_scaled=scaled, attn_scores=masked, pattern=pattern,
               z=z, z_concat=z.reshape(T, H * dh), result=result, attn_out=attn_out, resid_mid=resid_mid)
    mlp_in = cfg.components.mlp_reads(x, resid_mid)                                      # parallel: resid_pre
    if c_.pre_norm:
        h2 = out["ln2_out"] = norm(mlp_in, W["ln2.w"], W.get("ln2.b"), "ln2")
    else:
        h2 = mlp_in
    experts = cfg.components.experts
    if experts is not None:                                 # a mixture of experts, as HF's Mixtral computes it
        out["router_logits"] = h2 @ W["moe.W_router"]                                 # [T, E]
        out["router_probs"] = torch.softmax(out["router_logits"], dim=-1)             # [T, E]
        top, chosen = torch.topk(out["router_probs"], experts.top_k, dim=-1)          # [T, k] largest first
        if experts.normalise:
            top = top / top.sum(-1, keepdim=True)
        out["expert_weights"] = torch.zeros_like(out["router_probs"]).scatter(-1, chosen, top)   # [T, E]
        Wg, Wi, Wo = W["moe.W_gate"][chosen], W["moe.W_in"][chosen], W["moe.W_out"][chosen]   # [T, k, ...]
        act = F.silu(torch.einsum("td,tkdm->tkm", h2, Wg)) * torch.einsum("td,tkdm->tkm", h2, Wi)  # [T, k, d_mlp]
        out["expert_out"] = torch.einsum("tkm,tkmd->tkd", act, Wo)                    # [T, k, d_model]
        out["mlp_out"] = torch.einsum("tk,tkd->td", top, out["expert_out"])           # [T, d_model]
        out["resid_post"] = resid_mid + out["mlp_out"]
        return out
    if cfg.components.mlp.gated:
        out["mlp_pre"] = plus(h2 @ W["mlp.W_gate"], "mlp.b_gate")                      # [T, d_mlp]
        out["mlp_pre_linear"] = plus(h2 @ W["mlp.W_in"], "mlp.b_in")                   # [T, d_mlp]
        gate = F.gelu(out["mlp_pre"], approximate="tanh") if c_.mlp.key == "geglu" else F.silu(out["mlp_pre"])
        out["mlp_post"] = gate * out["mlp_pre_linear"]
    else:
        out["mlp_pre"] = plus(h2 @ W["mlp.W_in"], "mlp.b_in")
        out["mlp_post"] = F.gelu(out["mlp_pre"], approximate="none" if cfg.components.mlp.exact else "tanh")
    out["mlp_out"] = plus(out["mlp_post"] @ W["mlp.W_out"], "mlp.b_out")               # [T, d_model]
    if c_.post_norm is not None:
        out["mlp_out_normed"] = post(out["mlp_out"], "ln2_post.w")
        out["resid_post"] = resid_mid + out["mlp_out_normed"]
    else:
        out["resid_post"] = resid_mid + out["mlp_out"]
    return out
