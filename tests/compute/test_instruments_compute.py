"""Numbers behind the teaching instruments: dot-product traces, the sqrt(d_k) lab, the KV cache."""
from __future__ import annotations

import math

import numpy as np
import pytest

from compute import PRESETS, Config, ConfigError, Weights, forward
from compute.instruments import explain, kvcache, sqrt_dk


@pytest.fixture(scope="module")
def toy():
    cfg = PRESETS["toy"]
    w = Weights.random(cfg, 4, bias_std=0.3)
    return cfg, w, forward(cfg, w, [0, 1, 2, 3, 0, 4], backend="cpu")


@pytest.mark.parametrize("name", ["q", "k", "v"])
def test_projection_trace_pairs_sum_to_the_cell(toy, name):
    cfg, w, trace = toy
    t = explain.projection_trace(trace, w, name, 1, 1, 4, 2)
    assert len(t.products) == cfg.d_model == 8
    np.testing.assert_allclose(t.products, t.left * t.right)
    assert t.running[-1] + t.bias == pytest.approx(t.total)
    assert t.total == pytest.approx(t.cell, abs=1e-5)               # the cell the view shows
    np.testing.assert_array_equal(t.left, trace["ln1_out", 1][4].astype(np.float64))


def test_score_trace_reaches_the_probability(toy):
    cfg, w, trace = toy
    t = explain.score_trace(trace, 0, 1, 4, 2)
    assert len(t.products) == cfg.d_head == 4
    assert t.total == pytest.approx(t.cell, abs=1e-5)
    assert t.scale == pytest.approx(0.5)
    assert t.scaled == pytest.approx(trace["attn_scores_scaled", 0][1, 4, 2], abs=1e-5)
    assert t.masked is False and t.probability == pytest.approx(float(trace["pattern", 0][1, 4, 2]))
    future = explain.score_trace(trace, 0, 1, 2, 4)
    assert future.masked is True and future.probability == 0.0


@pytest.mark.parametrize("d_k, expected", [(64, 8.0), (256, 16.0), (4096, 64.0)])
def test_sqrt_dk_lab_measures_the_spread(d_k, expected):
    spread = sqrt_dk.dot_product_spread(d_k, n=20_000, seed=1)
    assert abs(spread.std_raw - expected) / expected < 0.05          # ~sqrt(d_k)
    assert abs(spread.std_scaled - 1.0) < 0.05                       # scaling brings it to ~1
    assert spread.sqrt_d_k == math.sqrt(d_k)


def test_unscaled_rows_get_sharp_and_their_gradients_vanish():
    rows = [sqrt_dk.softmax_row(4096, T=16, seed=s) for s in range(32)]     # the d_model = 4096 case
    assert np.mean([r.max_raw for r in rows]) > 0.9                   # nearly one-hot
    assert np.mean([r.entropy_raw for r in rows]) < 0.3
    assert np.mean([r.max_scaled for r in rows]) < 0.5                # spread over several keys
    assert np.mean([r.entropy_scaled for r in rows]) > 1.5
    assert rows[0].row_raw.sum() == pytest.approx(1) and rows[0].row_scaled.sum() == pytest.approx(1)
    g = sqrt_dk.softmax_gradients(4096, T=16, rows=256, seed=3)
    assert g.grad_scores_raw < 0.01 * g.grad_scores_scaled          # the softmax has gone flat
    assert g.stalled_raw > 0.5 and g.stalled_scaled < 0.02          # most unscaled rows pass back ~0
    small = sqrt_dk.softmax_gradients(4, T=16, rows=256, seed=3)
    assert small.grad_scores_raw > 0.5 * small.grad_scores_scaled   # at d_k = 4 scaling matters little
    assert small.stalled_raw < 0.05


def test_kv_cache_rows_equal_the_full_forward():
    cfg = Config(d_model=8, n_heads=2, d_head=4, n_ctx=12, d_vocab=16, n_layers=2)
    w = Weights.random(cfg, 5, bias_std=0.2)
    gen = kvcache.prefill(cfg, w, [1, 2, 3])
    assert gen.cached_rows == 3
    for token in (4, 5, None, None):
        step = kvcache.decode_step(gen, w, token)
        full = forward(cfg, w, gen.tokens, backend="reference")
        t = len(gen.tokens)
        for layer in range(cfg.n_layers):
            np.testing.assert_allclose(gen.caches[layer].k, full["k", layer], atol=1e-10)
            np.testing.assert_allclose(gen.caches[layer].v, full["v", layer], atol=1e-10)
            np.testing.assert_allclose(step.q[layer], full["q", layer][t - 1], atol=1e-10)
            np.testing.assert_allclose(step.pattern[layer], full["pattern", layer][:, t - 1, :t], atol=1e-10)
        np.testing.assert_allclose(step.logits, full["logits"][t - 1], atol=1e-10)
        assert step.next_token == int(np.argmax(full["logits"][t - 1]))
        assert step.macs_cached < step.macs_recompute
    assert gen.tokens[5] == gen.steps[1].next_token                   # greedy feeds its own prediction
    assert gen.macs_saved == sum(s.macs_recompute - s.macs_cached for s in gen.steps) > 0


