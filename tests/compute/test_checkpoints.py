"""Checkpointed Traces (compute/backends/checkpoints.py): a cpu Trace over the threshold keeps each
layer's input and output and makes the rest again when read. It must equal a fully stored Trace on
every intermediate — after random edits (incremental passes), in both families, with windows and
GQA, whatever the LRU dropped — and keep interventions, early results and A/B working. The threshold
is forced low here (QKV_LAB_CHECKPOINT_GIB) instead of running at thousands of tokens."""
from __future__ import annotations

import os
import threading
import tracemalloc
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compute import PRESETS, Ablate, Config, ConfigError, Patch, Weights, forward, memory, progress
from compute.backends import get_backend
from compute.backends.checkpoints import KEPT
from compute.trace import Lazy

from . import test_incremental as _incremental
from .helpers import max_scaled_error
from .test_incremental import EDITS, N_CTX, apply_edit, configs

# A checkpointed pass is an incremental pass per chunk of rows and makes a layer again from its input
# in one go: float32 rounding in another order than a stored pass, as test_incremental's TOL says, and
# one step more of it (measured up to ~2.1e-6 of a value's range after a QK-norm).
TOL = 5e-6

MAPS = ("attn_scores_raw", "attn_scores_scaled", "attn_scores", "pattern")


@pytest.fixture(autouse=True, scope="module")
def checkpoint_every_pass():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("QKV_LAB_CHECKPOINT_GIB", "0")
        mp.setattr("compute.backends.cpu.CHUNK_ROWS", 7)           # a pass runs its layers 7 rows at a time
        yield


@pytest.fixture
def lru():
    """The cpu backend's LRU of made layers, its size put back after the test."""
    layers = get_backend("cpu").layers
    before = layers.max_bytes
    yield layers
    layers.max_bytes = before


def assert_equal_traces(ck, full, tol: float = TOL) -> None:
    with mock.patch.object(_incremental, "TOL", tol):
        _incremental.assert_equal_traces(ck, full)


# The random family configs (post norms, QK-norm over all heads, GeGLU, mixtures, windows) round one
# step more than the two families above: 5.97e-6 of a value's range measured once (seed 3073796215).
FAMILY_TOL = 2e-5


def stored_pass(cfg, w, tokens, **kw):
    """A fully stored Trace (the threshold out of reach) to compare with."""
    with mock.patch.dict(os.environ, {"QKV_LAB_CHECKPOINT_GIB": "1000"}):
        trace = forward(cfg, w, tokens, backend="cpu", **kw)
    assert not is_checkpointed(trace)
    return trace


def is_checkpointed(trace) -> bool:
    """Only the kept names are arrays; the rest are Lazy values the Trace does not keep."""
    ok = True
    for layer in range(trace.n_layers):
        for name in trace.layer_names:
            value = trace.stored((name, layer))
            lazy = isinstance(value, Lazy) and not value.cached
            ok &= (not lazy) if name in KEPT else lazy
    return ok


