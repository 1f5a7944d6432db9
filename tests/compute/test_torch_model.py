"""The torch model (used for training) computes exactly what the `reference` backend computes."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch

from compute import PRESETS, Config, Weights, WeightsError, forward, weight_shapes
from compute.torch_model import TorchModel, torch_trace

from .helpers import assert_trace_matches, random_config

F64_TOL = 1e-10
# float32 torch against the float64 reference, as a share of each array's scale: the same bar as
# the cpu backend (test_forward.F32_TOL); worst seen about 1e-6.
F32_TOL = 5e-6


def _inputs(rng, cfg, T=None, bias_std=0.3):
    T = int(rng.integers(1, cfg.n_ctx + 1)) if T is None else T
    return Weights.random(cfg, seed=int(rng.integers(0, 2**31)), bias_std=bias_std), rng.integers(0, cfg.d_vocab, T)


def test_parameter_names_are_the_weight_names_and_round_trip_is_exact(rng):
    cfg = Config(d_model=6, n_heads=3, d_head=5, n_ctx=9, d_vocab=11, n_layers=3, d_mlp=7)
    w = Weights.random(cfg, 4, bias_std=0.5)
    model = TorchModel.from_weights(cfg, w)
    assert sorted(model.state_dict()) == sorted(weight_shapes(cfg))
    for name, p in model.named_parameters():
        assert tuple(p.shape) == weight_shapes(cfg)[name]
    back = model.to_weights()
    assert back.names() == w.names() and back.cfg == cfg
    for name in w:
        np.testing.assert_array_equal(back[name], w[name])


@pytest.mark.parametrize("trial", range(10))
def test_torch_trace_equals_reference_on_random_configs(rng, trial):
    cfg = random_config(rng)                      # uneven d_head, causal and scale switched at random
    weights, tokens = _inputs(rng, cfg)
    ref = forward(cfg, weights, tokens, backend="reference")
    got = torch_trace(cfg, weights, tokens)
    assert got.backend == "torch" and got.dtype == np.float64
    assert set(got.keys()) == set(ref.keys())
    assert_trace_matches(got, ref, F64_TOL)


def test_torch_float32_is_within_float32_tolerance_on_the_toy(rng):
    cfg = PRESETS["toy"]
    weights, tokens = _inputs(rng, cfg, T=16, bias_std=0.1)
    got = torch_trace(cfg, weights, tokens, dtype=torch.float32)
    assert got.dtype == np.float32
    assert_trace_matches(got, forward(cfg, weights, tokens, backend="reference"), F32_TOL)


def test_fully_masked_rows_are_zero_and_gradients_stay_finite(rng):
    cfg = Config(d_model=8, n_heads=2, d_head=4, n_ctx=10, d_vocab=12, n_layers=2, causal=False)
    weights, tokens = _inputs(rng, cfg, T=7)
    mask = rng.random((7, 7)) < 0.5
    mask[3, :] = False                            # query 3 may attend to nothing
    got = torch_trace(cfg, weights, tokens, attn_mask=mask)
    ref = forward(cfg, weights, tokens, backend="reference", attn_mask=mask)
    assert_trace_matches(got, ref, F64_TOL)
    assert (got["pattern", 0][:, 3] == 0).all()
    model = TorchModel.from_weights(cfg, weights, torch.float64)
    logits = model(torch.as_tensor(tokens).reshape(1, -1), torch.as_tensor(mask))
    logits.square().sum().backward()
    assert all(torch.isfinite(p.grad).all() for p in model.parameters())


def test_batched_forward_equals_one_sequence_at_a_time(rng):
    cfg = PRESETS["toy"]
    weights = Weights.random(cfg, 1, bias_std=0.2)
    model = TorchModel.from_weights(cfg, weights, torch.float64)
    tokens = torch.as_tensor(rng.integers(0, 16, (5, 12)))                      # [B, T]
    batched = model(tokens)                                                      # [B, T, d_vocab]
    for b in range(5):
        torch.testing.assert_close(batched[b], model(tokens[b:b + 1])[0], rtol=0, atol=1e-12)


def test_bad_weights_are_weights_errors():
    cfg = PRESETS["toy"]
    with pytest.raises(WeightsError, match="do not fit"):
        TorchModel.from_weights(cfg.replace(d_head=6), Weights.random(cfg, 0))
    model = TorchModel.from_weights(cfg, Weights.random(cfg, 0))
    with torch.no_grad():
        model.blocks[1].attn.W_Q[0, 0, 0] = float("nan")                         # a diverged run
    with pytest.raises(WeightsError, match="blocks.1.attn.W_Q has 1 non-finite"):
        model.to_weights()
    with pytest.raises(TypeError):
        TorchModel.from_weights(cfg, {"embed.W_E": np.zeros((16, 8))})


def test_importing_compute_does_not_import_torch():
    code = ("import sys, compute\n"
            "w = compute.trained_toy_weights()\n"
            "assert 'torch' not in sys.modules, 'torch imported by compute'\n"
            "compute.train_toy\n"                                   # lazy: now it may load
            "assert 'torch' in sys.modules\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
