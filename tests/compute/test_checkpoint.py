"""Hugging Face GPT-2 folders: the mapping proven against an independent torch GPT-2, and every
bad folder refused with a clear CheckpointError.

The checkpoints are made here: random weights under HF's tensor names and Conv1D (in, out) layout,
a config.json, and a tiny tokenizer built offline with the `tokenizers` package.
"""
from __future__ import annotations

import json
import math
import pickle
import struct

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from safetensors.numpy import save as st_save

from compute import (
    CheckpointError,
    CheckpointTokenizer,
    ConfigError,
    Weights,
    checkpoint_config,
    forward,
    load_checkpoint,
)
from compute.loaders.checkpoint import hf_shapes

from .helpers import max_scaled_error

WORDS = ["<|endoftext|>", "the", "cat", "sat", "on", "mat", "a", "dog", "ran", "to", "big", "red",
         "hat", "and", "saw", "it", "is", ".", ",", "[UNK]"]
SIZES = dict(n_embd=8, n_head=2, n_layer=2, n_positions=12, vocab_size=24)


# -- making checkpoints ------------------------------------------------------------------------------
def hf_config(**changes) -> dict:
    cfg = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "activation_function": "gelu_new",
           "layer_norm_epsilon": 1e-5, "n_ctx": SIZES["n_positions"], **SIZES}
    cfg.update(changes)
    return cfg


def hf_tensors(seed: int = 0, **sizes) -> dict[str, np.ndarray]:
    """Random GPT-2 tensors with HF names and layout; biases and LayerNorms non-trivial, so no
    term of the mapping can hide behind a zero or a one."""
    s = {**SIZES, **sizes}
    rng = np.random.default_rng(seed)
    d, L = s["n_embd"], s["n_layer"]

    class _Cfg:                                   # just the fields hf_shapes reads
        d_model, d_vocab, n_ctx, n_layers = d, s["vocab_size"], s["n_positions"], L
        d_mlp = s.get("n_inner") or 4 * d

    out = {}
    for name, shape in hf_shapes(_Cfg).items():
        if name.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight")):
            out[name] = (1.0 + 0.2 * rng.standard_normal(shape)).astype(np.float32)
        elif name in ("wte.weight", "wpe.weight"):
            out[name] = (0.5 * rng.standard_normal(shape)).astype(np.float32)
        else:                                       # weights and biases
            out[name] = (rng.standard_normal(shape) / math.sqrt(shape[0] if len(shape) == 2 else 4)).astype(np.float32)
    return out


def write_tokenizer(folder, words=WORDS) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers

    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(folder / "tokenizer.json"))


def make_checkpoint(folder, *, config=None, tensors=None, tokenizer=True, prefix="", buffers=False):
    folder.mkdir(parents=True, exist_ok=True)
    config = hf_config() if config is None else config
    tensors = hf_tensors() if tensors is None else tensors
    (folder / "config.json").write_text(json.dumps(config))
    named = {prefix + n: a for n, a in tensors.items()}
    if buffers:                                   # what older GPT-2 files carry: mask and fill value
        T = config.get("n_positions", 12)
        for layer_ in range(config.get("n_layer", 2)):
            named[f"{prefix}h.{layer_}.attn.bias"] = np.tril(np.ones((1, 1, T, T), np.float32))
            named[f"{prefix}h.{layer_}.attn.masked_bias"] = np.array(-1e4, np.float32)
    (folder / "model.safetensors").write_bytes(st_save(named, metadata={"format": "pt"}))
    if tokenizer:
        write_tokenizer(folder)
    return folder


@pytest.fixture
def good(tmp_path):
    return make_checkpoint(tmp_path / "tiny-gpt2")


