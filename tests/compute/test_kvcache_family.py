"""The KV cache for the LLaMA family: GQA caches n_kv_heads heads, RoPE keys are cached rotated, a
window is a ring of W rows; sizes beside the multi-head equivalent."""
from __future__ import annotations

import numpy as np
import pytest

from compute import PRESETS, Config, Weights, forward
from compute.instruments import kvcache

GEMMA = dict(mlp="geglu", post_norms=True, rope_theta_local=3.0, scale_embed=True, query_pre_attn_scalar=5.0)
OLMO2 = dict(pre_norms=False, post_norms=True, qk_norm_scope="all")


@pytest.mark.parametrize(("windows", "qk_norm", "family"), [
    (None, False, {}), ((None, 3), True, {}), ((2, 4), False, {}), ((3, None), True, GEMMA), (None, True, OLMO2)])
def test_cached_rows_equal_the_full_forward_for_a_llama(windows, qk_norm, family):
    cfg = Config(**{**dict(d_model=12, n_heads=6, n_kv_heads=2, d_head=4, n_ctx=16, d_vocab=20, n_layers=2, d_mlp=10,
                           norm="rmsnorm", positions="rope", rope_theta=30.0, mlp="swiglu", tied_embeddings=False,
                           attn_bias=True, mlp_bias=False, windows=windows, qk_norm=qk_norm), **family})
    w = Weights.random(cfg, 7, bias_std=0.3)
    gen = kvcache.prefill(cfg, w, [1, 2, 3, 4, 5])
    for token in (6, 7, None, None, None):
        step = kvcache.decode_step(gen, w, token)
        full = forward(cfg, w, gen.tokens, backend="reference")
        t = len(gen.tokens)
        for layer in range(cfg.n_layers):
            cache, W = gen.caches[layer], cfg.window(layer)
            kept = np.arange(t)[-W:] if W else np.arange(t)               # a ring keeps the last W
            assert cache.k.shape == (len(kept), cfg.n_kv_heads, cfg.d_head)
            np.testing.assert_array_equal(cache.positions, kept)
            np.testing.assert_allclose(cache.k, full["rot_k", layer][kept], atol=1e-10)   # rotated keys
            np.testing.assert_allclose(cache.v, full["v", layer][kept], atol=1e-10)
            np.testing.assert_allclose(step.q[layer], full["rot_q", layer][t - 1], atol=1e-10)
            np.testing.assert_allclose(step.pattern[layer], full["pattern", layer][:, t - 1, kept], atol=1e-10)
            assert np.allclose(full["pattern", layer][:, t - 1].sum(-1), 1.0)
            if W:
                assert set(cache.slots) == set(kept % W)                  # each position in its slot p % W
        np.testing.assert_allclose(step.logits, full["logits"][t - 1], atol=1e-10)
        assert step.macs_cached < step.macs_recompute


def test_cache_sizes_beside_multi_head_attention():
    smol = kvcache.cache_size(PRESETS["smollm2-135m"])
    assert smol.bytes_per_token == 2 * 30 * 3 * 64 * 2 == 23_040           # K and V, 30 layers, 3 heads, fp16
    assert smol.mha_bytes_per_token == 3 * smol.bytes_per_token and smol.ratio_per_token == 3
    assert smol.bytes_full_context == 8192 * smol.bytes_per_token
    llama = kvcache.cache_size(PRESETS["llama-3-8b"])
    assert llama.bytes_per_token == 2 * 32 * 8 * 128 * 2 == 131_072 and llama.ratio_per_token == 4
    assert llama.ratio_full_context == 4
    mistral = kvcache.cache_size(PRESETS["mistral-7b"])
    assert mistral.ratio_per_token == 4                                    # GQA alone
    assert mistral.bytes_full_context == 32 * 4096 * 2 * 8 * 128 * 2        # the ring caps every layer at 4096
    assert mistral.ratio_full_context == 4 * 32768 / 4096                   # GQA and the window
    gpt2 = kvcache.cache_size(PRESETS["gpt2-small"])
    assert gpt2.ratio_per_token == 1 == gpt2.ratio_full_context
    banded = kvcache.cache_size(PRESETS["gpt3-175b-banded"], itemsize=4)
    assert banded.bytes_full_context == 48 * (2048 + 256) * 2 * 96 * 128 * 4
    assert "per token" in smol.describe() and "3×" in smol.describe()
    assert kvcache.cache_bytes(PRESETS["mistral-7b"], 5000) == kvcache.cache_bytes(PRESETS["mistral-7b"], 4096)


def test_mac_counts_for_gqa_swiglu_and_windows():
    cfg = PRESETS["smollm2-135m"]
    one = kvcache.block_macs(cfg, 1, 512)
    assert one == 576 * (9 + 2 * 3) * 64 + 2 * 9 * 512 * 64 + 9 * 64 * 576 + 3 * 576 * 1536
    mistral = PRESETS["mistral-7b"].replace(n_layers=1)
    assert kvcache.keys_seen(mistral, 1, 10_000) == 4096                  # the window caps the keys
    assert kvcache.keys_seen(mistral, 3, 3) == 1 + 2 + 3
    band = Config(n_layers=1, causal=False, windows=2)
    assert kvcache.keys_seen(band, 4, 4) == 2 + 3 + 3 + 2                  # |i - j| < 2 on 4 positions
