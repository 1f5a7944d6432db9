"""Weights: deterministic init, validated dicts and files, one WeightsError for every bad file."""
from __future__ import annotations

import json
import pickle
import struct

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from safetensors.numpy import save as st_save

from compute import PRESETS, Config, ConfigError, Weights, WeightsError, weight_shapes

TOY = PRESETS["toy"]


def test_random_is_deterministic_and_seeded():
    a, b, c = Weights.random(TOY, 7), Weights.random(TOY, 7), Weights.random(TOY, 8)
    assert a.names() == list(weight_shapes(TOY))
    for name in a:
        np.testing.assert_array_equal(a[name], b[name])
        assert a[name].dtype == np.float32 and not a[name].flags.writeable
    assert not np.array_equal(a["blocks.0.attn.W_Q"], c["blocks.0.attn.W_Q"])
    with pytest.raises(ConfigError, match="seed"):
        Weights.random(TOY, -1)


def test_changing_d_head_redraws_only_the_attention_weights():
    a, b = Weights.random(TOY, 3), Weights.random(TOY.replace(d_head=6), 3)
    np.testing.assert_array_equal(a["embed.W_E"], b["embed.W_E"])
    np.testing.assert_array_equal(a["blocks.1.mlp.W_in"], b["blocks.1.mlp.W_in"])
    assert b["blocks.0.attn.W_Q"].shape == (2, 8, 6)


def test_init_scale_gives_unit_variance_projections():
    cfg = Config(d_model=512, n_heads=8, d_head=64, n_ctx=8, d_vocab=8, n_layers=1)
    w = Weights.random(cfg, 0)
    x = np.random.default_rng(0).standard_normal((4096, 512))          # like ln1_out: unit variance
    q = np.einsum("td,hde->the", x, w["blocks.0.attn.W_Q"])
    assert abs(q.std() - 1.0) < 0.05
    assert abs(w["embed.W_E"].std() - 0.02) < 0.001
    assert np.all(w["blocks.0.ln1.w"] == 1) and np.all(w["blocks.0.attn.b_Q"] == 0)


def test_save_load_round_trip(tmp_path):
    cfg = Config(d_model=6, n_heads=2, d_head=5, n_ctx=9, d_vocab=11, n_layers=2, d_mlp=7,
                 causal=False)
    w = Weights.random(cfg, 1, bias_std=0.2)
    path = w.save(tmp_path / "w.safetensors")
    back = Weights.load(path)
    assert back.cfg == cfg and back.names() == w.names()
    for name in w:
        np.testing.assert_array_equal(back[name], w[name])
    assert Weights.load(path, cfg=cfg.replace(causal=True)).cfg.causal is True
    assert not list(tmp_path.glob(".*.tmp"))                            # no temp files left


def test_load_infers_config_from_shapes_without_metadata(tmp_path):
    w = Weights.random(TOY, 2)
    path = tmp_path / "plain.safetensors"
    path.write_bytes(st_save({n: np.asarray(a) for n, a in w.items()}))
    back = Weights.load(path)
    assert back.cfg.same_shapes(TOY)


def _write(path, tensors, metadata=None):
    path.write_bytes(st_save(tensors, metadata=metadata))
    return path


def _toy_dict(seed=0):
    return {n: np.array(a) for n, a in Weights.random(TOY, seed).items()}


@pytest.mark.parametrize("mutate, match", [
    (lambda d: d.pop("blocks.1.attn.W_K"), "missing blocks.1.attn.W_K"),
    (lambda d: d.update({"blocks.2.attn.W_Q": np.zeros((2, 8, 4), np.float32)}), "unexpected blocks.2.attn.W_Q"),
    (lambda d: d.update({"blocks.0.attn.W_Q": np.zeros((2, 8, 3), np.float32)}),
     r"blocks.0.attn.W_Q has shape \(2, 8, 3\), expected \(2, 8, 4\)"),
    (lambda d: d.update({"ln_final.w": np.array([np.nan] * 8, np.float32)}), "ln_final.w has 8 non-finite"),
    (lambda d: d.update({"ln_final.b": np.array([np.inf] + [0] * 7, np.float32)}), "non-finite"),
    (lambda d: d.update({"ln_final.b": np.zeros(8, np.int32)}), "only F16, F32 and F64"),
    (lambda d: d.update({"ln_final.b": np.zeros(0, np.float32)}), r"ln_final.b"),
])
def test_bad_tensors_give_one_clear_error(tmp_path, mutate, match):
    d = _toy_dict()
    mutate(d)
    with pytest.raises(WeightsError, match=match):
        Weights.load(_write(tmp_path / "bad.safetensors", d), cfg=TOY)
    with pytest.raises(WeightsError, match=match.replace("only F16, F32 and F64", "expected floating")):
        Weights.from_dict(TOY, d)


