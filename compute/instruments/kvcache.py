"""Generation with a KV cache: prefill the prompt once, then one new query row per decode step.

With the causal mask, a position's k and v never change when later tokens arrive, so each layer
keeps them (the cache) and a decode step only computes the newest row: its q, k, v, one row of
scores against the cached keys, one softmax row, and its path through W_O and the MLP. The
multiply-add counts below compare that with recomputing the whole sequence at every step.

Every model family: with GQA a layer caches n_kv_heads heads, [t, n_kv_heads, d_head] (SmolLM2's
cache is 3x smaller than multi-head attention's, Llama-3-8B's 4x); with RoPE the keys are cached
rotated (a position's rotation never changes); a layer with a window W keeps a ring of its last W
rows. `cache_size(cfg)` gives the bytes per token and at full context beside the MHA equivalent.

Written in float64 numpy, like the reference backend, so every cached row can be checked against
`forward(..., backend="reference")` on the same tokens.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..backends.reference import softmax_rows
from ..config import Config, ConfigError
from ..forward import forward
from ..i18n import QT_TR_NOOP, Message, Number
from ..models.macs import block_macs, keys_seen, sequence_macs  # noqa: F401 - the API, where it was
from ..weights import Weights


@dataclass
class LayerCache:
    """One layer's cache: the keys (as the scores use them: after RoPE) and values of the
    positions it still needs, oldest first. A layer with a window W keeps at most W rows: a ring
    in which position p lives in slot p % W and each new row replaces the oldest."""

    k: np.ndarray                     # [t, n_kv_heads, d_head] keys of the cached positions
    v: np.ndarray                     # [t, n_kv_heads, d_head] values
    positions: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))   # [t] their positions
    window: int | None = None         # ring size (None: every position is kept)

    def append(self, k: np.ndarray, v: np.ndarray, position: int) -> None:
        """Add one position's k, v [n_kv_heads, d_head]; a full ring drops its oldest row."""
        keep = slice(1, None) if self.window is not None and len(self.positions) >= self.window else slice(None)
        self.k = np.concatenate([self.k[keep], k[None]], axis=0)          # [t, KV, dh]
        self.v = np.concatenate([self.v[keep], v[None]], axis=0)          # [t, KV, dh]
        self.positions = np.append(self.positions[keep], position)        # [t]

    @property
    def slots(self) -> np.ndarray:
        """The ring slot of each cached row (its position itself without a window)."""
        return self.positions if self.window is None else self.positions % self.window

    @property
    def nbytes(self) -> int:
        return self.k.nbytes + self.v.nbytes


@dataclass
class DecodeStep:
    """What one step computed: the new position's query against every cached key."""

    position: int                     # index of the new token
    token: int                        # the token fed in at `position`
    q: list[np.ndarray]               # per layer [n_heads, d_head]: the one new query row (after RoPE)
    scores: list[np.ndarray]          # per layer [n_heads, t]: scaled (Gemma 2: soft-capped) scores of that row
    pattern: list[np.ndarray]         # per layer [n_heads, t]: its softmax row
    logits: np.ndarray                # [d_vocab] prediction after `position`
    next_token: int                   # greedy choice
    macs_cached: int                  # multiply-adds this step, with the cache
    macs_recompute: int               # multiply-adds to recompute the whole sequence instead
    keys: list[np.ndarray] = field(default_factory=list)   # per layer [t]: the positions scored


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

    @property
    def cache_bytes(self) -> int:
        """What the cache holds now, at the float64 it is kept in here."""
        return sum(c.nbytes for c in self.caches)


# -- sizes -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CacheSize:
    """K/V cache sizes of a model, next to the same model with multi-head attention (one K/V head
    per query head, no windows): GQA divides the cache by n_heads / n_kv_heads, a window W caps a
    layer at W rows."""

    itemsize: int                     # bytes per number (2: fp16/bf16, as inference engines store it)
    n_ctx: int
    bytes_per_token: int              # one more position, every layer, K and V
    bytes_full_context: int           # at n_ctx positions (window layers hold min(n_ctx, W) rows)
    mha_bytes_per_token: int
    mha_bytes_full_context: int

    @property
    def ratio_per_token(self) -> float:
        """How many times smaller than multi-head attention, per token."""
        return self.mha_bytes_per_token / self.bytes_per_token

    @property
    def ratio_full_context(self) -> float:
        return self.mha_bytes_full_context / self.bytes_full_context

    def describe(self) -> str:
        from ..memory import bytes_message as fmt_bytes

        kind = {2: "fp16", 4: "float32", 1: "8-bit"}.get(self.itemsize, f"{self.itemsize}-byte")
        if self.mha_bytes_full_context == self.bytes_full_context and self.mha_bytes_per_token == self.bytes_per_token:
            return Message(QT_TR_NOOP("K/V cache ({kind}): {token} per token, {full} at the full context of {n_ctx} "
                                      "(every head keeps its own K and V, as in multi-head attention)"),
                           kind=kind, token=fmt_bytes(self.bytes_per_token), full=fmt_bytes(self.bytes_full_context),
                           n_ctx=self.n_ctx)
        return Message(QT_TR_NOOP("K/V cache ({kind}): {token} per token, {full} at the full context of {n_ctx}; "
                                  "multi-head attention would need {mha_token} and {mha_full} ({ratio}× and "
                                  "{ratio_full}× more)"),
                       kind=kind, token=fmt_bytes(self.bytes_per_token), full=fmt_bytes(self.bytes_full_context),
                       n_ctx=self.n_ctx, mha_token=fmt_bytes(self.mha_bytes_per_token),
                       mha_full=fmt_bytes(self.mha_bytes_full_context), ratio=Number(self.ratio_per_token, ".3g"),
                       ratio_full=Number(self.ratio_full_context, ".3g"))


