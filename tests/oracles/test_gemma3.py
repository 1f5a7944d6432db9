"""The float64 Gemma 3 oracle against transformers' Gemma3ForCausalLM (model_type gemma3_text) built
tiny and random: logits and every layer's attention pattern, with local and global layers, a window
shorter than the prompt, MQA with d_head wider than d_model / n_heads, and a query_pre_attn_scalar
that is not d_head (so 1/sqrt(d_head) in its place would show)."""
from __future__ import annotations

import contextlib
import dataclasses
import math

import numpy as np
import pytest

from . import gemma3 as oracle

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

WINDOW, T = 4, 11


@contextlib.contextmanager
def float64_gemma():
    """HF's Gemma 3 module computing in float64 where it casts to float32 (its RMSNorm's x.float(),
    the RoPE frequencies, the softmax), so a float64 comparison measures the math, not HF's rounding."""
    from transformers.models.gemma3 import modeling_gemma3 as mg

    from tests.compute.hf_models import _Float64Torch

    saved_torch, saved_norm = mg.torch, mg.Gemma3RMSNorm.forward
    mg.torch = _Float64Torch(torch)
    mg.Gemma3RMSNorm.forward = lambda self, x: self._norm(x) * (1.0 + self.weight)
    try:
        yield
    finally:
        mg.torch, mg.Gemma3RMSNorm.forward = saved_torch, saved_norm


def tiny_hf(seed: int = 0, **over):
    cfg = dict(vocab_size=97, hidden_size=32, intermediate_size=48, num_hidden_layers=7, num_attention_heads=4,
               num_key_value_heads=1, head_dim=16, rms_norm_eps=1e-6, sliding_window=WINDOW,
               query_pre_attn_scalar=24, max_position_embeddings=64, attn_implementation="eager",
               rope_parameters={"full_attention": {"rope_type": "default", "rope_theta": 1_000_000.0},
                                "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0}})
    cfg.update(over)
    with float64_gemma():                               # the RoPE frequencies are made here, in float64
        model = transformers.Gemma3ForCausalLM(transformers.Gemma3TextConfig(**cfg)).eval()
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):                  # Gemma's w in (1 + w): far from 0
                p.copy_(0.5 * torch.randn(p.shape, generator=gen))
            elif "embed_tokens" in name:
                p.copy_(torch.randn(p.shape, generator=gen) * 0.5)
            else:
                p.copy_(torch.randn(p.shape, generator=gen) * 2.0 / p.shape[1] ** 0.5)
    return model


def params_of(model) -> oracle.Gemma3Params:
    c = model.config
    return oracle.Gemma3Params(
        n_layers=c.num_hidden_layers, d_model=c.hidden_size, n_heads=c.num_attention_heads,
        n_kv_heads=c.num_key_value_heads, d_head=c.head_dim, d_mlp=c.intermediate_size, norm_eps=c.rms_norm_eps,
        window=c.sliding_window, rope_theta_local=c.rope_parameters["sliding_attention"]["rope_theta"],
        rope_theta_global=c.rope_parameters["full_attention"]["rope_theta"],
        query_pre_attn_scalar=c.query_pre_attn_scalar, final_logit_softcap=c.final_logit_softcapping)


def hf_run(model, ids, dtype):
    """HF's logits [T, vocab] and patterns [H, T, T]: float64 throughout, or as HF runs float32."""
    m = model.to(dtype)
    exact = dtype == torch.float64
    with torch.no_grad(), float64_gemma() if exact else contextlib.nullcontext():
        if exact:                                       # sqrt(d_model) itself, not its float32 rounding
            m.model.embed_tokens.embed_scale.fill_(math.sqrt(model.config.hidden_size))
        out = m(torch.tensor([ids]), output_attentions=True, use_cache=False)
    model.float()
    m.model.embed_tokens.embed_scale.fill_(math.sqrt(model.config.hidden_size))
    return out.logits[0].double().numpy(), [a[0].double().numpy() for a in out.attentions]


@pytest.fixture(scope="module")
def tiny():
    model = tiny_hf()
    assert model.config.layer_types[5] == "full_attention" and model.config.layer_types[6] == "sliding_attention"
    state = {k: v.double().numpy() for k, v in model.state_dict().items()}
    return model, params_of(model), oracle.from_hf(state)


IDS = [2, 17, 5, 88, 40, 40, 3, 61, 9, 70, 33]


def test_the_oracle_equals_transformers_in_float64(tiny):
    model, params, weights = tiny
    logits, patterns = hf_run(model, IDS, torch.float64)
    out = oracle.forward(params, weights, IDS)
    scale = np.abs(logits).max()
    assert np.abs(out.logits - logits).max() <= 1e-10 * scale
    for layer in range(params.n_layers):
        assert np.abs(out.patterns[layer] - patterns[layer]).max() <= 1e-10, layer
    # local layers see W keys, global ones every earlier key
    assert np.all(out.patterns[0][:, T - 1, : T - WINDOW] == 0) and np.all(out.patterns[5][:, T - 1, :] > 0)


def test_the_oracle_equals_transformers_in_float32(tiny):
    model, params, weights = tiny
    logits, patterns = hf_run(model, IDS, torch.float32)
    out = oracle.forward(params, weights, IDS)
    assert np.abs(out.logits - logits).max() <= 1e-4 * np.abs(logits).max()
    assert max(np.abs(out.patterns[i] - patterns[i]).max() for i in range(params.n_layers)) <= 1e-4


@pytest.mark.parametrize("mistake", ["one RoPE base", "no window", "1/sqrt(d_head)", "adjacent pairs",
                                     "norm weights w, not 1 + w", "no embedding scale"])
def test_each_gemma_part_matters(tiny, mistake):
    """The check can fail: each classic mistake moves the logits far past the tolerance above."""
    model, params, weights = tiny
    logits, _ = hf_run(model, IDS, torch.float64)
    wrong_params, wrong_weights = params, dict(weights)
    if mistake == "one RoPE base":
        wrong_params = dataclasses.replace(params, rope_theta_local=params.rope_theta_global)
    elif mistake == "no window":
        wrong_params = dataclasses.replace(params, window=10**6)
    elif mistake == "1/sqrt(d_head)":
        wrong_params = dataclasses.replace(params, query_pre_attn_scalar=params.d_head)
    elif mistake == "no embedding scale":
        wrong_params = dataclasses.replace(params, embed_scale=1.0)
    elif mistake == "norm weights w, not 1 + w":
        wrong_weights = {k: v - 1.0 if k.endswith("norm") else v for k, v in weights.items()}
    else:                                                 # rows of q and k as GGUF's llama permutation
        d = params.d_head
        order = np.arange(d).reshape(2, d // 2).T.reshape(-1)
        for k in list(weights):
            if k.endswith((".q", ".k")):
                w = weights[k].reshape(-1, d, weights[k].shape[1])
                wrong_weights[k] = w[:, order].reshape(weights[k].shape)
    out = oracle.forward(wrong_params, wrong_weights, IDS)
    assert np.abs(out.logits - logits).max() > 1e-3 * np.abs(logits).max(), mistake


def test_q8_0_decode_equals_gguf():
    gguf = pytest.importorskip("gguf")
    from gguf.quants import dequantize, quantize

    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 64)).astype(np.float32)
    raw = quantize(x, gguf.GGMLQuantizationType.Q8_0)
    assert np.array_equal(oracle.q8_0(raw).reshape(5, 64), dequantize(raw, gguf.GGMLQuantizationType.Q8_0))
