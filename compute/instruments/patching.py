"""The runs of many passes that circuits need: the head finder and activation patching (forward with
interventions, compute/circuits.py, many times)."""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import progress
from ..circuits import (
    HeadScores,
    InterventionError,
    PatchingRun,
    PatchMetric,
    _token,
    batched_metric,
    head_scores,
    repeated_tokens,
    unembed_column,
)
from ..config import Config
from ..forward import forward
from ..weights import Weights


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
    taken from the clean pass into the corrupted one. The patches of one layer run as one batch from
    that layer on (every layer before it is the corrupted pass's, reused); a cell is exactly
    forward(corrupted, interventions=[Patch(...)]) read at the metric. `on_cell(kind, layer, index,
    restored)` after each cell ("heads" or "positions"); `cancelled()` true stops it (Cancelled)."""
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
    L, H, T, dm = cfg.n_layers, cfg.n_heads, len(corr_ids), cfg.d_model
    heads_map, pos_map = np.full((L, H), np.nan), np.full((L, T), np.nan)
    gap = m_clean - m_corr
    dtype = np.dtype(corrupted.dtype)
    direction = unembed_column(cfg, weights, metric.answer) - unembed_column(cfg, weights, metric.wrong)  # [d_model]

    def run(kind: str, layer: int, name: str, put, n: int, cells) -> None:
        if cancelled is not None and cancelled():
            raise progress.Cancelled("patching cancelled")
        base = np.asarray(corrupted["resid_pre", layer], dtype=dtype)             # [T, d_model]
        resid = np.ascontiguousarray(np.broadcast_to(base, (n, T, dm)))           # [n, T, d_model]

        def hook(at: str, lyr: int, x: np.ndarray) -> np.ndarray:
            if at != name or lyr != layer:
                return x
            x = x.copy()
            put(x)
            return x
        values = batched_metric(cfg, weights, dtype, resid, base, layer, None, hook, direction)   # [n]
        for index, value in zip(cells, values, strict=True):
            restored = (float(value) - m_corr) / gap if gap != 0 else float("nan")
            (heads_map if kind == "heads" else pos_map)[layer, index] = restored
            if on_cell is not None:
                on_cell(kind, layer, index, restored)

    for layer in range(L) if "heads" in kinds else ():
        z = np.asarray(clean["z", layer], dtype=dtype)                            # [T, H, dh]

        def put_heads(x, z=z) -> None:                                            # x [H, T, H, dh]: batch b, head b
            for b in range(H):
                x[b, :, b] = z[:, b]
        run("heads", layer, "z", put_heads, H, range(H))
    for layer in range(L) if "positions" in kinds else ():
        r = np.asarray(clean["resid_pre", layer], dtype=dtype)                    # [T, d_model]
        # A row the two passes share (every row before the first differing token: causal) patches nothing.
        rows = np.flatnonzero((r != np.asarray(corrupted["resid_pre", layer], dtype=dtype)).any(axis=1))   # [n]
        for p in sorted(set(range(T)) - set(rows.tolist())):
            pos_map[layer, p] = 0.0
            if on_cell is not None:
                on_cell("positions", layer, p, 0.0)
        if not rows.size:
            continue

        def put_positions(x, r=r, rows=rows) -> None:                  # x [n, T, d_model]: batch b, row rows[b]
            for b, p in enumerate(rows):
                x[b, p] = r[p]
        run("positions", layer, "resid_pre", put_positions, len(rows), rows.tolist())
    return PatchingRun(clean_ids, corr_ids, metric, m_clean, m_corr, heads_map, pos_map, time.perf_counter() - t0)
