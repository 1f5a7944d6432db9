"""Embeddings, GELU, the heads' sum and residual adds against float64 numpy. Sizes exceed one
launch's threads under the simulator, so the grid-stride loops are exercised."""
from __future__ import annotations

import math

import numpy as np
import pytest

from compute.backends.reference import gelu
from cuda_kernels import elementwise as EW

from .helpers import check, dev, empty, f64, rand

gpu = pytest.mark.gpu


@pytest.mark.parametrize("T, d_model, d_vocab", [(11, 19, 7), pytest.param(1024, 768, 50257, marks=gpu)])
def test_embed(rng, T, d_model, d_vocab):
    W_E, W_pos = rand(rng, d_vocab, d_model), rand(rng, T + 3, d_model)
    tokens = rng.integers(0, d_vocab, T)
    embed, resid_pre = empty(T, d_model), empty(T, d_model)
    EW.launch_embed(dev(tokens.astype(np.int64)), dev(W_E), dev(W_pos), embed, resid_pre)
    check(embed, f64(W_E)[tokens], tol=0)                                   # a gather: exact
    check(resid_pre, f64(W_E)[tokens] + f64(W_pos)[:T], wrong=f64(W_E)[tokens] + f64(W_pos)[1:T + 1])
    EW.launch_embed(dev(tokens.astype(np.int64)), dev(W_E), dev(np.zeros((1, 1))), embed, resid_pre, False)
    check(resid_pre, f64(W_E)[tokens], tol=0)                               # RoPE models: no W_pos
    EW.launch_embed(dev(tokens.astype(np.int64)), dev(W_E), dev(np.zeros((1, 1))), embed, resid_pre, False,
                    scale=math.sqrt(d_model))                               # Gemma: · √d_model
    check(embed, f64(W_E)[tokens] * math.sqrt(d_model), wrong=f64(W_E)[tokens])


@pytest.mark.parametrize("T, n, d_head, rotary_dim", [(7, 3, 6, 6), (5, 2, 8, 4), (1, 1, 2, 2),
                                                      pytest.param(512, 9, 64, 64, marks=gpu)])
def test_rope(rng, T, n, d_head, rotary_dim):
    from compute.backends.reference import rope, rope_angles

    x = rand(rng, T, n, d_head)
    cos, sin = rope_angles(T + 2, rotary_dim, 10.0)                         # tables longer than T, as on the device
    out = empty(T, n, d_head)
    EW.launch_rope(dev(x), dev(cos), dev(sin), out)
    expected = rope(f64(x), cos[:T], sin[:T])
    half = rotary_dim // 2                              # adjacent pairs (2i, 2i+1): the wrong convention
    adjacent = f64(x).copy()
    a, b = f64(x)[..., 0:rotary_dim:2], f64(x)[..., 1:rotary_dim:2]
    adjacent[..., 0:rotary_dim:2] = a * cos[:T, None, :half] - b * sin[:T, None, :half]
    adjacent[..., 1:rotary_dim:2] = b * cos[:T, None, :half] + a * sin[:T, None, :half]
    check(out, expected, wrong=adjacent if T > 1 and d_head > 2 else None)


@pytest.mark.parametrize("T, d", [(9, 21), pytest.param(512, 1536, marks=gpu)])
def test_silu_gate(rng, T, d):
    gate, up = rand(rng, T, d, scale=3.0), rand(rng, T, d)
    out = empty(T, d)
    EW.launch_silu_gate(dev(gate), dev(up), out)
    g = f64(gate)
    check(out, g / (1 + np.exp(-g)) * f64(up), wrong=g / (1 + np.exp(-g)))  # times the linear branch


@pytest.mark.parametrize("T, d", [(9, 21), pytest.param(512, 2048, marks=gpu)])
def test_gelu_gate(rng, T, d):
    gate, up = rand(rng, T, d, scale=3.0), rand(rng, T, d)
    out = empty(T, d)
    EW.launch_gelu_gate(dev(gate), dev(up), out)
    g = f64(gate)
    check(out, gelu(g) * f64(up), wrong=g / (1 + np.exp(-g)) * f64(up))   # GeGLU, not SwiGLU


@pytest.mark.parametrize("T, d", [(9, 21), pytest.param(1024, 3072, marks=gpu)])
def test_gelu(rng, T, d):
    x = rand(rng, T, d, scale=3.0)
    out = empty(T, d)
    EW.launch_gelu(dev(x), out)
    erf_gelu = 0.5 * f64(x) * (1 + np.vectorize(math.erf)(f64(x) / math.sqrt(2)))
    check(out, gelu(f64(x)), wrong=erf_gelu)                                # the tanh form, as GPT-2


@pytest.mark.parametrize("T, d", [(9, 21), pytest.param(1024, 2048, marks=gpu)])
def test_gelu_erf(rng, T, d):
    """The exact GELU (GPT-NeoX / Pythia): erf, not GPT-2's tanh."""
    x = rand(rng, T, d, scale=3.0)
    out = empty(T, d)
    EW.launch_gelu_erf(dev(x), out)
    erf_gelu = 0.5 * f64(x) * (1 + np.vectorize(math.erf)(f64(x) / math.sqrt(2)))
    check(out, erf_gelu, wrong=gelu(f64(x)))


@pytest.mark.parametrize("T, H, d_model", [(10, 3, 11), pytest.param(1024, 12, 768, marks=gpu)])
def test_sum_heads(rng, T, H, d_model):
    result, b_O = rand(rng, T, H, d_model), rand(rng, d_model)
    attn_out = empty(T, d_model)
    EW.launch_sum_heads(dev(result), dev(b_O), attn_out)
    check(attn_out, f64(result).sum(1) + f64(b_O), wrong=f64(result).sum(1))


@pytest.mark.parametrize("T, d", [(13, 9), pytest.param(2048, 12288, marks=gpu)])
def test_add(rng, T, d):
    a, b = rand(rng, T, d), rand(rng, T, d)
    out = empty(T, d)
    EW.launch_add(dev(a), dev(b), out)
    check(out, f64(a) + f64(b), wrong=f64(a))


@pytest.mark.parametrize("T, H, d_model", [(9, 3, 11), (1, 1, 1), pytest.param(1024, 12, 768, marks=gpu)])
def test_sum_heads_residual(rng, T, H, d_model):
    result, b_O, resid_pre = rand(rng, T, H, d_model), rand(rng, d_model), rand(rng, T, d_model)
    attn_out, resid_mid = empty(T, d_model), empty(T, d_model)
    EW.launch_sum_heads_residual(dev(result), dev(b_O), dev(resid_pre), attn_out, resid_mid)
    expected = f64(result).sum(1) + f64(b_O)                                # [T, d_model]
    check(attn_out, expected, wrong=f64(result).sum(1))
    check(resid_mid, f64(resid_pre) + expected, wrong=expected)
