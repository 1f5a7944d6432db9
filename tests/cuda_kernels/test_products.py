"""The tiled matrix-product kernels against float64 numpy on fresh random inputs.

Sizes are deliberately not multiples of the tile (BLOCK = 8 under the simulator, 64 on a GPU), and
smaller than one tile, so the edge guards and zero padding are exercised.
"""
from __future__ import annotations

import numpy as np
import pytest

from compute.backends.reference import softmax_rows
from cuda_kernels import SIMULATOR
from cuda_kernels import products as P

from .helpers import check, dev, empty, f64, rand

gpu = pytest.mark.gpu


@pytest.fixture(params=[None, (3, 3), (1, 3)], ids=["default-tiles", "tiles-3x3", "tiles-1x3"])
def tiles(request):
    """The module's tile sizes, and (simulator only) odd ones: 9x9 tiles of 3x3 threads each
    owning 3x3 outputs; 3x3 tiles of a single thread."""
    if request.param is None:
        yield P.TILE, P.REG
        return
    if not SIMULATOR:
        pytest.skip("tile sizes are fixed once compiled for a GPU")
    old = P.set_tiles(*request.param)
    yield request.param
    P.set_tiles(*old)


@pytest.mark.parametrize("M, K, N", [(1, 1, 1), (13, 11, 18), pytest.param(300, 257, 515, marks=gpu)])
def test_matmul_bias(rng, tiles, M, K, N):
    x, W, b = rand(rng, M, K), rand(rng, K, N), rand(rng, N)
    out = empty(M, N)
    P.launch_matmul_bias(dev(x), dev(W), dev(b), out)
    check(out, f64(x) @ f64(W) + f64(b), wrong=f64(x) @ f64(W))          # the bias counts


@pytest.mark.parametrize("T, d_model, H, KV, d_head", [(9, 10, 3, 3, 5), (1, 4, 1, 1, 1), (7, 6, 4, 2, 3),
                                                       (5, 8, 3, 1, 4),
                                                       pytest.param(200, 192, 6, 2, 64, marks=gpu)])
def test_project_qkv(rng, T, d_model, H, KV, d_head):
    x = rand(rng, T, d_model)                                               # ln1_out
    W, b = rand(rng, H + 2 * KV, d_model, d_head), rand(rng, H + 2 * KV, d_head)   # Q's H, K's KV, V's KV heads
    q, k, v = empty(T, H, d_head), empty(T, KV, d_head), empty(T, KV, d_head)
    P.launch_project_qkv(dev(x), dev(W), dev(b), q, k, v)
    every = np.einsum("tc,nce->tne", f64(x), f64(W)) + f64(b)               # [T, H + 2 KV, d_head]
    reversed_heads = np.einsum("tc,nce->tne", f64(x), f64(W)[::-1]) + f64(b)[::-1]
    check(q, every[:, :H], wrong=reversed_heads[:, :H] if H + 2 * KV > 1 else None)
    check(k, every[:, H:H + KV], wrong=every[:, :KV] if H > 1 or KV > 1 else None)   # K is not Q's heads
    check(v, every[:, H + KV:], wrong=every[:, H:H + KV])                   # V is not K


