"""The runs of many passes that circuits need: the head finder and activation patching (forward with
interventions, compute/circuits.py, many times)."""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import progress
from .circuits import (
    HeadScores,
    InterventionError,
    Patch,
    PatchingRun,
    PatchMetric,
    _token,
    head_scores,
    repeated_tokens,
)
from .config import Config
from .forward import forward
from .weights import Weights


def find_heads(cfg: Config, weights: Weights, backend: str = "cpu", n: int = 20, seed: int = 0,
               bos: int | None = None, low: int = 0) -> HeadScores:
    """Induction, previous-token, sink and duplicate-token scores of every head, from one pass on a
    random sequence repeated ([bos] + r + r)."""
    tokens = repeated_tokens(cfg, n, seed, low, bos)
    return head_scores(forward(cfg, weights, tokens, backend), n)



def patching(cfg: Config, weights: Weights, clean_tokens: Any, corrupted_tokens: Any, answer: int, wrong: int,
             backend: str = "cpu", kinds: Sequence[str] = ("heads", "positions"),
             on_cell: Callable[[str, int, int, float], None] | None = None,
             cancelled: Callable[[], bool] | None = None) -> PatchingRun:
    """Activation patching (denoising): each head's z, and resid_pre at each position, of every layer
    taken from the clean pass into the corrupted one; each patch at layer l reuses the corrupted
    pass's layers before l. `on_cell(kind, layer, index, restored)` after each cell ("heads" or
    "positions"); `cancelled()` true stops it with compute.progress.Cancelled."""
    t0 = time.perf_counter()
    clean_ids, corr_ids = cfg.validate_tokens(clean_tokens), cfg.validate_tokens(corrupted_tokens)
    if len(clean_ids) != len(corr_ids):
        raise InterventionError(f"the clean prompt has {len(clean_ids)} tokens, the corrupted one "
                                f"{len(corr_ids)}: patching needs prompts of equal length")
    if len(clean_ids) == 0:
        raise InterventionError("patching needs at least one token")
    metric = PatchMetric(_token(cfg, answer), _token(cfg, wrong))
    bad = [k for k in kinds if k not in ("heads", "positions")]
    if bad:
        raise InterventionError(f"unknown patching map {bad[0]!r}; choose 'heads' or 'positions'")
    clean = forward(cfg, weights, clean_ids, backend)
    corrupted = forward(cfg, weights, corr_ids, backend)
    m_clean, m_corr = metric(clean), metric(corrupted)
    L, H, T = cfg.n_layers, cfg.n_heads, len(corr_ids)
    heads_map, pos_map = np.full((L, H), np.nan), np.full((L, T), np.nan)
    gap = m_clean - m_corr

    def cell(kind: str, layer: int, index: int, iv) -> None:
        if cancelled is not None and cancelled():
            raise progress.Cancelled("patching cancelled")
        patched = forward(cfg, weights, corr_ids, backend, interventions=[iv], reuse=corrupted)
        value = (metric(patched) - m_corr) / gap if gap != 0 else float("nan")
        (heads_map if kind == "heads" else pos_map)[layer, index] = value
        if on_cell is not None:
            on_cell(kind, layer, index, value)

    if "heads" in kinds:
        for layer in range(L):
            for h in range(H):
                cell("heads", layer, h, Patch("z", layer, clean, head=h))
    if "positions" in kinds:
        for layer in range(L):
            for p in range(T):
                cell("positions", layer, p, Patch("resid_pre", layer, clean, positions=[p]))
    return PatchingRun(clean_ids, corr_ids, metric, m_clean, m_corr, heads_map, pos_map, time.perf_counter() - t0)
