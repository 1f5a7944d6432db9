"""The cpu backend's building blocks: fast exp, serial/parallel twins, recycled buffers, threads."""
from __future__ import annotations

import sys
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
    x = rng.standard_normal((300, 400)).astype(np.float32)           # above PARALLEL_MIN_SIZE
    w, b = rng.standard_normal(400).astype(np.float32), rng.standard_normal(400).astype(np.float32)
    outs = {}
    for name in ("serial", "parallel"):
        m, v, o = np.empty(300, np.float32), np.empty(300, np.float32), np.empty_like(x)
        getattr(K.layer_norm, name)(x, w, b, m, v, o, 1e-5)
        outs[name] = (m, v, o)
    for a, c in zip(outs["serial"], outs["parallel"], strict=True):
        np.testing.assert_array_equal(a, c)


def _softmax64(raw, scale, causal, mask):
    """float64 numpy: scaled, masked (-inf where forbidden), pattern (zeros for a fully masked row)."""
    H, T, _ = raw.shape
    allowed = np.ones((T, T), bool) if mask is None else mask.copy()     # [T, T]
    if causal:
        allowed &= np.tri(T, dtype=bool)
    scaled = raw.astype(np.float64) * scale                               # [H, T, T]
    masked = np.where(allowed, scaled, -np.inf)                           # [H, T, T]
    top = masked.max(-1, keepdims=True)                                   # [H, T, 1]
    safe = np.where(np.isfinite(top), top, 0.0)
    e = np.where(allowed, np.exp(masked - safe), 0.0)                     # [H, T, T]
    total = e.sum(-1, keepdims=True)
    pattern = np.divide(e, total, out=np.zeros_like(e), where=total > 0)  # [H, T, T]
    return scaled, masked, pattern


@pytest.mark.parametrize("causal, with_mask, rows", [(True, False, 16), (False, False, 7), (True, True, 5),
                                                      (False, True, 33), (True, False, 100)])
def test_softmax_on_row_blocks_matches_float64(rng, causal, with_mask, rows):
    H, T = 2, 70
    raw = (rng.standard_normal((H, T, T)) * 6).astype(np.float32)    # [H, T, T]
    raw[0, 3, :] = 50.0                                               # ties at the row max
    raw[1, 5, :4] = -0.0                                              # -0.0 and +0.0 in one row
    raw[1, 5, 4:8] = 0.0
    mask = rng.random((T, T)) > 0.4 if with_mask else None
    if mask is not None:
        mask[9, :] = False                                            # a fully masked row
    scale = np.float32(0.3)
    bufs = [np.full_like(raw, np.nan) for _ in range(3)]
    for h in range(H):
        for r0 in range(0, T, rows):                                  # blocks, as cpu.py calls it
            r1 = min(r0 + rows, T)
            K.scale_mask_softmax(raw[h, r0:r1], r0, scale, np.float32(0.0), causal,
                                 np.ones((1, 1), np.bool_) if mask is None else mask, mask is not None,
                                 *(b[h, r0:r1] for b in bufs), 0)
    want = _softmax64(raw, scale, causal, mask)
    for got, exp in zip(bufs, want, strict=True):
        np.testing.assert_allclose(got, exp, rtol=2e-6, atol=1e-7)
        assert np.array_equal(np.isneginf(got), np.isneginf(exp))     # -inf exactly where forbidden
    pattern = bufs[2]
    forbidden = np.isneginf(bufs[1])
    assert np.all(pattern[forbidden] == 0.0)                          # masked entries are exactly 0
    sums = pattern.sum(-1)
    empty = forbidden.all(-1)
    np.testing.assert_allclose(sums[~empty], 1.0, rtol=1e-5)
    assert np.all(sums[empty] == 0.0) and (empty.any() == (mask is not None))


def test_row_max_through_int_keys_orders_like_floats():
    @njit
    def keys(x, out):
        for i in range(x.size):
            out[i] = K.order_key(K.as_int32(x[i]))

    x = np.array([-np.inf, -3e38, -1.0, -1e-45, -0.0, 0.0, 1e-45, 1.0, 3e38, np.inf], np.float32)
    k = np.empty(x.size, np.int32)
    keys(x, k)
    assert np.all(np.diff(k) > 0)                                    # strictly increasing, like x

    @njit
    def back(k, out):
        for i in range(k.size):
            out[i] = K.as_float32(K.order_key(k[i]))

    y = np.empty_like(x)
    back(k, y)
    assert np.array_equal(y.view(np.int32), x.view(np.int32))         # its own inverse, bit for bit


@pytest.mark.parametrize("H, T, causal, with_mask, p", [(3, 200, True, False, 0), (1, 300, True, False, 0),
                                                        (4, 150, False, True, 0), (5, 130, True, True, 0),
                                                        (3, 200, True, False, 150), (2, 130, True, True, 129)])
