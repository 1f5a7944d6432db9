"""Incremental passes on the `cuda` backend (forward(..., reuse=trace)): rows < p are copied from the
earlier Trace's device run (or its host copies), rows >= p computed; after every edit the Trace
equals a fresh full cuda pass and the cpu backend's incremental one, for both product paths and
both model families. Tiny sizes: every CUDA thread is a Python thread under the simulator."""
from __future__ import annotations

import gc

import numpy as np
import pytest

from compute import Config, Weights, forward, get_backend
from compute.backends import cuda as cuda_backend
from tests.compute.helpers import max_scaled_error

from .helpers import TOL

# Same kernels on the same inputs row for row, but the softmax's sums may run in another order.
SAME = 2e-6


@pytest.fixture(params=["numba", "cublas"])
def backend(request):
    b = get_backend("cuda")
    old = b.gemm
    b.gemm = request.param
    yield b
    b.gemm = old
    b.device_budget = None


def _cfg(llama: bool, **kw) -> Config:
    if llama:                                   # GQA, RoPE, SwiGLU, RMSNorm, a window in layer 1
        base = dict(d_model=8, n_heads=4, n_kv_heads=2, d_head=4, d_mlp=12, n_ctx=10, d_vocab=13, n_layers=2,
                    norm="rmsnorm", positions="rope", mlp="swiglu", attn_bias=True, mlp_bias=False,
                    tied_embeddings=False, windows=(None, 3))
    else:
        base = dict(d_model=8, n_heads=2, d_head=4, d_mlp=12, n_ctx=10, d_vocab=13, n_layers=2)
    return Config(**{**base, **kw})


def _snapshot(trace) -> dict:
    return {key: np.array(trace[key]) for key in trace.keys() if key != "logits"}


def _assert_same(got, want, tol) -> None:
    assert list(got.keys()) == list(want.keys())
    for key in want.keys():
        if key == "logits":
            continue
        a, b = got[key], want[key]
        assert a.shape == b.shape, key
        err = max_scaled_error(a, b)                                       # -inf exactly where want has it
        assert err <= tol, f"{key}: {err:.3g}"


@pytest.mark.parametrize("llama", [False, True])
def test_edits_equal_a_fresh_full_pass(backend, llama, monkeypatch):
    cfg = _cfg(llama)
    w = Weights.random(cfg, seed=3, bias_std=0.3)
    found = []
    real = cuda_backend._device_run_of
    monkeypatch.setattr(cuda_backend, "_device_run_of", lambda b, t: found.append(real(b, t)) or found[-1])
    prev = forward(cfg, w, [1, 2, 3, 4, 5, 6], backend="cuda")
    cpu_prev = forward(cfg, w, [1, 2, 3, 4, 5, 6], backend="cpu")
    #            append                 replace last        delete last      move within the tail
    for new, p in (([1, 2, 3, 4, 5, 6, 7], 6), ([1, 2, 3, 4, 5, 6, 9], 6), ([1, 2, 3, 4, 5, 6], 5),
                   ([1, 2, 3, 4, 6, 5], 4)):
        before = _snapshot(prev)
        inc = forward(cfg, w, new, backend="cuda", reuse=prev)
        assert inc.backend == "cuda", inc.notice
        assert inc.reused_rows == p                  # deleting the last token recomputes the last row
        fresh = forward(cfg, w, new, backend="cuda")
        h = cfg.n_heads - 1                          # one head first: its rows < p made alone (GQA, window)
        for name in ("attn_scores", "pattern"):
            assert max_scaled_error(inc.read(name, 1, head=h), fresh[name, 1][h]) <= SAME, name
        _assert_same(inc, fresh, SAME)
        cpu_inc = forward(cfg, w, new, backend="cpu", reuse=cpu_prev)
        _assert_same(inc, cpu_inc, TOL)
        np.testing.assert_allclose(inc.logits_rows([-1]), cpu_inc.logits_rows([-1]), rtol=1e-5, atol=1e-5)
        after = _snapshot(prev)
        for key, value in before.items():                                   # the earlier Trace is unchanged
            assert np.array_equal(value, after[key], equal_nan=True), key
        prev, cpu_prev = inc, cpu_inc
    assert found and all(run is not None for run in found)                 # device to device every time


