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


def display_cells(values: np.ndarray, factors: tuple[int, int], masked: np.ndarray | None = None,
                  fill: float | None = None) -> np.ndarray:
    """What a heatmap draws of a block of cells `values` [R, C]: float32 [ceil(R/fr), ceil(C/fc)],
    max-pooled where factors > 1 (`pooled`), NaN where nothing is to be shown (masked or not
    finite); with `fill`, masked cells show `fill` instead (a staircase drawn over them hides them)."""
    if factors != (1, 1):
        return pooled(values, factors, masked)[0]
    if fill is not None and masked is not None:
        out = np.where(masked, np.float32(fill), values).astype(np.float32)   # [R, C]
    else:
        out = np.array(values, dtype=np.float32)                           # [R, C] a copy the screen owns
        if masked is not None:
            out[np.asarray(masked, bool)] = np.nan
    out[~np.isfinite(out)] = np.nan
    return out


class Overview:
    """A map's display cells (`display_cells`: its overview when pooled), kept between edits.

    An edit that keeps the first `kept_rows` token rows (and, for a T×T map, `kept_cols` key
    columns) of the map drawn last re-pools only the block rows and block columns it changed:
    appending a token to a 4,096² map pools one block row and one block column, not 16 M cells.
    `update` returns (row, col): the display rows from `row` and, above them, the display
    columns from `col` were made again (the rest holds what it held)."""

    def __init__(self) -> None:
        self.cells: np.ndarray | None = None      # [r, c] float32 (NaN: nothing to show)
        self._key: tuple | None = None            # (factors, fill mode) the cells were made with
        self._source_shape: tuple[int, int] = (0, 0)

    def update(self, values: np.ndarray, factors: tuple[int, int], masked: np.ndarray | None = None,
               fill: float | None = None, kept_rows: int = 0, kept_cols: int | None = 0) -> tuple[int, int]:
        """Make the display cells of `values` [R, C]; `kept_cols` None: every column is kept where
        its row is (the columns are not tokens)."""
        R, C = values.shape
        fr, fc = factors
        key = (factors, fill is not None, masked is not None)
        R0, C0 = self._source_shape
        old = self.cells
        if kept_cols is None:
            kept_cols = C if C == C0 else 0
        kr, kc = min(kept_rows, R0, R), min(kept_cols, C0, C)
        br, bc = kr // fr, kc // fc                                       # whole blocks kept
        if old is None or key != self._key or br == 0 or (bc == 0 and C > 0):
            self.cells = display_cells(values, factors, masked, fill)
            self._key, self._source_shape = key, (R, C)
            return 0, 0
        r, c = math.ceil(R / fr), math.ceil(C / fc)
        cells = old if old.shape == (r, c) else np.empty((r, c), np.float32)   # [r, c]
        if cells is not old:
            cells[:br, :bc] = old[:br, :bc]
        cut = (lambda a, r0, r1, c0, c1: None if a is None else a[r0:r1, c0:c1])   # noqa: E731
        cells[br:] = display_cells(values[br * fr:], factors, cut(masked, br * fr, R, 0, C), fill)
        if bc < c:
            cells[:br, bc:] = display_cells(values[:br * fr, bc * fc:], factors, cut(masked, 0, br * fr, bc * fc, C),
                                            fill)
        self.cells, self._source_shape = cells, (R, C)
        return br, bc


def colour_cells(cells: np.ndarray, levels: tuple[float, float], lut: np.ndarray, out: np.ndarray) -> None:
    """Colour display cells [r, c] into `out` [r, c] uint32 through `lut` [n] uint32 (packed
    colours) on `levels` = (lo, hi): NaN becomes 0 (transparent)."""
    lo, hi = levels
    n = len(lut)
    nan = np.isnan(cells)                                                  # [r, c]
    k = np.subtract(cells, np.float32(lo), dtype=np.float32)               # [r, c] steps of the map
    k *= np.float32(n / ((hi - lo) or 1.0))
    np.clip(k, 0, n - 1, out=k)
    with np.errstate(invalid="ignore"):                                    # NaN: any step, made 0 below
        index = k.astype(np.uint8 if n <= 256 else np.uint16)              # [r, c]
    if out.flags.c_contiguous:
        np.take(lut, index, out=out, mode="wrap")            # in range already: wrap is the fast mode
    else:
        out[...] = np.take(lut, index, mode="wrap")
    if nan.any():
        out[nan] = 0