def test_mac_counts_match_the_formulas():
    cfg = PRESETS["andrea-120m"]
    one_row = kvcache.block_macs(cfg, 1, 1024)
    expected = 3 * 768 * 768 + 12 * 1024 * 64 * 2 + 768 * 768 + 2 * 768 * 3072
    assert one_row == expected
    full = kvcache.block_macs(cfg, 1024, 1024)
    assert full == 1024 * (3 * 768 * 768 + 768 * 768 + 2 * 768 * 3072) + 2 * 12 * 64 * (1024 * 1025 // 2)


def test_kv_cache_refuses_what_cannot_work():
    cfg = PRESETS["toy"]
    w = Weights.random(cfg, 0)
    with pytest.raises(ConfigError, match="causal"):
        kvcache.prefill(cfg.replace(causal=False), w, [1, 2])
    with pytest.raises(ConfigError, match="at least one token"):
        kvcache.prefill(cfg, w, [])
    gen = kvcache.prefill(cfg, w, list(range(16)))
    with pytest.raises(ConfigError, match="n_ctx=16 is reached"):
        kvcache.decode_step(gen, w, 1)


@pytest.mark.parametrize("backend", ["reference", "cpu", "cuda"])
def test_every_station_has_its_code_and_key_line(backend):
    from compute import source_map

    assert set(source_map.mapped_stations(backend)) >= {"embeddings", "layernorm", "projections", "scores",
                                                         "softmax", "weighted_sum", "heads", "mlp"}
    for station in source_map.mapped_stations(backend):
        view = source_map.station_source(backend, station)
        assert view.lines and 0 <= view.key_line < len(view.lines)
        with open(view.path, encoding="utf-8") as fh:
            file_lines = fh.read().splitlines()
        assert file_lines[view.key_file_line - 1] == view.key_text          # read from the real file
    scores = source_map.station_source(backend, "scores")
    assert "scale" in scores.key_text
    with pytest.raises(KeyError):
        source_map.station_source(backend, "nowhere")


@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_the_code_view_shows_the_family_code_that_ran(backend):
    from compute import PRESETS, source_map

    family = source_map.family_of(PRESETS["smollm2-135m"])
    assert family == ("rmsnorm", "swiglu") and source_map.family_of(PRESETS["toy"]) == ()
    norm = source_map.station_source(backend, "layernorm", family)
    mlp = source_map.station_source(backend, "mlp", family)
    assert "rms" in norm.function.lower() and "mean" not in norm.key_text
    assert "silu" in mlp.function.lower() or "silu" in mlp.key_text.lower() or "exp32(-g)" in mlp.key_text
    assert source_map.station_source(backend, "layernorm").function != norm.function      # GPT-2's LayerNorm


@pytest.mark.parametrize("backend", ["reference", "cpu", "cuda"])
def test_the_code_view_shows_the_activation_that_ran(backend):
    """Pythia's exact GELU is computed by erf and Gemma's GeGLU by GELU(gate) · up: the MLP station's
    code is theirs, not GPT-2's tanh GELU (each key line read from the real file)."""
    from compute import PRESETS, source_map

    pythia = PRESETS["toy"].replace(mlp="gelu_erf")
    gemma = PRESETS["gemma3-270m"]
    assert source_map.family_of(pythia) == ("gelu_erf",) and source_map.family_of(gemma) == ("rmsnorm", "geglu")
    gpt2 = source_map.station_source(backend, "mlp", source_map.family_of(PRESETS["toy"]))
    erf = source_map.station_source(backend, "mlp", source_map.family_of(pythia))
    geglu = source_map.station_source(backend, "mlp", source_map.family_of(gemma))
    assert "tanh" in gpt2.key_text and "erf" not in gpt2.key_text
    assert "erf" in erf.key_text and "tanh" not in erf.key_text and "erf" in erf.function
    assert "gelu" in geglu.key_text.lower() or "tanh" in geglu.key_text or "tanh_a" in geglu.key_text
    assert any(up in geglu.key_text for up in ("mlp_pre_linear", "up[t, c]", "* u"))       # times the up branch
    for view in (erf, geglu):
        with open(view.path, encoding="utf-8") as fh:
            assert fh.read().splitlines()[view.key_file_line - 1] == view.key_text



def test_top_predictions_are_a_stable_sort_of_the_probabilities_without_sorting_them_all(rng):
    """The k best by a partition, then a stable sort of those: the same ids and order as a stable
    argsort of every probability, ties (lower id first) included."""
    from compute import Config, Weights, forward, top_predictions
    from compute.instruments.generate import next_token_probs

    cfg = Config(d_model=8, n_heads=2, n_ctx=16, d_vocab=50, n_layers=1, d_mlp=16)
    w = Weights.random(cfg, int(rng.integers(1 << 30)))
    best = int(np.argmax(forward(cfg, w, [10, 3, 7], "reference").logits_rows([2])[0]))
    tied = {n: np.array(w[n]) for n in w.names()}
    tied["embed.W_E"][40:50] = tied["embed.W_E"][best]                  # not in the prompt: ten more tie the best
    trace = forward(cfg, Weights.from_dict(cfg, tied), [10, 3, 7], "reference")
    probs = next_token_probs(trace, 2)
    assert np.count_nonzero(probs == probs.max()) >= 10
    for k in (1, 3, 5, 12, 50):
        want = np.argsort(-probs, kind="stable")[:k]
        got = [p.token for p in top_predictions(trace, 2, k=k)]
        assert got == [int(t) for t in want], k