def test_several_problems_are_listed_together(tmp_path):
    d = _toy_dict()
    d.pop("embed.W_E")
    d["blocks.0.ln1.w"] = np.zeros(3, np.float32)
    with pytest.raises(WeightsError) as info:
        Weights.load(_write(tmp_path / "bad.safetensors", d), cfg=TOY)
    assert len(info.value.problems) == 2 and "2 problems" in str(info.value)


def test_duplicate_names_are_refused(tmp_path):
    d = _toy_dict()
    blob = st_save(d)
    (n,) = struct.unpack("<Q", blob[:8])
    header = blob[8:8 + n].decode()
    entry = json.dumps({"dtype": "F32", "shape": [8], "data_offsets": [0, 32]})
    dup = header[:-1] + f', "ln_final.w": {entry}' + "}"                  # same name twice
    dup_bytes = dup.encode().ljust(len(dup) + (-len(dup)) % 8)
    path = tmp_path / "dup.safetensors"
    path.write_bytes(struct.pack("<Q", len(dup_bytes)) + dup_bytes + blob[8 + n:])
    with pytest.raises(WeightsError, match="'ln_final.w' appears more than once"):
        Weights.load(path, cfg=TOY)


def test_files_that_are_not_safetensors(tmp_path):
    pkl = tmp_path / "model.pt"
    pkl.write_bytes(pickle.dumps({"embed.W_E": [1, 2, 3]}))
    with pytest.raises(WeightsError):
        Weights.load(pkl)
    with pytest.raises(WeightsError, match="file not found"):
        Weights.load(tmp_path / "nope.safetensors")
    with pytest.raises(WeightsError, match="folder"):
        Weights.load(tmp_path)
    empty = tmp_path / "empty.safetensors"
    empty.write_bytes(b"")
    with pytest.raises(WeightsError, match="too short"):
        Weights.load(empty)
    with pytest.raises(WeightsError, match="stored config"):
        Weights.load(_write(tmp_path / "m.safetensors", _toy_dict(), {"qkv_lab.config": "{nope"}))
    with pytest.raises(WeightsError, match="stored config is invalid"):
        Weights.load(_write(tmp_path / "m2.safetensors", _toy_dict(), {"qkv_lab.config": '{"d_model": 0}'}))


def test_truncated_file_is_refused(tmp_path):
    path = Weights.random(TOY, 0).save(tmp_path / "w.safetensors")
    data = path.read_bytes()
    path.write_bytes(data[:-10])
    with pytest.raises(WeightsError, match="truncated"):
        Weights.load(path)


@pytest.fixture(scope="module")
def good_blob():
    return st_save(_toy_dict(), metadata={"qkv_lab.config": json.dumps(TOY.to_dict())})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_corruptions_give_weights_error_and_nothing_else(tmp_path_factory, good_blob, data):
    blob = bytearray(good_blob)
    kind = data.draw(st.sampled_from(["flip", "truncate", "splice", "header"]))
    if kind == "flip":
        for _ in range(data.draw(st.integers(1, 8))):
            i = data.draw(st.integers(0, len(blob) - 1))
            blob[i] = data.draw(st.integers(0, 255))
    elif kind == "truncate":
        blob = blob[:data.draw(st.integers(0, len(blob) - 1))]
    elif kind == "splice":
        i = data.draw(st.integers(0, len(blob)))
        blob[i:i] = data.draw(st.binary(min_size=1, max_size=64))
    else:                                     # corrupt only the JSON header, where it matters most
        (n,) = struct.unpack("<Q", bytes(blob[:8]))
        i = data.draw(st.integers(8, 8 + n - 1))
        blob[i] = data.draw(st.sampled_from(b'{}[]",:0123456789-eE. aFX'))
    path = tmp_path_factory.mktemp("c") / "w.safetensors"
    path.write_bytes(bytes(blob))
    try:
        w = Weights.load(path)
    except WeightsError:
        return
    # a corruption that only changed numbers still yields finite float32 weights of the right shapes
    for name, shape in weight_shapes(w.cfg).items():
        assert w[name].shape == shape and np.isfinite(w[name]).all()


def test_from_dict_and_replace_validate():
    w = Weights.random(TOY, 0)
    w2 = w.replace({"blocks.0.attn.W_Q": np.ones((2, 8, 4))})
    assert w2["blocks.0.attn.W_Q"].dtype == np.float32 and w2.uid != w.uid
    with pytest.raises(WeightsError, match="unexpected nope"):
        w.replace({"nope": np.ones(3)})
    with pytest.raises(WeightsError, match="non-finite"):
        w.replace({"blocks.0.attn.W_Q": np.full((2, 8, 4), np.nan)})
    with pytest.raises(KeyError, match="no weight named"):
        w["blocks.0.W_Q"]
    with pytest.raises(TypeError):
        Weights(TOY, {})
    with pytest.raises(ValueError):
        w["embed.W_E"][0, 0] = 1.0                                       # read-only
