"""Every model family on every CPU-side backend: the names a config has, cpu against the float64
reference on fresh random configs, and invariants that each new piece of math must satisfy
(RMSNorm, RoPE, GQA, SwiGLU, windows)."""
from __future__ import annotations

import numpy as np
import pytest

from compute import (
    GLOBAL_NAMES,
    LAYER_NAMES,
    Config,
    Weights,
    forward,
    memory,
    trace_shape,
    weight_shapes,
)
from compute.names import ALL_LAYER_NAMES, global_names, layer_names

from .helpers import assert_trace_matches

# float32 against float64, of a value's range: the random families (post norms, no pre norms, QK-norm over all
# heads, GeGLU, mixtures) round more than the LLaMA ones did (5.34e-6 measured once, seed 398990015)
F32_TOL = 2e-5


def family_config(rng, **overrides) -> Config:
    """A small random config with random family fields (GQA groups, windows, RoPE, ...)."""
    n_kv = int(rng.integers(1, 4))
    groups = int(rng.integers(1, 4))
    n_layers = int(rng.integers(1, 4))
    d_head = 2 * int(rng.integers(1, 5))
    fields = dict(
        d_model=int(rng.integers(4, 24)), n_heads=n_kv * groups, n_kv_heads=n_kv, d_head=d_head,
        d_vocab=int(rng.integers(2, 40)), n_layers=n_layers, d_mlp=int(rng.integers(1, 40)),
        n_ctx=int(rng.integers(8, 40)), causal=bool(rng.random() < 0.8), scale_scores=bool(rng.random() < 0.8),
        norm=str(rng.choice(["layernorm", "rmsnorm"])), positions=str(rng.choice(["learned", "rope"])),
        mlp=str(rng.choice(["gelu", "gelu_erf", "swiglu"])), tied_embeddings=bool(rng.integers(0, 2)),
        attn_bias=bool(rng.integers(0, 2)), mlp_bias=bool(rng.integers(0, 2)),
        norm_eps=float(rng.choice([1e-5, 1e-6, 0.1])), rope_theta=float(rng.choice([10.0, 1e4, 5e5])),
        windows=tuple(None if rng.random() < 0.4 else int(rng.integers(1, 6)) for _ in range(n_layers)),
        qk_norm=bool(rng.random() < 0.3), parallel=bool(rng.random() < 0.3),
        qk_norm_scope=str(rng.choice(["head", "all"])),
        # Gemma 2/3 and OLMo 2: norms after attention and the MLP (OLMo 2: and none before), a RoPE base of
        # the windowed layers' own, embeddings · √d_model, scores · query_pre_attn_scalar^-1/2, GeGLU
        post_norms=bool(rng.random() < 0.4), pre_norms=bool(rng.random() < 0.8),
        rope_theta_local=float(rng.choice([10.0, 1e4])) if rng.random() < 0.4 else None,
        scale_embed=bool(rng.random() < 0.3),
        query_pre_attn_scalar=float(rng.choice([3.0, 24.0])) if rng.random() < 0.3 else None,
        # Gemma 2: scores soft-capped before the mask (a small cap bites on random scores), logits capped
        attn_softcap=float(rng.choice([1.0, 50.0])) if rng.random() < 0.3 else None,
        final_softcap=float(rng.choice([2.0, 30.0])) if rng.random() < 0.3 else None,
    )
    if rng.random() < 0.25:
        fields["mlp"] = "geglu"
    moe_fits = fields["mlp"] == "swiglu" and not fields["parallel"] and not fields["post_norms"]
    if moe_fits and rng.random() < 0.4:                                   # a mixture of experts
        fields["n_experts"] = int(rng.integers(2, 6))
        fields["experts_per_token"] = int(rng.integers(1, fields["n_experts"] + 1))
        fields["norm_topk"] = bool(rng.integers(0, 2))
    if fields["positions"] == "rope" and rng.random() < 0.3:
        fields["rotary_dim"] = 2 * int(rng.integers(1, d_head // 2 + 1))
    fields.update(overrides)
    if "windows" not in overrides:
        fields["windows"] = tuple(fields["windows"][i % n_layers] for i in range(fields["n_layers"]))
    return Config(**fields)


def _inputs(rng, cfg, T=None):
    T = int(rng.integers(1, cfg.n_ctx + 1)) if T is None else T
    return Weights.random(cfg, seed=int(rng.integers(0, 2**31)), bias_std=0.3), rng.integers(0, cfg.d_vocab, T)


# -- names ------------------------------------------------------------------------------------------
def test_gpt2_names_are_the_old_ones_and_families_add_or_drop_some():
    gpt2 = Config()
    assert layer_names(gpt2) == LAYER_NAMES and global_names(gpt2) == GLOBAL_NAMES
    llama = Config(d_model=16, n_heads=4, n_kv_heads=2, norm="rmsnorm", positions="rope", mlp="swiglu")
    names = layer_names(llama)
    assert {"ln1_scale", "ln2_scale", "rot_q", "rot_k", "mlp_pre_linear"} <= set(names)
    assert not {"ln1_mean", "ln1_var", "ln2_mean", "ln2_var"} & set(names)
    assert "pos_embed" not in global_names(llama)
    assert [n for n in ALL_LAYER_NAMES if n in names] == list(names)           # block order kept
    assert trace_shape("k", llama, 5) == (5, 2, 4) and trace_shape("rot_q", llama, 5) == (5, 4, 4)
    shapes = weight_shapes(llama.replace(attn_bias=False, mlp_bias=False, tied_embeddings=False))
    assert shapes["blocks.0.attn.W_K"] == (2, 16, 4) and shapes["blocks.0.mlp.W_gate"] == (16, 64)
    assert shapes["unembed.W_U"] == (16, 16)
    assert not {"blocks.0.ln1.b", "blocks.0.attn.b_Q", "blocks.0.mlp.b_in", "pos_embed.W_pos",
                "ln_final.b"} & set(shapes)


def test_missing_names_say_why(rng):
    cfg = Config(d_model=8, n_heads=2, norm="rmsnorm", positions="learned", mlp="gelu", attn_bias=False)
    w, tokens = _inputs(rng, cfg, T=3)
    trace = forward(cfg, w, tokens, backend="reference")
    for key, why in ((("rot_q", 0), "rot_q: this model has learned positions, no RoPE"),
                     (("ln1_mean", 1), "uses RMSNorm, which subtracts no mean"),
                     (("mlp_pre_linear", 0), "only SwiGLU"),
                     (("no_such", 0), "no intermediate named 'no_such'")):
        with pytest.raises(KeyError, match=why):
            trace[key]
        assert not trace.has(*key)
    rope = cfg.replace(positions="rope")
    t2 = forward(rope, Weights.random(rope, 0), tokens, backend="reference")
    with pytest.raises(KeyError, match="RoPE positions .* no learned position embedding"):
        t2["pos_embed"]
    with pytest.raises(KeyError, match="no biases"):
        w["blocks.0.attn.b_Q"]
    with pytest.raises(KeyError, match="RMSNorm has a scale w and no bias"):
        w["ln_final.b"]
    assert trace.layer_names == layer_names(cfg)


# -- cpu against the reference ---------------------------------------------------------------------
@pytest.mark.parametrize("trial", range(16))
def test_cpu_matches_reference_on_random_family_configs(rng, trial):
    cfg = family_config(rng)
    weights, tokens = _inputs(rng, cfg)
    ref = forward(cfg, weights, tokens, backend="reference")
    cpu = forward(cfg, weights, tokens, backend="cpu")
    assert set(cpu.keys()) == set(ref.keys())
    assert_trace_matches(cpu, ref, F32_TOL)
    for name in global_names(cfg):
        assert cpu[name].shape == trace_shape(name, cfg, len(tokens)), name
    for layer in range(cfg.n_layers):
        for name in layer_names(cfg):
            assert cpu[name, layer].shape == trace_shape(name, cfg, len(tokens)) == ref[name, layer].shape


def test_every_family_weights_and_memory_estimate(rng):
    for _ in range(6):
        cfg = family_config(rng)
        w = Weights.random(cfg, 0)
        assert {n: a.shape for n, a in w.items()} == weight_shapes(cfg)
        assert memory.estimate(cfg, 0).weights == w.nbytes
        trace = forward(cfg, w, list(range(min(7, cfg.d_vocab))), backend="cpu")
        values = sum(trace[k].size for k in trace.keys() if k != "logits")
        assert memory.trace_count(cfg, trace.T) == values       # the pass allocates less: test_memory_estimate.py


# -- invariants ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_rmsnorm_rope_gqa_swiglu_invariants(rng, backend):
    cfg = Config(d_model=12, n_heads=6, n_kv_heads=2, d_head=6, n_ctx=20, d_vocab=15, n_layers=2, d_mlp=10,
                 norm="rmsnorm", norm_eps=1e-5, positions="rope", rope_theta=100.0, mlp="swiglu",
                 attn_bias=True, mlp_bias=True, tied_embeddings=False)
    weights, tokens = _inputs(rng, cfg, T=17)
    trace = forward(cfg, weights, tokens, backend=backend)
    tol = 2e-5 if backend == "cpu" else 1e-10
    half = cfg.rotary_dim // 2
    for layer in range(cfg.n_layers):
        x, w = trace["resid_pre", layer], weights[f"blocks.{layer}.ln1.w"]
        scale = trace["ln1_scale", layer]
        np.testing.assert_allclose(scale ** 2, (x.astype(np.float64) ** 2).mean(1) + 1e-5, rtol=tol)
        np.testing.assert_allclose(trace["ln1_out", layer], x / scale[:, None] * w, rtol=tol, atol=tol)
        for name, rot in (("q", "rot_q"), ("k", "rot_k")):
            before, after = trace[name, layer], trace[rot, layer]
            pair = lambda a: a[..., :half] ** 2 + a[..., half:2 * half] ** 2   # noqa: E731 - |pair|²
            np.testing.assert_allclose(pair(after), pair(before), rtol=10 * tol, atol=10 * tol)  # rotations
            np.testing.assert_allclose(after[0], before[0], rtol=tol, atol=tol)                # angle 0 at t=0
        groups = cfg.n_groups
        for h in range(cfg.n_heads):                  # query head h reads K/V head h // groups
            raw = trace["rot_q", layer][:, h] @ trace["rot_k", layer][:, h // groups].T
            np.testing.assert_allclose(trace["attn_scores_raw", layer][h], raw, rtol=10 * tol, atol=10 * tol)
            z = trace["pattern", layer][h] @ trace["v", layer][:, h // groups]
            np.testing.assert_allclose(trace["z", layer][:, h], z, rtol=10 * tol, atol=10 * tol)
        pre, lin = trace["mlp_pre", layer].astype(np.float64), trace["mlp_pre_linear", layer]
        np.testing.assert_allclose(trace["mlp_post", layer], pre / (1 + np.exp(-pre)) * lin, rtol=10 * tol,
                                   atol=10 * tol)
    np.testing.assert_array_equal(trace["resid_pre", 0], trace["embed"])        # RoPE: no position added
    np.testing.assert_allclose(trace["logits"], trace["ln_final_out"] @ weights["unembed.W_U"],
                               rtol=10 * tol, atol=10 * tol)


@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_rope_scores_depend_only_on_the_distance(backend):
    """Identical tokens: layer 0's q and k are the same at every position before RoPE, so after
    it the raw score of (i, j) depends on i - j alone (Toeplitz), and not at all without RoPE."""
    cfg = Config(d_model=8, n_heads=2, d_head=8, n_ctx=16, d_vocab=5, n_layers=1, norm="rmsnorm",
                 positions="rope", rope_theta=50.0, mlp="swiglu")
    w = Weights.random(cfg, 3, bias_std=0.3)
    raw = forward(cfg, w, [2] * 12, backend=backend)["attn_scores_raw", 0]          # [H, T, T]
    tol = 1e-4 if backend == "cpu" else 1e-10
    for d in range(-11, 12):
        diag = np.diagonal(raw, offset=d, axis1=1, axis2=2)                          # [H, 12 - |d|]
        np.testing.assert_allclose(diag, np.broadcast_to(diag[:, :1], diag.shape), rtol=tol, atol=tol)
    assert np.ptp(raw[0, 6]) > 1e-2                                                  # but distance matters


@pytest.mark.parametrize("backend", ["reference", "cpu"])
@pytest.mark.parametrize("causal", [True, False])
def test_windows_forbid_exactly_the_keys_outside_them(rng, backend, causal):
    cfg = Config(d_model=8, n_heads=2, n_ctx=24, d_vocab=9, n_layers=3, causal=causal, windows=(None, 4, 1))
    weights, tokens = _inputs(rng, cfg, T=21)
    trace = forward(cfg, weights, tokens, backend=backend)
    T = 21
    i, j = np.arange(T)[:, None], np.arange(T)[None, :]
    for layer, W in enumerate(cfg.windows):
        allowed = (j <= i) if causal else np.ones((T, T), bool)
        if W is not None:
            allowed = allowed & (np.abs(i - j) < W)
        pattern, scores = trace["pattern", layer], trace["attn_scores", layer]
        assert (pattern[:, ~allowed] == 0).all() and np.isneginf(scores[:, ~allowed]).all()
        assert (pattern[:, allowed] > 0).all()
        np.testing.assert_allclose(pattern.sum(-1), 1.0, atol=1e-6)
    np.testing.assert_array_equal(trace["pattern", 2][0], np.eye(T))                 # W = 1: itself only
    wide = forward(cfg.replace(windows=(None, T, T)), weights, tokens, backend=backend)
    dense = forward(cfg.replace(windows=None), weights, tokens, backend=backend)
    np.testing.assert_array_equal(wide["pattern", 2], dense["pattern", 2])          # W >= T: dense


def test_window_with_an_extra_mask_and_fully_masked_rows(rng):
    cfg = Config(d_model=8, n_heads=2, n_ctx=12, d_vocab=9, n_layers=1, windows=3)
    weights, tokens = _inputs(rng, cfg, T=10)
    mask = rng.random((10, 10)) < 0.6
    mask[4, 2:5] = False                                    # query 4's whole window
    ref = forward(cfg, weights, tokens, backend="reference", attn_mask=mask)
    cpu = forward(cfg, weights, tokens, backend="cpu", attn_mask=mask)
    assert_trace_matches(cpu, ref, F32_TOL)
    assert (cpu["pattern", 0][:, 4] == 0).all() and (cpu["z", 0][4] == 0).all()


def test_explain_follows_gqa_rope_and_missing_biases(rng):
    from compute.instruments import explain

    cfg = Config(d_model=12, n_heads=4, n_kv_heads=2, d_head=6, n_ctx=10, d_vocab=9, n_layers=1,
                 norm="rmsnorm", positions="rope", mlp="swiglu", attn_bias=False)
    weights, tokens = _inputs(rng, cfg, T=8)
    trace = forward(cfg, weights, tokens, backend="cpu")
    for name in ("q", "k", "v"):
        t = explain.projection_trace(trace, weights, name, 0, 3, 5, 2)             # query head 3
        assert t.head == (3 if name == "q" else 1) and t.bias == 0.0               # K/V head 3 // 2
        assert t.total == pytest.approx(t.cell, abs=1e-5)
    s = explain.score_trace(trace, 0, 3, 6, 2)
    assert s.left_name == "rot_q[6, 3]" and s.right_name == "rot_k[2, 1]"
    assert s.total == pytest.approx(float(trace["attn_scores_raw", 0][3, 6, 2]), abs=1e-5)
    terms, z = explain.weighted_terms(trace, 0, 3, 6)
    np.testing.assert_allclose(terms.sum(0), z, rtol=1e-5, atol=1e-6)
