"""Generation with a KV cache: prefill the prompt once, then one new query row per decode step.

With the causal mask, a position's k and v never change when later tokens arrive, so each layer
keeps them (the cache) and a decode step only computes the newest row: its q, k, v, one row of
scores against the cached keys, one softmax row, and its path through W_O and the MLP. The
multiply-add counts below compare that with recomputing the whole sequence at every step.

Written in float64 numpy, like the reference backend, so every cached row can be checked against
`forward(..., backend="reference")` on the same tokens.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .backends.reference import gelu, layer_norm
from .config import Config, ConfigError
from .forward import forward
from .weights import Weights


@dataclass
class LayerCache:
    k: np.ndarray                     # [t, n_heads, d_head] keys of every position so far
    v: np.ndarray                     # [t, n_heads, d_head] values of every position so far


@dataclass
class DecodeStep:
    """What one step computed: the new position's query against every cached key."""

    position: int                     # index of the new token
    token: int                        # the token fed in at `position`
    q: list[np.ndarray]               # per layer [n_heads, d_head]: the one new query row
    scores: list[np.ndarray]          # per layer [n_heads, t]: scaled scores of that row
    pattern: list[np.ndarray]         # per layer [n_heads, t]: its softmax row
    logits: np.ndarray                # [d_vocab] prediction after `position`
    next_token: int                   # greedy choice
    macs_cached: int                  # multiply-adds this step, with the cache
    macs_recompute: int               # multiply-adds to recompute the whole sequence instead


@dataclass
class Generation:
    cfg: Config
    prompt: list[int]
    tokens: list[int]                 # prompt + generated so far
    caches: list[LayerCache]
    steps: list[DecodeStep] = field(default_factory=list)
    prefill_macs: int = 0
    W: dict = field(default_factory=dict, repr=False)     # float64 weights, converted once
    @property
    def cached_rows(self) -> int:
        return self.caches[0].k.shape[0] if self.caches else 0

    @property
    def macs_saved(self) -> int:
        return sum(s.macs_recompute - s.macs_cached for s in self.steps)


def block_macs(cfg: Config, n_new: int, n_total: int) -> int:
    """Multiply-adds of one block for n_new query rows attending over n_total positions (causal:
    row r of the new ones sees n_total - n_new + r + 1 keys)."""
    H, dh, dm, mlp = cfg.n_heads, cfg.d_head, cfg.d_model, cfg.d_mlp
    keys_seen = sum(n_total - n_new + r + 1 for r in range(n_new)) if cfg.causal else n_new * n_total
    return (3 * n_new * dm * H * dh          # q, k, v rows
            + H * keys_seen * dh             # scores q_i . k_j for the keys each row sees
            + H * keys_seen * dh             # pattern @ v
            + n_new * H * dh * dm            # W_O
            + 2 * n_new * dm * mlp)          # W_in, W_out


def sequence_macs(cfg: Config, n_new: int, n_total: int) -> int:
    """All blocks plus the unembedding of the last row."""
    return cfg.n_layers * block_macs(cfg, n_new, n_total) + cfg.d_model * cfg.d_vocab


