"""The device-resident Trace: values stay on the device until read, a live Trace keeps its buffers,
dropped ones are reused, memory pressure spills old Traces to the host, early results, and the
cuBLAS product path (torch on the simulator's memory here; cuBLAS on a GPU)."""
from __future__ import annotations

import gc

import numpy as np
import pytest

from compute import Config, Weights, forward, get_backend, partial_trace, progress
from compute.backends import cuda as cuda_backend
from compute.names import attention_names, layer_names, mlp_names
from cuda_kernels import SIMULATOR
from tests.compute.helpers import assert_trace_matches, random_config

from .helpers import TOL


@pytest.fixture
def backend():
    b = get_backend("cuda")
    yield b
    b.device_budget = None


def _cfg(**kw):
    base = dict(d_model=8, n_heads=2, d_head=4, n_ctx=8, d_vocab=11, n_layers=2)
    return Config(**{**base, **kw})


def _run_of(trace):
    """The device run behind a cuda Trace (its Lazy values copy from it)."""
    return trace._arrays["pattern", 0].make.func.__self__


def test_nothing_crosses_the_bus_until_a_view_reads_it(rng, backend):
    cfg = _cfg()
    weights = Weights.random(cfg, seed=int(rng.integers(1 << 30)))
    tokens = rng.integers(0, cfg.d_vocab, 7)
    got = forward(cfg, weights, tokens, backend="cuda")
    ref = forward(cfg, weights, tokens, backend="reference")
    run = _run_of(got)
    assert run.copied_bytes == 0 and not got.is_ready("q", 0)
    np.testing.assert_allclose(got["q", 0], ref["q", 0], atol=1e-5)
    assert run.copied_bytes == got["q", 0].nbytes and got.is_ready("q", 0)
    head = got.part("pattern", 1, 1)                                        # one head: [T, T] alone
    assert run.copied_bytes == got["q", 0].nbytes + 7 * 7 * 4
    assert not got.is_ready("pattern", 1)
    np.testing.assert_allclose(head, ref["pattern", 1][1], atol=1e-6)
    assert got.part("pattern", 1, 1) is head                               # cached
    assert not head.flags.writeable
    whole = got["pattern", 1]
    np.testing.assert_array_equal(got.part("pattern", 1, -1), whole[-1])   # from the whole once it is there
    assert got["resid_pre", 1] is got["resid_post", 0]                     # one buffer, one copy
    assert_trace_matches(got, ref, TOL)                                    # everything, when asked


def test_a_trace_on_screen_keeps_its_device_buffers(rng, backend):
    """A new pass of the same size must not write into the buffers an unread Trace still holds."""
    cfg = _cfg()
    weights = Weights.random(cfg, seed=int(rng.integers(1 << 30)))
    first, second = rng.integers(0, cfg.d_vocab, 6), rng.integers(0, cfg.d_vocab, 6)
    a = forward(cfg, weights, first, backend="cuda")                        # nothing of it read yet
    b = forward(cfg, weights, second, backend="cuda")
    assert not set(map(id, _bufs(a))) & set(map(id, _bufs(b)))
    assert_trace_matches(a, forward(cfg, weights, first, backend="reference"), TOL)
    assert_trace_matches(b, forward(cfg, weights, second, backend="reference"), TOL)


def _bufs(trace):
    return {s.buf for s in _run_of(trace).slots.values()}


def test_a_dropped_traces_buffers_are_reused(rng, backend):
    cfg = _cfg(n_layers=1)
    weights = Weights.random(cfg, seed=int(rng.integers(1 << 30)))
    tokens = rng.integers(0, cfg.d_vocab, 5)
    forward(cfg, weights, tokens, backend="cuda")                           # dropped at once
    gc.collect()
    held, hits = backend.pool.held_bytes(), backend.pool.hits
    for _ in range(3):
        forward(cfg, weights, tokens, backend="cuda")
        gc.collect()
    assert backend.pool.held_bytes() == held                                # bounded: no new buffers
    assert backend.pool.hits >= hits + 3 * len(cuda_backend.run_shapes(cfg, 5))      # every buffer reused


def test_memory_pressure_spills_the_oldest_trace_to_the_host(rng, backend):
    cfg = _cfg()
    weights = Weights.random(cfg, seed=int(rng.integers(1 << 30)))
    T = 6
    first, second = rng.integers(0, cfg.d_vocab, T), rng.integers(0, cfg.d_vocab, T)
    backend.release()
    gc.collect()
    one = cuda_backend.run_bytes(cfg, T)
    backend.device_budget = cuda_backend.weights_bytes(cfg) + int(1.5 * one)   # room for one pass, not two
    spills = backend.spills
    a = forward(cfg, weights, first, backend="cuda")
    a_head = a.part("pattern", 0, 1)                                        # one part read before the spill
    b = forward(cfg, weights, second, backend="cuda")
    assert b.backend == "cuda", b.notice
    assert backend.spills >= spills + 1 and _run_of(a).spilled                 # (older live runs first, if any)
    assert all(s.buf is None for s in _run_of(a).slots.values())            # its device memory is free
    ref_a = forward(cfg, weights, first, backend="reference")
    assert_trace_matches(a, ref_a, TOL)                                     # read from the host copies
    np.testing.assert_array_equal(a_head, a["pattern", 0][1])
    assert_trace_matches(b, forward(cfg, weights, second, backend="reference"), TOL)
    backend.device_budget = cuda_backend.weights_bytes(cfg) + one // 2      # not even one pass
    c = forward(cfg, weights, first, backend="cuda")
    assert c.backend == "cpu" and "out of GPU memory" in c.notice