def assert_reads_equal(ck, full, rng) -> None:
    """The cuts views read (a head's map, a query's row, some keys) equal the stored Trace's."""
    T, H = ck.T, ck.cfg.n_heads
    for _ in range(4):
        layer, head, i = int(rng.integers(ck.n_layers)), int(rng.integers(H)), int(rng.integers(T))
        for name in MAPS:
            for cut in (dict(head=head), dict(head=head, rows=i), dict(rows=[i, 0][:T]), dict(head=head, rows=i,
                                                                                          cols=slice(0, i + 1))):
                a, b = ck.read(name, layer, **cut), full.read(name, layer, **cut)
                assert a.shape == b.shape and max_scaled_error(a, b) <= TOL, (name, layer, cut)
            assert max_scaled_error(ck.part(name, layer, head), full[name, layer][head]) <= TOL


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(cfg=configs(), data=st.data())
def test_a_checkpointed_trace_equals_a_stored_one_through_random_edits(cfg, data):
    layers = get_backend("cpu").layers
    layers.max_bytes = data.draw(st.sampled_from([None, 0]))      # 0: every other layer read drops the last
    try:
        w = Weights.random(cfg, data.draw(st.integers(0, 3)))
        T0 = data.draw(st.integers(1, N_CTX))
        tokens = data.draw(st.lists(st.integers(0, cfg.d_vocab - 1), min_size=T0, max_size=T0))
        mask = (np.random.default_rng(T0).random((N_CTX, N_CTX)) > 0.3) if data.draw(st.booleans()) else None

        def cut(toks):
            return None if mask is None else mask[:len(toks), :len(toks)]

        prev = forward(cfg, w, tokens, backend="cpu", attn_mask=cut(tokens))
        assert is_checkpointed(prev)
        assert_equal_traces(prev, stored_pass(cfg, w, tokens, attn_mask=cut(tokens)))
        for _ in range(data.draw(st.integers(1, 4))):
            new = apply_edit(list(prev.tokens), data.draw(st.sampled_from(EDITS)), data, cfg.d_vocab)
            if data.draw(st.booleans()):                           # a view read a layer of the earlier one
                prev["pattern", data.draw(st.integers(0, cfg.n_layers - 1))]
            inc = forward(cfg, w, new, backend="cpu", attn_mask=cut(new), reuse=prev)
            full = stored_pass(cfg, w, new, attn_mask=cut(new))
            assert is_checkpointed(inc)
            assert_equal_traces(inc, full)
            assert_reads_equal(inc, full, np.random.default_rng(len(new)))
            np.testing.assert_allclose(inc.logits_rows([len(new) - 1]), full.logits_rows([len(new) - 1]),
                                       rtol=1e-5, atol=1e-5)
            prev = inc
    finally:
        layers.max_bytes = None


def _cfg(llama: bool) -> Config:
    if llama:                                                      # GQA, RoPE, windows, QK-norm
        return Config(d_model=16, n_heads=4, n_kv_heads=2, d_head=8, n_ctx=64, d_vocab=30, n_layers=3,
                      norm="rmsnorm", positions="rope", mlp="swiglu", attn_bias=False, mlp_bias=False,
                      tied_embeddings=False, windows=(None, 4, 9), qk_norm=True)
    return Config(d_model=16, n_heads=2, d_head=8, n_ctx=64, d_vocab=30, n_layers=3)


@pytest.mark.parametrize("llama", [False, True])
def test_an_append_computes_its_row_only_and_the_lru_drops_and_remakes_layers(llama, lru, rng):
    cfg = _cfg(llama)
    w = Weights.random(cfg, 0)
    tokens = list(rng.integers(0, cfg.d_vocab, 40))
    base = forward(cfg, w, tokens, backend="cpu")
    longer = forward(cfg, w, tokens + [3], backend="cpu", reuse=base)
    assert longer.reused_rows == 40 and longer.timing_ms["kv_rows_copied"] == 0   # keys from the KeyCache
    assert np.shares_memory(longer.stored(("resid_post", 1)).make.parts[0], base["resid_post", 1])
    lru.max_bytes = 0                                              # one made layer at a time
    made = lru.made
    full = stored_pass(cfg, w, tokens + [3])
    for layer in (0, 1, 0):
        assert max_scaled_error(longer["mlp_post", layer], full["mlp_post", layer]) <= TOL
    assert lru.made == made + 3                                    # layer 0 dropped by layer 1, made again
    assert lru.held_bytes() <= max(a.nbytes for a in (longer["q", 0], longer["mlp_post", 0])) * 40
    assert lru.release() > 0 and lru.held_bytes() == 0
    assert_equal_traces(longer, full)


@pytest.mark.parametrize("llama", [False, True])
def test_interventions_on_a_checkpointed_trace_equal_those_on_a_stored_one(llama, rng):
    cfg = _cfg(llama)
    w = Weights.random(cfg, 1)
    tokens = list(rng.integers(0, cfg.d_vocab, 30))
    other = list(rng.integers(0, cfg.d_vocab, 30))
    ck, full = forward(cfg, w, tokens, backend="cpu"), stored_pass(cfg, w, tokens)
    source = forward(cfg, w, other, backend="cpu")
    for edits in ([Ablate(1, 1)], [Patch("resid_pre", 2, source, positions=[3, 4])], [Ablate(0, 0, how="mean")]):
        a = forward(cfg, w, tokens, backend="cpu", interventions=edits, reuse=ck)
        b = forward(cfg, w, tokens, backend="cpu", interventions=edits, reuse=full)
        assert a.reused_layers == b.reused_layers == edits[0].layer
        assert_equal_traces(a, b)


