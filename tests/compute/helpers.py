"""Comparison helpers shared by the compute tests."""
from __future__ import annotations

import numpy as np

from compute import Config


def max_scaled_error(actual: np.ndarray, expected: np.ndarray) -> float:
    """max |actual - expected| / max(1, max |expected|) over finite entries; infinities must match."""
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if actual.size == 0:
        return 0.0
    fin = np.isfinite(expected)
    assert np.array_equal(fin, np.isfinite(actual)), "finite/infinite entries differ"
    assert np.array_equal(actual[~fin], expected[~fin]), "infinite entries differ"
    if not fin.any():
        return 0.0
    scale = max(1.0, float(np.abs(expected[fin]).max()))
    return float(np.abs(actual[fin] - expected[fin]).max()) / scale


def assert_trace_matches(actual, expected: dict | object, tol: float, keys=None) -> None:
    """Every key of `actual` (a Trace) within `tol` of `expected` (a Trace or a dict)."""
    keys = list(actual.keys()) if keys is None else keys
    worst = (0.0, None)
    for key in keys:
        exp = expected[key]
        err = max_scaled_error(actual[key], exp)
        worst = max(worst, (err, key), key=lambda t: t[0])
        assert err <= tol, f"{key}: scaled error {err:.3g} > {tol:.3g}"
    return worst


def random_config(rng: np.random.Generator, **overrides) -> Config:
    """A small random config that exercises uneven sizes (d_head unrelated to d_model/n_heads)."""
    fields = dict(
        d_model=int(rng.integers(4, 24)), n_heads=int(rng.integers(1, 5)), d_head=int(rng.integers(1, 10)),
        d_vocab=int(rng.integers(2, 40)), n_layers=int(rng.integers(1, 4)), d_mlp=int(rng.integers(1, 40)),
        causal=bool(rng.integers(0, 2)), scale_scores=bool(rng.integers(0, 2)),
    )
    fields["n_ctx"] = int(rng.integers(1, 40))
    fields.update(overrides)
    return Config(**fields)
