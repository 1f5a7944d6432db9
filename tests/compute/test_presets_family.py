"""The LLaMA-family presets, their notes, and memory estimates for the new shapes (refused before
anything is allocated, with the estimate)."""
from __future__ import annotations

import re

import pytest

from compute import PRESET_NOTES, PRESETS, CheckpointError, ConfigError, Weights, load_checkpoint, memory
from compute.config import ONE_BLOCK_PRESETS


def test_family_presets_have_their_published_dimensions():
    expect = {  # d_model, heads, kv heads, d_head, d_mlp, layers, vocab, n_ctx, theta, tied
        "smollm2-135m": (576, 9, 3, 64, 1536, 30, 49152, 8192, 1e5, True),
        "llama-3-8b": (4096, 32, 8, 128, 14336, 32, 128256, 8192, 5e5, False),
        "mistral-7b": (4096, 32, 8, 128, 14336, 32, 32000, 32768, 1e4, False),
    }
    for name, dims in expect.items():
        c = PRESETS[name]
        got = (c.d_model, c.n_heads, c.n_kv_heads, c.d_head, c.d_mlp, c.n_layers, c.d_vocab, c.n_ctx,
               c.rope_theta, c.tied_embeddings)
        assert got == dims, name
        assert (c.norm, c.positions, c.mlp, c.attn_bias, c.norm_eps) == ("rmsnorm", "rope", "swiglu", False, 1e-5)
        assert name in PRESET_NOTES
    assert PRESETS["mistral-7b"].windows == (4096,) * 32
    assert memory.weight_count(PRESETS["smollm2-135m"]) == 134_515_008       # the GGUF's own count
    assert round(memory.weight_count(PRESETS["llama-3-8b"]) / 1e9, 2) == 8.03
    assert round(memory.weight_count(PRESETS["mistral-7b"]) / 1e9, 2) == 7.24


def test_gpt3_banded_alternates_dense_and_a_stated_band():
    banded = PRESETS["gpt3-175b-banded"]
    assert banded.windows == (None, 256) * 48
    assert banded.same_shapes(PRESETS["gpt3-175b"])                        # same weights, other attention
    note = PRESET_NOTES["gpt3-175b-banded"]
    assert "256" in note and "GPT-Neo" in note and "alternating dense and locally banded" in note
    two = banded.replace(n_layers=2)
    assert two.windows == (None, 256)
    for name in ONE_BLOCK_PRESETS:
        assert PRESETS[name].replace(n_layers=1).n_layers == 1


def test_one_block_at_a_time_fits_and_the_whole_model_is_refused_with_its_estimate(monkeypatch):
    monkeypatch.setenv("QKV_LAB_MEMORY_BUDGET_GIB", "8")
    cfg = PRESETS["llama-3-8b"]
    with pytest.raises(ConfigError) as info:
        Weights.random(cfg, 0)
    msg = str(info.value)
    assert info.value.field == "n_layers" and "29.9" in msg and "8.00 GiB" in msg
    fits = int(re.search(r"n_layers=(\d+) fits", msg).group(1))
    assert memory.estimate(cfg, 0, n_layers=fits).weights <= 8 * 2**30
    est = memory.check(cfg.replace(n_layers=1), 512, include_weights=True)
    assert est.weights == memory.weight_count(cfg.replace(n_layers=1)) * 4
    per_layer = memory.block_bytes(cfg, 512)
    assert per_layer == (memory.weight_count(cfg, 1) - memory.weight_count(cfg, 0)) * 4 + (
        memory.trace_count(cfg, 512, 1) - memory.trace_count(cfg, 512, 0)) * 4


def test_loaders_refuse_before_reading_with_the_estimate(monkeypatch, tmp_path):
    from .hf_models import make_hf_model, save_hf_folder

    folder = save_hf_folder(make_hf_model("llama"), tmp_path / "llama")
    monkeypatch.setenv("QKV_LAB_MEMORY_BUDGET_GIB", "0.000001")
    with pytest.raises(CheckpointError, match=r"too large for this machine: .*needs an estimated .*GiB"):
        load_checkpoint(folder)
    from .gguf_files import byte_level_bpe, write_gguf

    path = write_gguf(tmp_path / "m.gguf", make_hf_model("llama", vocab_size=300), byte_level_bpe(300))
    with pytest.raises(CheckpointError, match=r"too large for this machine: .*GiB"):
        load_checkpoint(path)
