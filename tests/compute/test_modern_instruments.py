"""The numbers of the modern-attention instruments (RoPE lab, shared K/V heads, windows and sinks,
the tiled softmax, A/B), each against an independent computation."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from compute import PRESETS, Ablate, Config, ConfigError, Weights, forward
from compute.instruments import ab, kvcache, receptive, rope_lab, shared_kv
from compute.instruments import tiled_softmax as tiled

ROPE = Config(d_model=16, n_heads=4, n_kv_heads=2, d_head=8, n_ctx=32, d_vocab=16, n_layers=2, norm="rmsnorm",
              positions="rope", rope_theta=100.0, mlp="swiglu", attn_bias=False, mlp_bias=False)
TOKENS = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8]


@pytest.fixture(scope="module")
def rope_model():
    w = Weights.random(ROPE, 2)
    return ROPE, w, forward(ROPE, w, TOKENS, backend="cpu"), forward(ROPE, w, TOKENS, backend="reference")


# -- the RoPE lab ---------------------------------------------------------------------------------------
def test_the_rotation_keeps_every_pairs_length(rng):
    x = rng.standard_normal((5, 3, 16))                                        # [T, heads, d_head]
    pos = rng.integers(0, 5000, size=(5, 3))
    turned = rope_lab.rotate(x, pos, 16, 10_000.0)
    np.testing.assert_allclose(np.linalg.norm(rope_lab.pairs(turned, 16), axis=-1),
                               np.linalg.norm(rope_lab.pairs(x, 16), axis=-1), rtol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(turned, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-12)
    assert not np.allclose(turned, x)


@pytest.mark.parametrize("rotary_dim", [8, 4])
def test_the_labs_rotation_is_the_models(rotary_dim):
    cfg = ROPE.replace(rotary_dim=rotary_dim)
    w = Weights.random(cfg, 5)
    trace = forward(cfg, w, TOKENS, backend="cpu")                           # float32, numba
    T = len(TOKENS)
    for name, rot in (("q", "rot_q"), ("k", "rot_k")):
        mine = rope_lab.rotate(np.asarray(trace[name, 1], np.float64), np.arange(T)[:, None] * np.ones((1, 1)),
                               rotary_dim, cfg.rope_theta)
        np.testing.assert_allclose(mine, trace[rot, 1], atol=2e-5, rtol=1e-5)
    np.testing.assert_array_equal(mine[..., rotary_dim:], np.asarray(trace["k", 1], np.float64)[..., rotary_dim:])


def test_pairs_sum_to_the_models_score(rope_model):
    cfg, w, trace, ref = rope_model
    for head, (i, j) in itertools.product(range(cfg.n_heads), [(7, 2), (11, 11), (5, 0)]):
        v = rope_lab.pair_view(trace, 1, head, i, j)
        assert v.kv_head == head // 2
        assert v.score == pytest.approx(float(ref["attn_scores_raw", 1][head, i, j]), abs=1e-4)
        assert v.contributions.sum() + v.rest == pytest.approx(v.score)
        np.testing.assert_allclose(v.relative, (i - j) * cfg.rope_theta ** (-np.arange(4) * 2 / 8))
        np.testing.assert_allclose(np.linalg.norm(v.q_rot, axis=1), v.norms[0])   # lengths kept
        # a pair's share depends on the angle between the rotated pairs only
        phi = np.arctan2(v.q[:, 1], v.q[:, 0]) - np.arctan2(v.k[:, 1], v.k[:, 0])
        np.testing.assert_allclose(v.contributions, v.norms[0] * v.norms[1] * np.cos(phi + v.relative), atol=1e-12)


def test_shifting_both_positions_keeps_the_score_and_moving_the_key_changes_it(rope_model, rng):
    cfg, w, trace, _ = rope_model
    v = rope_lab.pair_view(trace, 0, 1, 9, 4)
    offsets = np.arange(0, 4000, 37)
    shifted = rope_lab.shifted_scores(v, offsets)
    assert np.abs(shifted - v.score).max() < 1e-9 * max(1.0, abs(v.score))
    moved = rope_lab.distance_scores(v, np.arange(0, 40))                      # the key at i − 0 … i − 39
    assert moved[5] == pytest.approx(v.score)                                  # distance 5 is where it is
    assert np.ptp(moved) > 0.05 * np.linalg.norm(v.q_vec) * np.linalg.norm(v.k_vec)
    # to float32, as the model computes: the same q and k vectors in float32 anywhere in the context
    q, k = rng.standard_normal(64).astype(np.float32), rng.standard_normal(64).astype(np.float32)
    i, j, shift = 700, 650, rng.integers(1, 7000, size=50)
    base = rope_lab.rope_score(q, k, i, j, 64, 1e5)
    moved = rope_lab.rope_score(q, k, i + shift, j + shift, 64, 1e5)
    assert moved.dtype == np.float32
    bound = 64 * np.finfo(np.float32).eps * float(np.linalg.norm(q) * np.linalg.norm(k))
    assert np.abs(moved.astype(np.float64) - float(base)).max() < bound


def test_a_learned_position_model_has_nothing_to_rotate():
    cfg = PRESETS["toy"]
    trace = forward(cfg, Weights.random(cfg, 0), [0, 1, 2], backend="cpu")
    with pytest.raises(KeyError, match="learned positions"):
        rope_lab.pair_view(trace, 0, 0, 2, 1)
    sim = rope_lab.position_similarity(trace["pos_embed"])
    np.testing.assert_allclose(np.diag(sim), 1.0)
    p = np.asarray(trace["pos_embed"], np.float64)
    assert sim[0, 2] == pytest.approx(p[0] @ p[2] / np.linalg.norm(p[0]) / np.linalg.norm(p[2]))


# -- shared K/V heads --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["smollm2-135m", "llama-3-8b", "mistral-7b", "gpt2-small"])
def test_cache_bytes_are_the_formula(name):
    cfg = PRESETS[name]
    for n in shared_kv.kv_choices(cfg):
        m = shared_kv.cache_meter(cfg, 100, n)
        rows = lambda t: sum(t if cfg.window(layer) is None else min(t, cfg.window(layer))  # noqa: E731
                             for layer in range(cfg.n_layers))
        assert m.bytes_now == 2 * rows(100) * n * cfg.d_head * 2             # K and V, fp16
        assert m.bytes_full == 2 * rows(cfg.n_ctx) * n * cfg.d_head * 2
        assert m.mha_full == 2 * cfg.n_layers * cfg.n_ctx * cfg.n_heads * cfg.d_head * 2
        if cfg.windows is None:
            assert m.ratio == pytest.approx(cfg.n_heads / n)
    assert shared_kv.kv_choices(PRESETS["smollm2-135m"]) == (1, 3, 9)
    assert shared_kv.cache_meter(PRESETS["smollm2-135m"], 1).bytes_now == kvcache.cache_size(
        PRESETS["smollm2-135m"]).bytes_per_token


def test_a_groups_heads_read_one_set_of_keys(rope_model):
    cfg, w, trace, ref = rope_model
    assert shared_kv.kv_of(cfg).tolist() == [0, 0, 1, 1] and shared_kv.group_of(cfg, 3) == (2, 3)
    g = shared_kv.group(trace, 1, 3)
    assert g.heads == (2, 3) and g.kv_head == 1
    np.testing.assert_array_equal(g.k, trace["rot_k", 1][:, 1])
    T = len(TOKENS)
    for n, h in enumerate(g.heads):                                            # q_h · k_gᵀ, masked
        raw = np.asarray(ref["rot_q", 1][:, h]) @ np.asarray(ref["rot_k", 1][:, 1]).T / np.sqrt(8)
        np.testing.assert_allclose(np.where(np.tril(np.ones((T, T), bool)), raw, -np.inf), g.scores[n], atol=1e-4)


def test_pooling_to_multi_head_is_exact_and_to_one_head_is_the_mean(rope_model):
    cfg, w, _, ref = rope_model
    mha, copied = shared_kv.pool_kv(cfg, w, 4)
    again = forward(mha, copied, TOKENS, backend="reference")
    np.testing.assert_allclose(again["pattern", 1], ref["pattern", 1], atol=1e-12)
    mqa, pooled = shared_kv.pool_kv(cfg, w, 1)
    assert mqa.n_kv_heads == 1 and pooled["blocks.0.attn.W_K"].shape == (1, 16, 8)
    np.testing.assert_allclose(pooled["blocks.0.attn.W_V"][0], w["blocks.0.attn.W_V"].mean(axis=0), atol=1e-7)
    np.testing.assert_array_equal(pooled["blocks.0.attn.W_Q"], w["blocks.0.attn.W_Q"])


# -- windows, reach and sinks ----------------------------------------------------------------------------
def _reach_brute(windows, T, query):
    """Breadth-first search back from position `query` after the first l layers, through layers
    l − 1, …, 0, over the allowed (query, key) edges of each."""
    out = np.zeros((len(windows) + 1, T), bool)
    for depth in range(len(windows) + 1):
        where = {query}
        for W in reversed(windows[:depth]):
            ok = receptive.allowed(T, W)
            where = {j for i in where for j in range(T) if ok[i, j]}
        out[depth, sorted(where)] = True
    return out


def test_the_reach_through_windowed_layers_is_the_brute_force_one(rng):
    for _ in range(60):
        L, T = int(rng.integers(1, 7)), int(rng.integers(1, 40))
        windows = tuple(None if rng.random() < 0.25 else int(rng.integers(1, 9)) for _ in range(L))
        query = int(rng.integers(0, T))
        np.testing.assert_array_equal(receptive.reach(windows, T, query), _reach_brute(windows, T, query),
                                      err_msg=f"{windows} T={T} i={query}")
    r = receptive.reach((4,) * 5, 64, 63)
    assert [int(row.sum()) for row in r] == [1, 4, 7, 10, 13, 16]               # W − 1 more per layer
    assert receptive.reach_span((4096,) * 32) == 32 * 4095 and receptive.reach_span((None, 256)) is None
    assert receptive.layouts(PRESETS["gpt3-175b-banded"], 256)["model"][:4] == (None, 256, None, 256)


def test_a_windowed_pattern_is_what_the_model_computes_with_that_window(rope_model):
    cfg, w, _, ref = rope_model
    for W in (1, 3, 5):
        banded = cfg.replace(windows=(None, W))
        want = forward(banded, w, TOKENS, backend="reference")["pattern", 1]
        for h in range(cfg.n_heads):
            got = receptive.band_pattern(ref["attn_scores_scaled", 1][h], W)
            np.testing.assert_allclose(got, want[h], atol=1e-12)
    np.testing.assert_allclose(receptive.band_pattern(ref["attn_scores_scaled", 1][0], None), ref["pattern", 1][0],
                               atol=1e-12)


def test_sink_shares_are_the_mean_weight_on_the_first_key(rope_model):
    cfg, w, trace, _ = rope_model
    s = receptive.sink_shares(trace)
    assert s.shape == (2, 4)
    for layer, h in itertools.product(range(2), range(4)):
        P = trace["pattern", layer][h]
        assert s[layer, h] == pytest.approx(np.mean([P[i, 0] for i in range(1, len(TOKENS))]), rel=1e-6)
    assert receptive.uniform_share(4) == pytest.approx((1 / 2 + 1 / 3 + 1 / 4) / 3)


# -- the tiled softmax -------------------------------------------------------------------------------------
@pytest.mark.parametrize("tile", [1, 2, 3, 4, 5, 12, 64])
@pytest.mark.parametrize("windows", [None, (3, None)])
def test_the_tiled_softmax_ends_at_the_pattern(tile, windows):
    cfg = ROPE.replace(windows=windows)
    w = Weights.random(cfg, 3)
    trace = forward(cfg, w, TOKENS, backend="cpu")
    ref = forward(cfg, w, TOKENS, backend="reference")
    for layer, head, query in ((0, 0, 11), (1, 3, 5), (0, 2, 0)):
        run = tiled.tiled_run(trace, layer, head, query, tile)
        a, b = run.rows
        assert a <= query < b and b - a <= tile
        n = len(run.steps)
        np.testing.assert_allclose(run.pattern_after(n), trace["pattern", layer][head, a:b], atol=1e-6)
        np.testing.assert_allclose(run.pattern_after(n), ref["pattern", layer][head, a:b], atol=1e-6)
        np.testing.assert_allclose(run.materialised, ref["pattern", layer][head, a:b], atol=1e-6)
        np.testing.assert_allclose(run.output_after(n), ref["z", layer][a:b, head], atol=1e-5)
        for before, after in itertools.pairwise(run.steps):
            assert (after.m >= before.m).all()                                 # the running max only rises
        # ℓ is the sum of exp(S − m) over every key seen so far
        last = run.steps[-1]
        seen = np.where(np.isfinite(run.scores[:, :last.keys[1]]), np.exp(run.scores[:, :last.keys[1]]
                                                                            - last.m[:, None]), 0.0)
        np.testing.assert_allclose(last.ell, seen.sum(axis=1), rtol=1e-12)


def test_the_tiled_softmax_skips_forbidden_tiles_and_moves_fewer_bytes():
    cfg = ROPE
    trace = forward(cfg, Weights.random(cfg, 3), TOKENS, backend="cpu")
    run = tiled.tiled_run(trace, 0, 0, 2, 4)                                   # rows 0..3: keys 4.. forbidden
    assert run.rows == (0, 4) and len(run.steps) == 1 and run.skipped == 2
    run = tiled.tiled_run(trace, 0, 0, 11, 4)                                  # rows 8..11 see every tile
    assert len(run.steps) == 3 and run.skipped == 0
    dh, T, Br = 8, 12, 4
    assert run.bytes_tiled == 4 * (Br * dh + 2 * T * dh + Br * dh + 2 * Br)
    assert run.bytes_materialised == 4 * (Br * dh + 2 * T * dh + 4 * Br * T + Br * dh)
    assert run.bytes_tiled < run.bytes_materialised
    assert np.isnan(run.pattern_after(1)[:, 4:]).all() and not np.isnan(run.pattern_after(1)[:, :4]).any()


# -- A/B --------------------------------------------------------------------------------------------------
def _loaded_wrong(cfg, w, key):
    """The model with one classic mistake, written out from its Mistake (fields set, d_head permuted)."""
    from compute.models.components import mistakes

    m = {m.key: m for m in mistakes(cfg)}[key]
    wrong = cfg.replace(**dict(m.fields))
    return wrong, Weights.from_dict(wrong, m.weights({n: w[n] for n in w.names()})), TOKENS


@pytest.mark.parametrize("change", ab.CHANGES)
def test_b_is_a_fresh_forward_of_the_edited_inputs(change, rope_model):
    cfg, w, trace, _ = rope_model
    condition = ab.default_condition(change, cfg, head=1, query=7)
    b, tb = ab.run(cfg, w, TOKENS, condition, backend="reference", a=trace, seed=4)
    independent = {                                                            # each edit made by hand
        "mask_off": lambda: (cfg.replace(causal=False), w, TOKENS),
        "scaling_off": lambda: (cfg.replace(scale_scores=False), w, TOKENS),
        "d_head_x4": lambda: (cfg.replace(d_head=32), Weights.random(cfg.replace(d_head=32), 4), TOKENS),
        "rope_theta": lambda: (cfg.replace(rope_theta=10_000.0), w, TOKENS),
        "n_kv_heads": lambda: (cfg.replace(n_kv_heads=1), b.weights, TOKENS),
        "move_token": lambda: (cfg, w, [TOKENS[7]] + TOKENS[:7] + TOKENS[8:]),
        "weights": lambda: (cfg, Weights.random(cfg, 1), TOKENS),
        "head": lambda: (cfg, w, TOKENS),
        "knock_out": lambda: (cfg, w, TOKENS),
        "mistake": lambda: _loaded_wrong(cfg, w, condition[1]),
    }[change]
    c2, w2, t2 = independent()
    fresh = forward(c2, w2, t2, backend="reference",
                    interventions=[Ablate(0, 1)] if change == "knock_out" else None)
    if change == "head":
        assert tb is trace and b.head == 2
        return
    assert b.cfg == c2 and list(b.tokens) == list(t2)
    for layer in range(cfg.n_layers):
        np.testing.assert_allclose(tb["pattern", layer], fresh["pattern", layer], atol=1e-12)


def test_an_impossible_condition_says_why(rope_model):
    cfg, w, *_ = rope_model
    toy = PRESETS["toy"]
    with pytest.raises(ConfigError, match="learned positions"):
        ab.edit(toy, Weights.random(toy, 0), [0, 1], ("rope_theta", 10.0))
    with pytest.raises(ConfigError, match="n_kv_heads"):
        ab.edit(cfg, w, TOKENS, ("n_kv_heads", 3))
    d, undefined = ab.difference(np.array([[0.0, -np.inf]]), np.array([[1.0, 2.0]]))
    assert d[0, 0] == 1.0 and undefined.tolist() == [[False, True]]
