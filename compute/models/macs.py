"""Multiply-adds of a block and of a pass, from the components (the KV-cache instrument's
"cached vs recomputed" and the runner's choice of an incremental pass read these)."""
from __future__ import annotations

from typing import Any

import numpy as np


def keys_seen(cfg: Any, n_new: int, n_total: int, layer: int = 0) -> int:
    """Keys the n_new newest of n_total positions score in a layer: causal, row p sees p + 1 keys,
    or min(p + 1, W) with a window W; without causal, every key (or the band |p - j| < W)."""
    p = np.arange(n_total - n_new, n_total, dtype=np.int64)               # [n_new] positions of the new rows
    W = cfg.window(layer)
    if cfg.causal:
        seen = p + 1 if W is None else np.minimum(p + 1, W)
    else:
        seen = np.full(n_new, n_total) if W is None else np.minimum(p + W, n_total) - np.maximum(0, p - W + 1)
    return int(seen.sum())


def block_macs(cfg: Any, n_new: int, n_total: int, layer: int = 0) -> int:
    """Multiply-adds of one block (layer `layer`, for its window) for n_new query rows attending over
    n_total positions (causal: row r of the new ones sees n_total - n_new + r + 1 keys)."""
    keys = keys_seen(cfg, n_new, n_total, layer)
    return cfg.components.block_macs(cfg.d_model, cfg.d_mlp, n_new, keys)


def sequence_macs(cfg: Any, n_new: int, n_total: int) -> int:
    """All blocks plus the unembedding of the last row."""
    if cfg.windows is None:
        return cfg.n_layers * block_macs(cfg, n_new, n_total) + cfg.d_model * cfg.d_vocab
    return sum(block_macs(cfg, n_new, n_total, layer) for layer in range(cfg.n_layers)) + cfg.d_model * cfg.d_vocab