def test_the_copied_rows_are_what_the_trace_shows(monkeypatch):
    """Without the copy of rows < p the Trace is wrong: the rows really come from the earlier run."""
    backend = get_backend("cuda")
    cfg = _cfg(False, n_layers=1)
    w = Weights.random(cfg, seed=4, bias_std=0.3)
    prev = forward(cfg, w, [1, 2, 3, 4, 5], backend="cuda")
    other = forward(cfg, w, [7, 8, 9, 10, 11, 12], backend="cuda")          # the only T = 6 buffers: other rows
    del other
    gc.collect()
    monkeypatch.setattr(cuda_backend, "_copy_leading_rows", lambda *a: None)
    skipped = forward(cfg, w, [1, 2, 3, 4, 5, 6], backend="cuda", reuse=prev)
    assert skipped.reused_rows == 5 and backend.name == "cuda"
    fresh = forward(cfg, w, [1, 2, 3, 4, 5, 6], backend="cuda")
    assert max_scaled_error(skipped["mlp_out", 0], fresh["mlp_out", 0]) > TOL


def test_rows_of_a_spilled_trace_come_from_its_host_copies(backend):
    cfg = _cfg(False)
    w = Weights.random(cfg, seed=5, bias_std=0.3)
    backend.release()
    gc.collect()
    one = cuda_backend.run_bytes(cfg, 7)
    backend.device_budget = cuda_backend.weights_bytes(cfg) + int(1.5 * one)   # room for one pass, not two
    prev = forward(cfg, w, [1, 2, 3, 4, 5, 6], backend="cuda")
    inc = forward(cfg, w, [1, 2, 3, 4, 5, 6, 7], backend="cuda", reuse=prev)   # spills prev first
    assert inc.backend == "cuda" and inc.reused_rows == 6
    assert cuda_backend._device_run_of(backend, prev).spilled
    backend.device_budget = None
    _assert_same(inc, forward(cfg, w, [1, 2, 3, 4, 5, 6, 7], backend="cpu"), TOL)


def test_an_attn_mask_and_what_cannot_be_reused(backend):
    cfg = _cfg(True)
    w = Weights.random(cfg, seed=6, bias_std=0.3)
    mask = np.random.default_rng(0).random((7, 7)) > 0.3
    prev = forward(cfg, w, [1, 2, 3, 4, 5, 6], backend="cuda", attn_mask=mask[:6, :6])
    inc = forward(cfg, w, [1, 2, 3, 4, 5, 6, 8], backend="cuda", attn_mask=mask, reuse=prev)
    assert inc.reused_rows == 6
    _assert_same(inc, forward(cfg, w, [1, 2, 3, 4, 5, 6, 8], backend="cpu", attn_mask=mask), TOL)
    other = Weights.random(cfg, seed=7, bias_std=0.3)                       # new weights: a full pass
    assert forward(cfg, other, [1, 2, 3, 4, 5, 6], backend="cuda", reuse=prev).reused_rows == 0
    flipped = cfg.replace(scale_scores=False)                               # another config: a full pass
    again = forward(flipped, w, [1, 2, 3, 4, 5, 6], backend="cuda", reuse=prev)
    assert again.reused_rows == 0
    _assert_same(again, forward(flipped, w, [1, 2, 3, 4, 5, 6], backend="cpu"), TOL)
    cpu = forward(cfg, w, [1, 2, 3, 4, 5, 6], backend="cpu")                # another backend's Trace: full
    assert forward(cfg, w, [1, 2, 3, 4, 5, 6, 8], backend="cuda", reuse=cpu).reused_rows == 0


