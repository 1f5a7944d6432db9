"""Gemma 2 (gemma2) Hugging Face folders against `transformers`' own Gemma2ForCausalLM, built tiny and
random (eager attention: the one that soft-caps) and saved as a real folder: logits and every layer's
attention pattern on the reference and cpu backends.

Gemma 2 brings soft-capping, a stage of the score chain: attn_scores_capped = cap·tanh(scaled / cap)
after the scale and before the mask, and the logits capped the same way. The tiny model's caps are
small (2 and 8, not Gemma 2's 50 and 30) so that they change every pattern and logit a lot: a lab that
left them out would be far off (checked). Besides: even layers windowed, one RoPE base for all,
query_pre_attn_scalar (12, not d_head = 8), the norms before and after attention and the MLP, GeGLU."""
from __future__ import annotations

import numpy as np
import pytest

from compute import Config, forward, load_checkpoint
from compute.models.components import mistakes
from compute.names import layer_names, missing_reason

from .helpers import max_scaled_error

pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

TOL = {"reference": 1e-8, "cpu": 2e-4}
ATTN_CAP, FINAL_CAP = 2.0, 8.0
IDS = [1, 5, 9, 3, 7, 2, 8, 8, 4, 6, 11, 13, 17, 19, 23, 29, 31, 37]       # T = 18 > window 4


@pytest.fixture(scope="module")
def gemma2(tmp_path_factory):
    """(HF model, folder): 3 layers (0 and 2 windowed, W = 4), GQA 4:2, d_head 8, tied embeddings."""
    from .hf_models import make_hf_model, save_hf_folder

    model = make_hf_model("gemma2", seed=5, head_dim=8, num_hidden_layers=3, sliding_window=4,
                          query_pre_attn_scalar=12, attn_logit_softcapping=ATTN_CAP,
                          final_logit_softcapping=FINAL_CAP, tie_word_embeddings=True)
    with torch.no_grad():                  # the lab keeps float32 weights: 1 + w exact in float32 (k/1024)
        for name, p in model.named_parameters():
            if name.endswith("layernorm.weight") or name.endswith("norm.weight"):
                p.copy_(torch.round(p * 1024) / 1024)
    return model, save_hf_folder(model, tmp_path_factory.mktemp("hf") / "gemma2")


def test_the_folder_maps_to_soft_capping_and_gemma2s_layers(gemma2):
    model, folder = gemma2
    assert model.config.layer_types == ["sliding_attention", "full_attention", "sliding_attention"]
    cfg = load_checkpoint(folder).cfg
    c = cfg.components
    assert cfg.attn_softcap == ATTN_CAP and cfg.final_softcap == FINAL_CAP
    assert c.attention.softcap.cap == ATTN_CAP and c.final_softcap.cap == FINAL_CAP and c.has("softcap")
    assert c.attention.softcap.formula == "2·tanh(s/2)"
    assert [k.window for k in c.layers] == [4, None, 4]
    assert {k.rope_base for k in c.layers} == {10000.0}                    # one base for every layer
    assert not cfg.qk_norm and cfg.pre_norms and cfg.post_norms and cfg.mlp == "geglu" and cfg.scale_embed
    assert c.attention.scale == pytest.approx(12 ** -0.5)
    names = layer_names(cfg)
    assert names.index("attn_scores_scaled") < names.index("attn_scores_capped") < names.index("attn_scores")
    assert Config.from_dict(cfg.to_dict()) == cfg                          # sessions keep the caps
    assert "softcap_off" in {m.key for m in mistakes(cfg)}
    assert "only Gemma 2" in missing_reason("attn_scores_capped", Config())
    assert "attn_scores_capped" not in layer_names(Config())


@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_gemma2_logits_and_patterns_equal_transformers(gemma2, backend):
    from .hf_models import hf_forward

    model, folder = gemma2
    cfg, weights, _ = load_checkpoint(folder)
    logits, patterns = hf_forward(model, IDS)
    trace = forward(cfg, weights, IDS, backend=backend)
    assert max_scaled_error(trace["logits"], logits) <= TOL[backend]
    assert np.abs(trace["logits"]).max() <= FINAL_CAP                     # capped
    for layer in range(cfg.n_layers):
        assert max_scaled_error(trace["pattern", layer], patterns[layer]) <= TOL[backend], layer
        capped = trace["attn_scores_capped", layer]                       # [H, T, T] every pair, as scaled
        scaled = np.asarray(trace["attn_scores_scaled", layer], np.float64)
        assert max_scaled_error(capped, ATTN_CAP * np.tanh(scaled / ATTN_CAP)) <= TOL[backend]
        masked = trace["attn_scores", layer]
        allowed = np.isfinite(masked)
        assert np.array_equal(masked[allowed], capped[allowed])           # the mask takes the capped scores
        assert np.abs(scaled).max() > 2 * ATTN_CAP                        # the cap matters in every layer


