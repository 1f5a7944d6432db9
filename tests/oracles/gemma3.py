"""An independent float64 Gemma 3 text model in plain numpy, to check the lab against: written from
the equations (Google's gemma_pytorch, Hugging Face's modeling_gemma3.py, llama.cpp's gemma3 graph),
importing nothing of the lab's compute, backends or names.

    params = Gemma3Params(n_layers=18, d_model=640, n_heads=4, n_kv_heads=1, d_head=256, d_mlp=2048, ...)
    out = forward(params, weights, tokens)     # out.logits [rows, d_vocab], out.patterns[l] [H, T, T]

`weights` holds float arrays under these names, matrices in (out, in) order as Hugging Face and GGUF
store them:

    embed [d_vocab, d_model]; final_norm [d_model]; per layer l, "l.<name>":
    attn_norm, post_attn_norm, ffn_norm, post_ffw_norm [d_model]; q_norm, k_norm [d_head];
    q [n_heads·d_head, d_model]; k, v [n_kv_heads·d_head, d_model]; o [d_model, n_heads·d_head];
    gate, up [d_mlp, d_model]; down [d_model, d_mlp]

Every RMSNorm weight is the factor that multiplies the normalized x, as a GGUF file stores it
(llama.cpp's converter writes Gemma's 1 + w); Hugging Face's parameter w is 1 less (`from_hf` adds it).

The block, per layer l (local: every layer but each 6th; global: layers 5, 11, 17, ...):

    h = RMSNorm(x)·g_attn
    q, k, v = h Wqᵀ, h Wkᵀ, h Wvᵀ                   per head: [T, d_head]
    q, k = RMSNorm(q)·g_q, RMSNorm(k)·g_k            QK-norm over each head's d_head, before RoPE
    q, k = RoPE(q), RoPE(k)                          pairs (i, i + d/2); base 10,000 local, 1,000,000 global
    s = (q · query_pre_attn_scalar^-1/2) kᵀ           query head h reads K/V head h // (n_heads / n_kv_heads)
    s = -inf where j > i, and on local layers where i - j >= W
    x = x + RMSNorm(softmax(s) v Woᵀ)·g_post_attn    sandwich norm before the residual add
    h = RMSNorm(x)·g_ffn
    x = x + RMSNorm((GELU_tanh(h Wgᵀ) ⊙ h Wuᵀ) Wdᵀ)·g_post_ffw

with x₀ = W_E[tokens]·sqrt(d_model), and logits = (RMSNorm(x)·g_final) W_Eᵀ (tied), optionally
soft-capped: c·tanh(logits / c).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Gemma3Params:
    n_layers: int
    d_model: int
    n_heads: int
    n_kv_heads: int
    d_head: int
    d_mlp: int
    norm_eps: float = 1e-6
    window: int = 512
    rope_theta_local: float = 10_000.0
    rope_theta_global: float = 1_000_000.0
    global_every: int = 6
    query_pre_attn_scalar: float = 256.0
    final_logit_softcap: float | None = None
    embed_scale: float | None = None        # None: sqrt(d_model) in float64

    def is_global(self, layer: int) -> bool:
        return (layer + 1) % self.global_every == 0


@dataclass
class Output:
    logits: np.ndarray                                  # [rows, d_vocab]
    patterns: list[np.ndarray] = field(default_factory=list)   # per layer [n_heads, T, T]
    resid: list[np.ndarray] = field(default_factory=list)      # x after each layer [T, d_model]


def rms_norm(x: np.ndarray, g: np.ndarray, eps: float) -> np.ndarray:
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * g


def gelu_tanh(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def rope_half(x: np.ndarray, theta: float) -> np.ndarray:
    """x [T, heads, d] rotated by position: pairs (i, i + d/2), angle t·theta^(-2i/d)."""
    T, _, d = x.shape
    inv = theta ** (-np.arange(0, d, 2, dtype=np.float64) / d)            # [d/2]
    angle = np.arange(T, dtype=np.float64)[:, None] * inv[None, :]        # [T, d/2]
    cos, sin = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]       # [T, 1, d/2]
    a, b = x[..., : d // 2], x[..., d // 2:]
    return np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=-1)


def forward(p: Gemma3Params, w: dict[str, np.ndarray], tokens, *, rows=None) -> Output:
    """The model on `tokens`; logits for `rows` (default: every position)."""
    tokens = np.asarray(tokens, dtype=np.int64)
    T = len(tokens)
    H, KV, dh = p.n_heads, p.n_kv_heads, p.d_head
    E = np.asarray(w["embed"])                                            # [V, d] (any float dtype)
    scale = math.sqrt(p.d_model) if p.embed_scale is None else p.embed_scale
    x = E[tokens].astype(np.float64) * scale                              # [T, d]
    i, j = np.arange(T)[:, None], np.arange(T)[None, :]
    out = Output(logits=np.empty(0))
    for layer in range(p.n_layers):
        g = {name.split(".", 1)[1]: np.asarray(a, dtype=np.float64) for name, a in w.items()
             if name.startswith(f"{layer}.")}                             # this layer's weights, float64
        forbidden = (j > i) | ((i - j >= p.window) & (not p.is_global(layer)))     # [T, T]
        theta = p.rope_theta_global if p.is_global(layer) else p.rope_theta_local
        h = rms_norm(x, g["attn_norm"], p.norm_eps)                       # [T, d]
        q = (h @ g["q"].T).reshape(T, H, dh)                              # [T, H, dh]
        k = (h @ g["k"].T).reshape(T, KV, dh)                             # [T, KV, dh]
        v = (h @ g["v"].T).reshape(T, KV, dh)                             # [T, KV, dh]
        q = rope_half(rms_norm(q, g["q_norm"], p.norm_eps), theta)        # QK-norm, then RoPE
        k = rope_half(rms_norm(k, g["k_norm"], p.norm_eps), theta)
        q = q * p.query_pre_attn_scalar ** -0.5
        group = H // KV
        scores = np.einsum("ihd,jhd->hij", q, np.repeat(k, group, axis=1))   # [H, T, T]
        scores = np.where(forbidden[None], -np.inf, scores)
        pattern = np.exp(scores - scores.max(axis=-1, keepdims=True))
        pattern /= pattern.sum(axis=-1, keepdims=True)                    # [H, T, T]
        z = np.einsum("hij,jhd->ihd", pattern, np.repeat(v, group, axis=1)).reshape(T, H * dh)
        x = x + rms_norm(z @ g["o"].T, g["post_attn_norm"], p.norm_eps)   # [T, d]
        h = rms_norm(x, g["ffn_norm"], p.norm_eps)
        m = gelu_tanh(h @ g["gate"].T) * (h @ g["up"].T)                  # [T, d_mlp]
        x = x + rms_norm(m @ g["down"].T, g["post_ffw_norm"], p.norm_eps)
        out.patterns.append(pattern)
        out.resid.append(x)
    rows = np.arange(T) if rows is None else np.asarray(rows)
    xf = rms_norm(x[rows], np.asarray(w["final_norm"], dtype=np.float64), p.norm_eps)   # [rows, d]
    logits = np.concatenate([xf @ E[a:a + 32768].astype(np.float64).T      # in slices: E is 262k rows
                             for a in range(0, E.shape[0], 32768)], axis=1)
    if p.final_logit_softcap:
        logits = p.final_logit_softcap * np.tanh(logits / p.final_logit_softcap)
    out.logits = logits
    return out


# -- weights from a Hugging Face model or a GGUF file ----------------------------------------------
_HF = {"input_layernorm.weight": "attn_norm", "post_attention_layernorm.weight": "post_attn_norm",
       "pre_feedforward_layernorm.weight": "ffn_norm", "post_feedforward_layernorm.weight": "post_ffw_norm",
       "self_attn.q_norm.weight": "q_norm", "self_attn.k_norm.weight": "k_norm",
       "self_attn.q_proj.weight": "q", "self_attn.k_proj.weight": "k", "self_attn.v_proj.weight": "v",
       "self_attn.o_proj.weight": "o", "mlp.gate_proj.weight": "gate", "mlp.up_proj.weight": "up",
       "mlp.down_proj.weight": "down"}
_GGUF = {"attn_norm": "attn_norm", "post_attention_norm": "post_attn_norm", "ffn_norm": "ffn_norm",
         "post_ffw_norm": "post_ffw_norm", "attn_q_norm": "q_norm", "attn_k_norm": "k_norm", "attn_q": "q",
         "attn_k": "k", "attn_v": "v", "attn_output": "o", "ffn_gate": "gate", "ffn_up": "up", "ffn_down": "down"}


def from_hf(state: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Oracle weights from a Gemma3ForCausalLM state dict: Gemma's norm weights w become 1 + w."""
    out = {"embed": state["model.embed_tokens.weight"], "final_norm": 1.0 + state["model.norm.weight"]}
    for name, a in state.items():
        if name.startswith("model.layers."):
            _, _, layer, rest = name.split(".", 3)
            key = _HF[rest]
            out[f"{layer}.{key}"] = 1.0 + a if key.endswith("norm") else a
    return out


