"""The tiled softmax: how FlashAttention computes attention without the T×T matrix.

One block of query rows (B_r of them) meets the keys one tile of B_c keys at a time. Each row
keeps three running things: the largest score so far m, the sum so far ℓ of exp(score − m), and
the output so far o = Σ exp(score − m) · v. A new tile's scores S may raise the maximum; then
everything kept so far is rescaled by exp(m_old − m_new):

    m_new = max(m_old, max_j S_j)
    ℓ_new = exp(m_old − m_new) · ℓ_old + Σ_j exp(S_j − m_new)
    o_new = exp(m_old − m_new) · o_old + Σ_j exp(S_j − m_new) · v_j

After the last tile, o / ℓ is z and exp(S − m) / ℓ is the softmax row: exactly, not approximately.
Only a tile of scores [B_r, B_c] exists at any time, and only o, m and ℓ are written back; the
materialised version writes the scores [B_r, T] and the probabilities [B_r, T] out to memory and
reads them back. Tiles every key of which the mask forbids are skipped (causal: the keys after
the block), as FlashAttention does.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..backends.base import allowed_pairs
from ..backends.reference import softmax_rows
from ..trace import Trace

ITEMSIZE = 4                          # bytes per number: float32, as the lab computes


@dataclass(frozen=True)
class TileStep:
    """What one tile did to the block's running values."""

    tile: int                         # tile index over the keys
    keys: tuple[int, int]             # [start, stop) of its keys
    scores: np.ndarray                # [B_r, B_c] scaled scores of the tile (−inf where masked)
    m_before: np.ndarray              # [B_r] the running max before it
    m: np.ndarray                     # [B_r] after
    rescale: np.ndarray               # [B_r] exp(m_before − m): how much the old ℓ and o shrink
    p: np.ndarray                     # [B_r, B_c] exp(S − m)
    ell: np.ndarray                   # [B_r] the running sum ℓ after it
    o: np.ndarray                     # [B_r, d_head] the running output (not yet divided by ℓ)
    bytes_read: int                   # this step: K and V tiles (and the Q block at the first)
    bytes_written: int                # this step: o, m and ℓ at the last, nothing before


@dataclass(frozen=True)
class TiledRun:
    layer: int
    head: int
    rows: tuple[int, int]             # [start, stop) of the query block
    tile: int                         # B_r = B_c
    T: int
    d_head: int
    scores: np.ndarray                # [B_r, T] the block's scaled scores (−inf masked), for display
    steps: tuple[TileStep, ...]
    skipped: int                      # tiles left out: the mask forbids every key in them
    materialised: np.ndarray          # [B_r, T] the softmax of the whole rows at once

    def pattern_after(self, n: int) -> np.ndarray:
        """[B_r, T] the softmax rows as the running values give them after n steps: exp(S − m) / ℓ
        over the keys seen so far, NaN for keys still to come, 0 for keys of skipped tiles (the
        mask forbids them). After the last step: the pattern rows."""
        out = np.zeros((self.rows[1] - self.rows[0], self.T))                 # [B_r, T]
        for step in self.steps[n:]:
            out[:, step.keys[0]:step.keys[1]] = np.nan                          # not reached yet
        if n == 0:
            return out
        last = self.steps[n - 1]
        for step in self.steps[:n]:
            a, b = step.keys
            p = np.exp(step.scores - np.where(np.isfinite(last.m), last.m, 0.0)[:, None])   # [B_r, B_c] at the newest m
            out[:, a:b] = np.divide(p, last.ell[:, None], out=np.zeros_like(p), where=last.ell[:, None] > 0)
        return out

    def output_after(self, n: int) -> np.ndarray:
        """[B_r, d_head] o / ℓ after n steps (z of the block after the last)."""
        if n == 0:
            return np.zeros((self.rows[1] - self.rows[0], self.d_head))
        s = self.steps[n - 1]
        return np.divide(s.o, s.ell[:, None], out=np.zeros_like(s.o), where=s.ell[:, None] > 0)   # [B_r, d_head]

    @property
    def bytes_tiled(self) -> int:
        return sum(s.bytes_read + s.bytes_written for s in self.steps)

    @property
    def bytes_materialised(self) -> int:
        """Q, K, V read, the scores [B_r, T] written and read back, the probabilities [B_r, T]
        written and read back, z written: the same block computed in three passes."""
        Br, T, dh = self.rows[1] - self.rows[0], self.T, self.d_head
        return ITEMSIZE * (Br * dh + 2 * T * dh + 4 * Br * T + Br * dh)