@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_without_soft_capping_the_lab_would_be_far_off(gemma2, backend):
    """The same weights with soft-capping left out (the classic mistake, A/B's "load it wrong"; and each
    cap alone): logits and patterns differ from transformers' by far more than the tolerance, so the
    test above can fail."""
    from compute.instruments import ab

    from .hf_models import hf_forward

    model, folder = gemma2
    cfg, weights, _ = load_checkpoint(folder)
    logits, patterns = hf_forward(model, IDS)
    mistake = ab.edit(cfg, weights, IDS, ("mistake", "softcap_off")).cfg
    assert mistake == cfg.replace(attn_softcap=None, final_softcap=None)
    for wrong in (mistake, cfg.replace(attn_softcap=None), cfg.replace(final_softcap=None)):
        trace = forward(wrong, weights, IDS, backend=backend)
        errors = [max_scaled_error(trace["logits"], logits)]
        if wrong.attn_softcap is None:
            errors += [max_scaled_error(trace["pattern", layer], patterns[layer]) for layer in range(cfg.n_layers)]
        assert max(errors) > 0.05, (wrong.attn_softcap, errors)


GEMMA2_LIKE = dict(d_model=16, n_heads=4, n_kv_heads=2, d_head=4, n_ctx=32, d_vocab=60, n_layers=3, norm="rmsnorm",
                   positions="rope", rope_theta=1e4, mlp="geglu", attn_bias=False, mlp_bias=False, post_norms=True,
                   windows=(3, None, 3), scale_embed=True, query_pre_attn_scalar=5.0, attn_softcap=1.0,
                   final_softcap=2.0)
TOKENS = [1, 7, 12, 30, 7, 12, 44, 9, 30, 7, 12, 5]


def gemma2_like(seed: int = 11):
    from compute import Weights

    cfg = Config(**GEMMA2_LIKE)
    return cfg, Weights.random(cfg, seed, bias_std=0.3)


def test_interventions_recompute_the_capped_scores_and_logits():
    """compute.circuits recomputes the layers after an intervention with its own equations: the cap
    before the mask and on the logits, from layer 0 on (the embedding's √d_model too)."""
    from compute import Ablate, Weights

    cfg, w = gemma2_like()
    for layer, head in ((0, 1), (1, 2)):
        arrays = {n: np.array(a) for n, a in w.items()}
        arrays[f"blocks.{layer}.attn.W_O"][head] = 0.0                     # the head writes nothing
        want = forward(cfg, Weights.from_dict(cfg, arrays), TOKENS, "reference")
        for backend in ("reference", "cpu"):
            got = forward(cfg, w, TOKENS, backend, interventions=[Ablate(layer, head)])
            assert max_scaled_error(got["logits"], want["logits"]) <= TOL[backend], (layer, backend)
            for later in range(layer, cfg.n_layers):
                assert max_scaled_error(got["attn_scores_capped", later], want["attn_scores_capped", later]) \
                    <= TOL[backend], (layer, later, backend)


def test_the_kv_cache_decodes_with_the_capped_scores_and_logits():
    from compute.instruments import kvcache

    cfg, w = gemma2_like()
    gen = kvcache.prefill(cfg, w, TOKENS[:5])
    for token in (6, 7, None):
        step = kvcache.decode_step(gen, w, token)
        full = forward(cfg, w, gen.tokens, backend="reference")
        t = len(gen.tokens)
        for layer in range(cfg.n_layers):
            kept = gen.caches[layer].positions
            np.testing.assert_allclose(step.scores[layer], full["attn_scores_capped", layer][:, t - 1, kept],
                                       atol=1e-10)
            np.testing.assert_allclose(step.pattern[layer], full["pattern", layer][:, t - 1, kept], atol=1e-10)
        np.testing.assert_allclose(step.logits, full["logits"][t - 1], atol=1e-10)


