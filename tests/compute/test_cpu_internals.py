"""The cpu backend's building blocks: fast exp, serial/parallel twins, recycled buffers, threads."""
from __future__ import annotations

import threading

import numpy as np
import pytest
from numba import njit

from compute import PRESETS, Config, Weights, forward, get_backend
from compute.backends import cpu_kernels as K
from compute.backends.pool import BufferPool


@njit
def _exp_all(x, out):
    for i in range(x.size):
        out[i] = K.exp32(x[i])


def test_exp32_is_accurate_over_the_softmax_range(rng):
    x = np.concatenate([np.linspace(-87, 0, 200_001), -rng.random(100_000) * 87,
                        rng.standard_normal(1000) * 5]).astype(np.float32)
    out = np.empty_like(x)
    _exp_all(x, out)
    exact = np.exp(x.astype(np.float64))
    assert np.max(np.abs(out - exact) / exact) < 1.5e-7               # ~2 ulp of float32
    special = np.array([-np.inf, -100.0, 0.0], np.float32)
    out = np.empty_like(special)
    _exp_all(special, out)
    assert list(out) == [0.0, 0.0, 1.0]


def test_serial_and_parallel_kernels_agree(rng):
    raw = rng.standard_normal((3, 300, 300)).astype(np.float32)      # above PARALLEL_MIN_SIZE
    outs = {}
    for name in ("serial", "parallel"):
        impl = getattr(K.scale_mask_softmax, name)
        bufs = [np.empty_like(raw) for _ in range(3)]
        impl(raw, np.float32(0.5), True, np.ones((1, 1), np.bool_), False, *bufs)
        outs[name] = bufs
    for a, b in zip(outs["serial"], outs["parallel"]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("H, causal, with_mask", [(3, True, False), (4, False, True), (5, True, True)])
def test_softmax_split_over_heads_equals_the_kernel(rng, H, causal, with_mask):
    from compute.backends.cpu import halves

    T = 160                                                          # H*T*T above PARALLEL_MIN_SIZE
    raw = rng.standard_normal((H, T, T)).astype(np.float32)          # [H, T, T]
    mask = rng.random((T, T)) > 0.3 if with_mask else np.ones((1, 1), np.bool_)   # [T, T]
    mask[:, 0] = True if with_mask else mask[:, 0]
    outs = []
    for split in (False, True):
        bufs = [np.full_like(raw, np.nan) for _ in range(3)]
        args = (raw, np.float32(0.25), causal, mask, with_mask, *bufs)
        halves(K.scale_mask_softmax, (0, 5, 6, 7), *args) if split else K.scale_mask_softmax(*args)
        outs.append(bufs)
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(outs[1][2].sum(-1), 1.0, rtol=1e-5)   # every row of pattern sums to 1


def test_fused_gelu_matches_float64_tanh_gelu_including_extremes(rng):
    pre = np.concatenate([rng.standard_normal((64, 48)) * 3,
                          np.linspace(-60, 60, 64 * 48).reshape(64, 48)]).astype(np.float32)  # [128, 48]
    bias = rng.standard_normal(48).astype(np.float32)                                       # [48]
    x = pre.astype(np.float64) + bias                                                       # [128, 48]
    exact = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))          # [128, 48]
    post = np.empty_like(pre)
    K.bias_gelu(pre, bias, post)
    np.testing.assert_allclose(pre, x, rtol=1e-6, atol=1e-6)          # mlp_pre now holds the bias
    np.testing.assert_allclose(post, exact, rtol=1e-5, atol=1e-6)
    assert np.all(np.isfinite(post)) and post[-1, -1] == pytest.approx(60 + bias[-1], rel=1e-6)


def test_bias_split_heads_makes_head_major_copies(rng):
    T, H, dh = 5, 3, 4
    qkv = rng.standard_normal((T, 3 * H * dh)).astype(np.float32)    # [T, 3*H*dh]
    bias = rng.standard_normal(3 * H * dh).astype(np.float32)        # [3*H*dh]
    expected = qkv + bias                                             # [T, 3*H*dh]
    qh, kh, vh = (np.empty((H, T, dh), np.float32) for _ in range(3))
    K.bias_split_heads(qkv, bias, qh, kh, vh)
    np.testing.assert_array_equal(qkv, expected)
    for part, heads in enumerate((qh, kh, vh)):
        np.testing.assert_array_equal(heads, expected[:, part * H * dh:(part + 1) * H * dh].reshape(T, H, dh).transpose(1, 0, 2))


def test_pool_never_reuses_an_array_someone_holds():
    pool = BufferPool(max_bytes=64 << 20)
    if not pool.enabled:
        pytest.skip("this interpreter does not count references the way the pool relies on")
    a = pool.empty((512, 1024))
    a[...] = 1.0
    first = a.__array_interface__["data"][0]  # where the first buffer lives (no reference kept)
    view = a[::2]
    del a
    b = pool.empty((512, 1024))
    assert not np.shares_memory(b, view)      # the view keeps its base out of reuse
    del view
    c = pool.empty((512, 1024))               # now the first buffer is free again, and reused
    assert pool.hits == 1 and c.__array_interface__["data"][0] == first
    small = pool.empty((4, 4))
    assert small.nbytes < 1 << 20 and pool.hits == 1


def test_held_traces_are_never_overwritten():
    cfg = Config(d_model=64, n_heads=4, d_head=16, n_ctx=600, d_vocab=50, n_layers=1)
    w = Weights.random(cfg, 0)
    first = forward(cfg, w, np.arange(512) % 50, backend="cpu")
    kept = {k: np.array(first[k]) for k in first.keys() if k != "logits"}
    pattern_view = first["pattern", 0][:, :3]
    for seed in range(3):                     # later traces, some dropped at once
        forward(cfg, w, np.random.default_rng(seed).integers(0, 50, 512), backend="cpu")
    for key, value in kept.items():
        np.testing.assert_array_equal(first[key], value)
    np.testing.assert_array_equal(pattern_view, kept[("pattern", 0)][:, :3])
    assert get_backend("cpu").pool.hits > 0   # and dropped traces were recycled


def test_concurrent_forwards_from_threads_are_correct():
    cfg = PRESETS["toy"]
    w = Weights.random(cfg, 0)
    expected = forward(cfg, w, [1, 2, 3, 4], backend="reference")["pattern", 1]
    errors = []

    def work():
        for _ in range(20):
            got = forward(cfg, w, [1, 2, 3, 4], backend="cpu")["pattern", 1]
            if np.abs(got - expected).max() > 1e-6:
                errors.append(np.abs(got - expected).max())

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
