"""The LLaMA family (docs/ARCHITECTURE.md, "Model families") against Hugging Face `transformers` itself: tiny random
Llama (GQA, MQA, tied and untied), Qwen2 (biases) and Mistral (a window shorter than the prompt)
checkpoints saved as real folders with their own BPE tokenizer, opened with load_checkpoint; logits
and every layer's pattern equal HF's float64 eager forward."""
from __future__ import annotations

import numpy as np
import pytest

from compute import CheckpointError, forward, load_checkpoint
from compute.loaders.checkpoint import Checkpoint

from .helpers import max_scaled_error
from .hf_models import config_json, hf_forward, make_hf_model, save_hf_folder

pytest.importorskip("transformers")

PROMPT = "the capital of france is paris the cat sat on the mat and the dog ran to the big red hat"
CASES = {
    "llama-gqa": ("llama", dict(num_attention_heads=4, num_key_value_heads=2)),
    "llama-mqa-tied": ("llama", dict(num_attention_heads=4, num_key_value_heads=1, tie_word_embeddings=True)),
    "llama-mha-biases": ("llama", dict(num_key_value_heads=4, attention_bias=True, mlp_bias=True, head_dim=6)),
    "qwen2-biases": ("qwen2", dict(num_key_value_heads=2)),
    "mistral-window": ("mistral", dict(sliding_window=3)),
}
TOL = {"reference": 1e-8, "cpu": 2e-4}


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    """name -> (HF model, folder), made once for the module."""
    root = tmp_path_factory.mktemp("hf")
    out = {}
    for seed, (name, (model_type, config)) in enumerate(CASES.items()):
        model = make_hf_model(model_type, seed=seed, **config)
        out[name] = (model, save_hf_folder(model, root / name, bos=model_type == "llama"))
    return out


@pytest.mark.parametrize("backend", ["reference", "cpu"])
@pytest.mark.parametrize("case", list(CASES))
def test_logits_and_patterns_equal_transformers(checkpoints, case, backend):
    model, folder = checkpoints[case]
    loaded = load_checkpoint(folder)
    cfg, weights, tok = loaded
    ids = tok.encode(PROMPT)
    assert len(ids) >= 16                          # long enough for RoPE and the window to matter
    logits, patterns = hf_forward(model, ids)
    trace = forward(cfg, weights, ids, backend=backend)
    tol = TOL[backend]
    assert max_scaled_error(trace["logits"], logits) <= tol
    for layer in range(cfg.n_layers):
        assert max_scaled_error(trace["pattern", layer], patterns[layer]) <= tol, layer
    assert isinstance(loaded, Checkpoint) and loaded.info.label == "weights stored as F32"


def test_the_configs_map_every_family_field(checkpoints):
    expect = {
        "llama-gqa": dict(n_kv_heads=2, tied_embeddings=False, attn_bias=False, windows=None),
        "llama-mqa-tied": dict(n_kv_heads=1, tied_embeddings=True, attn_bias=False),
        "llama-mha-biases": dict(n_kv_heads=4, attn_bias=True, mlp_bias=True, d_head=6, rotary_dim=6),
        "qwen2-biases": dict(n_kv_heads=2, attn_bias=True, mlp_bias=False),
        "mistral-window": dict(windows=(3, 3)),
    }
    for case, fields in expect.items():
        cfg, w, _ = load_checkpoint(checkpoints[case][1])
        assert (cfg.norm, cfg.positions, cfg.mlp, cfg.norm_eps) == ("rmsnorm", "rope", "swiglu", 1e-5)
        for key, value in fields.items():
            assert getattr(cfg, key) == value, (case, key)
        assert ("unembed.W_U" in w) == (not cfg.tied_embeddings)
        assert all(w[n].flags.c_contiguous for n in w)          # the device copies need C order
    _, w, _ = load_checkpoint(checkpoints["qwen2-biases"][1])
    assert not w["blocks.0.attn.b_O"].any() and w["blocks.0.attn.b_Q"].any()   # Qwen2: no o_proj bias


def test_the_window_really_cuts_the_pattern(checkpoints):
    """Mistral's window 3: query i gives exactly zero to keys j <= i - 3, and HF agrees (above)."""
    model, folder = checkpoints["mistral-window"]
    cfg, w, tok = load_checkpoint(folder)
    ids = tok.encode(PROMPT)
    trace = forward(cfg, w, ids, backend="reference")
    T = len(ids)
    i, j = np.arange(T)[:, None], np.arange(T)[None, :]
    outside = (j <= i - 3) | (j > i)
    for layer in range(cfg.n_layers):
        assert (trace["pattern", layer][:, outside] == 0).all()
        assert np.isneginf(trace["attn_scores", layer][:, outside]).all()
        assert (trace["pattern", layer][:, ~outside] > 0).all()
    dense = forward(cfg.replace(windows=None), w, ids, backend="reference")
    _, patterns = hf_forward(model, ids)
    assert max_scaled_error(dense["pattern", 1], patterns[1]) > 1e-2        # the window is what HF does