def cache_bytes(cfg: Config, t: int, itemsize: int = 2, *, mha: bool = False) -> int:
    """Bytes of the K/V cache after t positions: each layer holds min(t, W) rows of
    2 · n_kv_heads · d_head numbers (mha: n_heads heads and no windows)."""
    heads = cfg.n_heads if mha else cfg.n_kv_heads
    rows = sum(t if mha or cfg.window(layer) is None else min(t, cfg.window(layer)) for layer in range(cfg.n_layers))
    return rows * 2 * heads * cfg.d_head * itemsize


def cache_size(cfg: Config, itemsize: int = 2) -> CacheSize:
    """Cache bytes per token and at n_ctx, with the multi-head equivalent (SmolLM2: 3x smaller)."""
    return CacheSize(itemsize=itemsize, n_ctx=cfg.n_ctx,
                     bytes_per_token=cache_bytes(cfg, 1, itemsize),
                     bytes_full_context=cache_bytes(cfg, cfg.n_ctx, itemsize),
                     mha_bytes_per_token=cache_bytes(cfg, 1, itemsize, mha=True),
                     mha_bytes_full_context=cache_bytes(cfg, cfg.n_ctx, itemsize, mha=True))


# -- prefill and decode ------------------------------------------------------------------------------
def _row_through_block(cfg: Config, W, layer: int, x, position: int, cache: LayerCache):
    """One new residual row x [d_model] at `position` through a block; appends its k, v to the cache."""
    p = f"blocks.{layer}."

    def plus(a, name):
        return a + W[p + name] if p + name in W else a

    c = cfg.components

    def pre(x, name):
        """Norm `name` before attention or the MLP (OLMo 2: none, x itself)."""
        return c.norm.reference(x[None, :], W[p + name + ".w"], W.get(p + name + ".b"))["out"][0] if c.pre_norm else x

    def post(out, name):
        """The norm after attention or the MLP (Gemma 2/3, OLMo 2), or out as it is."""
        return out if c.post_norm is None else c.post_norm.reference(out, W[p + name])["out"]

    h_in = pre(x, "ln1")                                                             # [d_model]
    q = plus(np.einsum("d,hde->he", h_in, W[p + "attn.W_Q"]), "attn.b_Q")            # [H, dh]
    k = plus(np.einsum("d,hde->he", h_in, W[p + "attn.W_K"]), "attn.b_K")            # [KV, dh]
    v = plus(np.einsum("d,hde->he", h_in, W[p + "attn.W_V"]), "attn.b_V")            # [KV, dh]
    if c.attention.qk_norm is not None:                                              # per head (OLMo 2: all heads)
        q = c.attention.qk_norm_reference(q[None], W[p + "attn.q_norm.w"])[0]        # [H, dh] q_normed
        k = c.attention.qk_norm_reference(k[None], W[p + "attn.k_norm.w"])[0]        # [KV, dh] k_normed
    if c.positions.rotates:
        rope = c.rotary(layer)                                                       # the layer's base (Gemma 3)
        cos, sin = rope.angles(1, start=position)                                    # [1, r/2] this position's angles
        q, k = rope.rotate(q[None], cos, sin)[0], rope.rotate(k[None], cos, sin)[0]  # [H|KV, dh]
    cache.append(k, v, position)
    kv_of = np.arange(cfg.n_heads) // cfg.n_groups                                  # [H] K/V head of each query head
    scale = c.attention.scale                                                         # 1/√d_head (Gemma: 1/√q_p_a_s)
    scores = np.einsum("he,the->ht", q, cache.k[:, kv_of]) * scale                   # [H, t] one row per head
    if c.attention.softcap is not None:                                               # Gemma 2: capped, then softmax
        scores = c.attention.softcap.reference(scores)                               # [H, t]
    e = np.exp(scores - scores.max(axis=1, keepdims=True))                            # [H, t]
    pattern = e / e.sum(axis=1, keepdims=True)                                        # [H, t]
    z = np.einsum("ht,the->he", pattern, cache.v[:, kv_of])                           # [H, dh]
    attn_out = plus(np.einsum("he,hed->d", z, W[p + "attn.W_O"]), "attn.b_O")         # [d_model]
    x_mid = x + post(attn_out, "ln1_post.w")                                          # resid_mid
    h2 = pre(c.mlp_reads(x, x_mid), "ln2")                                            # [d_model] parallel: x
    if c.experts is not None:                                                         # the row's top-k experts
        probs = softmax_rows((h2 @ W[p + "moe.W_router"])[None])                     # [1, E] router_probs
        g, chosen = c.experts.choose(probs)                                          # [1, E], [1, k]
        out = c.experts.run(h2[None], chosen, W[p + "moe.W_gate"], W[p + "moe.W_in"], W[p + "moe.W_out"])
        mlp_out = c.experts.mix(g, chosen, out)[0]                                    # [d_model]
        return x_mid + mlp_out, q, scores, pattern                                    # resid_post [d_model]
    if c.mlp.gated:
        act = c.mlp.activation(plus(h2 @ W[p + "mlp.W_gate"], "mlp.b_gate"), plus(h2 @ W[p + "mlp.W_in"], "mlp.b_in"))
    else:
        act = c.mlp.activation(plus(h2 @ W[p + "mlp.W_in"], "mlp.b_in"))              # [d_mlp]
    mlp_out = plus(act @ W[p + "mlp.W_out"], "mlp.b_out")                             # [d_model]
    return x_mid + post(mlp_out, "ln2_post.w"), q, scores, pattern                    # resid_post [d_model]