# -- an independent GPT-2, written like Hugging Face's GPT2Model ----------------------------------
def torch_gpt2(hf: dict, config: dict, ids: list[int]):
    """float64 logits [T, vocab] and each layer's attention probabilities [H, T, T], computed
    straight from the HF tensors the way transformers' GPT-2 does (Conv1D = addmm(b, x, W))."""
    W = {n: torch.tensor(a, dtype=torch.float64) for n, a in hf.items()}
    d, H = config["n_embd"], config["n_head"]
    dh = d // H
    eps = config["layer_norm_epsilon"]
    ids_t = torch.tensor(ids)
    T = len(ids)

    def conv1d(x, prefix):                        # transformers.pytorch_utils.Conv1D
        return torch.addmm(W[prefix + ".bias"], x, W[prefix + ".weight"])

    def gelu_new(x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))

    x = W["wte.weight"][ids_t] + W["wpe.weight"][torch.arange(T)]
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    patterns = []
    for layer_ in range(config["n_layer"]):
        h = F.layer_norm(x, (d,), W[f"h.{layer_}.ln_1.weight"], W[f"h.{layer_}.ln_1.bias"], eps)
        q, k, v = conv1d(h, f"h.{layer_}.attn.c_attn").split(d, dim=1)
        q, k, v = (t.view(T, H, dh).permute(1, 0, 2) for t in (q, k, v))   # [H, T, dh]
        att = q @ k.transpose(-1, -2)
        if config.get("scale_attn_weights", True):
            att = att / math.sqrt(dh)
        att = torch.where(causal, att, torch.finfo(att.dtype).min)          # HF masks with min
        att = torch.softmax(att, dim=-1)
        patterns.append(att)
        y = (att @ v).permute(1, 0, 2).reshape(T, d)                       # merge heads
        x = x + conv1d(y, f"h.{layer_}.attn.c_proj")
        h2 = F.layer_norm(x, (d,), W[f"h.{layer_}.ln_2.weight"], W[f"h.{layer_}.ln_2.bias"], eps)
        x = x + conv1d(gelu_new(conv1d(h2, f"h.{layer_}.mlp.c_fc")), f"h.{layer_}.mlp.c_proj")
    x = F.layer_norm(x, (d,), W["ln_f.weight"], W["ln_f.bias"], eps)
    return (x @ W["wte.weight"].T).numpy(), [p.numpy() for p in patterns]


# -- the mapping -------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend, tol", [("reference", 1e-10), ("cpu", 5e-6)])
def test_logits_and_patterns_equal_an_independent_torch_gpt2(good, backend, tol):
    cfg, weights, tok = load_checkpoint(good)
    ids = tok.encode("the big red dog saw the cat . the big red dog")
    assert len(ids) == 12 == cfg.n_ctx
    trace = forward(cfg, weights, ids, backend=backend)
    logits, patterns = torch_gpt2(hf_tensors(), hf_config(), ids)
    assert max_scaled_error(trace["logits"], logits) < tol
    for layer in range(cfg.n_layers):
        assert max_scaled_error(trace["pattern", layer], patterns[layer]) < tol


def test_a_transposed_c_proj_would_be_caught(good):
    """c_proj is square, so mapping it like nn.Linear (transposed) passes every shape check;
    the output comparison above is what catches it. Show that it would."""
    cfg, weights, tok = load_checkpoint(good)
    ids = tok.encode("the cat sat on the mat")
    wrong = weights.replace({f"blocks.{layer_}.attn.W_O": np.asarray(weights[f"blocks.{layer_}.attn.W_O"])
                             .reshape(cfg.d_model, cfg.d_model).T.reshape(cfg.n_heads, cfg.d_head, cfg.d_model)
                             for layer_ in range(cfg.n_layers)})
    logits, _ = torch_gpt2(hf_tensors(), hf_config(), ids)
    assert max_scaled_error(forward(cfg, wrong, ids, backend="reference")["logits"], logits) > 1e-2


def test_config_and_layout_map_to_our_names(good):
    cfg, weights, tok = load_checkpoint(good)
    assert (cfg.d_model, cfg.n_heads, cfg.d_head, cfg.n_ctx, cfg.d_vocab, cfg.n_layers, cfg.d_mlp) == \
        (8, 2, 4, 12, 24, 2, 32)
    assert cfg.causal and cfg.scale_scores and cfg.name == "tiny-gpt2"
    hf = hf_tensors()
    qkv = hf["h.1.attn.c_attn.weight"]                                           # [8, 24] (in, out)
    np.testing.assert_array_equal(weights["blocks.1.attn.W_K"][1], qkv[:, 8 + 4:8 + 8])   # K, head 1
    np.testing.assert_array_equal(weights["blocks.1.attn.b_V"][0], hf["h.1.attn.c_attn.bias"][16:20])
    np.testing.assert_array_equal(weights["blocks.0.attn.W_O"][1], hf["h.0.attn.c_proj.weight"][4:8])
    np.testing.assert_array_equal(weights["blocks.0.mlp.W_out"], hf["h.0.mlp.c_proj.weight"])
    assert isinstance(tok, CheckpointTokenizer) and tok.size == len(WORDS)
    assert tok.decode(tok.encode("the cat sat")) == "the cat sat"
    assert tok.labels(tok.encode("red hat")) == ["red", "hat"] and tok.label(22) == "#22"
    assert checkpoint_config(good) == cfg