def _allowed(T, causal, window, mask=None):
    i, j = np.arange(T)[:, None], np.arange(T)[None, :]
    allowed = (j <= i) if causal else np.ones((T, T), bool)
    if window:
        allowed = allowed & (np.abs(i - j) < window)
    return allowed if mask is None else allowed & mask


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("H, KV, window", [(4, 2, 0), (3, 1, 3), (2, 2, 1), (2, 1, 20)])
def test_scores_with_shared_kv_heads_and_windows(rng, causal, H, KV, window):
    T, d_head = 13, 4
    q, k = rand(rng, T, H, d_head), rand(rng, T, KV, d_head)
    raw, scaled, masked = empty(H, T, T), empty(H, T, T), empty(H, T, T)
    P.launch_scores(dev(q), dev(k), causal, dev(np.ones((1, 1), bool)), False, True, raw, scaled, masked, window)
    k_of = np.arange(H) // (H // KV)                                        # query head h reads K/V head h // groups
    expected = np.einsum("ihe,jhe->hij", f64(q), f64(k)[:, k_of])          # [H, T, T]
    wrong = np.einsum("ihe,jhe->hij", f64(q), f64(k)[:, np.arange(H) % KV]) if KV > 1 and H > KV else None
    check(raw, expected, wrong=wrong)
    allowed = _allowed(T, causal, window)
    check(masked, np.where(allowed, expected / 2, -np.inf))


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("with_mask", [False, True])
@pytest.mark.parametrize("scale_scores", [True, False])
@pytest.mark.parametrize("T, H, d_head", [(11, 2, 6), pytest.param(333, 4, 64, marks=gpu)])
def test_scores(rng, T, H, d_head, causal, with_mask, scale_scores):
    q, k = rand(rng, T, H, d_head), rand(rng, T, H, d_head)
    mask = rng.random((T, T)) < 0.7
    mask[1] = False                                                         # a row with no key at all
    raw, scaled, masked = empty(H, T, T), empty(H, T, T), empty(H, T, T)
    P.launch_scores(dev(q), dev(k), causal, dev(mask if with_mask else np.ones((1, 1), bool)),
                    with_mask, scale_scores, raw, scaled, masked)
    expected_raw = np.einsum("ihe,jhe->hij", f64(q), f64(k))               # [H, T, T]
    scale = 1 / np.sqrt(d_head) if scale_scores else 1.0
    allowed = np.ones((T, T), bool)
    if causal:
        allowed &= np.tril(allowed)
    if with_mask:
        allowed &= mask
    check(raw, expected_raw, wrong=expected_raw.transpose(0, 2, 1))
    check(scaled, expected_raw * scale, wrong=(expected_raw / d_head) if scale_scores else expected_raw * 0.5)
    check(masked, np.where(allowed, expected_raw * scale, -np.inf),
          wrong=None if allowed.all() else expected_raw * scale)


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("T, H, d_head", [(19, 2, 3), (5, 1, 9), pytest.param(300, 3, 64, marks=gpu)])
def test_weighted_sum(rng, tiles, T, H, d_head, causal):
    scores = rand(rng, H, T, T, scale=2.0)
    if causal:
        scores = np.where(np.tril(np.ones((T, T), bool)), scores, -np.inf)
    pattern = softmax_rows(f64(scores)).astype(np.float32)                 # [H, T, T] (causal: 0 above)
    v = rand(rng, T, H, d_head)
    z = empty(T, H, d_head)
    P.launch_weighted_sum(dev(pattern), dev(v), causal, z)
    expected = np.einsum("hij,jhe->ihe", f64(pattern), f64(v))             # [T, H, d_head]
    check(z, expected, wrong=np.einsum("hji,jhe->ihe", f64(pattern), f64(v)))


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("H, KV, window", [(4, 2, 3), (3, 1, 0), (2, 2, 9)])
def test_weighted_sum_with_shared_kv_heads_and_windows(rng, tiles, causal, H, KV, window):
    T, d_head = 21, 3
    scores = np.where(_allowed(T, causal, window), rand(rng, H, T, T, scale=2.0), -np.inf)
    pattern = softmax_rows(f64(scores)).astype(np.float32)                 # [H, T, T], 0 outside
    v = rand(rng, T, KV, d_head)
    z = empty(T, H, d_head)
    P.launch_weighted_sum(dev(pattern), dev(v), causal, z, window)
    v_of = np.arange(H) // (H // KV)
    expected = np.einsum("hij,jhe->ihe", f64(pattern), f64(v)[:, v_of])    # [T, H, d_head]
    check(z, expected, wrong=np.einsum("hij,jhe->ihe", f64(pattern), f64(v)[:, ::-1][:, v_of]) if KV > 1 else None)


def test_windowed_weighted_sum_really_skips_tiles_before_the_window(rng):
    """With a window W the kernel starts each row block's keys at its first row minus W - 1:
    a pattern of ones everywhere shows where it starts (tile-aligned to the k-step)."""
    W = P.BLOCK + 1
    T, H, d_head = 4 * P.BLOCK, 1, 1
    z = empty(T, H, d_head)
    P.launch_weighted_sum(dev(np.ones((H, T, T), np.float32)), dev(np.ones((T, H, d_head), np.float32)), True, z, W)
    z = z.copy_to_host()[:, 0, 0]
    rows = np.arange(T)
    row0 = rows // P.BLOCK * P.BLOCK
    first = np.maximum(0, row0 - W + 1)
    ends = np.minimum(T, row0 + P.BLOCK)
    np.testing.assert_array_equal(z, ends - first)                        # keys from `first` only


