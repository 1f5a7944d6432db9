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


@pytest.mark.parametrize("T, d_model, H, d_head", [(9, 10, 3, 5), (1, 4, 1, 1),
                                                   pytest.param(200, 192, 6, 64, marks=gpu)])
def test_project_qkv(rng, T, d_model, H, d_head):
    x = rand(rng, T, d_model)                                               # ln1_out
    W, b = rand(rng, 3, H, d_model, d_head), rand(rng, 3, H, d_head)        # stacked Q, K, V
    qkv = empty(3, T, H, d_head)
    P.launch_project_qkv(dev(x), dev(W), dev(b), qkv)
    expected = np.einsum("tc,phce->pthe", f64(x), f64(W)) + f64(b)[:, None]  # [3, T, H, d_head]
    swapped = np.einsum("tc,phce->pthe", f64(x), f64(W)[::-1]) + f64(b)[::-1, None]
    check(qkv, expected, wrong=swapped)                                     # Q, K, V not mixed up


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
