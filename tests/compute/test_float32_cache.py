"""The float32 cache of large GGUF files (compute/loaders/float32_cache.py): the second opening reads
what the first dequantized, a changed file is never served stale, a damaged entry is made again, an
unwritable cache folder costs only the speed (and says so), and the mapped weights are the same
numbers as the dequantized ones."""
from __future__ import annotations

import numpy as np
import pytest

from compute import Weights, WeightsError, forward, load_checkpoint
from compute.loaders import float32_cache, gguf_file
from compute.loaders.gguf_file import load_gguf

from .gguf_files import byte_level_bpe, write_gguf
from .hf_models import make_hf_model

pytest.importorskip("gguf")
pytest.importorskip("transformers")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """Every GGUF file counts as large; the cache in a folder of this test's own."""
    monkeypatch.setattr(float32_cache, "CACHE_MIN_BYTES", 0)
    monkeypatch.setenv("QKV_LAB_CACHE_DIR", str(tmp_path / "lab-cache"))
    monkeypatch.delenv(float32_cache.ENV, raising=False)
    return tmp_path / "lab-cache" / "models" / "float32"


@pytest.fixture(scope="module")
def tok():
    return byte_level_bpe(300)


def _no_dequantizing(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("dequantized although the cache has the weights")

    monkeypatch.setattr(gguf_file, "_dequantize", refuse)


def _equal(a: Weights, b: Weights) -> None:
    assert a.names() == b.names()
    for name in a.names():
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def test_the_second_opening_reads_what_the_first_dequantized(cache, tmp_path, tok, monkeypatch):
    model = make_hf_model("llama", seed=3, vocab_size=300, hidden_size=32, intermediate_size=64)   # rows of 32s
    path = write_gguf(tmp_path / "m.gguf", model, tok, types={"blk.0.attn_v.weight": "Q8_0"})
    first = load_checkpoint(path)
    entries = list(cache.glob("*.safetensors"))
    assert len(entries) == 1 and entries[0].name.startswith("m-") and first.info.notes == ()
    _no_dequantizing(monkeypatch)
    second = load_checkpoint(path)
    _equal(first.weights, second.weights)
    assert second.info.label == first.info.label == "weights dequantized from Q8_0"      # what the file stores
    assert not second.weights["blocks.0.attn.W_Q"].flags.writeable                        # a read-only map
    ids = second.tokenizer.encode("the cat sat on the mat")
    np.testing.assert_array_equal(forward(second.cfg, second.weights, ids, "cpu")["logits"],
                                  forward(first.cfg, first.weights, ids, "cpu")["logits"])


def test_a_changed_file_is_another_entry_and_the_old_one_goes(cache, tmp_path, tok):
    path = tmp_path / "m.gguf"
    write_gguf(path, make_hf_model("llama", seed=3, vocab_size=300), tok)
    load_checkpoint(path)
    old = list(cache.glob("*.safetensors"))
    write_gguf(path, make_hf_model("llama", seed=4, vocab_size=300), tok)                 # same name, new weights
    got = load_checkpoint(path).weights
    fresh = load_gguf(path, rope_pairs="convert")                                          # read from the new entry
    entries = list(cache.glob("*.safetensors"))
    assert len(entries) == 1 and entries != old
    mapped = Weights.map(entries[0], got.cfg)
    _equal(got, mapped)
    _equal(got, fresh.weights)
    with_seed_3 = make_hf_model("llama", seed=3, vocab_size=300).state_dict()["model.norm.weight"].numpy()
    assert not np.array_equal(got["ln_final.w"], with_seed_3)                               # not the stale one


def test_a_damaged_entry_is_made_again(cache, tmp_path, tok):
    path = write_gguf(tmp_path / "m.gguf", make_hf_model("llama", seed=3, vocab_size=300), tok)
    want = load_checkpoint(path).weights
    (entry,) = cache.glob("*.safetensors")
    entry.write_bytes(entry.read_bytes()[:-100])                                           # cut short
    again = load_checkpoint(path)
    assert "could not be read" in again.info.notes[0] and "dequantized again" in again.info.notes[0]
    _equal(want, again.weights)
    _equal(want, Weights.map(entry, want.cfg))                                             # written whole again


def test_an_unwritable_cache_folder_costs_only_the_speed(tmp_path, tok, monkeypatch):
    monkeypatch.setattr(float32_cache, "CACHE_MIN_BYTES", 0)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would be")
    monkeypatch.setenv("QKV_LAB_CACHE_DIR", str(blocker))
    path = write_gguf(tmp_path / "m.gguf", make_hf_model("llama", seed=3, vocab_size=300), tok)
    loaded = load_checkpoint(path)
    (note,) = loaded.info.notes
    assert "could not be kept in the lab's cache folder" in note and str(blocker) in note
    assert "the next opening dequantizes the file again" in note
    assert blocker.read_text() == "a file where the cache folder would be"                 # nothing lost


def test_small_files_the_wrong_pairing_and_the_switch_keep_nothing(tmp_path, tok, monkeypatch):
    monkeypatch.setenv("QKV_LAB_CACHE_DIR", str(tmp_path / "lab-cache"))
    folder = tmp_path / "lab-cache" / "models" / "float32"
    path = write_gguf(tmp_path / "m.gguf", make_hf_model("llama", seed=3, vocab_size=300), tok)
    load_checkpoint(path)                                                                   # < CACHE_MIN_BYTES
    monkeypatch.setattr(float32_cache, "CACHE_MIN_BYTES", 0)
    load_gguf(path, rope_pairs="as_stored")                                                 # a lesson, not kept
    monkeypatch.setenv(float32_cache.ENV, "0")
    load_checkpoint(path)
    assert not folder.exists() or not list(folder.iterdir())


def test_a_mapped_file_is_checked_like_a_loaded_one(tmp_path):
    from compute import Config

    cfg = Config(d_model=8, n_heads=2, n_ctx=8, d_vocab=12, n_layers=1, d_mlp=16)
    w = Weights.random(cfg, 1)
    path = w.save(tmp_path / "w.safetensors")
    _equal(w, Weights.map(path, cfg))
    _equal(Weights.load(path), Weights.map(path, cfg))
    with pytest.raises(WeightsError, match="missing|unexpected|shape"):
        Weights.map(path, cfg.replace(d_mlp=32))
    arrays = {n: np.array(w[n]) for n in w.names()}
    arrays["blocks.0.mlp.W_in"][1, 2] = np.nan
    raw = path.read_bytes()
    Weights(cfg, arrays, _checked=True).save(tmp_path / "bad.safetensors")                 # written unchecked
    with pytest.raises(WeightsError, match="W_in has non-finite"):
        Weights.map(tmp_path / "bad.safetensors", cfg)
    (tmp_path / "empty.safetensors").write_bytes(b"")
    with pytest.raises(WeightsError):
        Weights.map(tmp_path / "empty.safetensors", cfg)
    assert raw == path.read_bytes()                                                         # only read
