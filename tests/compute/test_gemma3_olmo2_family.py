"""Gemma 3 (gemma3_text) and OLMo 2 (olmo2) Hugging Face folders against `transformers`' own models,
built tiny and random and saved as real folders: logits and every layer's attention pattern on the
reference and cpu backends.

Gemma 3 brings local and global layers with their own RoPE base, QK-norm, norms after attention and the
MLP (sandwich), GeGLU, embeddings · √d_model and scores · query_pre_attn_scalar^-1/2 (24 here, not
d_head = 16, so 1/√d_head in its place would show). OLMo 2 has the norms after attention and the MLP
without the ones before, and a QK-norm over all heads' q (k) at once."""
from __future__ import annotations

import numpy as np
import pytest

from compute import Config, forward, load_checkpoint
from compute.names import layer_names, missing_reason, weight_shapes

from .helpers import max_scaled_error

pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

TOL = {"reference": 1e-8, "cpu": 2e-4}
IDS = [1, 5, 9, 3, 7, 2, 8, 8, 4, 6, 11, 13, 17, 19, 23, 29, 31, 37]       # T = 18 > window 4, two global layers


@pytest.fixture(scope="module")
def gemma3(tmp_path_factory):
    """(HF model, folder): 7 layers (layer 5 global), window 4, MQA 4:1 with d_head 16."""
    from tests.oracles.test_gemma3 import tiny_hf

    from .hf_models import write_bpe_tokenizer

    model = tiny_hf(seed=11)
    with torch.no_grad():                  # the lab keeps float32 weights: 1 + w exact in float32 (k/1024)
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.copy_(torch.round(p * 1024) / 1024)
    folder = tmp_path_factory.mktemp("hf") / "gemma3"
    model.save_pretrained(folder, safe_serialization=True)
    write_bpe_tokenizer(folder, vocab_size=model.config.vocab_size)
    return model, folder


@pytest.fixture(scope="module")
def olmo2(tmp_path_factory):
    from .hf_models import make_hf_model, save_hf_folder

    model = make_hf_model("olmo2", seed=7, num_key_value_heads=2, head_dim=6)
    return model, save_hf_folder(model, tmp_path_factory.mktemp("hf") / "olmo2")


@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_gemma3_logits_and_patterns_equal_transformers(gemma3, backend):
    from tests.oracles.test_gemma3 import hf_run

    model, folder = gemma3
    cfg, weights, _ = load_checkpoint(folder)
    logits, patterns = hf_run(model, IDS, torch.float64)
    trace = forward(cfg, weights, IDS, backend=backend)
    assert max_scaled_error(trace["logits"], logits) <= TOL[backend]
    for layer in range(cfg.n_layers):
        assert max_scaled_error(trace["pattern", layer], patterns[layer]) <= TOL[backend], layer


def test_gemma3_config_maps_every_new_part(gemma3):
    _, folder = gemma3
    cfg = load_checkpoint(folder).cfg
    c = cfg.components
    assert cfg.mlp == "geglu" and c.mlp.gated and cfg.post_norms and cfg.pre_norms and cfg.qk_norm
    assert c.embed_scale == pytest.approx(np.sqrt(32)) and c.attention.scale == pytest.approx(24 ** -0.5)
    assert "query_pre_attn_scalar" in c.attention.scale_formula
    assert [k.window for k in c.layers] == [4] * 5 + [None, 4]
    assert [k.rope_base for k in c.layers] == [1e4] * 5 + [1e6, 1e4]
    assert c.rotary(5).base == 1e6 and c.rotary(0).base == 1e4
    names = layer_names(cfg)
    assert names.index("attn_out") < names.index("attn_out_normed") < names.index("resid_mid")
    assert names.index("mlp_out") < names.index("mlp_out_normed") < names.index("resid_post")
    assert weight_shapes(cfg)["blocks.0.ln1_post.w"] == (32,)
    assert Config.from_dict(cfg.to_dict()) == cfg                              # sessions keep every field


@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_olmo2_logits_and_patterns_equal_transformers(olmo2, backend):
    from .hf_models import hf_forward

    model, folder = olmo2
    cfg, weights, tok = load_checkpoint(folder)
    ids = tok.encode("the capital of france is paris the cat sat on the mat and the dog ran")
    logits, patterns = hf_forward(model, ids)
    trace = forward(cfg, weights, ids, backend=backend)
    assert max_scaled_error(trace["logits"], logits) <= TOL[backend]
    for layer in range(cfg.n_layers):
        assert max_scaled_error(trace["pattern", layer], patterns[layer]) <= TOL[backend], layer


def test_olmo2_has_norms_after_only_and_a_qk_norm_over_all_heads(olmo2):
    _, folder = olmo2
    cfg = load_checkpoint(folder).cfg
    assert not cfg.pre_norms and cfg.post_norms and cfg.qk_norm_scope == "all"
    shapes = weight_shapes(cfg)
    assert shapes["blocks.0.attn.q_norm.w"] == (4 * 6,) and shapes["blocks.0.attn.k_norm.w"] == (2 * 6,)
    assert "blocks.0.ln1.w" not in shapes and shapes["blocks.1.ln2_post.w"] == (16,)
    assert "ln1_out" not in layer_names(cfg) and "attn_out_normed" in layer_names(cfg)
    assert "no norm before attention" in missing_reason("ln2_scale", cfg)
    assert "only Gemma 2/3 and OLMo 2" in missing_reason("mlp_out_normed", Config())
