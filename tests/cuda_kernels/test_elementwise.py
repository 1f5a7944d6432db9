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


@pytest.mark.parametrize("T, d", [(9, 21), pytest.param(1024, 3072, marks=gpu)])
def test_gelu(rng, T, d):
    x = rand(rng, T, d, scale=3.0)
    out = empty(T, d)
    EW.launch_gelu(dev(x), out)
    erf_gelu = 0.5 * f64(x) * (1 + np.vectorize(math.erf)(f64(x) / math.sqrt(2)))
    check(out, gelu(f64(x)), wrong=erf_gelu)                                # the tanh form, as GPT-2


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