def test_checkpointed_and_incremental_traces_have_the_capped_map(monkeypatch):
    """A checkpointed Trace makes attn_scores_capped (whole, one head, one row) from the layer's q and k as
    a stored one has it; an append computes its rows only and equals a full pass."""
    from tests.compute.test_checkpoints import is_checkpointed, stored_pass

    cfg, w = gemma2_like()
    stored = stored_pass(cfg, w, TOKENS)
    monkeypatch.setenv("QKV_LAB_CHECKPOINT_GIB", "0")
    ck = forward(cfg, w, TOKENS, backend="cpu")
    assert is_checkpointed(ck)
    for layer in range(cfg.n_layers):
        want = stored["attn_scores_capped", layer]
        assert max_scaled_error(ck.read("attn_scores_capped", layer, head=2), want[2]) <= 1e-6
        assert max_scaled_error(ck.read("attn_scores_capped", layer, rows=5), want[:, 5]) <= 1e-6
        assert max_scaled_error(ck["attn_scores_capped", layer], want) <= 1e-6
        assert max_scaled_error(ck["pattern", layer], stored["pattern", layer]) <= 1e-6
    assert max_scaled_error(ck["logits"], stored["logits"]) <= 1e-6
    monkeypatch.setenv("QKV_LAB_CHECKPOINT_GIB", "1000")
    longer = forward(cfg, w, TOKENS + [3, 4], backend="cpu", reuse=stored)
    assert longer.reused_rows == len(TOKENS)
    full = forward(cfg, w, TOKENS + [3, 4], backend="reference")
    for layer in range(cfg.n_layers):
        for name in ("attn_scores_capped", "attn_scores", "pattern"):
            assert max_scaled_error(longer[name, layer], full[name, layer]) <= TOL["cpu"], (name, layer)


def test_the_torch_block_caps_the_scores_too(rng):
    from benchmarks.torch_block import rope_tables, torch_family_block

    cfg, w = gemma2_like(int(rng.integers(1 << 30)))
    want = forward(cfg, w, TOKENS, backend="reference")
    for layer in range(cfg.n_layers):
        W = {short: torch.as_tensor(a.astype(np.float64)) for short, a in w.block(layer).items()}
        cos, sin = rope_tables(len(TOKENS), cfg.rotary_dim, cfg.components.rotary(layer).base, dtype=torch.float64)
        got = torch_family_block(torch.tensor(np.asarray(want["resid_pre", layer], np.float64)), W, cfg, cos, sin,
                                 cfg.window(layer))
        for name in ("attn_scores_capped", "pattern", "resid_post"):
            assert max_scaled_error(got[name].numpy(), want[name, layer]) <= 1e-10, (name, layer)


def test_a_tiny_gemma2_gguf_computes_as_transformers(gemma2, tmp_path):
    """llama.cpp's gemma2 architecture: the file as convert_hf_to_gguf.py writes it (norms as 1 + w, no
    QK-norm tensors, gemma2.attn_logit_softcapping and final_logit_softcapping); llama.cpp's own choices
    (every other layer local from layer 0, one RoPE base, query_pre_attn_scalar = d_head) match HF's here.
    Without the soft-cap keys llama.cpp's defaults apply (50, 30)."""
    from compute.loaders.gemma3 import layout
    from compute.loaders.gguf_file import scan

    from .gguf_files import write_gemma3_gguf
    from .hf_models import hf_forward

    model, _ = gemma2
    attention = [layer.self_attn for layer in model.model.layers]
    for a in attention:                          # query_pre_attn_scalar is not in a GGUF: llama.cpp takes d_head
        a.scaling = model.config.head_dim ** -0.5
    try:
        path = write_gemma3_gguf(tmp_path / "tiny.gguf", model, arch="gemma2")
        loaded = load_checkpoint(path)
        cfg = loaded.cfg
        assert (cfg.attn_softcap, cfg.final_softcap) == (ATTN_CAP, FINAL_CAP) and not cfg.qk_norm
        assert cfg.windows == (4, None, 4) and cfg.rope_theta_local is None and loaded.info.model_type == "gemma2"
        assert "soft-capped at 2" in loaded.info.notes[0]
        logits, patterns = hf_forward(model, IDS)
        for backend in ("reference", "cpu"):
            trace = forward(cfg, loaded.weights, IDS, backend=backend)
            assert max_scaled_error(trace["logits"], logits) <= max(TOL[backend], 1e-6), backend   # 1 + w in float32
            for layer in range(cfg.n_layers):
                assert max_scaled_error(trace["pattern", layer], patterns[layer]) <= max(TOL[backend], 1e-6)
    finally:
        for a in attention:
            a.scaling = 12 ** -0.5
    plain = write_gemma3_gguf(tmp_path / "defaults.gguf", model, arch="gemma2", softcaps=False)
    meta, infos, _ = scan(plain)
    assert "gemma2.attn_logit_softcapping" not in meta
    described = layout(meta, infos, plain)                                 # llama.cpp's defaults
    assert (described.attn_logit_softcap, described.final_logit_softcap) == (50.0, 30.0)
