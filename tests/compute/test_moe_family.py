"""Mixtures of experts (Mixtral, Qwen3-MoE, OLMoE): a router scores each token against E experts, the token
goes through its top k, and mlp_out is their sum weighted by the router (components.Experts; the
names router_logits, router_probs, expert_weights, expert_out). Tiny random models of
`transformers`' own MixtralForCausalLM, Qwen3MoeForCausalLM and OlmoeForCausalLM, saved as real folders and opened
with load_checkpoint: logits, every layer's pattern and the router's logits equal HF's float64
forward on the reference and cpu backends (cuda: tests/cuda_kernels/test_backend.py)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from compute import Ablate, Config, ConfigError, Weights, forward, load_checkpoint
from compute.instruments import kvcache
from compute.loaders.checkpoint import CheckpointError
from compute.models.functions import silu
from compute.names import layer_names, missing_reason, missing_weight_reason, weight_shapes

from .helpers import max_scaled_error
from .hf_models import config_json, hf_outputs, make_hf_model, save_hf_folder

pytest.importorskip("transformers")

PROMPT = "the capital of france is paris the cat sat on the mat and the dog ran to the big red hat"
TOL = {"reference": 1e-8, "cpu": 2e-4}
MODELS = {"mixtral": dict(num_local_experts=4, num_experts_per_tok=2, num_key_value_heads=2),
          "qwen3_moe": dict(num_experts=6, num_experts_per_tok=3, moe_intermediate_size=20, head_dim=6,
                            norm_topk_prob=False),
          "olmoe": dict(num_experts=5, num_experts_per_tok=2, num_key_value_heads=2, norm_topk_prob=True)}


@pytest.fixture(scope="module", params=list(MODELS))
def moe(request, tmp_path_factory):
    """(HF model, folder) of each family."""
    model = make_hf_model(request.param, seed=3, **MODELS[request.param])
    return model, save_hf_folder(model, tmp_path_factory.mktemp("hf") / request.param)


def small_moe(**changes) -> Config:
    fields = dict(d_model=12, n_heads=4, n_kv_heads=2, d_head=4, n_ctx=24, d_vocab=30, n_layers=3, d_mlp=10,
                  norm="rmsnorm", positions="rope", mlp="swiglu", attn_bias=False, mlp_bias=False,
                  tied_embeddings=False, n_experts=4, experts_per_token=2)
    return Config(**{**fields, **changes})


@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_logits_patterns_and_router_equal_transformers(moe, backend):
    model, folder = moe
    cfg, weights, tok = load_checkpoint(folder)
    ids = tok.encode(PROMPT)
    assert len(ids) >= 16
    out = hf_outputs(model, ids, output_router_logits=True)
    trace = forward(cfg, weights, ids, backend=backend)
    assert max_scaled_error(trace["logits"], out.logits[0].numpy()) <= TOL[backend]
    for layer in range(cfg.n_layers):
        assert max_scaled_error(trace["pattern", layer], out.attentions[layer][0].numpy()) <= TOL[backend], layer
        assert max_scaled_error(trace["router_logits", layer], out.router_logits[layer].numpy()) <= TOL[backend]


def test_the_config_and_weights_map_the_experts(moe):
    model, folder = moe
    raw = config_json(folder)
    cfg, w, _ = load_checkpoint(folder)
    assert cfg.n_experts == MODELS[raw["model_type"]].get("num_local_experts", MODELS[raw["model_type"]].get(
        "num_experts")) and cfg.components.has("moe")
    assert cfg.norm_topk == (raw["model_type"] != "qwen3_moe")             # Qwen3-MoE, OLMoE: as the config says
    assert cfg.qk_norm == (raw["model_type"] != "mixtral")
    assert cfg.components.attention.qk_norm_all_heads == (raw["model_type"] == "olmoe")   # OLMoE: all heads at once
    layer = model.model.layers[1].mlp
    router = layer.gate.weight.detach().numpy()                            # [E, d_model]
    np.testing.assert_array_equal(w["blocks.1.moe.W_router"], router.T)
    up = layer.experts.gate_up_proj.detach().numpy()[2]                    # [2·d_mlp, d_model]: gate, then up
    np.testing.assert_array_equal(w["blocks.1.moe.W_gate"][2], up[:cfg.d_mlp].T)
    np.testing.assert_array_equal(w["blocks.1.moe.W_in"][2], up[cfg.d_mlp:].T)
    np.testing.assert_array_equal(w["blocks.1.moe.W_out"][2], layer.experts.down_proj.detach().numpy()[2].T)


def test_each_row_goes_through_its_top_k_experts_weighted_by_the_router(rng):
    """The names say the equations: k experts per row, the largest router_probs, weights on them
    alone (summing to 1 when normalised), and mlp_out their weighted sum, checked by a plain loop."""
    for normalise in (True, False):
        cfg = small_moe(norm_topk=normalise, experts_per_token=3)
        w = Weights.random(cfg, 4)
        ids = rng.integers(0, cfg.d_vocab, 11)
        trace = forward(cfg, w, ids, backend="reference")
        for layer in range(cfg.n_layers):
            probs, g = trace["router_probs", layer], trace["expert_weights", layer]     # [T, E] each
            x, p = trace["ln2_out", layer], f"blocks.{layer}.moe."
            for t in range(len(ids)):
                top = np.argsort(-probs[t])[:3]
                assert set(np.flatnonzero(g[t])) == set(top)
                want_g = probs[t, top] / (probs[t, top].sum() if normalise else 1.0)
                np.testing.assert_allclose(g[t, top], want_g, rtol=1e-12)
                mlp_out = sum(g[t, e] * ((silu(x[t] @ w[p + "W_gate"][e]) * (x[t] @ w[p + "W_in"][e]))
                                         @ w[p + "W_out"][e]) for e in top)
                np.testing.assert_allclose(trace["mlp_out", layer][t], mlp_out, rtol=1e-6, atol=1e-7)
            np.testing.assert_allclose(trace["resid_post", layer], trace["resid_mid", layer] + trace["mlp_out", layer])


def test_an_append_recomputes_only_its_rows_and_equals_a_full_pass(rng):
    cfg = small_moe()
    w = Weights.random(cfg, 5)
    ids = list(rng.integers(0, cfg.d_vocab, 12))
    base = forward(cfg, w, ids, backend="cpu")
    longer = forward(cfg, w, ids + [7, 3], backend="cpu", reuse=base)
    full = forward(cfg, w, ids + [7, 3], backend="reference")
    assert longer.reused_rows == 12
    for layer in range(cfg.n_layers):
        for name in ("router_probs", "expert_weights", "expert_out", "mlp_out", "resid_post"):
            assert max_scaled_error(longer[name, layer], full[name, layer]) <= 2e-5, (name, layer)


def test_names_and_weights_say_what_a_mixture_has_instead():
    cfg, dense = small_moe(), small_moe(n_experts=0, experts_per_token=0)
    assert {"router_probs", "expert_out"} <= set(layer_names(cfg)) and "mlp_pre" not in layer_names(cfg)
    assert "mixture of 4 experts" in missing_reason("mlp_post", cfg)
    assert "dense" in missing_reason("router_probs", dense) and "router_probs" not in layer_names(dense)
    shapes = weight_shapes(cfg)
    assert shapes["blocks.0.moe.W_router"] == (12, 4) and shapes["blocks.0.moe.W_gate"] == (4, 12, 10)
    assert shapes["blocks.0.moe.W_out"] == (4, 10, 12) and "blocks.0.mlp.W_in" not in shapes
    assert "moe.W_router" in missing_weight_reason("blocks.0.mlp.W_in", cfg)
    assert "dense" in missing_weight_reason("blocks.0.moe.W_gate", dense)
    again = Config.from_dict(json.loads(json.dumps(cfg.to_dict())))      # sessions keep it
    assert again == cfg and again.components.experts.top_k == 2
    assert "n_experts" not in dense.to_dict()                            # old files unchanged
    assert not cfg.same_shapes(dense) and any("n_experts" in d for d in cfg.shape_differences(dense))


@pytest.mark.parametrize(("changes", "field"), [
    (dict(n_experts=1, experts_per_token=1), "n_experts"),
    (dict(experts_per_token=5), "experts_per_token"),
    (dict(experts_per_token=0), "experts_per_token"),
    (dict(n_experts=0, experts_per_token=2), "experts_per_token"),
    (dict(mlp="gelu"), "mlp"),
    (dict(n_experts=2.5), "n_experts"),
])
def test_an_impossible_mixture_is_a_clear_error(changes, field):
    with pytest.raises(ConfigError) as err:
        small_moe(**changes)
    assert err.value.field == field


def test_interventions_the_kv_cache_and_the_torch_block_know_the_experts(rng):
    torch = pytest.importorskip("torch")
    from benchmarks.torch_block import rope_tables, torch_family_block

    cfg = small_moe()
    w = Weights.random(cfg, 6)
    ids = [int(i) for i in rng.integers(0, cfg.d_vocab, 10)]
    arrays = {n: np.array(a) for n, a in w.items()}
    arrays["blocks.1.attn.W_O"][3] = 0.0                                  # head 1.3 writes nothing
    want = forward(cfg, Weights.from_dict(cfg, arrays), ids, "reference")
    for backend in ("reference", "cpu"):                                  # circuits recompute layers 1, 2
        got = forward(cfg, w, ids, backend, interventions=[Ablate(1, 3)])
        assert max_scaled_error(got["logits"], want["logits"]) <= TOL[backend], backend
    gen = kvcache.prefill(cfg, w, ids[:6])
    for token in ids[6:]:
        step = kvcache.decode_step(gen, w, token)                         # the new row alone, its experts too
    full = forward(cfg, w, gen.tokens, backend="reference")
    assert max_scaled_error(step.logits, full["logits"][-1]) <= 1e-9
    ref = forward(cfg, w, ids, backend="reference")
    W = {short: torch.as_tensor(a.astype(np.float64)) for short, a in w.block(0).items()}
    cos, sin = rope_tables(len(ids), cfg.rotary_dim, cfg.rope_theta, dtype=torch.float64)
    got = torch_family_block(torch.tensor(np.asarray(ref["resid_pre", 0], np.float64)), W, cfg, cos, sin)
    for name in ("router_probs", "expert_weights", "expert_out", "mlp_out", "resid_post"):
        assert max_scaled_error(got[name].numpy(), ref[name, 0]) <= 1e-10, name


def test_dense_layers_between_the_mixtures_are_refused_with_a_reason(tmp_path):
    model = make_hf_model("qwen3_moe", seed=1, num_experts=3, num_experts_per_tok=1, moe_intermediate_size=8,
                          head_dim=4, mlp_only_layers=[1])
    folder = save_hf_folder(model, tmp_path / "mixed")
    with pytest.raises(CheckpointError, match="dense MLP between the mixtures"):
        load_checkpoint(folder)


def test_a_mixture_too_large_for_this_machine_is_refused_with_its_estimate():
    """Mixtral 8x7B's sizes: ~46.7 billion weights (every expert counts), refused before any is drawn."""
    from compute import memory

    mixtral = Config(d_model=4096, n_heads=32, n_kv_heads=8, d_head=128, d_mlp=14336, n_ctx=32768, d_vocab=32000,
                     n_layers=32, norm="rmsnorm", positions="rope", mlp="swiglu", attn_bias=False, mlp_bias=False,
                     tied_embeddings=False, n_experts=8, experts_per_token=2, rope_theta=1e6)
    assert 46e9 < memory.weight_count(mixtral) < 47.5e9
    with pytest.raises(ConfigError, match="GiB"):
        memory.check(mixtral, 16, include_weights=True, budget=16 << 30)