def test_transformer_prefix_buffers_and_a_tied_lm_head_are_accepted(tmp_path):
    tensors = hf_tensors()
    tensors_plus = {**tensors}
    folder = make_checkpoint(tmp_path / "lm", tensors=tensors_plus, prefix="transformer.", buffers=True)
    blob = {f"transformer.{n}": a for n, a in tensors.items()}
    blob["lm_head.weight"] = tensors["wte.weight"].copy()                      # tied: same values
    (folder / "model.safetensors").write_bytes(st_save(blob))
    _, w, _ = load_checkpoint(folder)
    np.testing.assert_array_equal(w["embed.W_E"], tensors["wte.weight"])


def test_half_precision_and_shards_load(tmp_path):
    from safetensors.torch import save as st_save_torch

    tensors = hf_tensors()
    folder = make_checkpoint(tmp_path / "bf16")
    as_bf16 = {n: torch.tensor(a).to(torch.bfloat16) for n, a in tensors.items()}
    as_bf16["wpe.weight"] = torch.tensor(tensors["wpe.weight"]).to(torch.float16)
    (folder / "model.safetensors").write_bytes(st_save_torch(as_bf16))
    _, w, _ = load_checkpoint(folder)
    np.testing.assert_array_equal(w["embed.W_E"], as_bf16["wte.weight"].float().numpy())
    np.testing.assert_array_equal(w["pos_embed.W_pos"], as_bf16["wpe.weight"].float().numpy())

    sharded = make_checkpoint(tmp_path / "sharded")
    (sharded / "model.safetensors").unlink()
    names = list(tensors)
    parts = {"model-00001-of-00002.safetensors": names[:10], "model-00002-of-00002.safetensors": names[10:]}
    for file, part in parts.items():
        (sharded / file).write_bytes(st_save({n: tensors[n] for n in part}))
    index = {"weight_map": {n: f for f, part in parts.items() for n in part}}
    (sharded / "model.safetensors.index.json").write_text(json.dumps(index))
    _, w2, _ = load_checkpoint(sharded)
    np.testing.assert_array_equal(w2["ln_final.b"], tensors["ln_f.bias"])


def test_options_in_config_json(tmp_path):
    tensors = hf_tensors(n_inner=20)
    cfg, w, _ = load_checkpoint(make_checkpoint(
        tmp_path / "opts", config=hf_config(n_inner=20, scale_attn_weights=False), tensors=tensors))
    assert cfg.d_mlp == 20 and cfg.scale_scores is False
    ids = [1, 2, 3, 4, 5]
    logits, patterns = torch_gpt2(tensors, hf_config(scale_attn_weights=False), ids)
    trace = forward(cfg, w, ids, backend="reference")
    assert max_scaled_error(trace["logits"], logits) < 1e-10


def test_byte_level_bpe_from_vocab_and_merges(tmp_path):
    from tokenizers import ByteLevelBPETokenizer

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(["the cat sat on the mat", "the dog ran to the big red hat"] * 20,
                            vocab_size=280, min_frequency=1, show_progress=False)
    folder = make_checkpoint(tmp_path / "bpe", config=hf_config(vocab_size=300),
                             tensors=hf_tensors(vocab_size=300), tokenizer=False)
    bpe.save_model(str(folder))                                                  # vocab.json, merges.txt
    cfg, w, tok = load_checkpoint(folder)
    assert tok.source == "vocab.json + merges.txt" and tok.size <= 300
    ids = tok.encode("the cat sat on the mat")
    assert tok.decode(ids) == "the cat sat on the mat"
    assert "".join(tok.labels(ids)) == "the cat sat on the mat"
    forward(cfg, w, ids, backend="reference")