def _row_through_block(cfg, W, p, x, cache: LayerCache):
    """One new residual row x [d_model] through block p; appends its k, v to the cache."""
    dh = cfg.d_head
    _, _, h_in = layer_norm(x[None, :], W[p + "ln1.w"], W[p + "ln1.b"])   # [1, d_model]
    h_in = h_in[0]                                                        # [d_model]
    q = np.einsum("d,hde->he", h_in, W[p + "attn.W_Q"]) + W[p + "attn.b_Q"]   # [H, dh]
    k = np.einsum("d,hde->he", h_in, W[p + "attn.W_K"]) + W[p + "attn.b_K"]   # [H, dh]
    v = np.einsum("d,hde->he", h_in, W[p + "attn.W_V"]) + W[p + "attn.b_V"]   # [H, dh]
    cache.k = np.concatenate([cache.k, k[None]], axis=0)                  # [t, H, dh]
    cache.v = np.concatenate([cache.v, v[None]], axis=0)                  # [t, H, dh]
    scale = 1.0 / np.sqrt(dh) if cfg.scale_scores else 1.0
    scores = np.einsum("he,the->ht", q, cache.k) * scale                  # [H, t] one row per head
    e = np.exp(scores - scores.max(axis=1, keepdims=True))                # [H, t]
    pattern = e / e.sum(axis=1, keepdims=True)                            # [H, t]
    z = np.einsum("ht,the->he", pattern, cache.v)                         # [H, dh]
    attn_out = np.einsum("he,hed->d", z, W[p + "attn.W_O"]) + W[p + "attn.b_O"]   # [d_model]
    x = x + attn_out                                                      # resid_mid
    _, _, h2 = layer_norm(x[None, :], W[p + "ln2.w"], W[p + "ln2.b"])
    mlp_out = gelu(h2[0] @ W[p + "mlp.W_in"] + W[p + "mlp.b_in"]) @ W[p + "mlp.W_out"] + W[p + "mlp.b_out"]
    return x + mlp_out, q, scores, pattern                                # resid_post [d_model]


def prefill(cfg: Config, weights: Weights, prompt) -> Generation:
    """Run the prompt once (all rows at once) and keep every layer's k and v."""
    if not cfg.causal:
        raise ConfigError("causal", False, "a KV cache needs the causal mask: without it, earlier "
                                          "positions would see the new token and every row would change")
    ids = [int(t) for t in cfg.validate_tokens(prompt)]
    if not ids:
        raise ConfigError("tokens", "0 tokens", "the prompt needs at least one token")
    trace = forward(cfg, weights, ids, backend="reference")
    caches = [LayerCache(k=np.array(trace["k", layer]), v=np.array(trace["v", layer]))
              for layer in range(cfg.n_layers)]
    return Generation(cfg=cfg, prompt=list(ids), tokens=list(ids), caches=caches,
                      prefill_macs=sequence_macs(cfg, len(ids), len(ids)),
                      W={n: a.astype(np.float64) for n, a in weights.items()})


def decode_step(gen: Generation, weights: Weights, token: int | None = None) -> DecodeStep:
    """Feed one token (default: the greedy prediction of the last step or of the prompt) and
    compute only its row, reusing every cached k and v."""
    cfg = gen.cfg
    if token is None:
        token = gen.steps[-1].next_token if gen.steps else _prompt_prediction(gen, weights)
    position = len(gen.tokens)
    if position >= cfg.n_ctx:
        raise ConfigError("tokens", f"{position + 1} tokens", f"n_ctx={cfg.n_ctx} is reached: no room to "
                                                               "generate another token", limit=cfg.n_ctx)
    cfg.validate_tokens([token])
    W = gen.W or {n: a.astype(np.float64) for n, a in weights.items()}
    x = W["embed.W_E"][token] + W["pos_embed.W_pos"][position]            # [d_model]
    qs, scores, patterns = [], [], []
    for layer in range(cfg.n_layers):
        x, q, s, p = _row_through_block(cfg, W, f"blocks.{layer}.", x, gen.caches[layer])
        qs.append(q), scores.append(s), patterns.append(p)
    _, _, final = layer_norm(x[None, :], W["ln_final.w"], W["ln_final.b"])
    logits = final[0] @ W["embed.W_E"].T                                  # [d_vocab]
    t = position + 1
    step = DecodeStep(position=position, token=int(token), q=qs, scores=scores, pattern=patterns,
                      logits=logits, next_token=int(np.argmax(logits)),
                      macs_cached=sequence_macs(cfg, 1, t), macs_recompute=sequence_macs(cfg, t, t))
    gen.tokens.append(int(token))
    gen.steps.append(step)
    return step


def _prompt_prediction(gen: Generation, weights: Weights) -> int:
    trace = forward(gen.cfg, weights, gen.tokens, backend="reference")
    return int(np.argmax(trace.logits_rows([len(gen.tokens) - 1])[0]))
