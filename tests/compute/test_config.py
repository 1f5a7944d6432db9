"""Config validation: every input validates or raises ConfigError naming field, value and limit."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compute import LIMITS, PRESETS, Config, ConfigError, memory

SIZE_FIELDS = ("d_model", "n_heads", "d_head", "n_ctx", "d_vocab", "n_layers", "d_mlp")

anything = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70), st.floats(allow_nan=True), st.none(),
    st.booleans(), st.text(max_size=5), st.just(np.int64(7)), st.just(np.float32(2.0)),
    st.lists(st.integers(), max_size=2), st.integers(min_value=0, max_value=40),
)


@settings(max_examples=400, deadline=None)
@given(st.fixed_dictionaries({}, optional={f: anything for f in SIZE_FIELDS + ("causal", "scale_scores")}))
def test_any_input_validates_or_raises_config_error(fields):
    try:
        cfg = Config(**fields)
    except ConfigError as exc:
        assert exc.field in fields or exc.field == "d_head"
        assert exc.field in str(exc)
        return
    for f in SIZE_FIELDS:
        value = getattr(cfg, f)
        assert type(value) is int and 1 <= value <= LIMITS[f]
    assert type(cfg.causal) is bool and type(cfg.scale_scores) is bool


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(SIZE_FIELDS), anything)
def test_replace_revalidates(field, value):
    try:
        cfg = PRESETS["toy"].replace(**{field: value})
    except ConfigError as exc:
        assert exc.field == field
    else:
        if value is None:                     # d_head / d_mlp: None asks for the default again
            assert field in ("d_head", "d_mlp")
        else:
            assert getattr(cfg, field) == value


def test_presets_have_the_documented_dimensions():
    expect = {
        "toy": (8, 2, 4, 16, 2, 16),
        "andrea-120m": (768, 12, 64, 1024, 12, 50257),
        "gpt2-small": (768, 12, 64, 1024, 12, 50257),
        "gpt3-175b": (12288, 96, 128, 2048, 96, 50257),
    }
    for name, dims in expect.items():
        cfg = PRESETS[name]
        assert (cfg.d_model, cfg.n_heads, cfg.d_head, cfg.n_ctx, cfg.n_layers, cfg.d_vocab) == dims
        assert cfg.d_mlp == 4 * cfg.d_model and cfg.causal and cfg.scale_scores
    assert PRESETS["andrea-120m"].d_head == 768 // 12 == 64      # d_k = d_model / n_heads


def test_messages_name_field_value_and_limit():
    with pytest.raises(ConfigError) as info:
        Config(d_model=0)
    assert (info.value.field, info.value.value, info.value.limit) == ("d_model", 0, 1)
    assert str(info.value) == "d_model=0: must be at least 1"
    with pytest.raises(ConfigError, match=r"n_heads=-3: must be at least 1"):
        Config(n_heads=-3)
    with pytest.raises(ConfigError, match=r"d_head=2.5: must be a whole number \(got float\)"):
        Config(d_head=2.5)
    with pytest.raises(ConfigError, match=r"n_layers=True: must be a whole number \(got bool\)"):
        Config(n_layers=True)
    with pytest.raises(ConfigError, match=r"d_vocab=99999999: is above the limit of 4,194,304"):
        Config(d_vocab=99_999_999)
    with pytest.raises(ConfigError, match=r"causal='yes': must be True or False"):
        Config(causal="yes")
    with pytest.raises(ConfigError, match=r"d_head=None: defaults to d_model // n_heads = 2 // 4 = 0"):
        Config(d_model=2, n_heads=4)
    with pytest.raises(ConfigError, match="is not a Config field"):
        PRESETS["toy"].replace(d_k=4)


def test_defaults_and_frozen():
    cfg = Config(d_model=12, n_heads=4)
    assert cfg.d_head == 3 and cfg.d_mlp == 48 and cfg.d_concat == 12
    assert Config(d_model=12, n_heads=4, d_head=5).d_concat == 20   # d_head independent
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.d_model = 3
    again = Config.from_dict(cfg.to_dict())
    assert again == cfg
    with pytest.raises(ConfigError):
        Config.from_dict({"d_model": 8, "colour": "red"})
    with pytest.raises(ConfigError):
        Config.from_dict([1, 2])
    assert PRESETS["toy"].replace(d_head=6).d_head == 6


def test_tokens_are_validated():
    cfg = PRESETS["toy"]
    ids = cfg.validate_tokens([0, 15, np.int32(3)])
    assert ids.dtype == np.int64 and list(ids) == [0, 15, 3] and not ids.flags.writeable
    for bad, match in (([16], r"tokens\[0\]=16: is outside the vocabulary 0..15 \(d_vocab=16\)"),
                       ([0, True], r"tokens\[1\]=True"), ([None], r"tokens\[0\]=None"),
                       (list(range(16)) + [0], "n_ctx=16 is too small for T=17"), (5, "sequence")):
        with pytest.raises(ConfigError, match=match):
            cfg.validate_tokens(bad)


def test_memory_estimate_counts_what_a_trace_holds():
    from compute import Weights, forward

    cfg = Config(d_model=8, n_heads=3, d_head=5, n_ctx=20, d_vocab=30, n_layers=2, d_mlp=11)
    for backend, dtype in (("cpu", np.float32), ("reference", np.float64)):
        trace = forward(cfg, Weights.random(cfg, 0), list(range(17)), backend=backend)
        est = memory.estimate(cfg, 17, dtype, lazy_scores=backend == "cpu")
        values = sum(trace[k].size for k in trace.keys() if k != "logits")   # token ids count as one
        assert memory.trace_count(cfg, 17) == values
        # what a pass allocates: less what it shares and the lazy score maps (test_memory_estimate.py)
        assert est.trace == memory.allocated_count(cfg, 17, lazy_scores=backend == "cpu") * np.dtype(dtype).itemsize
        assert est.trace < values * np.dtype(dtype).itemsize
        assert est.logits == trace["logits"].nbytes
    assert memory.estimate(cfg, 0).weights == sum(a.nbytes for a in Weights.random(cfg, 0).values())


def test_memory_check_with_a_given_budget():
    cfg = PRESETS["andrea-120m"]
    est = memory.check(cfg, 1024, include_weights=False, budget=64 << 30)
    assert est.trace > 0
    with pytest.raises(ConfigError, match=r"T=1024.*over the memory budget of 1.00 GiB \(given\)"):
        memory.check(cfg, 1024, include_weights=False, budget=1 << 30)