def from_gguf(path) -> tuple[Gemma3Params, dict[str, np.ndarray]]:
    """Params (from the metadata, with llama.cpp's by-architecture facts) and dequantized float32
    weights of a gemma3 GGUF file; tensors read with numpy and dequantized by `gguf.quants`."""
    from gguf import GGML_QUANT_SIZES, GGMLQuantizationType
    from gguf.quants import dequantize

    from compute.loaders.gguf_file import scan  # the header scan only: offsets and shapes

    meta, infos, data_start = scan(path)
    a = "gemma3."
    d_head = meta.get(a + "attention.key_length", 256)
    params = Gemma3Params(
        n_layers=meta[a + "block_count"], d_model=meta[a + "embedding_length"],
        n_heads=meta[a + "attention.head_count"], n_kv_heads=meta[a + "attention.head_count_kv"], d_head=d_head,
        d_mlp=meta[a + "feed_forward_length"], norm_eps=meta[a + "attention.layer_norm_rms_epsilon"],
        window=meta[a + "attention.sliding_window"],
        rope_theta_global=meta[a + "rope.freq_base"], query_pre_attn_scalar=float(d_head),
        final_logit_softcap=meta.get(a + "final_logit_softcapping"))
    mm = np.memmap(path, dtype=np.uint8, mode="r")
    weights = {}
    for t in infos:
        kind = GGMLQuantizationType(t.type_code)
        block, nbytes = GGML_QUANT_SIZES[kind]
        rows = int(np.prod(t.shape[:-1]))
        raw = mm[data_start + t.offset:data_start + t.offset + rows * (t.shape[-1] // block) * nbytes]
        if kind == GGMLQuantizationType.Q8_0:      # the 262k-row embedding: gguf's generic path takes seconds
            arr = q8_0(raw).reshape(t.shape)
        else:
            arr = dequantize(raw.reshape(rows, -1), kind).reshape(t.shape).astype(np.float32)
        if t.name.startswith("blk."):
            _, layer, rest = t.name.split(".", 2)
            weights[f"{layer}.{_GGUF[rest.removesuffix('.weight')]}"] = arr
        else:
            weights[{"token_embd.weight": "embed", "output_norm.weight": "final_norm"}[t.name]] = arr
    return params, weights


def q8_0(raw: np.ndarray) -> np.ndarray:
    """ggml's dequantize_row_q8_0: blocks of a float16 scale d and 32 int8 q; x = d·q. float32, flat."""
    blocks = np.asarray(raw, dtype=np.uint8).reshape(-1, 34)               # [n_blocks, 2 + 32]
    d = blocks[:, :2].copy().view(np.float16).astype(np.float32)            # [n_blocks, 1]
    q = blocks[:, 2:].view(np.int8)                                         # [n_blocks, 32]
    return (q * d).reshape(-1)
