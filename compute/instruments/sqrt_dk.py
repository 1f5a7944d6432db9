"""The 1/sqrt(d_k) lab: why scores are divided by sqrt(d_head), measured rather than asserted.

For q and k with independent unit-variance entries, q·k is a sum of d_k products of variance 1,
so its spread is sqrt(d_k). Unscaled, large d_k pushes softmax rows to one-hot, where the
softmax's Jacobian (diag(p) − p pᵀ) is nearly zero and gradients stop flowing back into q and k.
Every number here is drawn from a seeded generator; the gradients come from torch autograd.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..backends.reference import softmax_rows
from .explain import row_entropy

D_K_STOPS: tuple[int, ...] = (4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)


@dataclass(frozen=True)
class Spread:
    d_k: int
    raw: np.ndarray                   # [n] samples of q·k
    std_raw: float                    # measured spread, ≈ sqrt(d_k)
    std_scaled: float                 # spread of q·k / sqrt(d_k), ≈ 1
    sqrt_d_k: float


@dataclass(frozen=True)
class RowStats:
    d_k: int
    T: int
    row_raw: np.ndarray               # [T] softmax of unscaled scores
    row_scaled: np.ndarray            # [T] softmax of scaled scores
    max_raw: float
    max_scaled: float
    entropy_raw: float                # nats; log(T) would be a uniform row
    entropy_scaled: float


@dataclass(frozen=True)
class Gradients:
    """Per-row gradient norms through the softmax. Medians, because saturation is per row: a
    few unsaturated rows can keep a mean up while most rows pass back almost nothing."""

    d_k: int
    grad_scores_raw: float            # median ‖∂L/∂scores‖ per row, unscaled
    grad_scores_scaled: float
    grad_q_raw: float                 # median ‖∂L/∂q‖ per row, unscaled
    grad_q_scaled: float
    stalled_raw: float                # share of rows whose ‖∂L/∂scores‖ < 1e-3: nothing to learn from
    stalled_scaled: float


def dot_product_spread(d_k: int, n: int = 20_000, seed: int = 0) -> Spread:
    """n samples of q·k with q, k ~ N(0, 1)^d_k (drawn in chunks to bound memory)."""
    rng = np.random.default_rng([seed, d_k])
    out = np.empty(n)
    chunk = max(1, (1 << 22) // d_k)
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        q = rng.standard_normal((m, d_k))                                 # [m, d_k]
        k = rng.standard_normal((m, d_k))                                 # [m, d_k]
        out[start:start + m] = np.einsum("nd,nd->n", q, k)                # [m]
    root = math.sqrt(d_k)
    return Spread(d_k=d_k, raw=out, std_raw=float(out.std()), std_scaled=float((out / root).std()),
                  sqrt_d_k=root)


def softmax_row(d_k: int, T: int = 16, seed: int = 0) -> RowStats:
    """One query against T random keys: the softmax row with and without 1/sqrt(d_k)."""
    rng = np.random.default_rng([seed, d_k, T])
    q = rng.standard_normal(d_k)                                          # [d_k]
    K = rng.standard_normal((T, d_k))                                     # [T, d_k]
    s = K @ q                                                             # [T] raw scores

    raw, scaled = softmax_rows(s), softmax_rows(s / math.sqrt(d_k))       # [T], [T]
    return RowStats(d_k=d_k, T=T, row_raw=raw, row_scaled=scaled, max_raw=float(raw.max()),
                    max_scaled=float(scaled.max()), entropy_raw=row_entropy(raw),
                    entropy_scaled=row_entropy(scaled))


def softmax_gradients(d_k: int, T: int = 16, rows: int = 64, seed: int = 0) -> Gradients:
    """Gradient norms through the softmax, with and without scaling (torch autograd).

    Each row: scores s = K q (÷ sqrt(d_k) when scaled), p = softmax(s), and a loss L = Σ_j g_j p_j
    with a random upstream gradient g (what p·V passes back). ∂L/∂s = (diag(p) − p pᵀ) g.
    """
    import torch

    gen = torch.Generator().manual_seed(seed * 100_003 + d_k)
    out = {}
    for scaled in (False, True):
        q = torch.randn(rows, d_k, generator=gen, dtype=torch.float64, requires_grad=True)   # [rows, d_k]
        K = torch.randn(rows, T, d_k, generator=gen, dtype=torch.float64)                     # [rows, T, d_k]
        g = torch.randn(rows, T, generator=gen, dtype=torch.float64)                          # [rows, T]
        s = torch.einsum("rtd,rd->rt", K, q)                                                  # [rows, T]
        if scaled:
            s = s / math.sqrt(d_k)
        s.retain_grad()
        p = torch.softmax(s, dim=-1)                                                          # [rows, T]
        (p * g).sum().backward()
        per_row = s.grad.norm(dim=-1)                                                         # [rows]
        out[scaled] = (float(per_row.median()), float(q.grad.norm(dim=-1).median()),
                       float((per_row < 1e-3).double().mean()))
    return Gradients(d_k=d_k, grad_scores_raw=out[False][0], grad_scores_scaled=out[True][0],
                     grad_q_raw=out[False][1], grad_q_scaled=out[True][1],
                     stalled_raw=out[False][2], stalled_scaled=out[True][2])


LAB_SAMPLES = 20_000            # q·k samples per d_k (fewer at large d_k: bounded work)
LAB_ROWS = 256                  # softmax rows for the gradient measurement


@dataclass(frozen=True)
class LabNumbers:
    """Everything the √d_k lab shows for one d_k: the spread, its histograms (counts, edges), one
    softmax row, the gradients, and the std of q·k over every stop (d_k, std raw, std scaled)."""

    spread: Spread
    hist_raw: tuple[np.ndarray, np.ndarray]
    hist_scaled: tuple[np.ndarray, np.ndarray]
    row: RowStats
    grads: Gradients
    curve: list[tuple[int, float, float]]
    grad_rows: int


def lab_numbers(d_k: int) -> LabNumbers:
    n = min(LAB_SAMPLES, max(2000, (1 << 24) // d_k))              # bounded work per d_k
    curve = []
    for stop in D_K_STOPS:                                          # the whole curve, cheaply
        s = dot_product_spread(stop, n=2000, seed=7)
        curve.append((stop, s.std_raw, s.std_scaled))
    spread = dot_product_spread(d_k, n=n, seed=1)
    return LabNumbers(spread=spread, hist_raw=np.histogram(spread.raw, bins=60),
                      hist_scaled=np.histogram(spread.raw / spread.sqrt_d_k, bins=60),
                      row=softmax_row(d_k, T=16, seed=2), grads=softmax_gradients(d_k, T=16, rows=LAB_ROWS, seed=3),
                      curve=curve, grad_rows=LAB_ROWS)
