"""The course's numbers, computed rather than typed."""
from __future__ import annotations

import math

import numpy as np
import pytest

from compute import PRESETS, Weights, forward


@pytest.mark.parametrize("d_k, expected", [(64, 8), (256, 16), (4096, 64)])
def test_dot_products_of_unit_variance_vectors_grow_like_sqrt_dk(rng, d_k, expected):
    q = rng.standard_normal((4000, d_k))
    k = rng.standard_normal((4000, d_k))
    dots = np.einsum("nd,nd->n", q, k)                                   # 4000 samples of q . k
    assert abs(dots.std() - expected) / expected < 0.05
    assert abs((dots / math.sqrt(d_k)).std() - 1.0) < 0.05             # scaling brings it to ~1


def test_andrea_scores_per_head_at_T_1024():
    cfg = PRESETS["andrea-120m"].replace(n_layers=1)
    trace = forward(cfg, Weights.random(cfg, 0), np.arange(1024) % cfg.d_vocab, backend="cpu")
    scores = trace["attn_scores_raw", 0]
    assert scores.shape == (12, 1024, 1024)
    assert scores[0].size == 1_048_576                                  # per head, per forward pass
    assert cfg.d_model // cfg.n_heads == 64 and math.sqrt(cfg.d_head) == 8.0
    # with unit-variance q and k (the init's premise) raw scores spread like sqrt(64) = 8, scaled ~1
    raw_std = float(np.std(trace["q", 0][:, 0] @ trace["k", 0][:, 0].T))
    q_std = float(trace["q", 0].std())
    assert abs(raw_std / (q_std * q_std) - 8.0) < 1.0
    assert abs(trace["attn_scores_scaled", 0].std() / trace["attn_scores_raw", 0].std() - 1 / 8) < 1e-3