@pytest.mark.parametrize("T, H, d_head, d_model", [(10, 3, 4, 9), pytest.param(257, 12, 64, 768, marks=gpu)])
def test_head_results(rng, T, H, d_head, d_model):
    z, W_O = rand(rng, T, H, d_head), rand(rng, H, d_head, d_model)
    result = empty(T, H, d_model)
    P.launch_head_results(dev(z), dev(W_O), result)
    expected = np.einsum("the,hed->thd", f64(z), f64(W_O))                 # [T, H, d_model]
    check(result, expected, wrong=np.einsum("the,hed->thd", f64(z), f64(W_O)[::-1]))  # heads paired right


@pytest.mark.parametrize("R, d_model, d_vocab", [(3, 8, 17), pytest.param(100, 768, 5000, marks=gpu)])
def test_unembed(rng, R, d_model, d_vocab):
    x, W_E = rand(rng, R, d_model), rand(rng, d_vocab, d_model)
    logits = empty(R, d_vocab)
    P.launch_unembed(dev(x), dev(W_E), logits)
    check(logits, f64(x) @ f64(W_E).T)


def test_causal_weighted_sum_really_skips_tiles_above_the_diagonal(rng):
    """The kernel relies on the pattern being 0 above the diagonal: give it a non-causal pattern
    with causal=True and the skipped tiles must show (proves the skip exists and is per tile)."""
    T, H, d_head = 3 * P.BLOCK + 1, 1, 2
    pattern = np.ones((H, T, T), np.float32)
    v = np.ones((T, H, d_head), np.float32)
    z = empty(T, H, d_head)
    P.launch_weighted_sum(dev(pattern), dev(v), True, z)
    z = z.copy_to_host()
    rows = np.arange(T)
    keys_seen = np.minimum(T, (rows // P.BLOCK + 1) * P.BLOCK)             # keys up to the block's end
    np.testing.assert_array_equal(z[:, 0, 0], keys_seen)


@pytest.mark.parametrize("causal, window, with_mask", [(True, 0, False), (True, 3, True), (False, 4, False)])
def test_the_later_rows_alone_mask_by_position(rng, tiles, causal, window, with_mask):
    """An incremental pass launches the scores and z for rows p.. only (views [:, p:] of the maps, the
    queries p.., first_row=p): the same numbers as those rows of a full launch, the masks by position."""
    T, H, KV, d_head, p = 13, 4, 2, 3, 9
    q, k, v = rand(rng, T, H, d_head), rand(rng, T, KV, d_head), rand(rng, T, KV, d_head)
    mask = rng.random((T, T)) < 0.7
    mask_d = dev(mask if with_mask else np.ones((1, 1), bool))
    full = [empty(H, T, T) for _ in range(3)]                               # raw, scaled, masked
    P.launch_scores(dev(q), dev(k), causal, mask_d, with_mask, True, *full, window)
    part = [empty(H, T, T) for _ in range(3)]
    P.launch_scores(dev(q)[p:], dev(k), causal, mask_d, with_mask, True, *(a[:, p:] for a in part), window,
                    first_row=p)                                            # [H, T - p, T] x3
    for a, b in zip(part, full, strict=True):
        np.testing.assert_array_equal(a.copy_to_host()[:, p:], b.copy_to_host()[:, p:])
    allowed = _allowed(T, causal, window, mask if with_mask else None)
    wrong = np.where(_allowed(T, causal, window)[:T - p], f64(full[1].copy_to_host())[:, p:], -np.inf)   # rows from 0
    check(part[2].copy_to_host()[:, p:], np.where(allowed, f64(full[1].copy_to_host()), -np.inf)[:, p:], wrong=wrong)
    pattern = softmax_rows(np.where(allowed, f64(full[1].copy_to_host()), -np.inf)).astype(np.float32)   # [H, T, T]
    z, z_part = empty(T, H, d_head), empty(T, H, d_head)
    P.launch_weighted_sum(dev(pattern), dev(v), causal, z, window)
    P.launch_weighted_sum(dev(pattern)[:, p:], dev(v), causal, z_part[p:], window, first_row=p)   # [T - p, H, d_head]
    np.testing.assert_array_equal(z_part.copy_to_host()[p:], z.copy_to_host()[p:])
    check(z_part.copy_to_host()[p:], np.einsum("hij,jhe->ihe", f64(pattern), f64(v)[:, np.arange(H) // 2])[p:])