def prefill(cfg: Config, weights: Weights, prompt) -> Generation:
    """Run the prompt once (all rows at once) and keep every layer's k (after RoPE) and v; a
    layer with a window W keeps only the last W positions."""
    if not cfg.causal:
        raise ConfigError("causal", False, Message(QT_TR_NOOP(
            "a KV cache needs the causal mask: without it, earlier positions would see the new token and every "
            "row would change")))
    ids = [int(t) for t in cfg.validate_tokens(prompt)]
    if not ids:
        raise ConfigError("tokens", "0 tokens", Message(QT_TR_NOOP("the prompt needs at least one token")))
    trace = forward(cfg, weights, ids, backend="reference")
    key_name = cfg.components.cached_key                                  # rot_k with RoPE
    caches = []
    for layer in range(cfg.n_layers):
        W = cfg.window(layer)
        keep = slice(-W, None) if W is not None else slice(None)
        caches.append(LayerCache(k=np.array(trace[key_name, layer][keep]), v=np.array(trace["v", layer][keep]),
                                 positions=np.arange(len(ids))[keep], window=W))
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
        raise ConfigError("tokens", f"{position + 1} tokens",
                          Message(QT_TR_NOOP("n_ctx={n_ctx} is reached: no room to generate another token"),
                                  n_ctx=str(cfg.n_ctx)), limit=cfg.n_ctx)
    cfg.validate_tokens([token])
    W = gen.W or {n: a.astype(np.float64) for n, a in weights.items()}
    x = W["embed.W_E"][token] * cfg.components.embed_scale                # [d_model] (Gemma: · √d_model)
    if cfg.components.positions.embeds:
        x = x + W["pos_embed.W_pos"][position]                            # [d_model]
    qs, scores, patterns, keys = [], [], [], []
    for layer in range(cfg.n_layers):
        x, q, s, p = _row_through_block(cfg, W, layer, x, position, gen.caches[layer])
        qs.append(q), scores.append(s), patterns.append(p), keys.append(gen.caches[layer].positions.copy())
    final = cfg.components.norm.reference(x[None, :], W["ln_final.w"], W.get("ln_final.b"))["out"][0]  # [d_model]
    logits = final @ (W["embed.W_E"].T if cfg.tied_embeddings else W["unembed.W_U"])  # [d_vocab]
    if cfg.components.final_softcap is not None:                                     # Gemma 2
        logits = cfg.components.final_softcap.reference(logits)
    t = position + 1
    step = DecodeStep(position=position, token=int(token), q=qs, scores=scores, pattern=patterns,
                      logits=logits, next_token=int(np.argmax(logits)),
                      macs_cached=sequence_macs(cfg, 1, t), macs_recompute=sequence_macs(cfg, t, t), keys=keys)
    gen.tokens.append(int(token))
    gen.steps.append(step)
    return step


def _prompt_prediction(gen: Generation, weights: Weights) -> int:
    trace = forward(gen.cfg, weights, gen.tokens, backend="reference")
    return int(np.argmax(trace.logits_rows([len(gen.tokens) - 1])[0]))
