"""Trace: immutable, indexable by name and layer, logits on demand."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from compute import LAYER_NAMES, PRESETS, Weights, forward, toy_tokenizer

from .helpers import max_scaled_error


@pytest.fixture(scope="module")
def trace():
    cfg = PRESETS["toy"]
    return forward(cfg, Weights.random(cfg, 0), toy_tokenizer().encode("the cat sat on the mat"), backend="cpu")


def test_arrays_are_read_only(trace):
    for key in trace.keys():
        if key == "logits":
            continue
        arr = trace[key]
        assert not arr.flags.writeable, key
        with pytest.raises(ValueError):
            arr[...] = 0
    assert not trace["logits"].flags.writeable
    with pytest.raises(dataclasses.FrozenInstanceError):
        trace.backend = "reference"
    with pytest.raises(TypeError):
        trace._arrays[("q", 0)] = np.zeros(3)


def test_indexing(trace):
    assert trace["pattern", 0].shape == (2, 6, 6)
    assert trace["pattern", -1] is trace["pattern", 1]
    assert list(trace["tokens"]) == [0, 1, 2, 3, 0, 4]
    for bad, match in (("pattern", "exists in every layer"), (("logits", 0), "whole-model value"),
                       (("pattern", 2), "layers 0..1"), (("nope", 0), "no intermediate named 'nope'"),
                       ("nope", "per-layer names"), (("q", 0, 1), "trace\\[name, layer\\]"),
                       (("q", "0"), "whole number")):
        with pytest.raises(KeyError, match=match):
            trace[bad]
    assert trace.get("nope") is None
    assert len(list(trace.keys())) == 5 + 2 * len(LAYER_NAMES)


def test_records_backend_dtype_and_timing(trace):
    assert trace.backend == "cpu" and trace.backend_label.startswith("cpu (numba")
    assert trace.dtype == np.float32 and trace.T == 6
    assert trace.timing_ms["total"] > 0 and trace.timing_ms["forward"] >= trace.timing_ms["total"]
    assert "cpu" in trace.summary()


def test_logits_are_computed_on_demand_and_rows_match():
    cfg = PRESETS["toy"]
    w = Weights.random(cfg, 1)
    t = forward(cfg, w, [1, 2, 3, 4], backend="reference")
    assert not t.logits_ready
    rows = t.logits_rows([3, 1])
    assert not t.logits_ready                 # a few rows do not compute the whole matrix
    full = t["logits"]
    assert t.logits_ready and full.shape == (4, 16)
    np.testing.assert_allclose(rows, full[[3, 1]])
    np.testing.assert_allclose(full, t["ln_final_out"] @ w["embed.W_E"].astype(np.float64).T)  # tied
    with pytest.raises(IndexError):
        t.logits_rows([4])


def test_a_single_logits_row_is_computed_once():
    cfg = PRESETS["toy"]
    t = forward(cfg, Weights.random(cfg, 1), [1, 2, 3, 4], backend="cpu")
    row = t.logits_rows([3])
    assert t.logits_rows([3]) is row and t.logits_rows([-1]) is row and not row.flags.writeable
    assert t.logits_rows([2]) is not row and row.shape == (1, cfg.d_vocab)
    # A one-row product and the whole matrix take different BLAS paths (gemv vs gemm, other
    # summation orders): equal to float32 rounding relative to the row's scale, not bit for bit.
    full = t["logits"]                                                  # [T, d_vocab]
    assert max_scaled_error(row[0], full[3]) <= 1e-5
    assert max_scaled_error(row[0], full[2]) > 1e-2                     # the wrong row would fail


def test_a_lazy_value_is_made_once_on_first_access_and_is_read_only():
    from compute import Lazy, Trace

    cfg = PRESETS["toy"]
    made = []

    def make():
        made.append(1)
        return np.arange(6, dtype=np.float32).reshape(2, 3)

    arrays = {"tokens": np.array([1, 2]), ("pattern", 0): Lazy(make, (2, 3))}
    trace = Trace(cfg=cfg, tokens=arrays["tokens"], backend="cpu", backend_label="cpu", dtype=np.dtype(np.float32),
                  timing_ms={}, _arrays=arrays, _logits_fn=lambda rows: None, complete=False)
    assert not trace.is_ready("pattern", 0) and made == [] and trace.nbytes == arrays["tokens"].nbytes
    first = trace["pattern", 0]
    assert trace["pattern", 0] is first and made == [1] and trace.is_ready("pattern", 0)
    assert not first.flags.writeable
    bad = Trace(cfg=cfg, tokens=arrays["tokens"], backend="cpu", backend_label="cpu", dtype=np.dtype(np.float32),
                timing_ms={}, _arrays={**arrays, ("pattern", 0): Lazy(make, (3, 3))},
                _logits_fn=lambda rows: None, complete=False)
    with pytest.raises(RuntimeError, match="promised"):
        bad["pattern", 0]