def test_sequence_longer_than_n_ctx_is_a_clear_error(good):
    cfg, w, tok = load_checkpoint(good)
    text = "the cat sat on the mat and the dog ran to the big red hat"
    ids = tok.encode(text)                                                       # 15 tokens > 12
    with pytest.raises(ConfigError, match="n_ctx=12 is too small for T=15"):
        forward(cfg, w, ids)
    with pytest.raises(ConfigError, match="15 tokens but this model reads at most n_ctx=12"):
        tok.encode_checked(text)


# -- bad folders: each one clear message, nothing loaded ----------------------------------------------
def _edit_config(folder, **changes):
    cfg = json.loads((folder / "config.json").read_text())
    for key, value in changes.items():
        if value is _DROP:
            cfg.pop(key)
        else:
            cfg[key] = value
    (folder / "config.json").write_text(json.dumps(cfg))


_DROP = object()


def _retensor(folder, mutate, prefix=""):
    tensors = hf_tensors()
    mutate(tensors)
    (folder / "model.safetensors").write_bytes(st_save(tensors))


@pytest.mark.parametrize("break_it, match", [
    (lambda f: (f / "config.json").unlink(), r"config.json is missing .*model.safetensors"),
    (lambda f: (f / "config.json").write_text("{nope"), "config.json is not valid JSON"),
    (lambda f: _edit_config(f, model_type="mamba"), r"unsupported architecture: .*model_type='mamba'"),
    (lambda f: _edit_config(f, architectures=["GPT2ForSequenceClassification"]),
     r"unsupported architecture \['GPT2ForSequenceClassification'\]"),
    (lambda f: _edit_config(f, activation_function="relu"), "activation_function='relu' is not supported"),
    (lambda f: _edit_config(f, layer_norm_epsilon=1e-6), "layer_norm_epsilon=1e-06 is not supported"),
    (lambda f: _edit_config(f, n_head=3), "n_embd=8 is not divisible by n_head=3"),
    (lambda f: _edit_config(f, n_head=_DROP), "n_head is missing"),
    (lambda f: _edit_config(f, n_embd="8"), "n_embd='8' must be a whole number"),
    (lambda f: _edit_config(f, scale_attn_by_inverse_layer_idx=True), "scale_attn_by_inverse_layer_idx"),
    (lambda f: _edit_config(f, n_embd=16),
     r"config.json does not match the tensors: config.json says n_embd=16 but wte.weight has shape \(24, 8\)"),
    (lambda f: _edit_config(f, n_layer=3), "n_layer=3 but the weights have 2 block"),
    (lambda f: _edit_config(f, vocab_size=12), r"says vocab_size=12 but wte.weight has shape \(24, 8\)"),
    (lambda f: _edit_config(f, n_positions=20), r"says n_positions=20 but wpe.weight has shape \(12, 8\)"),
    (lambda f: _edit_config(f, n_inner=16),
     r"says n_inner \(default 4 \* n_embd\)=16 but h.0.mlp.c_fc.weight has shape \(8, 32\)"),
    (lambda f: (f / "model.safetensors").unlink(), r"model.safetensors is missing \(no weights"),
    (lambda f: ((f / "model.safetensors").unlink(),
                (f / "pytorch_model.bin").write_bytes(pickle.dumps({"wte.weight": [1.0]}))),
     r"only pytorch_model.bin.*safetensors only.*pickle"),
    (lambda f: _retensor(f, lambda t: t.update({"h.0.attn.c_attn.weight": t["h.0.attn.c_attn.weight"].T.copy()})),
     r"h.0.attn.c_attn.weight has shape \(24, 8\) but config.json implies \(8, 24\)"),
    (lambda f: _retensor(f, lambda t: t["h.1.mlp.c_fc.weight"].__setitem__((0, 0), np.nan)),
     "h.1.mlp.c_fc.weight has 1 NaN/Inf"),
    (lambda f: _retensor(f, lambda t: t["ln_f.bias"].__setitem__(3, np.inf)), "ln_f.bias has 1 NaN/Inf"),
    (lambda f: _retensor(f, lambda t: t.pop("ln_f.bias")), r"missing tensor\(s\) ln_f.bias"),
    (lambda f: _retensor(f, lambda t: t.update({"h.0.crossattention.c_attn.weight": np.zeros((8, 24), np.float32)})),
     r"unexpected tensor\(s\) h.0.crossattention.c_attn.weight"),
    (lambda f: _retensor(f, lambda t: t.update({"lm_head.weight": t["wte.weight"] + 0.5})),
     "lm_head.weight differs from wte.weight .*ties the unembedding"),
    (lambda f: _retensor(f, lambda t: t.update({"ln_f.weight": np.ones(8, np.int32)})), "ln_f.weight has dtype I32"),
    (lambda f: (f / "tokenizer.json").unlink(), "no tokenizer: expected tokenizer.json"),
    (lambda f: (f / "tokenizer.json").write_text("{}"), r"tokenizer files \(tokenizer.json\) cannot be read"),
    (lambda f: write_tokenizer(f, WORDS + [f"w{i}" for i in range(10)]),
     "the tokenizer .* has 30 tokens but the model's vocabulary is vocab_size=24"),
    (lambda f: (f / "model.safetensors").write_bytes((f / "model.safetensors").read_bytes()[:-9]),
     "truncated or corrupted"),
    (lambda f: (f / "model.safetensors").write_bytes(b"abc"), "too short to be a safetensors file"),
    (lambda f: (f / "model.safetensors").write_bytes(b"\xff" * 64), "does not fit a file"),
])
def test_bad_checkpoints_are_refused_clearly(good, break_it, match):
    break_it(good)
    with pytest.raises(CheckpointError, match=match) as info:
        load_checkpoint(good)
    assert str(good) in str(info.value)


