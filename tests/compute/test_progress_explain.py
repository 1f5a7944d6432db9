"""Progress reports, cooperative cancellation, and the derived numbers views show."""
from __future__ import annotations

import numpy as np
import pytest

from compute import PRESETS, Cancelled, Config, Weights, forward, progress
from compute.instruments import explain


@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_forward_reports_progress_and_can_be_cancelled(backend):
    cfg = Config(d_model=8, n_heads=2, d_head=4, n_ctx=8, d_vocab=10, n_layers=3)
    w = Weights.random(cfg, 0)
    seen = []
    with progress.reporting(lambda stage, f: seen.append((stage, f))):
        forward(cfg, w, [1, 2, 3], backend=backend)
    fractions = [f for _, f in seen]
    assert fractions == sorted(fractions) and fractions[-1] == pytest.approx(1.0)

    def stop_half_way(stage, fraction):
        if fraction > 0.5:
            raise Cancelled(stage)

    with progress.reporting(stop_half_way), pytest.raises(Cancelled):
        forward(cfg, w, [1, 2, 3], backend=backend)
    progress.report("outside", 0.5)                       # no callback installed: a no-op


def test_weight_creation_reports_progress():
    seen = []
    with progress.reporting(lambda stage, f: seen.append(stage)):
        Weights.random(PRESETS["toy"], 0)
    assert seen[0].startswith("weights embed.W_E") and len(seen) == len(Weights.random(PRESETS["toy"], 0))


def test_weighted_terms_sum_to_z_and_entropy():
    cfg = PRESETS["toy"]
    trace = forward(cfg, Weights.random(cfg, 3, bias_std=0.2), [0, 1, 2, 3, 4], backend="reference")
    for h in range(cfg.n_heads):
        for i in range(5):
            terms, z = explain.weighted_terms(trace, 1, h, i)
            np.testing.assert_allclose(terms.sum(axis=0), z, atol=1e-12)
            assert (terms[i + 1:] == 0).all()             # masked keys contribute nothing
    assert explain.row_entropy([1.0, 0.0]) == 0.0
    assert explain.row_entropy([0.5, 0.5]) == pytest.approx(np.log(2))


def test_cpu_backend_publishes_each_layers_attention_half_final():
    from compute import Config, Weights, forward, partial_trace
    from compute.names import ATTENTION_NAMES, LAYER_NAMES

    cfg = Config(d_model=16, n_heads=2, d_head=8, n_ctx=32, d_vocab=20, n_layers=3)
    w = Weights.random(cfg, 1)
    published = []
    with progress.reporting(None, lambda layer, arrays: published.append((layer, dict(arrays)))):
        trace = forward(cfg, w, list(range(12)), backend="cpu")
    assert [layer for layer, _ in published] == [0, 1, 2]
    for layer, arrays in published:
        want = {("tokens"), "embed", "pos_embed"} | {(n, layer_) for layer_ in range(layer) for n in LAYER_NAMES} \
            | {(n, layer) for n in ATTENTION_NAMES}
        assert set(arrays) == want
        for key, arr in arrays.items():                   # final: the very values of the Trace, unchanged
            assert trace.stored(key) is arr               # (arrays, or Lazy score maps made from q and k)
    early = partial_trace(cfg, published[1][1])
    assert not early.complete and early.has("z", 1) and not early.has("mlp_out", 1)
    assert list(early.keys())[-1] == ("resid_mid", 1)
    with pytest.raises(KeyError, match="not computed yet"):
        early["ln_final_out"]
    with pytest.raises(KeyError, match="not computed yet"):
        early.logits_rows([0])
    assert not progress.wants_partial()                   # nothing installed outside `reporting`
