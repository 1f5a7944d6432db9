"""The model-family fields of Config (docs/ARCHITECTURE.md, "Model families"): GPT-2 defaults, validation naming the
field, fields that follow others under replace(), and which fields change weight shapes."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compute import PRESETS, Config, ConfigError

LLAMA = dict(d_model=16, n_heads=4, n_kv_heads=2, n_layers=2, norm="rmsnorm", positions="rope",
             mlp="swiglu", tied_embeddings=False, attn_bias=False, mlp_bias=False)


def test_defaults_are_gpt2_and_old_dicts_keep_their_meaning():
    toy = PRESETS["toy"]
    assert (toy.norm, toy.positions, toy.mlp, toy.n_kv_heads, toy.tied_embeddings, toy.attn_bias,
            toy.windows, toy.rotary_dim) == ("layernorm", "learned", "gelu", 2, True, True, None, None)
    old = {"d_model": 8, "n_heads": 2, "d_head": 4, "n_ctx": 16, "d_vocab": 16, "n_layers": 2, "d_mlp": 32,
           "causal": True, "scale_scores": True, "name": "toy"}
    assert toy.to_dict() == old                             # a GPT-2 dict has no new keys
    assert Config.from_dict(old) == toy
    assert toy.family == "gpt2" and Config(**LLAMA).family == "llama"


def test_a_family_config_round_trips_through_json():
    cfg = Config(**LLAMA, windows=(None, 3), rope_theta=1e5, norm_eps=1e-6)
    data = json.loads(json.dumps(cfg.to_dict()))
    assert data["windows"] == [None, 3] and data["n_kv_heads"] == 2
    assert Config.from_dict(data) == cfg
    assert "n_kv_heads=2" in cfg.describe() and "windows=(None, 3)" in cfg.describe()


@pytest.mark.parametrize("fields, field, match", [
    (dict(n_heads=4, n_kv_heads=3), "n_kv_heads", "must divide n_heads=4"),
    (dict(n_heads=4, n_kv_heads=8), "n_kv_heads", "must divide n_heads=4"),
    (dict(n_kv_heads=0), "n_kv_heads", "at least 1"),
    (dict(positions="rope", d_head=4, rotary_dim=3), "rotary_dim", "must be even"),
    (dict(positions="rope", d_head=4, rotary_dim=6), "rotary_dim", "at most d_head=4"),
    (dict(rotary_dim=4), "rotary_dim", "applies to RoPE only"),
    (dict(windows=0), "windows[0]", "at least 1"),
    (dict(n_layers=2, windows=(3,)), "windows", "has 1 entries but n_layers=2"),
    (dict(n_layers=2, windows=(3, "x")), "windows[1]", "None \\(dense\\) or a whole number"),
    (dict(windows="3"), "windows", "must be None, a whole number"),
    (dict(norm="batchnorm"), "norm", "'layernorm', 'rmsnorm'"),
    (dict(positions="alibi"), "positions", "'learned', 'rope'"),
    (dict(mlp="relu"), "mlp", "'gelu', 'gelu_erf', 'swiglu'"),
    (dict(norm_eps=0.0), "norm_eps", "above 0"),
    (dict(norm_eps=float("nan")), "norm_eps", "above 0"),
    (dict(rope_theta=-1), "rope_theta", "above 0"),
    (dict(tied_embeddings="no"), "tied_embeddings", "True or False"),
    (dict(attn_bias=1), "attn_bias", "True or False"),
    (dict(d_k=4), "d_k", "is not a Config field"),
])
def test_impossible_values_name_the_field(fields, field, match):
    with pytest.raises(ConfigError, match=match) as info:
        Config(**fields)
    assert info.value.field == field


def test_unknown_keywords_are_config_errors_everywhere():
    for make in (lambda: Config(colour="red"), lambda: PRESETS["toy"].replace(colour="red"),
                 lambda: Config.from_dict({"colour": "red"})):
        with pytest.raises(ConfigError, match="colour='red': is not a Config field") as info:
            make()
        assert info.value.field == "colour"


def test_replace_keeps_what_follows_other_fields():
    toy = PRESETS["toy"]
    assert toy.replace(n_heads=4).n_kv_heads == 4            # MHA stays MHA
    gqa = Config(**LLAMA)
    assert gqa.replace(n_heads=8).n_kv_heads == 2            # GQA keeps its K/V heads
    with pytest.raises(ConfigError, match="must divide n_heads=3") as info:
        gqa.replace(n_heads=3)
    assert info.value.field == "n_kv_heads"
    assert gqa.rotary_dim == 4 and gqa.replace(d_head=6).rotary_dim == 6   # a full rotation stays full
    partial = gqa.replace(d_head=8, rotary_dim=4)
    assert partial.replace(d_head=6).rotary_dim == 4                        # a partial one keeps its size
    assert gqa.replace(positions="learned").rotary_dim is None
    banded = Config(n_layers=4, windows=(None, 2, None, 2))
    assert banded.replace(n_layers=1).windows is None                       # a dense first layer
    assert banded.replace(n_layers=2).windows == (None, 2)
    assert banded.replace(n_layers=6).windows == (None, 2) * 3
    assert Config(n_layers=2, windows=5).replace(n_layers=3).windows == (5, 5, 5)


def test_same_shapes_covers_every_field_that_changes_a_weight():
    base = Config(**LLAMA)
    for change in (dict(n_kv_heads=1), dict(norm="layernorm"), dict(positions="learned"), dict(mlp="gelu"),
                   dict(tied_embeddings=True), dict(attn_bias=True), dict(mlp_bias=True), dict(d_mlp=12)):
        assert not base.same_shapes(base.replace(**change)), change
    for change in (dict(rope_theta=5.0), dict(norm_eps=1e-3), dict(windows=2), dict(causal=False),
                   dict(n_ctx=40), dict(rotary_dim=2)):
        assert base.same_shapes(base.replace(**change)), change
    toy = PRESETS["toy"]
    assert not toy.same_shapes(toy.replace(n_ctx=12))       # learned positions: W_pos [n_ctx, d_model]
    assert base.shape_differences(base.replace(n_kv_heads=1)) == ["n_kv_heads: weights 1 vs config 2"]


family_values = {
    "norm": st.sampled_from(["layernorm", "rmsnorm", "x", 3]),
    "positions": st.sampled_from(["learned", "rope", None]),
    "mlp": st.sampled_from(["gelu", "swiglu", ""]),
    "n_kv_heads": st.one_of(st.none(), st.integers(-1, 9), st.just(2.0)),
    "rotary_dim": st.one_of(st.none(), st.integers(-1, 10)),
    "rope_theta": st.one_of(st.floats(allow_nan=True), st.integers(-3, 10**6)),
    "norm_eps": st.one_of(st.floats(allow_nan=True), st.just(True)),
    "windows": st.one_of(st.none(), st.integers(-1, 5), st.lists(st.one_of(st.none(), st.integers(-1, 5)),
                                                                  max_size=4)),
    "tied_embeddings": st.one_of(st.booleans(), st.integers(0, 1)),
    "n_heads": st.integers(1, 8), "n_layers": st.integers(1, 3), "d_head": st.integers(1, 8),
}


@settings(max_examples=400, deadline=None)
@given(st.fixed_dictionaries({}, optional=family_values))
def test_any_family_input_validates_or_raises_config_error(fields):
    try:
        cfg = Config(**fields)
    except ConfigError as exc:
        assert exc.field.split("[")[0] in set(fields) | {"d_head"}
        return
    assert cfg.n_heads % cfg.n_kv_heads == 0
    if cfg.positions == "rope":
        assert cfg.rotary_dim % 2 == 0 and 1 <= cfg.rotary_dim <= cfg.d_head
    assert cfg.windows is None or (len(cfg.windows) == cfg.n_layers
                                   and all(w is None or w >= 1 for w in cfg.windows))
    assert Config.from_dict(json.loads(json.dumps(cfg.to_dict()))) == cfg


def test_window_accessor_and_groups():
    cfg = Config(n_heads=6, d_model=12, n_kv_heads=2, n_layers=3, windows=(None, 4, 1))
    assert [cfg.window(layer) for layer in range(3)] == [None, 4, 1]
    assert cfg.n_groups == 3 and cfg.d_kv == 2 * cfg.d_head
    assert np.issubdtype(type(cfg.n_kv_heads), np.integer)