def test_early_results_layer_by_layer(rng, backend):
    """As the cpu backend: after each layer's attention half, everything final so far."""
    cfg = _cfg(n_layers=3)
    weights = Weights.random(cfg, seed=int(rng.integers(1 << 30)))
    tokens = rng.integers(0, cfg.d_vocab, 6)
    seen = []
    with progress.reporting(None, lambda layer, arrays: seen.append((layer, arrays))):
        got = forward(cfg, weights, tokens, backend="cuda")
    ref = forward(cfg, weights, tokens, backend="reference")
    assert [layer for layer, _ in seen] == [0, 1, 2]
    for layer, arrays in seen:
        part = partial_trace(cfg, arrays, backend="cuda")
        for name in attention_names(cfg):
            np.testing.assert_allclose(part[name, layer], ref[name, layer], atol=1e-5, err_msg=name)
            assert part[name, layer] is got[name, layer]                    # the same arrays: no second copy
        assert all((n, layer) not in arrays for n in mlp_names(cfg))
        assert all((n, earlier) in arrays for n in layer_names(cfg) for earlier in range(layer))
        assert (("resid_post", layer) not in arrays) and "ln_final_out" not in arrays


def test_the_gemm_path_is_checked(backend, monkeypatch):
    monkeypatch.setattr(backend, "gemm", "tensor-cores")
    with pytest.raises(ValueError, match="numba, cublas"):
        backend.gemm_path()
    monkeypatch.setattr(backend, "gemm", "auto")
    assert backend.gemm_path() == ("numba" if SIMULATOR else backend.gemm_path())


@pytest.fixture
def cublas(backend):
    old = backend.gemm
    backend.gemm = "cublas"
    yield backend
    backend.gemm = old
    backend.release()


@pytest.mark.parametrize("trial", range(3))
def test_cublas_path_matches_reference(rng, cublas, trial):
    """The products as torch calls on the same buffers (torch on the CPU under the simulator)."""
    from tests.compute.test_family_backends import family_config

    make = random_config if trial == 0 else family_config
    cfg = make(rng, n_ctx=8, n_layers=2, d_model=int(rng.integers(3, 13)), d_mlp=int(rng.integers(1, 20)))
    weights = Weights.random(cfg, seed=int(rng.integers(1 << 30)), bias_std=0.3)
    tokens = rng.integers(0, cfg.d_vocab, int(rng.integers(1, 9)))
    got = forward(cfg, weights, tokens, backend="cuda")
    assert got.backend == "cuda", got.notice
    assert_trace_matches(got, forward(cfg, weights, tokens, backend="reference"), TOL)


@pytest.mark.parametrize("case", ["gqa-window-mask", "mha-unscaled-noncausal"])
def test_cublas_path_with_shared_kv_heads_windows_and_masks(rng, cublas, case):
    if case == "gqa-window-mask":
        cfg = Config(d_model=8, n_heads=4, n_kv_heads=2, d_head=4, n_ctx=10, d_vocab=11, n_layers=2, d_mlp=10,
                     norm="rmsnorm", positions="rope", rope_theta=100.0, mlp="swiglu", attn_bias=False,
                     mlp_bias=False, tied_embeddings=False, windows=(None, 3))
        mask = rng.random((9, 9)) < 0.7
        mask[2] = False
    else:
        cfg = _cfg(causal=False, scale_scores=False, n_ctx=10)
        mask = None
    weights = Weights.random(cfg, seed=int(rng.integers(1 << 30)), bias_std=0.3)
    tokens = rng.integers(0, cfg.d_vocab, 9)
    got = forward(cfg, weights, tokens, backend="cuda", attn_mask=mask)
    assert got.backend == "cuda", got.notice
    assert_trace_matches(got, forward(cfg, weights, tokens, backend="reference", attn_mask=mask), TOL)
    assert cublas.gemm_path() == "cublas" and "W_Q2" in cublas._weights.blocks[0]