def test_sharded_bf16_llama_loads(checkpoints, tmp_path):
    """Shards listed in model.safetensors.index.json, stored as bfloat16: the same model rounded."""
    import torch
    from safetensors.torch import save_file

    model, folder = checkpoints["llama-gqa"]
    out = tmp_path / "sharded"
    out.mkdir()
    (out / "config.json").write_text((folder / "config.json").read_text())
    (out / "tokenizer.json").write_text((folder / "tokenizer.json").read_text())
    state = {n: p.detach().to(torch.bfloat16).contiguous() for n, p in model.state_dict().items()}
    names = sorted(state)
    half = len(names) // 2
    weight_map = {}
    for k, part in enumerate((names[:half], names[half:])):
        file = f"model-0000{k + 1}-of-00002.safetensors"
        save_file({n: state[n] for n in part}, str(out / file))
        weight_map.update({n: file for n in part})
    import json

    (out / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))
    cfg, w, _ = loaded = load_checkpoint(out)
    assert loaded.info.label == "weights converted from BF16 to float32"
    expected = state["model.layers.1.self_attn.k_proj.weight"].float().numpy()   # [KV*dh, d_model]
    np.testing.assert_array_equal(w["blocks.1.attn.W_K"], expected.reshape(2, 4, 16).transpose(0, 2, 1))


@pytest.mark.parametrize("change, match", [
    (dict(hidden_act="gelu"), "hidden_act='gelu' is not supported"),
    (dict(rope_parameters={"rope_theta": 10000.0, "rope_type": "llama3", "factor": 8.0}),
     "RoPE scaling 'llama3' is not supported"),
    (dict(num_key_value_heads=3), "num_key_value_heads|n_kv_heads=3: must divide n_heads=4"),
    (dict(num_hidden_layers=3), "num_hidden_layers=3 but the weights have 2 layer"),
    (dict(intermediate_size=20), r"says intermediate_size=20 but layers.0.mlp.up_proj.weight has shape \(24, 16\)"),
    (dict(sliding_window=0), "sliding_window=0 must be a whole number"),
    (dict(model_type="mamba"), r"unsupported architecture: config.json has model_type='mamba'"),
    (dict(architectures=["LlamaForSequenceClassification"]), "unsupported architecture"),
    (dict(tie_word_embeddings=True), r"unexpected tensor|lm_head.weight differs"),
])
def test_bad_llama_configs_are_refused_clearly(checkpoints, tmp_path, change, match):
    import json
    import shutil

    folder = tmp_path / "bad"
    shutil.copytree(checkpoints["llama-gqa"][1], folder)
    raw = config_json(folder)
    raw.update(change)
    (folder / "config.json").write_text(json.dumps(raw))
    with pytest.raises(CheckpointError, match=match):
        load_checkpoint(folder)


def test_random_corruptions_of_a_llama_folder_give_checkpoint_error_only(checkpoints, tmp_path):
    import shutil
    import struct

    folder = tmp_path / "corrupt"
    shutil.copytree(checkpoints["qwen2-biases"][1], folder)
    pristine = (folder / "model.safetensors").read_bytes()
    (n,) = struct.unpack("<Q", pristine[:8])
    rng = np.random.default_rng(1)
    for trial in range(40):
        blob = bytearray(pristine)
        i = int(rng.integers(0, 8 + n)) if trial % 2 else int(rng.integers(0, len(blob)))
        blob[i] = int(rng.integers(0, 256))
        (folder / "model.safetensors").write_bytes(bytes(blob))
        try:
            cfg, w, _ = load_checkpoint(folder)
        except CheckpointError:
            continue
        assert all(np.isfinite(w[k]).all() for k in w)


def test_oversized_json_files_are_refused_before_they_are_read(checkpoints, tmp_path):
    import shutil

    folder = tmp_path / "huge"
    shutil.copytree(checkpoints["llama-gqa"][1], folder)
    for name, match in (("tokenizer.json", "tokenizer files .* over 64 MiB"),
                        ("config.json", "larger than the 64 MiB")):
        with open(folder / name, "r+b") as fh:                 # sparse: nothing is written, the size is what counts
            fh.truncate(65 << 20)
        with pytest.raises(CheckpointError, match=match):
            load_checkpoint(folder)
