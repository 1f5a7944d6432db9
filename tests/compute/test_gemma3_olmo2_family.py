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


GEMMA_LIKE = dict(mlp="geglu", post_norms=True, rope_theta_local=10.0, windows=(3, 3, None), scale_embed=True,
                  query_pre_attn_scalar=5.0)
OLMO2_LIKE = dict(pre_norms=False, post_norms=True, qk_norm_scope="all")


@pytest.mark.parametrize("family", [GEMMA_LIKE, OLMO2_LIKE], ids=["gemma3", "olmo2"])
def test_interventions_attributions_and_the_score_decomposition_know_the_new_parts(family):
    """compute.circuits recomputes the layers after an intervention with its own equations, splits a
    score by source and a logit by writer with each norm's scale frozen: through the norms after
    attention and the MLP (OLMo 2 without those before), the per-layer RoPE base and both QK-norms."""
    from compute import Ablate, Weights
    from compute.circuits import logit_attribution, score_parts

    cfg = Config(**{**dict(d_model=16, n_heads=4, n_kv_heads=2, d_head=4, n_ctx=32, d_vocab=60, n_layers=3,
                           norm="rmsnorm", positions="rope", rope_theta=1e4, mlp="swiglu", attn_bias=False,
                           mlp_bias=False, qk_norm=True), **family})
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
    assert parts.scale == cfg.components.attention.scale                  # Gemma: 1/√5, not 1/√d_head
    attribution = logit_attribution(trace, 5)
    assert attribution.total == pytest.approx(attribution.logit, abs=1e-8 * max(1.0, abs(attribution.logit)))


def test_the_rope_lab_turns_a_local_layer_with_its_own_base(gemma3):
    """Gemma 3's local layers rotate with base 10,000, its global ones with 1,000,000: the RoPE lab's
    pairs use the layer's own, and their dot products are the score."""
    from compute.instruments.rope_lab import pair_view

    cfg, w, _ = load_checkpoint(gemma3[1])
    trace = forward(cfg, w, IDS[:12], backend="reference")
    for layer, base in ((0, 1e4), (5, 1e6)):
        view = pair_view(trace, layer, 3, 9, 7)
        assert view.theta == base and view.scale == pytest.approx(24 ** -0.5)
        assert view.score == pytest.approx(float(trace["attn_scores_raw", layer][3, 9, 7]), abs=1e-9)


@pytest.mark.parametrize("family", [GEMMA_LIKE, OLMO2_LIKE], ids=["gemma3", "olmo2"])
def test_the_torch_block_computes_the_same_names(rng, family):
    from benchmarks.torch_block import rope_tables, torch_family_block
    from compute import Weights

    cfg = Config(**{**dict(d_model=12, n_heads=4, n_kv_heads=2, d_head=6, n_ctx=16, d_vocab=20, n_layers=3,
                           norm="rmsnorm", positions="rope", mlp="swiglu", attn_bias=False, mlp_bias=False,
                           qk_norm=True), **family})
    w = Weights.random(cfg, int(rng.integers(1 << 30)), bias_std=0.3)
    ids = rng.integers(0, cfg.d_vocab, 9)
    want = forward(cfg, w, ids, backend="reference")
    for layer in range(cfg.n_layers):
        W = {short: torch.as_tensor(a.astype(np.float64)) for short, a in w.block(layer).items()}
        cos, sin = rope_tables(len(ids), cfg.rotary_dim, cfg.components.rotary(layer).base, dtype=torch.float64)
        got = torch_family_block(torch.tensor(np.asarray(want["resid_pre", layer], np.float64)), W, cfg, cos, sin,
                                 cfg.window(layer))
        assert set(layer_names(cfg)) - {"z_concat"} <= set(got), layer
        for name in ("q_normed", "rot_k", "pattern", "attn_out_normed", "mlp_out_normed", "resid_post"):
            assert max_scaled_error(got[name].numpy(), want[name, layer]) <= 1e-10, (name, layer)
