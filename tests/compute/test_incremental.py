"""Incremental passes (forward(..., reuse=trace)): random edit sequences on small configs of both
families give, after every edit, the Trace a fresh full pass gives — every name — while rows the
edit left alone are shared with the earlier Trace, never copied into it or written over."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compute import Config, Weights, forward
from compute.backends.rows import MAX_PARTS, RowParts

from .helpers import max_scaled_error

# The incremental pass sums some products in another order than a full pass (a matrix-vector
# product for a single row, a matrix product for a block of rows): float32 rounding, not bit for
# bit. Measured over these tests: at most ~5e-7 of a value's range; the bound leaves room.
TOL = 2e-6
N_CTX = 24


@st.composite
def configs(draw) -> Config:
    llama = draw(st.booleans())
    n_heads = draw(st.integers(1, 4))
    fields = dict(d_model=draw(st.integers(2, 12)), n_heads=n_heads, d_head=draw(st.integers(1, 6)),
                  d_mlp=draw(st.integers(1, 16)), d_vocab=draw(st.integers(2, 12)), n_ctx=N_CTX,
                  n_layers=draw(st.integers(1, 3)), scale_scores=draw(st.booleans()))
    if llama:                                                      # GQA, RoPE, SwiGLU, RMSNorm, windows
        fields["d_head"] = 2 * draw(st.integers(1, 3))             # RoPE rotates pairs
        fields.update(n_kv_heads=draw(st.sampled_from([d for d in range(1, n_heads + 1) if n_heads % d == 0])),
                      norm="rmsnorm", positions="rope", mlp="swiglu", attn_bias=draw(st.booleans()),
                      mlp_bias=False, tied_embeddings=draw(st.booleans()),
                      windows=tuple(draw(st.sampled_from([None, 1, 2, 5])) for _ in range(fields["n_layers"])))
    else:
        fields["windows"] = draw(st.sampled_from([None, 3]))        # GPT-3-style banded layers
    return Config(**fields)


EDITS = ("append", "replace_last", "delete_last", "move_in_tail", "first_to_end", "replace_any", "insert")


def apply_edit(tokens: list[int], edit: str, data, d_vocab: int) -> list[int]:
    toks = list(tokens)
    token = data.draw(st.integers(0, d_vocab - 1))
    if edit == "append" and len(toks) < N_CTX:
        toks.append(token)
    elif edit == "replace_last":
        toks[-1] = token
    elif edit == "delete_last" and len(toks) > 1:
        toks.pop()
    elif edit == "move_in_tail" and len(toks) > 2:
        src = data.draw(st.integers(len(toks) - 3, len(toks) - 1))
        dst = data.draw(st.integers(len(toks) - 3, len(toks) - 1))
        toks.insert(dst, toks.pop(src))
    elif edit == "first_to_end":
        toks.append(toks.pop(0))
    elif edit == "replace_any":
        toks[data.draw(st.integers(0, len(toks) - 1))] = token
    elif edit == "insert" and len(toks) < N_CTX:
        toks.insert(data.draw(st.integers(0, len(toks))), token)
    return toks


def common_prefix(a, b) -> int:
    n = min(len(a), len(b))
    differs = np.flatnonzero(np.asarray(a[:n]) != np.asarray(b[:n]))
    return int(differs[0]) if differs.size else n


def assert_equal_traces(inc, full) -> float:
    """Every name of `inc` (made now, whatever it is stored as) equals `full`'s; the worst error."""
    assert list(inc.keys()) == list(full.keys())
    worst = 0.0
    for key in full.keys():
        a, b = inc[key], full[key]
        assert a.shape == b.shape and a.dtype == b.dtype, key
        assert not a.flags.writeable, key
        err = max_scaled_error(a, b)                              # -inf exactly where full has it
        assert err <= TOL, f"{key}: {err:.3g}"
        worst = max(worst, err)
    return worst


