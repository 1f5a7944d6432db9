"""Shared K/V heads (grouped-query and multi-query attention): who reads which keys, what the
cache costs, and what sharing gives up.

Query head h reads K/V head h // (n_heads / n_kv_heads) (consecutive heads share, as HF's
repeat_kv). The heads of one group see the same keys k[:, g] and values v[:, g] and differ only
by their queries, so their scores q_h · k_gᵀ are different maps over one set of keys. The cache
keeps n_kv_heads heads instead of n_heads: n_heads / n_kv_heads times smaller (1 K/V head =
multi-query attention, MQA).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..config import Config
from ..trace import Trace
from ..weights import Weights
from .kvcache import cache_bytes


def kv_of(cfg: Config) -> np.ndarray:
    """[n_heads]: the K/V head each query head reads."""
    return np.arange(cfg.n_heads) // cfg.n_groups                             # [H]


def group_of(cfg: Config, head: int) -> tuple[int, ...]:
    """The query heads that share query head `head`'s K/V head (itself and its group)."""
    g = int(head) // cfg.n_groups
    return tuple(range(g * cfg.n_groups, (g + 1) * cfg.n_groups))


def kv_choices(cfg: Config) -> tuple[int, ...]:
    """Every n_kv_heads this n_heads allows: its divisors, from MQA (1) to multi-head (n_heads)."""
    return tuple(n for n in range(1, cfg.n_heads + 1) if cfg.n_heads % n == 0)


@dataclass(frozen=True)
class Group:
    """One group's heads in one layer: the shared keys, and each query head's scores over them."""

    layer: int
    kv_head: int
    heads: tuple[int, ...]            # the query heads of the group
    k: np.ndarray                     # [T, d_head] the shared keys (after RoPE when the model has it)
    scores: np.ndarray                # [len(heads), T, T] attn_scores of each (−inf where masked)
    trace: Trace = field(repr=False)

    @property
    def pattern(self) -> np.ndarray:
        """[len(heads), T, T] each head's pattern (read when asked: the page draws the scores)."""
        return np.stack([self.trace.read("pattern", self.layer, head=h) for h in self.heads])


def group(trace: Trace, layer: int, head: int) -> Group:
    """The group of query head `head` in `layer`, read from the Trace (one head at a time)."""
    cfg = trace.cfg
    heads = group_of(cfg, head)
    key_name = cfg.components.cached_key
    g = int(head) // cfg.n_groups
    scores = np.stack([trace.read("attn_scores", layer, head=h) for h in heads])   # [len(heads), T, T]
    return Group(layer=layer, kv_head=g, heads=heads, k=trace.read(key_name, layer, head=g), scores=scores,
                 trace=trace)


@dataclass(frozen=True)
class CacheMeter:
    """K/V cache bytes (fp16, as inference engines keep it) for one n_kv_heads, beside multi-head."""

    n_heads: int
    n_kv_heads: int
    T: int
    n_ctx: int
    bytes_now: int                    # after the T tokens on screen
    bytes_full: int                   # at n_ctx tokens
    mha_now: int                      # the same model with n_kv_heads = n_heads
    mha_full: int

    @property
    def ratio(self) -> float:
        """How many times smaller than multi-head attention: n_heads / n_kv_heads (no windows)."""
        return self.mha_full / self.bytes_full


def cache_meter(cfg: Config, T: int, n_kv_heads: int | None = None, itemsize: int = 2) -> CacheMeter:
    """The cache of `cfg` with n_kv_heads K/V heads (default: the model's own)."""
    n = cfg.n_kv_heads if n_kv_heads is None else int(n_kv_heads)
    what_if = cfg.replace(n_kv_heads=n)                                       # ConfigError if n does not divide
    return CacheMeter(n_heads=cfg.n_heads, n_kv_heads=n, T=T, n_ctx=cfg.n_ctx,
                      bytes_now=cache_bytes(what_if, T, itemsize), bytes_full=cache_bytes(what_if, cfg.n_ctx, itemsize),
                      mha_now=cache_bytes(what_if, T, itemsize, mha=True),
                      mha_full=cache_bytes(what_if, cfg.n_ctx, itemsize, mha=True))


def pool_kv(cfg: Config, weights: Weights, n_kv_heads: int) -> tuple[Config, Weights]:
    """The same model with n_kv_heads K/V heads made from its own: each new K/V head is the mean
    of the old ones its query heads read (Ainslie et al. 2023 mean-pool this way before
    uptraining; here nothing is retrained). To multi-head (n_kv_heads = n_heads) it is exact:
    each query head gets a copy of the K/V head it read."""
    new = cfg.replace(n_kv_heads=int(n_kv_heads))
    old_of, new_of = kv_of(cfg), kv_of(new)                                   # [H] each
    # share[g_new, g_old]: the fraction of new head g_new's query heads that read old head g_old
    share = np.zeros((new.n_kv_heads, cfg.n_kv_heads))                        # [KV_new, KV_old]
    np.add.at(share, (new_of, old_of), 1.0)
    share /= share.sum(axis=1, keepdims=True)
    arrays = dict(weights.items())
    for layer in range(cfg.n_layers):
        for name in ("W_K", "W_V", "b_K", "b_V"):
            full = f"blocks.{layer}.attn.{name}"
            if full in arrays:
                old = arrays[full].astype(np.float64)                          # [KV_old, ...]
                arrays[full] = np.tensordot(share, old, axes=1).astype(np.float32)   # [KV_new, ...]
    return new, Weights.from_dict(new, arrays, source=f"K/V heads pooled to {n_kv_heads}")

