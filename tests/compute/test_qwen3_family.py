"""Qwen3, the family CONTRIBUTING's "Adding a model family" walks through: Qwen2 without the q/k/v
biases, plus a QK-norm (a per-head RMSNorm of q and k before RoPE; q_normed, k_normed). A tiny
random Qwen3ForCausalLM of `transformers` itself, saved as a real folder and opened with
load_checkpoint: logits and every layer's pattern equal HF's float64 eager forward on the
reference and cpu backends; the torch block (benchmarks/torch_block.py) computes the same names."""
from __future__ import annotations

import numpy as np
import pytest

from compute import Config, Weights, forward, load_checkpoint
from compute.names import layer_names, missing_reason, weight_shapes

from .helpers import max_scaled_error
from .hf_models import config_json, hf_forward, make_hf_model, save_hf_folder

pytest.importorskip("transformers")

PROMPT = "the capital of france is paris the cat sat on the mat and the dog ran to the big red hat"
TOL = {"reference": 1e-8, "cpu": 2e-4}


@pytest.fixture(scope="module")
def qwen3(tmp_path_factory):
    """(HF model, folder): GQA 4:2, head_dim 6 (not hidden / heads), untied, no biases."""
    model = make_hf_model("qwen3", seed=5, num_key_value_heads=2, head_dim=6)
    return model, save_hf_folder(model, tmp_path_factory.mktemp("hf") / "qwen3")


@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_logits_and_patterns_equal_transformers(qwen3, backend):
    model, folder = qwen3
    cfg, weights, tok = load_checkpoint(folder)
    ids = tok.encode(PROMPT)
    assert len(ids) >= 16
    logits, patterns = hf_forward(model, ids)
    trace = forward(cfg, weights, ids, backend=backend)
    assert max_scaled_error(trace["logits"], logits) <= TOL[backend]
    for layer in range(cfg.n_layers):
        assert max_scaled_error(trace["pattern", layer], patterns[layer]) <= TOL[backend], layer


def test_the_config_and_weights_map_the_qk_norm(qwen3):
    model, folder = qwen3
    assert config_json(folder)["model_type"] == "qwen3"
    cfg, w, _ = load_checkpoint(folder)
    assert cfg.qk_norm and not cfg.attn_bias and cfg.d_head == 6 and cfg.n_kv_heads == 2
    assert cfg.components.attention.qk_norm is not None and cfg.components.has("qknorm")
    assert cfg.components.rope_inputs == ("q_normed", "k_normed")
    hf_q_norm = model.model.layers[1].self_attn.q_norm.weight.detach().numpy()
    np.testing.assert_array_equal(w["blocks.1.attn.q_norm.w"], hf_q_norm)   # [d_head], as HF has it
    names = layer_names(cfg)
    assert names.index("k") < names.index("q_normed") < names.index("rot_q")   # normed, then rotated


def test_without_the_qk_norm_the_names_say_why():
    cfg = Config(norm="rmsnorm", positions="rope", mlp="swiglu")
    assert "q_normed" not in layer_names(cfg) and "blocks.0.attn.q_norm.w" not in weight_shapes(cfg)
    assert "no QK-norm" in missing_reason("k_normed", cfg)
    assert Config.from_dict(cfg.replace(qk_norm=True).to_dict()).qk_norm     # sessions keep it
    assert "qk_norm" not in cfg.to_dict()                                    # old files unchanged


@pytest.mark.parametrize("positions", ["rope", "learned"])
def test_the_torch_block_computes_the_same_names(rng, positions):
    torch = pytest.importorskip("torch")
    from benchmarks.torch_block import rope_tables, torch_family_block

    cfg = Config(d_model=12, n_heads=4, n_kv_heads=2, d_head=6, n_ctx=16, d_vocab=20, n_layers=1, norm="rmsnorm",
                 positions=positions, mlp="swiglu", attn_bias=False, mlp_bias=False, qk_norm=True)
    w = Weights.random(cfg, int(rng.integers(1 << 30)), bias_std=0.3)
    ids = rng.integers(0, cfg.d_vocab, 9)
    want = forward(cfg, w, ids, backend="reference")
    W = {short: torch.as_tensor(a.astype(np.float64)) for short, a in w.block(0).items()}
    cos, sin = rope_tables(len(ids), cfg.rotary_dim, cfg.rope_theta, dtype=torch.float64) if positions == "rope" \
        else (None, None)
    got = torch_family_block(torch.tensor(np.asarray(want["resid_pre", 0], np.float64)), W, cfg, cos, sin)
    for name in ("q_normed", "k_normed", "pattern", "resid_post") + (("rot_q",) if positions == "rope" else ()):
        assert max_scaled_error(got[name].numpy(), want[name, 0]) <= 1e-10, name


def test_interventions_and_the_score_decomposition_know_the_qk_norm():
    """compute.circuits recomputes the layers after an intervention with its own equations, and splits
    a score by source with each norm's scale frozen: both go through the QK-norm too."""
    from compute import Ablate
    from compute.circuits import score_parts

    cfg = Config(d_model=16, n_heads=4, n_kv_heads=2, d_head=4, n_ctx=32, d_vocab=60, n_layers=3, norm="rmsnorm",
                 positions="rope", mlp="swiglu", attn_bias=False, mlp_bias=False, qk_norm=True)
    w = Weights.random(cfg, 11, bias_std=0.3)
    ids = [1, 7, 12, 30, 7, 12, 44, 9, 30, 7, 12, 5]
    arrays = {n: np.array(a) for n, a in w.items()}
    arrays["blocks.1.attn.W_O"][2] = 0.0                                   # head 1.2 writes nothing
    want = forward(cfg, Weights.from_dict(cfg, arrays), ids, "reference")
    for backend in ("reference", "cpu"):
        got = forward(cfg, w, ids, backend, interventions=[Ablate(1, 2)])
        assert max_scaled_error(got["logits"], want["logits"]) <= TOL[backend], backend
    trace = forward(cfg, w, ids, "reference")
    parts = score_parts(trace, 2, 3, 11, 7)
    score = float(trace["attn_scores_raw", 2][3, 11, 7])
    bound = 1e-8 * max(1.0, abs(score))
    assert parts.by_query_source.sum() == pytest.approx(score, abs=bound)
    assert parts.matrix.sum() == pytest.approx(score, abs=bound)


def test_the_rope_lab_turns_the_normed_q_and_k(qwen3):
    """With a QK-norm the pairs RoPE turns are q_normed's and k_normed's; their dot products
    are the score."""
    from compute.instruments.rope_lab import pair_view

    cfg, w, tok = load_checkpoint(qwen3[1])
    trace = forward(cfg, w, tok.encode(PROMPT)[:12], backend="reference")
    view = pair_view(trace, 1, 3, 9, 4)
    np.testing.assert_allclose(view.q.reshape(-1, order="F")[:cfg.rotary_dim],
                               trace["q_normed", 1][9, 3, :cfg.rotary_dim], atol=1e-12)
    assert view.score == pytest.approx(float(trace["attn_scores_raw", 1][3, 9, 4]), abs=1e-9)