def test_early_results_of_a_checkpointed_pass_show_the_layer_without_making_it_again(lru, rng):
    cfg = _cfg(True)
    w = Weights.random(cfg, 2)
    tokens = list(rng.integers(0, cfg.d_vocab, 33))
    full = stored_pass(cfg, w, tokens)
    seen = []

    def on_partial(layer, arrays):
        from compute.trace import partial_trace

        early = partial_trace(cfg, arrays)
        made = lru.made
        seen.append((layer, max_scaled_error(early.read("pattern", layer, head=1), full.read("pattern", layer, head=1)),
                     max_scaled_error(early["resid_mid", layer], full["resid_mid", layer]), lru.made - made))

    with progress.reporting(None, on_partial):
        trace = forward(cfg, w, tokens, backend="cpu")
    assert [s[0] for s in seen] == [0, 1, 2]
    assert all(e1 <= TOL and e2 <= TOL and remade == 0 for _, e1, e2, remade in seen), seen
    assert_equal_traces(trace, full)


def test_a_b_and_reading_from_another_thread_while_a_pass_runs(rng):
    from compute.instruments import ab

    cfg = _cfg(True)
    w = Weights.random(cfg, 3)
    tokens = list(rng.integers(0, cfg.d_vocab, 40))
    a = forward(cfg, w, tokens, backend="cpu")
    b, trace_b = ab.run(cfg, w, tokens, ("knock_out", (1, 2)), backend="cpu", a=a)
    ref = stored_pass(cfg, w, tokens, interventions=[Ablate(1, 2)])
    assert is_checkpointed(a)
    for key in ref.keys():                  # B's layers after the knockout: compute.circuits' numpy order
        assert max_scaled_error(trace_b[key], ref[key]) <= 1e-5, key
    errors = []

    def reader():                                                  # a view reading while the runner computes
        try:
            for i in range(30):
                a["pattern", i % cfg.n_layers], a.read("attn_scores", i % cfg.n_layers, head=1, rows=i)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    thread = threading.Thread(target=reader)
    thread.start()
    for t in range(10):                                            # passes that read `a`'s layers (KeyCache)
        forward(cfg, w, tokens[:30 + t] + [t], backend="cpu", reuse=a)
    thread.join(timeout=60)
    assert not thread.is_alive() and not errors, errors


def test_memory_at_4096_tokens_stays_below_its_bound_under_a_small_budget(monkeypatch):
    cfg = Config(d_model=32, n_heads=2, n_kv_heads=1, d_head=16, d_mlp=64, n_ctx=4096, d_vocab=50, n_layers=3,
                 norm="rmsnorm", positions="rope", mlp="swiglu", attn_bias=False, mlp_bias=False)
    T = 4096
    monkeypatch.setenv("QKV_LAB_MEMORY_BUDGET_GIB", "0.75")
    monkeypatch.delenv("QKV_LAB_CHECKPOINT_GIB")                   # the real threshold: a quarter of the budget
    stored = memory.estimate(cfg, T, checkpoints=False)
    with pytest.raises(ConfigError):                               # stored whole it does not fit
        memory.check(cfg, T, include_weights=False)
    bound = memory.check(cfg, T, include_weights=False, checkpoints=True)
    assert memory.checkpointed(cfg, T) and bound.compute <= memory.budget_bytes() < stored.compute
    w = Weights.random(cfg, 0)
    tokens = np.arange(T) % cfg.d_vocab
    tracemalloc.start()
    try:
        trace = forward(cfg, w, tokens, backend="cpu")             # the budget check passes (cpu checkpoints)
        trace.read("pattern", 2, head=1), trace.read("attn_scores", 2, head=0, rows=T - 1)
        trace["mlp_post", 1]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert is_checkpointed(trace)
    assert peak <= bound.compute, (peak, bound.compute)


def test_smollm2_at_8192_tokens_fits_a_16_gib_machine_checkpointed_and_nothing_impossible_does(monkeypatch):
    monkeypatch.delenv("QKV_LAB_CHECKPOINT_GIB")
    monkeypatch.setenv("QKV_LAB_MEMORY_BUDGET_GIB", str(16 * 0.8))
    cfg = PRESETS["smollm2-135m"]
    est = memory.check(cfg, 8192, include_weights=True, checkpoints=True)
    assert est.total < 6 * memory.GIB
    with pytest.raises(ConfigError):                               # stored whole: refused, as before
        memory.check(cfg, 8192, include_weights=True)
    with pytest.raises(ConfigError) as err:                        # too large even checkpointed: a hint
        memory.check(cfg.replace(n_layers=2000), 8192, include_weights=True, checkpoints=True)
    assert "n_layers=" in str(err.value)