# What each launcher writes (argument positions): the device work of a pass, counted as the elements
# its kernels and products write.
def _outputs():
    from compute.backends.cuda_blas import TorchProducts
    from cuda_kernels import elementwise as EW
    from cuda_kernels import products as P
    from cuda_kernels import rows as R

    return {R: {"launch_layer_norm": (3, 4, 5), "launch_rms_norm": (2, 3), "launch_softmax_rows": (2,),
                "launch_scale_mask_softmax": (6, 7, 8)},
            EW: {"launch_embed": (3, 4), "launch_rope": (3,), "launch_silu_gate": (2,), "launch_gelu_gate": (2,),
                 "launch_gelu": (1,),
                 "launch_sum_heads_residual": (3, 4), "launch_add": (2,)},
            P: {"launch_project_qkv": (3, 4, 5), "launch_scores": (6, 7, 8), "launch_weighted_sum": (3,),
                "launch_head_results": (2,), "launch_matmul_bias": (3,)},
            TorchProducts: {"linear": (3,), "scores": (2,), "weighted_sum": (2,), "head_results": (2,)}}


def _count_work(monkeypatch) -> dict:
    import math

    work = {"elements": 0}
    for owner, launchers in _outputs().items():
        for name, outs in launchers.items():
            real = getattr(owner, name)

            def counted(*args, _real=real, _outs=outs, **kwargs):
                work["elements"] += sum(math.prod(args[i].shape) for i in _outs if i < len(args))
                return _real(*args, **kwargs)

            monkeypatch.setattr(owner, name, staticmethod(counted) if isinstance(owner, type) else counted)
    return work


@pytest.mark.parametrize("path,llama", [("numba", False), ("numba", True), ("cublas", False)])
def test_an_appended_token_costs_the_device_under_a_tenth_of_a_full_pass(monkeypatch, path, llama):
    """Both paths: every stage on the new row only, the maps' rows < p made for a head when a view reads
    it (on the numba path the pass's own kernels, the masks by position: GQA, RoPE and a window too)."""
    from compute.backends.cuda_blas import TorchProducts, why_not

    if path == "cublas" and why_not():
        pytest.skip(why_not())
    backend = get_backend("cuda")
    monkeypatch.setattr(backend, "gemm", path)
    cfg = _cfg(llama, n_ctx=32)
    w = Weights.random(cfg, seed=8, bias_std=0.3)
    tokens = np.random.default_rng(8).integers(0, cfg.d_vocab, 24)
    prev = forward(cfg, w, tokens[:-1], backend="cuda")
    work = _count_work(monkeypatch)
    full = forward(cfg, w, tokens, backend="cuda")
    full_work, work["elements"] = work["elements"], 0
    batches = []
    real_copy = TorchProducts.copy_all
    monkeypatch.setattr(TorchProducts, "copy_all", lambda self, d, s: batches.append(len(d)) or real_copy(self, d, s))
    inc = forward(cfg, w, tokens, backend="cuda", reuse=prev)
    assert inc.reused_rows == 23 and inc.backend == "cuda"
    run = cuda_backend._device_run_of(backend, inc)
    assert run.gemm == path and run.pending_maps == {0: 23, 1: 23}
    if path == "cublas":
        row_wise = {id(s) for k, s in run.slots.items()
                    if k[0] not in cuda_backend._HEAD_MAPS and not k[0].startswith("ln_final_stat")}
        assert batches == [len(row_wise)]                                   # one batched copy of the reused rows
    assert 0 < work["elements"] < 0.10 * full_work, (work["elements"], full_work)
    work["elements"] = 0
    h = cfg.n_heads - 1                                                     # GQA: the last group's keys
    head = inc.read("pattern", 1, head=h)                                  # the viewed head: its rows < p now
    assert run.made_heads == {1: {h}} and 0 < work["elements"] <= 4 * 23 * 24 + 23 * 24
    np.testing.assert_allclose(head, full["pattern", 1][h], atol=SAME)
    _assert_same(inc, full, SAME)                                           # every head, when asked
