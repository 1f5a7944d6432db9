"""Every backend against the float64 reference, the reference against torch, and the invariants."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from compute import (
    GLOBAL_NAMES,
    LAYER_NAMES,
    PRESETS,
    Config,
    ConfigError,
    Weights,
    WeightsError,
    forward,
    memory,
    register_backend,
    trace_shape,
)

from .helpers import assert_trace_matches, max_scaled_error, random_config
from .torch_oracle import oracle

# float32 against float64, as a share of each array's scale: worst seen 1.3e-6 over 300 random
# configs (second-layer softmax and scores); a wrong formula or a missing term is O(1e-2) or more.
F32_TOL = 5e-6
F64_TOL = 1e-10


def _inputs(rng, cfg, T=None, bias_std=0.3):
    T = int(rng.integers(1, cfg.n_ctx + 1)) if T is None else T
    weights = Weights.random(cfg, seed=int(rng.integers(0, 2**31)), bias_std=bias_std)
    tokens = rng.integers(0, cfg.d_vocab, T)
    return weights, tokens


# -- every name, every layer ---------------------------------------------------------------------
@pytest.mark.parametrize("trial", range(12))
def test_cpu_matches_reference_on_random_configs(rng, trial):
    cfg = random_config(rng)
    weights, tokens = _inputs(rng, cfg)
    ref = forward(cfg, weights, tokens, backend="reference")
    cpu = forward(cfg, weights, tokens, backend="cpu")
    assert cpu.backend == "cpu" and cpu.dtype == np.float32
    assert ref.backend == "reference" and ref.dtype == np.float64
    assert set(cpu.keys()) == set(ref.keys())
    assert_trace_matches(cpu, ref, F32_TOL)


@pytest.mark.parametrize("preset", ["toy", "andrea-120m"])
def test_cpu_matches_reference_on_presets(rng, preset):
    cfg = PRESETS[preset].replace(n_layers=1) if preset != "toy" else PRESETS[preset]
    T = 6 if preset == "toy" else 64
    weights, tokens = _inputs(rng, cfg, T=T, bias_std=0.02)
    ref = forward(cfg, weights, tokens, backend="reference")
    cpu = forward(cfg, weights, tokens, backend="cpu")
    assert_trace_matches(cpu, ref, F32_TOL)


@pytest.mark.parametrize("trial", range(6))
def test_reference_matches_independent_torch_float64(rng, trial):
    cfg = random_config(rng)
    weights, tokens = _inputs(rng, cfg)
    ref = forward(cfg, weights, tokens, backend="reference")
    expected = oracle(cfg, weights, tokens)
    assert_trace_matches(ref, expected, F64_TOL)


def test_attention_matches_torch_sdpa(rng):
    cfg = Config(d_model=16, n_heads=4, d_head=8, n_ctx=32, d_vocab=20, n_layers=2)
    weights, tokens = _inputs(rng, cfg, T=29)
    for backend, tol in (("reference", 1e-12), ("cpu", 2e-6)):
        trace = forward(cfg, weights, tokens, backend=backend)
        for layer in range(cfg.n_layers):
            q, k, v = (torch.tensor(np.asarray(trace[n, layer], np.float64)).transpose(0, 1) for n in "qkv")
            z = F.scaled_dot_product_attention(q, k, v, is_causal=True)          # [H, T, dh]
            err = max_scaled_error(trace["z", layer], z.transpose(0, 1).numpy())
            assert err < tol, (backend, layer, err)


def test_every_name_has_its_documented_shape(rng):
    cfg = Config(d_model=6, n_heads=3, d_head=5, n_ctx=12, d_vocab=9, n_layers=2, d_mlp=7)
    weights, tokens = _inputs(rng, cfg, T=11)
    for backend in ("reference", "cpu"):
        trace = forward(cfg, weights, tokens, backend=backend)
        for name in GLOBAL_NAMES:
            assert trace[name].shape == trace_shape(name, cfg, 11), (backend, name)
        for layer in range(cfg.n_layers):
            for name in LAYER_NAMES:
                assert trace[name, layer].shape == trace_shape(name, cfg, 11), (backend, name)


# -- edge sizes and switches ---------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_T_equal_1_and_T_equal_n_ctx(rng, backend):
    cfg = Config(d_model=8, n_heads=2, d_head=4, n_ctx=16, d_vocab=16, n_layers=2)
    weights, _ = _inputs(rng, cfg)
    one = forward(cfg, weights, [3], backend=backend)
    assert one["pattern", 0].shape == (2, 1, 1)
    assert np.all(one["pattern", 1] == 1.0)       # one key: all weight on it
    full = forward(cfg, weights, rng.integers(0, 16, 16), backend=backend)
    assert full["attn_scores", 1].shape == (2, 16, 16)
    with pytest.raises(ConfigError, match="n_ctx=16 is too small for T=17"):
        forward(cfg, weights, rng.integers(0, 16, 17), backend=backend)


@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_empty_sequence_gives_empty_arrays(backend):
    cfg = PRESETS["toy"]
    trace = forward(cfg, Weights.random(cfg, 0), [], backend=backend)
    assert trace.T == 0
    assert trace["pattern", 0].shape == (2, 0, 0)
    assert trace["resid_post", 1].shape == (0, 8)
    assert trace["logits"].shape == (0, 16)


@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_scale_scores_off_really_removes_the_division(rng, backend):
    cfg = Config(d_model=8, n_heads=2, d_head=9, n_ctx=10, d_vocab=12, n_layers=1)
    weights, tokens = _inputs(rng, cfg, T=10)
    on = forward(cfg, weights, tokens, backend=backend)
    off = forward(cfg.replace(scale_scores=False), weights, tokens, backend=backend)
    raw = on["attn_scores_raw", 0]
    np.testing.assert_array_equal(off["attn_scores_scaled", 0], off["attn_scores_raw", 0])
    np.testing.assert_allclose(on["attn_scores_scaled", 0], raw / 3.0, rtol=1e-6, atol=1e-7)
    # without the division the rows are sharper: larger maximum probability on average
    assert off["pattern", 0].max(axis=-1).mean() > on["pattern", 0].max(axis=-1).mean()


@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_causal_off_really_removes_the_mask(rng, backend):
    cfg = Config(d_model=8, n_heads=2, d_head=4, n_ctx=10, d_vocab=12, n_layers=1, causal=False)
    weights, tokens = _inputs(rng, cfg, T=9)
    trace = forward(cfg, weights, tokens, backend=backend)
    assert np.isfinite(trace["attn_scores", 0]).all()
    np.testing.assert_array_equal(trace["attn_scores", 0], trace["attn_scores_scaled", 0])
    assert (trace["pattern", 0] > 0).all()    # every key gets some weight, future ones too


@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_fully_masked_rows_are_zero_not_nan(rng, backend):
    cfg = Config(d_model=8, n_heads=2, d_head=4, n_ctx=10, d_vocab=12, n_layers=2, causal=False)
    weights, tokens = _inputs(rng, cfg, T=7)
    mask = rng.random((7, 7)) < 0.5
    mask[2, :] = False                        # query 2 may attend to nothing
    mask[5, :] = False
    trace = forward(cfg, weights, tokens, backend=backend, attn_mask=mask)
    for layer in range(2):
        pattern = trace["pattern", layer]
        assert np.isfinite(pattern).all()
        assert (pattern[:, [2, 5]] == 0).all()
        assert (trace["z", layer][[2, 5]] == 0).all()
        assert np.isneginf(trace["attn_scores", layer][:, 2]).all()
        np.testing.assert_array_equal(pattern[:, ~mask], 0.0)
    expected = oracle(cfg, weights, tokens, attn_mask=mask)
    assert_trace_matches(trace, expected, F32_TOL if backend == "cpu" else F64_TOL)


def test_attn_mask_is_validated(rng):
    cfg = PRESETS["toy"]
    weights = Weights.random(cfg, 0)
    with pytest.raises(ConfigError, match="attn_mask"):
        forward(cfg, weights, [1, 2, 3], attn_mask=np.ones((3, 2), bool))
    with pytest.raises(ConfigError, match="boolean"):
        forward(cfg, weights, [1, 2, 3], attn_mask=np.ones((3, 3)))


# -- invariants ------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["reference", "cpu"])
@pytest.mark.parametrize("trial", range(3))
def test_invariants(rng, backend, trial):
    cfg = random_config(rng, causal=True, n_ctx=24)
    weights, tokens = _inputs(rng, cfg, T=int(rng.integers(1, 25)))
    trace = forward(cfg, weights, tokens, backend=backend)
    T = trace.T
    forbidden = np.triu(np.ones((T, T), bool), k=1)
    tol = 1e-6 if backend == "cpu" else 1e-12
    for layer in range(cfg.n_layers):
        pattern = trace["pattern", layer]
        np.testing.assert_allclose(pattern.sum(axis=-1), 1.0, atol=tol)          # rows sum to 1
        assert (pattern >= 0).all()
        assert (pattern[:, forbidden] == 0.0).all()                               # exactly 0
        scores, scaled = trace["attn_scores", layer], trace["attn_scores_scaled", layer]
        assert np.isneginf(scores[:, forbidden]).all()                            # -inf, not -1e9
        np.testing.assert_array_equal(scores[:, ~forbidden], scaled[:, ~forbidden])
        head_sum = trace["result", layer].sum(axis=1) + weights[f"blocks.{layer}.attn.b_O"]
        np.testing.assert_allclose(head_sum, trace["attn_out", layer], atol=tol * 10, rtol=tol * 10)
        np.testing.assert_array_equal(trace["z_concat", layer], trace["z", layer].reshape(T, -1))
        np.testing.assert_allclose(trace["resid_mid", layer],
                                   trace["resid_pre", layer] + trace["attn_out", layer], atol=tol)
        np.testing.assert_allclose(trace["resid_post", layer],
                                   trace["resid_mid", layer] + trace["mlp_out", layer], atol=tol)
        if layer + 1 < cfg.n_layers:
            np.testing.assert_array_equal(trace["resid_pre", layer + 1], trace["resid_post", layer])
    np.testing.assert_allclose(trace["resid_pre", 0], trace["embed"] + trace["pos_embed"], atol=tol)


@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_permuting_tokens_permutes_rows_and_columns_without_positions(rng, backend):
    cfg = Config(d_model=8, n_heads=2, d_head=4, n_ctx=12, d_vocab=12, n_layers=2, causal=False)
    weights, tokens = _inputs(rng, cfg, T=10)
    weights = weights.replace({"pos_embed.W_pos": np.zeros((12, 8), np.float32)})   # positions off
    perm = rng.permutation(10)
    a = forward(cfg, weights, tokens, backend=backend)
    b = forward(cfg, weights, tokens[perm], backend=backend)
    tol = 1e-5 if backend == "cpu" else 1e-12
    for layer in range(2):
        for name in ("q", "k", "v", "z", "result", "resid_post"):
            np.testing.assert_allclose(b[name, layer], a[name, layer][perm], atol=tol)
        np.testing.assert_allclose(b["pattern", layer], a["pattern", layer][:, perm][:, :, perm], atol=tol)
    # with the causal mask the order matters again
    c = cfg.replace(causal=True)
    assert not np.allclose(forward(c, weights, tokens[perm], backend=backend)["z", 0],
                           forward(c, weights, tokens, backend=backend)["z", 0][perm], atol=1e-3)


# -- errors and backend choice -------------------------------------------------------------------
def test_bad_tokens_and_mismatched_weights_are_clear_errors():
    cfg = PRESETS["toy"]
    weights = Weights.random(cfg, 0)
    with pytest.raises(ConfigError, match=r"tokens\[1\]=99: is outside the vocabulary 0..15"):
        forward(cfg, weights, [1, 99])
    with pytest.raises(ConfigError, match=r"tokens\[0\]=-1"):
        forward(cfg, weights, [-1])
    with pytest.raises(ConfigError, match="whole-number"):
        forward(cfg, weights, [1.5])
    with pytest.raises(ConfigError, match="tokenizer"):
        forward(cfg, weights, "the cat")
    with pytest.raises(WeightsError, match="d_head: weights 4 vs config 6"):
        forward(cfg.replace(d_head=6), weights, [1, 2])
    with pytest.raises(ConfigError, match="backend"):
        forward(cfg, weights, [1], backend="tpu")


def test_auto_uses_cpu_without_gpu_and_cuda_falls_back_with_a_notice():
    cfg = PRESETS["toy"]
    weights = Weights.random(cfg, 0)
    auto = forward(cfg, weights, [1, 2, 3], backend="auto")
    assert auto.backend in ("cpu", "cuda")
    if auto.backend == "cpu":
        assert auto.notice is None
    cuda = forward(cfg, weights, [1, 2, 3], backend="cuda")
    if cuda.backend == "cpu":
        assert "CUDA" in cuda.notice and "CPU" in cuda.notice


def test_memory_refusal_names_the_estimate_and_what_fits(monkeypatch):
    monkeypatch.setenv("QKV_LAB_MEMORY_BUDGET_GIB", "40")
    cfg = PRESETS["gpt3-175b"]
    with pytest.raises(ConfigError) as info:
        Weights.random(cfg, 0)                # 96 layers: ~650 GiB of weights
    msg = str(info.value)
    assert info.value.field == "n_layers" and info.value.value == 96
    assert "650." in msg and "GiB" in msg and "40.00 GiB" in msg
    assert "QKV_LAB_MEMORY_BUDGET_GIB" in msg
    fits = int(re.search(r"n_layers=(\d+) fits", msg).group(1))
    need = [memory.estimate(cfg, 0, n_layers=n).weights for n in (fits, fits + 1)]
    assert need[0] <= 40 * 2**30 < need[1]     # the suggestion is the largest that fits

    monkeypatch.setenv("QKV_LAB_MEMORY_BUDGET_GIB", "4")
    with pytest.raises(ConfigError, match="even 1 layer needs 9.1"):
        Weights.random(cfg.replace(n_layers=1), 0)


def test_layer_count_and_head_count_are_respected(rng):
    cfg = Config(d_model=12, n_heads=3, d_head=2, n_ctx=8, d_vocab=10, n_layers=3)
    weights, tokens = _inputs(rng, cfg, T=5)
    trace = forward(cfg, weights, tokens, backend="cpu")
    assert trace["z_concat", 2].shape == (5, 6)
    assert trace["result", -1] is trace["result", 2]
    with pytest.raises(KeyError, match="layers 0..2"):
        trace["q", 3]
    assert math.isclose(trace.timing_ms["total"], trace.timing_ms["total"])


def test_register_backend_works_through_forward():
    register_backend("reference-again", "compute.backends.reference:ReferenceBackend")
    cfg = PRESETS["toy"]
    trace = forward(cfg, Weights.random(cfg, 0), [1, 2], backend="reference-again")
    assert trace.backend == "reference"
    with pytest.raises(ConfigError, match="reference-again"):
        forward(cfg, Weights.random(cfg, 0), [1], backend="nope")
