"""LayerNorm and the row softmax against float64 numpy, with every reduction width under the simulator."""
from __future__ import annotations

import numpy as np
import pytest

from compute.backends.reference import layer_norm, softmax_rows
from cuda_kernels import SIMULATOR
from cuda_kernels import rows as R

from .helpers import check, dev, differs, empty, f64, rand

gpu = pytest.mark.gpu


@pytest.fixture(params=[None, 1, 4, 8], ids=lambda n: f"row-threads-{n or 'default'}")
def row_threads(request):
    """The module's ROW_THREADS and (simulator only) other tree widths, 1 included."""
    if request.param is None:
        yield R.ROW_THREADS
        return
    if not SIMULATOR:
        pytest.skip("ROW_THREADS is fixed once compiled for a GPU")
    old = R.set_row_threads(request.param)
    yield request.param
    R.set_row_threads(old)


@pytest.mark.parametrize("T, d", [(6, 13), (1, 1), pytest.param(300, 768, marks=gpu),
                                  pytest.param(17, 12288, marks=gpu)])
def test_layer_norm(rng, row_threads, T, d):
    # An offset far from 0 catches the one-pass variance, Σx²/d - mean², which cancels.
    x = rand(rng, T, d) + np.float32(rng.uniform(-50, 50))
    w, b = rand(rng, d) + 1, rand(rng, d)
    mean, var, out = empty(T), empty(T), empty(T, d)
    R.launch_layer_norm(dev(x), dev(w), dev(b), mean, var, out)
    exp_mean, exp_var, exp_out = layer_norm(f64(x), f64(w), f64(b))
    check(mean, exp_mean)
    if d > 1:
        unbiased = exp_var * d / (d - 1)
        check(var, exp_var, wrong=unbiased)                               # biased, as GPT-2
    else:
        check(var, exp_var)
    check(out, exp_out)


@pytest.mark.parametrize("T, d, eps", [(6, 13, 1e-5), (1, 1, 1e-6), (4, 9, 0.5),
                                       pytest.param(300, 576, 1e-5, marks=gpu)])
def test_rms_norm(rng, row_threads, T, d, eps):
    from compute.backends.reference import rms_norm

    x = rand(rng, T, d) + np.float32(rng.uniform(-3, 3))
    w = rand(rng, d) + 1
    scale, out = empty(T), empty(T, d)
    R.launch_rms_norm(dev(x), dev(w), scale, out, eps)
    exp_scale, exp_out = rms_norm(f64(x), f64(w), eps)
    check(scale, exp_scale, wrong=np.sqrt(f64(x).var(axis=1) + eps) if d > 1 else None)   # no mean subtracted
    check(out, exp_out)


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("window", [1, 3, 40])
def test_softmax_rows_with_a_window(rng, row_threads, causal, window):
    H, T = 2, 12
    s = rand(rng, H, T, T, scale=3.0)                                      # finite everywhere
    i, j = np.arange(T)[:, None], np.arange(T)[None, :]
    allowed = ((j <= i) if causal else np.ones((T, T), bool)) & (np.abs(i - j) < window)
    pattern = empty(H, T, T)
    R.launch_softmax_rows(dev(np.where(allowed, s, -np.inf)), causal, pattern, window)
    check(pattern, softmax_rows(np.where(allowed, f64(s), -np.inf)))
    # the kernel itself ignores keys outside the window: finite scores there change nothing
    R.launch_softmax_rows(dev(s), causal, pattern, window)
    got = pattern.copy_to_host()
    assert (got[:, ~allowed] == 0).all()
    np.testing.assert_allclose(got.sum(-1), 1.0, rtol=1e-5)


def _masked_scores(rng, H, T, causal, big):
    """Random scores with -inf holes, one row fully masked; finite above the diagonal even when
    causal (the kernel itself must ignore those keys)."""
    s = rand(rng, H, T, T, scale=40.0 if big else 3.0)      # 40: exp without the max overflows
    s[rng.random((H, T, T)) < 0.3] = -np.inf
    s[:, min(2, T - 1), :] = -np.inf
    allowed = np.isfinite(s) & (np.tril(np.ones((T, T), bool)) if causal else True)
    expected = softmax_rows(np.where(allowed, f64(s), -np.inf))
    return s, expected


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("big", [False, True], ids=["moderate", "large-scores"])
@pytest.mark.parametrize("H, T", [(2, 9), pytest.param(12, 1024, marks=gpu)])
def test_softmax_rows(rng, row_threads, H, T, causal, big):
    s, expected = _masked_scores(rng, H, T, causal, big)
    pattern = empty(H, T, T)
    R.launch_softmax_rows(dev(s), causal, pattern)
    got = pattern.copy_to_host()
    check(got, expected)
    assert np.isfinite(got).all()
    assert (got[:, min(2, T - 1)] == 0).all()                               # fully masked row: zeros
    if causal:
        assert (got[:, np.triu(np.ones((T, T), bool), 1)] == 0).all()       # exactly 0, never exp'd
        assert differs(got, softmax_rows(f64(s)))                           # the causal limit matters