@pytest.mark.parametrize("llama", [False, True])
def test_a_layers_maps_need_only_its_q_and_k_not_its_attention_and_mlp(llama, lru, rng):
    """Switching to another layer on the Scores station makes its norm 1 and q/k/v alone (no T×T step
    for every head, no MLP); a whole head's map makes that head's four maps at once."""
    cfg = _cfg(llama)
    w = Weights.random(cfg, 4)
    tokens = list(rng.integers(0, cfg.d_vocab, 50))
    ck, full = forward(cfg, w, tokens, backend="cpu"), stored_pass(cfg, w, tokens)
    made = lru.made
    for name in MAPS:
        assert max_scaled_error(ck.read(name, 1, head=1), full.read(name, 1, head=1)) <= TOL, name
    assert max_scaled_error(ck["q", 1], full["q", 1]) <= TOL
    assert lru.made == made                                        # no whole layer was made
    assert max_scaled_error(ck["mlp_post", 1], full["mlp_post", 1]) <= TOL
    assert lru.made == made + 1
    assert max_scaled_error(ck.read("pattern", 1, head=0, rows=7), full.read("pattern", 1, head=0, rows=7)) <= TOL


@pytest.mark.parametrize("trial", range(6))
def test_every_model_family_checkpointed_equals_stored(rng, trial):
    """The random family configs (Gemma's post norms and per-layer RoPE base, OLMo 2 without pre norms,
    parallel blocks, the exact GELU, GeGLU, mixtures of experts, ...): a checkpointed pass and an append
    on it equal fully stored ones, every name."""
    from tests.compute.test_family_backends import family_config

    cfg = family_config(rng, causal=True, n_ctx=24)
    w = Weights.random(cfg, int(rng.integers(1 << 30)), bias_std=0.3)
    tokens = list(rng.integers(0, cfg.d_vocab, int(rng.integers(8, 20))))
    ck = forward(cfg, w, tokens, backend="cpu")
    assert is_checkpointed(ck)
    assert_equal_traces(ck, stored_pass(cfg, w, tokens), FAMILY_TOL)
    longer = forward(cfg, w, tokens + [1, 0], backend="cpu", reuse=ck)
    assert_equal_traces(longer, stored_pass(cfg, w, tokens + [1, 0]), FAMILY_TOL)


def _layer(trace, layer: int):
    """The checkpointed Layer behind a Trace's layer (its maps' Lazy reads through it)."""
    return trace.stored(("pattern", layer)).read.func.__self__


@pytest.mark.parametrize("llama", [False, True])
def test_one_heads_maps_make_that_heads_q_and_k_alone(llama, lru, rng):
    """A layer switch on the Scores station makes the viewed head's q and k (two heads' columns of the
    product: with GQA its K/V head's), not the layer's q/k/v, and that head's four maps; a query's row
    the same. The next head made lets the earlier head's maps go (their buffers are the next ones)."""
    cfg = _cfg(llama)
    w = Weights.random(cfg, 5)
    tokens = list(rng.integers(0, cfg.d_vocab, 45))
    ck, full = forward(cfg, w, tokens, backend="cpu"), stored_pass(cfg, w, tokens)
    made = lru.made
    for layer, head in ((2, 3 if llama else 1), (1, 0), (2, 1)):
        for name in MAPS:
            assert max_scaled_error(ck.read(name, layer, head=head), full.read(name, layer, head=head)) <= TOL
        row = ck.read("pattern", layer, head=head, rows=44)
        assert max_scaled_error(row, full.read("pattern", layer, head=head, rows=44)) <= TOL
        stored = _layer(ck, layer)
        assert stored._qk is None and stored._values is None and head in stored._heads   # no q/k/v of the layer
    assert lru.made == made
    assert list(_layer(ck, 2)._whole) == [1] and not _layer(ck, 1)._whole               # one head's maps kept
    other = _layer(ck, 0)                                                              # a row alone: no whole map
    assert max_scaled_error(ck.read("attn_scores", 0, head=1, rows=[3, 9]), full.read("attn_scores", 0, head=1,
                                                                                       rows=[3, 9])) <= TOL
    assert not other._whole and 1 in other._heads
    assert max_scaled_error(ck["q", 2], full["q", 2]) <= TOL                          # then the layer's q/k/v
    assert not _layer(ck, 2)._heads
    for name in MAPS:                                                                 # from them, the same maps
        assert max_scaled_error(ck.read(name, 2, head=0), full.read(name, 2, head=0)) <= TOL