def snapshot(trace) -> dict:
    return {key: np.array(trace[key]) for key in trace.keys() if key != "logits"}


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(cfg=configs(), data=st.data())
def test_random_edit_sequences_equal_a_fresh_full_pass(cfg, data):
    w = Weights.random(cfg, data.draw(st.integers(0, 3)))
    T0 = data.draw(st.integers(1, N_CTX))
    tokens = data.draw(st.lists(st.integers(0, cfg.d_vocab - 1), min_size=T0, max_size=T0))
    mask_seed = data.draw(st.integers(0, 9)) if data.draw(st.booleans()) else None   # an extra attn_mask

    def mask_for(toks, seed):
        if seed is None:
            return None
        m = np.random.default_rng(seed).random((N_CTX, N_CTX)) > 0.3
        return m[:len(toks), :len(toks)]

    prev = forward(cfg, w, tokens, backend="cpu", attn_mask=mask_for(tokens, mask_seed))
    for _ in range(data.draw(st.integers(1, 6))):
        edit = data.draw(st.sampled_from(EDITS))
        new = apply_edit(list(prev.tokens), edit, data, cfg.d_vocab)
        seed = mask_seed
        if mask_seed is not None and data.draw(st.integers(0, 4)) == 0:
            seed = mask_seed + 1                                   # another mask: its rows decide too
        mask = mask_for(new, seed)
        if data.draw(st.booleans()):                               # a view read some values of the earlier one
            layer = data.draw(st.integers(0, cfg.n_layers - 1))     # (the next pass builds on its score maps)
            for name in data.draw(st.sets(st.sampled_from(["pattern", "attn_scores", "attn_scores_scaled",
                                                             "attn_scores_raw", "mlp_out", "k"]))):
                prev[name, layer]
        before = snapshot(prev)
        inc = forward(cfg, w, new, backend="cpu", attn_mask=mask, reuse=prev)
        full = forward(cfg, w, new, backend="cpu", attn_mask=mask)
        rows = common_prefix(prev.tokens, new)
        if mask is not None:
            same = (prev.attn_mask[:rows, :rows] == mask[:rows, :rows]).all(axis=1)
            rows = int(np.argmin(same)) if not same.all() else rows
        assert inc.reused_rows == rows and full.reused_rows == 0
        assert_equal_traces(inc, full)
        np.testing.assert_allclose(inc.logits_rows([len(new) - 1]), full.logits_rows([len(new) - 1]), rtol=1e-5,
                                   atol=1e-5)
        after = snapshot(prev)
        for key, value in before.items():                          # the earlier Trace is unchanged
            assert np.array_equal(value, after[key], equal_nan=True), key
        prev = inc


def _cfg(llama: bool) -> Config:
    if llama:
        return Config(d_model=16, n_heads=4, n_kv_heads=2, d_head=8, n_ctx=64, d_vocab=30, n_layers=3,
                      norm="rmsnorm", positions="rope", mlp="swiglu", attn_bias=False, mlp_bias=False,
                      tied_embeddings=False, windows=(None, 4, 9))
    return Config(d_model=16, n_heads=2, d_head=8, n_ctx=64, d_vocab=30, n_layers=3)


@pytest.mark.parametrize("llama", [False, True])
def test_rows_are_shared_not_copied(rng, llama):
    cfg = _cfg(llama)
    w = Weights.random(cfg, 0)
    tokens = list(rng.integers(0, cfg.d_vocab, 40))
    base = forward(cfg, w, tokens, backend="cpu")
    # Append one: each value is the earlier rows (views) and one new row, put together when read.
    longer = forward(cfg, w, tokens + [3], backend="cpu", reuse=base)
    assert longer.reused_rows == 40 and longer.timing_ms["kv_rows_copied"] == 0   # keys from the cache
    value = longer.stored(("mlp_post", 1))
    assert isinstance(value.make, RowParts) and not longer.is_ready("mlp_post", 1)
    first, new = value.make.parts
    assert np.shares_memory(first, base["mlp_post", 1]) and new.shape[0] == 1
    pattern = longer.stored(("pattern", 2)).make.parts
    assert np.shares_memory(pattern[0], base["pattern", 2]) and pattern[1].shape == (cfg.n_heads, 1, 41)
    # Delete it again: nothing to compute, every value a view of the first Trace's arrays.
    shorter = forward(cfg, w, tokens, backend="cpu", reuse=longer)
    assert shorter.reused_rows == 40 and shorter.timing_ms["kv_rows_copied"] == 0
    for key in base.keys():
        if key not in ("logits", "tokens") and not (isinstance(key, tuple) and key[0].startswith("attn_scores")):
            assert isinstance(shorter.stored(key), np.ndarray), key
            assert np.shares_memory(shorter.stored(key), base.stored(key)), key
    # Reading a value of the longer one puts its parts side by side once, in a new array.
    assert not np.shares_memory(longer["mlp_post", 1], base["mlp_post", 1])
    assert longer.is_ready("mlp_post", 1) and value.make.parts == (longer["mlp_post", 1],)
    assert (longer["pattern", 2][:, :40, 40] == 0).all()          # the new key, after every old query


def test_many_appends_keep_few_parts(rng):
    cfg = _cfg(False)
    w = Weights.random(cfg, 0)
    trace = forward(cfg, w, [1, 2, 3], backend="cpu")
    for t in range(30):
        trace = forward(cfg, w, list(trace.tokens) + [t % cfg.d_vocab], backend="cpu", reuse=trace)
        assert len(trace.stored(("resid_post", 0)).make.parts) <= MAX_PARTS
        assert len(trace.stored(("pattern", 0)).make.parts) <= MAX_PARTS
    full = forward(cfg, w, trace.tokens, backend="cpu")
    assert_equal_traces(trace, full)