def tiled_attention(q: np.ndarray, K: np.ndarray, V: np.ndarray, allowed: np.ndarray, scale: float,
                    tile: int) -> tuple[list[TileStep], int]:
    """One query block q [B_r, d_head] against K, V [T, d_head] in tiles of `tile` keys; allowed
    [B_r, T] is the mask. Returns the steps and how many all-masked tiles were skipped."""
    Br, dh = q.shape
    T = K.shape[0]
    m = np.full(Br, -np.inf)                                                  # [B_r] running max
    ell = np.zeros(Br)                                                        # [B_r] running sum
    o = np.zeros((Br, dh))                                                    # [B_r, d_head] running output
    steps = []
    tiles = [(a, min(a + tile, T)) for a in range(0, T, tile)]
    wanted = [(n, a, b) for n, (a, b) in enumerate(tiles) if allowed[:, a:b].any()]
    skipped = len(tiles) - len(wanted)
    for count, (n, a, b) in enumerate(wanted):
        S = np.where(allowed[:, a:b], (q @ K[a:b].T) * scale, -np.inf)        # [B_r, B_c] this tile's scores
        m_new = np.maximum(m, S.max(axis=1))                                  # [B_r]
        safe = np.where(np.isfinite(m_new), m_new, 0.0)                      # [B_r] rows with nothing yet: any shift
        rescale = np.exp(m - safe)                                            # [B_r] exp(m_old − m_new); 0 at the start
        p = np.exp(S - safe[:, None])                                         # [B_r, B_c]
        ell = rescale * ell + p.sum(axis=1)                                   # [B_r]
        o = rescale[:, None] * o + p @ V[a:b]                                 # [B_r, d_head]
        first, last = count == 0, count == len(wanted) - 1
        read = ITEMSIZE * (2 * (b - a) * dh + (Br * dh if first else 0))
        written = ITEMSIZE * (Br * dh + 2 * Br) if last else 0
        steps.append(TileStep(tile=n, keys=(a, b), scores=S, m_before=m, m=m_new, rescale=rescale, p=p, ell=ell, o=o,
                              bytes_read=read, bytes_written=written))
        m = m_new
    return steps, skipped


def tiled_run(trace: Trace, layer: int, head: int, query: int, tile: int) -> TiledRun:
    """The query block of `tile` rows that holds `query`, computed tile by tile from the Trace's q,
    k and v of this head (its K/V head; rotated q and k with RoPE), in float64."""
    cfg, T = trace.cfg, trace.T
    tile = max(1, min(int(tile), max(T, 1)))
    start = (int(query) // tile) * tile
    rows = (start, min(start + tile, T))
    g = int(head) // cfg.n_groups
    q_name, k_name = cfg.components.score_inputs
    q = np.asarray(trace.read(q_name, layer, head=head, rows=slice(*rows)), np.float64)   # [B_r, d_head]
    K = np.asarray(trace.read(k_name, layer, head=g), np.float64)                       # [T, d_head]
    V = np.asarray(trace.read("v", layer, head=g), np.float64)                          # [T, d_head]
    allowed = allowed_pairs(T, cfg.causal, trace.attn_mask, cfg.window(layer))[rows[0]:rows[1]]   # [B_r, T]
    scale = 1.0 / np.sqrt(cfg.d_head) if cfg.scale_scores else 1.0
    steps, skipped = tiled_attention(q, K, V, allowed, scale, tile)
    scores = np.where(allowed, (q @ K.T) * scale, -np.inf)                    # [B_r, T] for display
    return TiledRun(layer=layer, head=head, rows=rows, tile=tile, T=T, d_head=cfg.d_head, scores=scores,
                    steps=tuple(steps), skipped=skipped, materialised=softmax_rows(scores))


TILE_CHOICES: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128)