# -- what crosses the bus: only what a view draws ----------------------------------------------------
def test_read_copies_only_the_cut_a_view_draws(rng, backend):
    cfg = _cfg(n_heads=3)
    weights = Weights.random(cfg, seed=int(rng.integers(1 << 30)))
    T = 7
    tokens = rng.integers(0, cfg.d_vocab, T)
    got = forward(cfg, weights, tokens, backend="cuda")
    ref = forward(cfg, weights, tokens, backend="reference")
    assert got.copied_bytes == 0 == _run_of(got).copied_bytes
    row = got.read("pattern", 1, head=2, rows=3)                            # [T]: one query's row
    np.testing.assert_allclose(row, ref["pattern", 1][2, 3], atol=1e-6)
    assert got.copied_bytes == T * 4 and not row.flags.writeable
    assert got.read("pattern", 1, head=2, rows=3) is row                    # kept: no second copy
    share = got.read("result", 0, head=1)                                   # [T, d_model]: strided, packed
    np.testing.assert_allclose(share, ref["result", 0][:, 1], atol=1e-5)
    assert got.copied_bytes == T * 4 + share.nbytes
    rows = got.read("q", -1, rows=[4, 1])                                   # not one run: the span 1..4
    np.testing.assert_allclose(rows, ref["q", 1][[4, 1]], atol=1e-5)
    assert got.copied_bytes == T * 4 + share.nbytes + 4 * got["q", 1][0].nbytes
    before = got.copied_bytes
    np.testing.assert_allclose(got.logits_rows([5]), ref["logits"][[5]], atol=1e-5)
    assert got.copied_bytes == before + cfg.d_vocab * 4                     # the logits, not ln_final_out
    head = got.part("pattern", 0, 0)
    assert got.read("pattern", 0, head=0, rows=slice(2, 4)).base is not None or \
        np.array_equal(got.read("pattern", 0, head=0, rows=slice(2, 4)), head[2:4])
    whole = got["z", 0]                                                     # once whole, reads cost nothing
    copied = got.copied_bytes
    np.testing.assert_array_equal(got.read("z", 0, head=1, rows=2), whole[2, 1])
    assert got.copied_bytes == copied
    copied = got.copied_bytes
    cell = got.read("attn_scores_raw", 1, head=0, rows=5, cols=2)            # one number (the dot trace)
    np.testing.assert_allclose(cell, ref["attn_scores_raw", 1][0, 5, 2], atol=1e-5)
    keys = got.read("pattern", 1, rows=6, cols=0)                           # [n_heads]: key 0's share, a column
    np.testing.assert_allclose(keys, ref["pattern", 1][:, 6, 0], atol=1e-6)
    np.testing.assert_allclose(got.read("ln1_mean", 0, rows=2), ref["ln1_mean", 0][2], atol=1e-5)
    assert got.copied_bytes == copied + 4 + 3 * 4 + 4
    with pytest.raises(KeyError, match="no heads"):
        got.read("ln1_out", 0, head=0)
    with pytest.raises(IndexError, match="outside"):
        got.read("pattern", 0, head=3)


def test_an_append_allocates_no_device_buffer_after_the_first(rng, backend):
    """Typing: each pass's buffers are sized for bucket_rows(T); the pass before last's are free and fit."""
    cfg = _cfg(n_ctx=16)
    weights = Weights.random(cfg, seed=int(rng.integers(1 << 30)))
    tokens = rng.integers(0, cfg.d_vocab, 8)
    assert cuda_backend.bucket_rows(5, 16) == 8 and cuda_backend.bucket_rows(1000, 4096) == 1024
    assert cuda_backend.bucket_rows(1025, 4096) == 1152 and cuda_backend.bucket_rows(9, 10) == 10
    on_screen = forward(cfg, weights, tokens[:5], backend="cuda")
    gc.collect()
    misses = []
    for T in range(6, 9):                                                   # as the runner: the Trace on screen lives
        on_screen = forward(cfg, weights, tokens[:T], backend="cuda", reuse=on_screen)
        assert on_screen.reused_rows == T - 1
        gc.collect()
        misses.append(backend.pool.misses)
    assert misses[0] == misses[-1], f"cudaMalloc per append: {misses}"
    assert_trace_matches(on_screen, forward(cfg, weights, tokens, backend="reference"), TOL)


def test_the_device_pool_keeps_nothing_when_reference_counts_cannot_be_trusted(rng, backend, monkeypatch):
    pool = cuda_backend.DevicePool()
    pool._alone = None                                                      # calibration failed
    assert not pool.enabled
    first = pool.take(10, 2)
    del first
    pool.take(10, 2)
    assert pool.misses == 4 and pool.held_bytes() == 0                      # nothing held: freed with its run
    monkeypatch.setattr(backend, "pool", pool)
    cfg = _cfg(n_layers=1)
    weights = Weights.random(cfg, seed=int(rng.integers(1 << 30)))
    tokens = rng.integers(0, cfg.d_vocab, 5)
    got = forward(cfg, weights, tokens, backend="cuda")
    assert got.backend == "cuda" and pool.held_bytes() == 0
    assert_trace_matches(got, forward(cfg, weights, tokens, backend="reference"), TOL)