@pytest.mark.parametrize("llama", [False, True])
def test_after_an_append_the_viewed_heads_maps_make_the_new_rows_only(llama, lru, rng, monkeypatch):
    """The window follows an append: the viewed head's maps of the new Trace are the earlier ones' rows and
    keys < p, the new keys of the earlier queries (one product) and the new rows: its rows made are the
    new ones only. Through appends not viewed, a replace-last and a delete, they equal a stored pass."""
    from compute.backends import checkpoints

    cfg = _cfg(llama)
    w = Weights.random(cfg, 6)
    tokens = list(rng.integers(0, cfg.d_vocab, 40))
    prev = forward(cfg, w, tokens, backend="cpu")
    layer, head = 2, 3 if llama else 1
    prev.read("pattern", layer, head=head)                                           # the head on screen
    made_rows = []
    real = checkpoints.Layer._map_rows

    def spy(self, outs, qh, kh, positions):
        made_rows.extend(int(i) for i in positions)
        return real(self, outs, qh, kh, positions)

    monkeypatch.setattr(checkpoints.Layer, "_map_rows", spy)
    valid = len(tokens)                                                              # rows whose maps exist
    for edit, view in (("append", True), ("append", False), ("append", True), ("replace", True), ("delete", True)):
        toks = list(prev.tokens)
        new = toks + [int(rng.integers(cfg.d_vocab))] if edit == "append" else (
            toks[:-1] + [int(rng.integers(cfg.d_vocab))] if edit == "replace" else toks[:-1])
        inc = forward(cfg, w, new, backend="cpu", reuse=prev)
        valid = min(valid, inc.reused_rows)                                          # an edit keeps rows < p
        if view:
            made_rows.clear()
            full = stored_pass(cfg, w, new)
            for name in MAPS:
                assert max_scaled_error(inc.read(name, layer, head=head), full.read(name, layer, head=head)) <= TOL, \
                    (edit, name)
            assert made_rows == list(range(valid, len(new))), (edit, made_rows)      # an unviewed append's too
            valid = len(new)
        prev = inc


@pytest.mark.parametrize("llama", [False, True])
def test_a_stored_traces_one_head_is_made_alone_and_equals_the_whole(llama, rng):
    """A stored (not checkpointed) cpu Trace makes a view's head of its score maps from that head's q and
    k (not every head's map of the layer), equal to the whole map made afterwards; after an append too."""
    cfg = _cfg(llama)
    w = Weights.random(cfg, 7)
    tokens = list(rng.integers(0, cfg.d_vocab, 30))
    base = stored_pass(cfg, w, tokens)
    with mock.patch.dict(os.environ, {"QKV_LAB_CHECKPOINT_GIB": "1000"}):
        longer = forward(cfg, w, tokens + [2], backend="cpu", reuse=base)
    for trace in (base, longer):
        cuts = [(name, layer, cut) for name in MAPS[:3] for layer in (1, 2)
                for cut in (dict(head=1), dict(head=1, rows=7), dict(head=0, rows=[3, 4, 9]),
                            dict(head=1, rows=5, cols=slice(0, 6)))]
        alone = [trace.read(name, layer, **cut) for name, layer, cut in cuts]
        assert not any(trace.stored((name, layer)).make.done for name, layer, _ in cuts)   # no whole map made
        for (name, layer, cut), a in zip(cuts, alone, strict=True):
            whole = trace[name, layer][cut["head"]]                               # [T, T]
            b = whole[cut.get("rows", slice(None))]
            b = b[..., cut["cols"]] if "cols" in cut else b
            assert a.shape == b.shape and max_scaled_error(a, b) <= TOL, (name, layer, cut)