def test_missing_folder_file_and_duplicates(tmp_path, good):
    with pytest.raises(CheckpointError, match="folder not found"):
        load_checkpoint(tmp_path / "nope")
    with pytest.raises(CheckpointError, match="is a file, not a folder"):
        load_checkpoint(good / "config.json")
    blob = (good / "model.safetensors").read_bytes()
    (n,) = struct.unpack("<Q", blob[:8])
    header = blob[8:8 + n].decode().rstrip()
    entry = json.dumps({"dtype": "F32", "shape": [8], "data_offsets": [0, 32]})
    dup = (header[:-1] + f', "ln_f.bias": {entry}' + "}").encode()
    dup += b" " * (-len(dup) % 8)
    (good / "model.safetensors").write_bytes(struct.pack("<Q", len(dup)) + dup + blob[8 + n:])
    with pytest.raises(CheckpointError, match="'ln_f.bias' appears more than once"):
        load_checkpoint(good)


def test_a_model_too_large_for_memory_is_refused_before_reading(good, monkeypatch):
    monkeypatch.setenv("QKV_LAB_MEMORY_BUDGET_GIB", "0.000001")
    with pytest.raises(CheckpointError, match="too large for this machine"):
        load_checkpoint(good)


def test_a_failed_load_leaves_the_previous_model_usable(good, tmp_path):
    cfg, w, tok = load_checkpoint(good)
    bad = make_checkpoint(tmp_path / "bad", config=hf_config(model_type="mamba"))
    with pytest.raises(CheckpointError):
        load_checkpoint(bad)
    assert forward(cfg, w, tok.encode("the cat"), backend="reference").T == 2


def test_random_corruptions_give_checkpoint_error_and_nothing_else(good):
    rng = np.random.default_rng(0)
    pristine = (good / "model.safetensors").read_bytes()
    (n,) = struct.unpack("<Q", pristine[:8])
    for trial in range(60):
        blob = bytearray(pristine)
        i = int(rng.integers(0, 8 + n)) if trial % 2 else int(rng.integers(0, len(blob)))
        blob[i] = int(rng.integers(0, 256))
        (good / "model.safetensors").write_bytes(bytes(blob))
        try:
            cfg, w, _ = load_checkpoint(good)
        except CheckpointError:
            continue
        assert isinstance(w, Weights) and all(np.isfinite(w[k]).all() for k in w)


def test_labels_show_control_characters_as_symbols():
    from compute.loaders.checkpoint import VISIBLE_CONTROLS

    assert "a\nb\tc\x00\r\x7f".translate(VISIBLE_CONTROLS) == "a⏎b⇥c␀␍␡"
    assert " the".translate(VISIBLE_CONTROLS) == " the"
