"""Overviews of long maps: a T×T map drawn smaller than its cells, and a row's few keys that matter.

A 4,096 × 4,096 map has more cells than a panel has pixels. Taking every n-th row and column (or the
mean of each n × n block) makes thin structures vanish: an attention sink is one column, an
induction head one diagonal stripe. `pooled` keeps, for each block of cells, the value of largest
magnitude (its sign kept: for a pattern, ≥ 0, that is the block's maximum), so a one-cell stripe is
still a stripe in the overview; a block whose cells are all masked stays masked. `top_keys` picks a
query row's strongest keys (for a sparse plot of the Softmax row, and marks on the map).
Pure numpy: the screen and the exported figures draw the same overview.
"""
from __future__ import annotations

import math

import numpy as np


def pool_factors(rows: int, cols: int, max_cells: int) -> tuple[int, int]:
    """Cells per overview pixel along each axis so that neither side exceeds `max_cells`."""
    return max(1, math.ceil(rows / max(max_cells, 1))), max(1, math.ceil(cols / max(max_cells, 1)))


def pooled(values: np.ndarray, factors: tuple[int, int], masked: np.ndarray | None = None) -> tuple[
        np.ndarray, np.ndarray]:
    """The overview of `values` [R, C] in blocks of factors = (fr, fc) cells: [ceil(R/fr), ceil(C/fc)]
    float32 holding each block's value of largest |x| among its cells that are finite and not `masked`,
    and `hidden` [same shape] bool where a block has no such cell (drawn as masked)."""
    fr, fc = factors
    values = np.asarray(values, dtype=np.float32)
    R, C = values.shape
    r, c = math.ceil(R / fr), math.ceil(C / fc)
    shown = np.isfinite(values) if masked is None else np.isfinite(values) & ~np.asarray(masked, bool)   # [R, C]
    padded = np.zeros((r * fr, c * fc), np.float32)                          # [r·fr, c·fc]
    keep = np.zeros((r * fr, c * fc), bool)
    padded[:R, :C] = np.where(shown, values, 0.0)
    keep[:R, :C] = shown
    blocks = padded.reshape(r, fr, c, fc)                                    # [r, fr, c, fc]
    kept = keep.reshape(r, fr, c, fc)
    top = np.where(kept, blocks, -np.inf).max(axis=(1, 3))                   # [r, c] largest value
    low = np.where(kept, blocks, np.inf).min(axis=(1, 3))                    # [r, c] smallest value
    hidden = ~kept.any(axis=(1, 3))                                          # [r, c] nothing to show
    out = np.where(np.abs(low) > np.abs(top), low, top).astype(np.float32)   # [r, c] of largest |x|, signed
    out[hidden] = np.nan
    return out, hidden


def top_keys(row: np.ndarray, k: int, allowed: np.ndarray | None = None) -> np.ndarray:
    """Positions of the `k` largest finite values of `row` [T] (among `allowed`), strongest first."""
    row = np.asarray(row, dtype=np.float64)
    ok = np.isfinite(row) if allowed is None else np.isfinite(row) & np.asarray(allowed, bool)
    candidates = np.flatnonzero(ok)                                          # [n]
    if not candidates.size or k <= 0:
        return np.zeros(0, np.int64)
    k = min(k, candidates.size)
    best = candidates[np.argpartition(-row[candidates], k - 1)[:k]]          # [k] unordered
    return best[np.argsort(-row[best], kind="stable")].astype(np.int64)


THUMB_CELLS = 32               # a pattern thumbnail (the block map's layer tiles) has at most this many cells a side
THUMB_PERCENTILE = 0.99        # its scale ends at this percentile of its weights (past the first query)


def pattern_thumbnail(pattern: np.ndarray, max_cells: int = THUMB_CELLS) -> tuple[np.ndarray, tuple[float, float]]:
    """A T×T pattern as a ~34 px tile shows it: max-pooled to at most `max_cells` a side (a stripe
    one key wide stays a stripe), on 0…the 99th percentile of the weights that queries 1… put on the
    keys they see (capped at 1). At 60 tokens a row's weights are ~1/60 and query 0's is always 1:
    on 0…1, averaged down, the tiles were blank. Returns (values [r, c], levels)."""
    P = np.asarray(pattern, dtype=np.float32)                                # [T, T]
    T = P.shape[0]
    seen = np.tril(np.ones((T, T), bool), 0) & np.isfinite(P)                # [T, T] causal, finite
    seen[:1] = False                                                         # query 0: one key, weight 1
    weights = P[seen]                                                        # [n]
    top = float(np.quantile(weights, THUMB_PERCENTILE)) if weights.size else 1.0
    values, _hidden = pooled(P, pool_factors(T, P.shape[1], max_cells))     # [r, c]
    return np.nan_to_num(values), (0.0, min(max(top, 1e-3), 1.0))