def test_softmax_rows_sum_to_one_and_keep_order(rng):
    H, T = 1, 7
    s = rand(rng, H, T, T)
    pattern = empty(H, T, T)
    R.launch_softmax_rows(dev(s), False, pattern)
    got = pattern.copy_to_host()
    np.testing.assert_allclose(got.sum(-1), 1.0, atol=1e-6)
    np.testing.assert_array_equal(np.argsort(got, -1), np.argsort(s, -1))   # monotone in the score


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("window, with_mask, scale", [(0, False, 0.5), (0, True, 1.0), (3, True, 0.25),
                                                     (2, False, 1.0)])
def test_scale_mask_softmax(rng, row_threads, causal, window, with_mask, scale):
    """The cuBLAS path's fused epilogue: from raw scores alone, scaled (every key), masked (-inf
    where forbidden) and the softmax, a fully masked row all zeros."""
    H, T = 2, 9
    raw = rand(rng, H, T, T, scale=3.0)                                    # finite everywhere
    mask = rng.random((T, T)) < 0.7
    mask[4] = False                                                         # a row with no key
    i, j = np.arange(T)[:, None], np.arange(T)[None, :]
    allowed = ((j <= i) if causal else np.ones((T, T), bool))
    if window:
        allowed = allowed & (np.abs(i - j) < window)
    if with_mask:
        allowed = allowed & mask
    scaled, masked, pattern = empty(H, T, T), empty(H, T, T), empty(H, T, T)
    R.launch_scale_mask_softmax(dev(raw), causal, dev(mask if with_mask else np.ones((1, 1), bool)), with_mask,
                                scale, window, scaled, masked, pattern)
    expected_scaled = f64(raw) * scale
    expected_masked = np.where(allowed, expected_scaled, -np.inf)
    check(scaled, expected_scaled, wrong=f64(raw) if scale != 1.0 else None)
    check(masked, expected_masked, wrong=None if allowed.all() else expected_scaled)
    got = pattern.copy_to_host()
    check(got, softmax_rows(expected_masked), wrong=None if allowed.all() else softmax_rows(expected_scaled))
    assert (got[:, ~allowed] == 0).all()
    if with_mask:
        assert (got[:, 4] == 0).all()                                       # fully masked row: zeros


@pytest.mark.parametrize("causal, window", [(True, 0), (True, 3), (False, 4)])
def test_softmax_of_the_later_rows_alone(rng, row_threads, causal, window):
    """Rows p.. alone (a view [:, p:], first_row=p): the limits are those rows' positions."""
    H, T, p = 2, 11, 7
    s = rand(rng, H, T, T, scale=3.0)                                      # finite everywhere
    full, part = empty(H, T, T), empty(H, T, T)
    R.launch_softmax_rows(dev(s), causal, full, window)
    R.launch_softmax_rows(dev(s)[:, p:], causal, part[:, p:], window, first_row=p)
    got = part.copy_to_host()[:, p:]
    np.testing.assert_array_equal(got, full.copy_to_host()[:, p:])
    i, j = np.arange(p, T)[:, None], np.arange(T)[None, :]
    allowed = ((j <= i) if causal else np.ones((T - p, T), bool)) & ((np.abs(i - j) < window) if window else True)
    assert (got[:, ~allowed] == 0).all() and not (got[:, allowed] == 0).any()


@pytest.mark.parametrize("p", [0, 3])
def test_soft_cap_scores(rng, row_threads, p):
    """Gemma 2's soft-cap between the scale and the softmax: capped = cap·tanh(scaled / cap) on every
    key, the allowed masked scores capped the same and the forbidden ones left -inf; on rows p.. alone
    (a view [:, p:], as an incremental pass gives it)."""
    H, T, cap = 2, 9, 1.5
    scaled = rand(rng, H, T, T, scale=4.0)                                 # many beyond the cap
    allowed = np.tril(np.ones((T, T), bool)) & (rng.random((T, T)) < 0.8)
    masked = np.where(allowed, scaled, -np.inf).astype(np.float32)
    capped_d, masked_d = empty(H, T, T), dev(masked)
    capped_d[:] = np.full((H, T, T), 7.0, np.float32)                       # rows < p: left as they were
    R.launch_soft_cap_scores(dev(scaled)[:, p:], cap, capped_d[:, p:], masked_d[:, p:])
    want = cap * np.tanh(f64(scaled) / cap)
    capped, got_masked = capped_d.copy_to_host(), masked_d.copy_to_host()
    check(capped[:, p:], want[:, p:], wrong=f64(scaled)[:, p:])
    assert (capped[:, :p] == 7.0).all() and np.abs(capped[:, p:]).max() <= cap
    check(got_masked[:, p:], np.where(allowed, want, -np.inf)[:, p:], wrong=masked[:, p:])
    np.testing.assert_array_equal(got_masked[:, :p], masked[:, :p])
