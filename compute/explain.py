"""Small derived quantities that views show beside the Trace (kept here so widgets never compute).

Each is a direct restatement of one equation with the Trace's own numbers.
"""
from __future__ import annotations

import numpy as np

from .trace import Trace


def weighted_terms(trace: Trace, layer: int, head: int, query: int) -> tuple[np.ndarray, np.ndarray]:
    """The terms of z_i = sum_j pattern[h, i, j] * v_j, and z_i itself.

    Returns terms [T, d_head] (row j is pattern[h, i, j] * v[j, h]) and z_i [d_head].
    """
    p = trace["pattern", layer][head, query]                              # [T]
    v = trace["v", layer][:, head]                                        # [T, d_head]
    terms = p[:, None] * v                                                # [T, d_head]
    return terms, trace["z", layer][query, head]                          # [T, d_head], [d_head]


def top_predictions(trace: Trace, position: int, k: int = 10) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The k most likely next tokens at `position`: ids [k], logits [k], probabilities [k]."""
    logits = np.asarray(trace.logits_rows([position])[0], dtype=np.float64)  # [d_vocab]
    k = min(k, logits.shape[0])
    top = np.argsort(-logits, kind="stable")[:k]                          # [k]
    probs = np.exp(logits - logits.max())                                 # [d_vocab]
    probs /= probs.sum()
    return top, logits[top], probs[top]


def row_entropy(p: np.ndarray) -> float:
    """Shannon entropy (nats) of one probability row; 0 log 0 counts as 0."""
    p = np.asarray(p, dtype=np.float64)
    nz = p[p > 0]
    return float(-(nz * np.log(nz)).sum())