def test_attention_blocks_on_two_threads_equal_one(rng, H, T, causal, with_mask, p):
    """Query rows p..T-1 (p > 0: an incremental pass) against all T keys, on one and two threads."""
    from compute.backends import cpu

    dh, dm, n = 8, 24, T - p
    qh, kh, vh = (rng.standard_normal((H, T, dh)).astype(np.float32) for _ in range(3))  # [H, T, dh]
    W_O = rng.standard_normal((H, dh, dm)).astype(np.float32)                          # [H, dh, d_model]
    mask = rng.random((T, T)) > 0.3 if with_mask else np.ones((1, 1), np.bool_)
    rows = 40

    def run(threads):
        pattern = np.full((H, n, T), np.nan, np.float32)                               # rows p..T-1
        z, res = np.full((n, H, dh), np.nan, np.float32), np.full((H, n, dm), np.nan, np.float32)
        parts = [np.zeros((n, dm), np.float32) for _ in range(threads)]
        items = iter([(h, r0, min(r0 + rows, n)) for r0 in reversed(range(0, n, rows)) for h in range(H)])
        args = (qh[:, p:], kh, vh, W_O, np.float32(0.35), np.float32(0.0), causal, mask, with_mask, 1, 0, p)
        pending = [cpu._HELPER.submit(cpu.attention_blocks, items, *args, np.empty((3, rows, T), np.float32),
                                      pattern, z, res, part) for part in parts[1:]]
        cpu.attention_blocks(items, *args, np.empty((3, rows, T), np.float32), pattern, z, res, parts[0])
        for f in pending:
            f.result()
        return pattern, z, res, sum(parts)

    if cpu._HELPER is None:
        pytest.skip("one core: no helper thread")
    (p1, z1, r1, _), (p2, z2, r2, s2) = run(1), run(2)
    for a, c in ((p1, p2), (z1, z2), (r1, r2)):
        np.testing.assert_array_equal(a, c)                           # every block computed once, alike
    np.testing.assert_allclose(s2, r1.sum(0), rtol=1e-5, atol=1e-5)   # the parts add up to all heads
    raw = qh @ kh.transpose(0, 2, 1)                                  # [H, T, T]
    _, _, pattern = _softmax64(raw, np.float32(0.35), causal, mask if with_mask else None)
    np.testing.assert_allclose(p1, pattern[:, p:], rtol=2e-6, atol=1e-7)
    z = pattern[:, p:] @ vh.astype(np.float64)                        # [H, n, dh]
    np.testing.assert_allclose(z1, z.transpose(1, 0, 2), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(r1, z @ W_O.astype(np.float64), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("causal, with_mask, window, cap", [(True, False, 0, 0.0), (False, True, 0, 0.0),
                                                             (True, True, 5, 0.0), (False, False, 4, 0.0),
                                                             (True, False, 0, 1.5), (True, True, 5, 1.5)])
def test_score_maps_made_later_equal_the_ones_the_softmax_saw(rng, causal, with_mask, window, cap):
    """scale_mask (a Trace's attn_scores, made from q and k when read) gives bit for bit the
    scaled and masked scores scale_mask_softmax computed next to the pattern; with a soft-cap
    (Gemma 2), soft_cap_map gives the capped scores the mask took."""
    T = 37
    raw = (rng.standard_normal((T, T)) * 4).astype(np.float32)       # [T, T]
    mask = rng.random((T, T)) > 0.4 if with_mask else np.ones((1, 1), np.bool_)
    scale, cap = np.float32(0.3), np.float32(cap)
    scaled, masked, pattern = (np.full_like(raw, np.nan) for _ in range(3))
    for r0 in range(0, T, 8):
        K.scale_mask_softmax(raw[r0:r0 + 8], r0, scale, cap, causal, mask, with_mask, scaled[r0:r0 + 8],
                             masked[r0:r0 + 8], pattern[r0:r0 + 8], window)
    later = np.full_like(raw, np.nan)
    K.scale_mask(raw, 0, scale, cap, causal, mask, with_mask, window, later)
    assert np.array_equal(later, masked) and np.array_equal(raw * scale, scaled)
    assert np.isneginf(later).any()
    if cap:
        capped = np.full_like(raw, np.nan)
        K.soft_cap_map(scaled, cap, capped)
        allowed = np.isfinite(masked)
        assert np.array_equal(capped[allowed], masked[allowed])
        np.testing.assert_allclose(capped, cap * np.tanh(scaled.astype(np.float64) / cap), rtol=1e-6, atol=1e-6)
        assert np.abs(capped).max() < cap < np.abs(scaled).max()     # the cap bounds what it changed


def test_validate_tokens_fast_path_agrees_with_the_loop():
    cfg = Config(d_model=8, n_heads=2, d_head=4, n_ctx=6, d_vocab=10, n_layers=1)
    for ok in ([1, 2, 3], (0, 9), np.array([4, 5], np.int32), np.array([3], np.uint8), [], np.array([], int)):
        got = cfg.validate_tokens(ok)
        assert got.dtype == np.int64 and not got.flags.writeable and list(got) == [int(t) for t in ok]
    from compute import ConfigError

    for bad, field in (([1, 10], "tokens[1]"), (np.array([3, -1]), "tokens[1]"), ([1, True], "tokens[1]"),
                       (list(range(7)), "tokens"), (np.array([1.0, 2.0]), "tokens[0]"),
                       ([2, 2 ** 70], "tokens[1]")):
        with pytest.raises(ConfigError) as err:
            cfg.validate_tokens(bad)
        assert str(err.value).startswith(field), str(err.value)


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


def test_fused_erf_gelu_matches_float64_exact_gelu_including_extremes(rng):
    """GPT-NeoX / Pythia's exact GELU: ½x(1 + erf(x/√2)), not the tanh form."""
    import math

    pre = np.concatenate([rng.standard_normal((64, 48)) * 3,
                          np.linspace(-60, 60, 64 * 48).reshape(64, 48)]).astype(np.float32)  # [128, 48]
    bias = rng.standard_normal(48).astype(np.float32)                                       # [48]
    x = pre.astype(np.float64) + bias                                                       # [128, 48]
    exact = 0.5 * x * (1 + np.vectorize(math.erf)(x / np.sqrt(2)))                         # [128, 48]
    tanh = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    post = np.empty_like(pre)
    K.bias_gelu_erf(pre, bias, post)
    np.testing.assert_allclose(pre, x, rtol=1e-6, atol=1e-6)          # mlp_pre now holds the bias
    np.testing.assert_allclose(post, exact, rtol=1e-5, atol=1e-6)
    assert np.abs(post - tanh).max() > 1e-4                           # and it is not the tanh form


@pytest.mark.parametrize("two", [False, True])
def test_heads_sum_residual_and_bias_residual(rng, two):
    T, d = 300, 260                                                    # above PARALLEL_MIN_SIZE
    p0, p1, pre = (rng.standard_normal((T, d)).astype(np.float32) for _ in range(3))   # [T, d] each
    b = rng.standard_normal(d).astype(np.float32)                                      # [d]
    attn_out, resid_mid = np.empty_like(p0), np.empty_like(p0)
    K.heads_sum_residual(p0, p1, two, b, pre, attn_out, resid_mid)
    want = p0.astype(np.float64) + (p1 if two else 0) + b
    np.testing.assert_allclose(attn_out, want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(resid_mid, pre + want, rtol=1e-6, atol=1e-5)
    x, before = p1.copy(), p1.copy()
    out = np.empty_like(x)
    K.bias_residual(x, b, pre, out)
    np.testing.assert_array_equal(x, before + b)                       # mlp_out gets its bias in place
    np.testing.assert_array_equal(out, pre + (before + b))


def test_bias_split_heads_makes_head_major_copies(rng):
    T, H, dh = 5, 3, 4
    qkv = rng.standard_normal((T, 3 * H * dh)).astype(np.float32)    # [T, 3*H*dh]
    bias = rng.standard_normal(3 * H * dh).astype(np.float32)        # [3*H*dh]
    expected = qkv + bias                                             # [T, 3*H*dh]
    qh, kh, vh = (np.empty((H, T, dh), np.float32) for _ in range(3))
    K.bias_split_heads(qkv, bias, qh, kh, vh)
    np.testing.assert_array_equal(qkv, expected)
    for part, heads in enumerate((qh, kh, vh)):
        third = expected[:, part * H * dh:(part + 1) * H * dh]                     # [T, H*dh]
        np.testing.assert_array_equal(heads, third.reshape(T, H, dh).transpose(1, 0, 2))


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


def test_pool_serves_a_slightly_smaller_array_from_a_free_buffer():
    """Deleting the last token asks for [T-1, ...] arrays: a free [T, ...] buffer serves them (a view
    of its start), and is not handed out again while that view is held."""
    pool = BufferPool(max_bytes=64 << 20)
    if not pool.enabled:
        pytest.skip("this interpreter does not count references the way the pool relies on")
    a = pool.empty((512, 1024))
    first = a.__array_interface__["data"][0]
    del a
    b = pool.empty((511, 1024))
    assert b.shape == (511, 1024) and b.flags.c_contiguous and b.__array_interface__["data"][0] == first
    c = pool.empty((512, 1024))                 # b holds the buffer: a new one
    second = c.__array_interface__["data"][0]
    assert second != first
    del c
    d = pool.empty((400, 1024))                 # c's buffer is free but far too large: a new one
    assert d.__array_interface__["data"][0] not in (first, second)
    del b
    assert pool.empty((512, 1024)).__array_interface__["data"][0] == first


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


def test_cancel_inside_a_row_split_stage_stops_both_halves_cleanly():
    from compute import Cancelled, progress
    from compute.backends import cpu

    cfg = Config(d_model=64, n_heads=4, d_head=16, n_ctx=300, d_vocab=50, n_layers=2)   # d_mlp = 256
    assert 256 * cfg.d_model * cfg.d_mlp >= cpu.SPLIT_MIN_MACS                       # the MLP runs in halves
    w = Weights.random(cfg, 0)
    tokens = np.random.default_rng(0).integers(0, 50, 256)
    stages = []

    def stop_in_mlp(stage, fraction):
        stages.append(stage)
        if stage == "mlp":                                   # the checkpoint between the MLP's products
            raise Cancelled(stage)

    with progress.reporting(stop_in_mlp), pytest.raises(Cancelled):
        forward(cfg, w, tokens, backend="cpu")
    assert stages[-1] == "mlp" and "attention" in stages
    assert cpu._HELPER is None or cpu._HELPER.submit(lambda: 1).result(timeout=5) == 1   # the helper is free
    got = forward(cfg, w, tokens, backend="cpu")
    ref = forward(cfg, w, tokens, backend="reference")
    np.testing.assert_allclose(got["resid_post", 1], ref["resid_post", 1], rtol=1e-4, atol=1e-4)


def test_softmax_rows_with_overflow_or_nan_give_nan_rows_not_an_exception():
    T = 6
    raw = np.tile(np.arange(T, dtype=np.float32), (4, 1))              # [4, T]
    raw[0, 2] = np.inf                                                 # a float32 overflow
    raw[1, 1] = np.nan
    raw[2, 1] = -np.float32(np.nan)                                    # x86's default NaN has its sign set
    bufs = [np.empty_like(raw) for _ in range(3)]
    K.scale_mask_softmax(raw, 2, np.float32(0.5), np.float32(0.0), False, np.ones((1, 1), np.bool_), False, *bufs, 0)
    pattern = bufs[2]
    assert np.all(np.isnan(pattern[:3]))                               # like numpy: NaN in, NaN out
    np.testing.assert_allclose(pattern[3].sum(), 1.0, rtol=1e-6)       # the clean row is untouched

    @njit
    def exp_of(x):
        return K.exp32(x)

    assert np.isnan(exp_of(np.float32(np.nan))) and exp_of(np.float32(-np.inf)) == 0.0


def test_warm_up_compiles_what_a_pass_with_early_results_calls():
    from compute import partial_trace, progress, warm_up
    from compute.backends import cpu

    warm_up("cpu")                                                      # the backend's own, then through forward
    kernels = [K.layer_norm.serial, K.bias_residual.serial, K.bias_gelu.serial, K.bias_split_heads.serial,
               K.embed_rows.serial, K.scale_mask_softmax, K.add_into, K.heads_sum_residual.serial,
               K.rms_norm.serial, K.rope.serial, K.bias_silu_gate.serial]
    before = [len(k.signatures) for k in kernels]
    gpt2 = Config(d_model=8, n_heads=2, d_head=4, n_ctx=8, d_vocab=10, n_layers=2)
    llama = Config(d_model=12, n_heads=3, n_kv_heads=3, d_head=4, n_ctx=8, d_vocab=10, n_layers=2,
                   norm="rmsnorm", positions="rope", mlp="swiglu", windows=(3, None))
    for cfg in (gpt2, llama):
        with progress.reporting(None, lambda layer, arrays, cfg=cfg: partial_trace(cfg, arrays)):
            forward(cfg, Weights.random(cfg, 1), [1, 2, 3], backend="cpu")
        forward(cfg, Weights.random(cfg, 1), [1, 2, 3, 4, 5], backend="cpu", attn_mask=np.tri(5, dtype=bool))
        w = Weights.random(cfg, 1)
        trace = forward(cfg, w, [1, 2, 3], backend="cpu")
        trace = forward(cfg, w, [1, 2, 3, 4], backend="cpu", reuse=trace)   # an incremental pass
        trace["attn_scores", 1]
    assert [len(k.signatures) for k in kernels] == before              # nothing compiled mid-pass
    assert cpu.BLOCK_BYTES > 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
def test_lower_priority_applies_to_the_calling_thread_and_the_helper():
    import os

    from compute.backends import cpu

    seen = {}

    def worker():
        cpu.lower_priority(7)
        seen["self"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        if cpu._HELPER is not None:
            seen["helper"] = cpu._HELPER.submit(
                lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id())).result()

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen["self"] >= 7 and seen.get("helper", 7) >= 7       # (an earlier, higher nice stays)
