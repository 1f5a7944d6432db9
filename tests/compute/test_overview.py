"""Overviews of long maps (compute/instruments/overview.py): max-pooled, not sampled or averaged."""
from __future__ import annotations

import numpy as np
import pytest

from compute.instruments.overview import pool_factors, pooled, top_keys


def test_pooling_keeps_the_largest_magnitude_and_one_pixel_stripes():
    values = np.zeros((9, 10), np.float32)
    values[:, 7] = 0.25                                                  # a one-cell column
    values[4, 2] = -3.0                                                  # a strong negative cell
    out, hidden = pooled(values, (3, 4))
    assert out.shape == (3, 3) and not hidden.any()
    np.testing.assert_array_equal(out[:, 1], [0.25, 0.25, 0.25])         # the stripe in every row block
    assert out[1, 0] == -3.0                                             # its sign kept, not averaged away
    sampled = values[::3, ::4]                                           # what every n-th cell showed
    assert not (sampled == 0.25).any()


def test_masked_blocks_stay_masked_and_masked_cells_never_win():
    values = np.array([[1.0, -np.inf], [5.0, 9.0]], np.float32)
    masked = np.array([[False, True], [False, True]])
    out, hidden = pooled(values, (1, 2), masked)
    assert out.tolist() == [[1.0], [5.0]] and not hidden.any()          # 9 is masked: not shown
    out, hidden = pooled(values, (2, 2), np.ones((2, 2), bool))
    assert hidden.tolist() == [[True]] and np.isnan(out[0, 0])
    assert pool_factors(4096, 4096, 2048) == (2, 2) and pool_factors(10, 5000, 2048) == (1, 3)


def test_top_keys_are_the_strongest_allowed_ones_first():
    row = np.array([0.1, 0.5, -np.inf, 0.3, 0.05])
    assert top_keys(row, 2).tolist() == [1, 3]
    assert top_keys(row, 9).tolist() == [1, 3, 0, 4]
    assert top_keys(row, 2, allowed=np.array([1, 0, 1, 1, 1], bool)).tolist() == [3, 0]
    assert top_keys(np.full(3, -np.inf), 2).size == 0


def test_an_overview_made_again_for_kept_rows_equals_one_made_from_nothing():
    from compute.instruments.overview import Overview

    rng = np.random.default_rng(3)
    for factors, grow in (((3, 3), 1), ((1, 1), 1), ((4, 4), 0), ((2, 5), -1)):
        T = 50
        values = rng.standard_normal((T + 1, T + 1)).astype(np.float32)
        masked = np.triu(np.ones((T + 1, T + 1), bool), 1)
        ov = Overview()
        ov.update(values[:T, :T], factors, masked[:T, :T])
        n = T + grow
        new = values[:n, :n].copy()
        new[n - 1] += 1.0                                                 # the edit: the last row and column
        new[:, n - 1] -= 1.0
        row, col = ov.update(new, factors, masked[:n, :n], kept_rows=n - 1, kept_cols=n - 1)
        assert row > 0 and col > 0
        fresh = Overview()
        fresh.update(new, factors, masked[:n, :n])
        np.testing.assert_array_equal(ov.cells, fresh.cells)
        rows_only = Overview()                                             # [T, d]: every column kept
        rows_only.update(values[:T, :7], factors)
        rows_only.update(new[:, :7], factors, kept_rows=n - 1, kept_cols=None)
        np.testing.assert_array_equal(rows_only.cells, pooled(new[:, :7], factors)[0])


def test_the_robust_scale_quantile_is_numpys():
    from compute.instruments.explain import _upper_quantile

    rng = np.random.default_rng(5)
    for n in (300, 20_000, 100_003, 1_000_000):
        a = np.abs(rng.standard_normal(n)).astype(np.float32)
        a[:n // 50] = 0.0                                                  # ties at the bottom
        parts = [a[: n // 3], a[n // 3:]]
        assert _upper_quantile(parts, 0.99) == pytest.approx(float(np.quantile(a, 0.99)), rel=1e-6, abs=0)