def test_what_cannot_be_reused_is_a_full_pass(rng):
    cfg = _cfg(False)
    w = Weights.random(cfg, 0)
    tokens = [1, 2, 3, 4, 5]
    base = forward(cfg, w, tokens, backend="cpu")
    assert forward(cfg, w, tokens + [6], backend="cpu", reuse=base).reused_rows == 5
    assert forward(cfg, Weights.random(cfg, 1), tokens + [6], backend="cpu", reuse=base).reused_rows == 0
    other = cfg.replace(scale_scores=False)
    assert forward(other, w, tokens + [6], backend="cpu", reuse=base).reused_rows == 0
    free = cfg.replace(causal=False)
    free_base = forward(free, w, tokens, backend="cpu")
    assert forward(free, w, tokens + [6], backend="cpu", reuse=free_base).reused_rows == 0
    assert forward(cfg, w, [9] + tokens, backend="cpu", reuse=base).reused_rows == 0
    ref = forward(cfg, w, tokens, backend="reference")
    assert forward(cfg, w, tokens + [6], backend="cpu", reuse=ref).reused_rows == 0      # another backend


def test_a_cancelled_pass_leaves_the_key_cache_true(rng):
    """A pass stopped half-way has written some layers' keys; the next pass from the same Trace
    must not take them for the Trace's."""
    from compute import Cancelled, progress

    cfg = _cfg(True)
    w = Weights.random(cfg, 0)
    tokens = list(rng.integers(0, cfg.d_vocab, 30))
    base = forward(cfg, w, tokens, backend="cpu")

    def stop(stage, fraction):
        if fraction > 0.5:
            raise Cancelled(stage)

    with progress.reporting(stop), pytest.raises(Cancelled):
        forward(cfg, w, tokens[:10] + [0] * 20, backend="cpu", reuse=base)
    again = forward(cfg, w, tokens + [7], backend="cpu", reuse=base)
    assert again.reused_rows == 30 and again.timing_ms["kv_rows_copied"] > 0
    assert_equal_traces(again, forward(cfg, w, tokens + [7], backend="cpu"))


@pytest.mark.parametrize("llama", [False, True])
def test_the_key_cache_follows_the_trace_given(rng, llama):
    """The backend keeps the last passes' keys; a pass from a Trace no cache holds any more (undo
    after other work, a result dropped as stale) takes that Trace's own, not a cache's."""
    cfg = _cfg(llama)
    w = Weights.random(cfg, 0)
    a, b, c = (list(rng.integers(0, cfg.d_vocab, 20)) for _ in range(3))
    first = forward(cfg, w, a, backend="cpu")
    forward(cfg, w, b, backend="cpu")                              # the caches now hold b's and c's keys
    forward(cfg, w, c, backend="cpu")
    again = forward(cfg, w, a + [1], backend="cpu", reuse=first)
    assert again.reused_rows == 20 and again.timing_ms["kv_rows_copied"] == 20 * cfg.n_layers
    assert_equal_traces(again, forward(cfg, w, a + [1], backend="cpu"))


def test_a_pass_of_other_inputs_leaves_the_cache_of_the_trace_on_screen(rng):
    """Two key caches: a script's or an instrument's pass between two edits costs no copy."""
    cfg = _cfg(True)
    w = Weights.random(cfg, 0)
    a = list(rng.integers(0, cfg.d_vocab, 20))
    shown = forward(cfg, w, a, backend="cpu")
    forward(cfg, w, a[::-1], backend="cpu")                        # other inputs, causal
    forward(cfg.replace(causal=False), w, a, backend="cpu")        # the mask view's unmasked run
    edit = forward(cfg, w, a + [2], backend="cpu", reuse=shown)
    assert edit.reused_rows == 20 and edit.timing_ms["kv_rows_copied"] == 0
    assert_equal_traces(edit, forward(cfg, w, a + [2], backend="cpu"))


def test_a_dropped_trace_frees_its_rows_at_once(rng):
    """No reference cycles: the arrays of a Trace nobody holds go back to the buffer pool without
    waiting for the garbage collector (the app freezes it after start-up; a cycle kept a pass's
    worth of arrays out of reuse)."""
    import gc
    import weakref

    cfg = _cfg(True)
    w = Weights.random(cfg, 0)
    tokens = list(rng.integers(0, cfg.d_vocab, 30))
    base = forward(cfg, w, tokens, backend="cpu")
    gc.disable()
    try:
        inc = forward(cfg, w, tokens + [1], backend="cpu", reuse=base)
        inc["attn_scores", 1], inc["mlp_out", 0]                   # some made, some not
        gone = [weakref.ref(inc), weakref.ref(inc.stored(("mlp_post", 2)).make),
                weakref.ref(inc.stored(("attn_scores", 0)).make), weakref.ref(inc.stored(("attn_scores", 1)).make)]
        new_row = weakref.ref(inc.stored(("mlp_post", 2)).make.parts[1])
        del inc
        assert all(ref() is None for ref in gone) and new_row() is None
    finally:
        gc.enable()
