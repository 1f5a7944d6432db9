"""Interventions and the circuit readouts (compute/circuits.py), each against an independent computation:
Hugging Face's own LLaMA forward with the intervention written as torch hooks, the torch model,
the float64 reference; attribution, the logit lens and the score decomposition against the Trace."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from compute import Config, Weights, forward, load_checkpoint
from compute.circuits import (
    Ablate,
    InterventionError,
    Patch,
    head_attribution,
    head_scores,
    lens_logits,
    logit_attribution,
    logit_lens,
    repeated_tokens,
    score_parts,
)
from compute.forward import reusable_rows
from compute.instruments.patching import find_heads, patching
from compute.progress import Cancelled

from .helpers import max_scaled_error
from .hf_models import float64_hf, make_hf_model, save_hf_folder

TOL = {"reference": 1e-8, "cpu": 2e-4}
LLAMA = dict(num_attention_heads=4, num_key_value_heads=2, num_hidden_layers=3)


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    """A tiny random LLaMA (RoPE, GQA, RMSNorm, SwiGLU) as HF module and as the lab loads it."""
    model = make_hf_model("llama", seed=3, **LLAMA)
    folder = save_hf_folder(model, tmp_path_factory.mktemp("hf") / "llama")
    cfg, weights, _ = load_checkpoint(folder)
    return model.double(), cfg, weights


def hf_logits(model, ids, z_hook=None, resid_hook=None, layer=0) -> np.ndarray:
    """HF's float64 logits [T, vocab], with `z_hook(z [T, H, dh]) -> z` on the input of layer `layer`'s
    o_proj (the heads' z, concatenated) and `resid_hook(x [T, d_model]) -> x` on the layer's input."""
    handles = []
    attn = model.model.layers[layer].self_attn
    if z_hook is not None:
        def pre(module, args):
            x = args[0]                                                   # [1, T, H*dh]
            z = x[0].reshape(x.shape[1], -1, attn.head_dim)               # [T, H, dh]
            return (z_hook(z.clone()).reshape(1, x.shape[1], -1),) + tuple(args[1:])
        handles.append(attn.o_proj.register_forward_pre_hook(pre))
    if resid_hook is not None:
        def pre_layer(module, args, kwargs):
            if args:
                return (resid_hook(args[0][0].clone())[None],) + tuple(args[1:]), kwargs
            kwargs["hidden_states"] = resid_hook(kwargs["hidden_states"][0].clone())[None]
            return args, kwargs
        handles.append(model.model.layers[layer].register_forward_pre_hook(pre_layer, with_kwargs=True))
    try:
        with torch.no_grad(), float64_hf():
            out = model(torch.tensor([list(ids)]), use_cache=False)
    finally:
        for h in handles:
            h.remove()
    return out.logits[0].numpy()


def hf_captured_z(model, ids, layer) -> np.ndarray:
    got = {}

    def keep(z):
        got["z"] = z.clone()
        return z
    hf_logits(model, ids, z_hook=keep, layer=layer)
    return got["z"]


IDS = [1, 7, 12, 30, 7, 12, 44, 9, 30, 7, 12, 5]
OTHER = [1, 7, 12, 30, 8, 12, 44, 9, 31, 7, 12, 5]


@pytest.mark.parametrize("backend", ["reference", "cpu"])
@pytest.mark.parametrize("how", ["zero", "mean"])
def test_ablation_equals_transformers_with_a_hook_on_o_proj(llama, backend, how):
    model, cfg, weights = llama
    layer, head = 1, 2

    def ablate(z):
        z[:, head] = 0.0 if how == "zero" else z[:, head].mean(dim=0)
        return z
    expected = hf_logits(model, IDS, z_hook=ablate, layer=layer)
    trace = forward(cfg, weights, IDS, backend, interventions=[Ablate(layer, head, how)])
    clean = forward(cfg, weights, IDS, backend)
    assert max_scaled_error(trace["logits"], expected) <= TOL[backend]
    assert max_scaled_error(clean["logits"], expected) > 100 * TOL[backend]     # the ablation mattered
    z = trace["z", layer]
    assert np.allclose(z[:, head], 0.0 if how == "zero" else clean["z", layer][:, head].mean(axis=0), atol=1e-6)
    assert np.allclose(z[:, [0, 1, 3]], clean["z", layer][:, [0, 1, 3]], atol=1e-5)   # other heads untouched
    assert np.allclose(trace["result", layer][:, head], z[:, head] @ weights[f"blocks.{layer}.attn.W_O"][head],
                       atol=1e-5)
    for name in ("attn_out", "resid_mid", "resid_post"):
        assert not np.allclose(trace[name, layer], clean[name, layer])          # the layer follows
    assert not np.allclose(trace["pattern", layer + 1], clean["pattern", layer + 1])   # and the next


@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_patching_a_head_and_a_position_equals_transformers_with_hooks(llama, backend):
    model, cfg, weights = llama
    layer, head, pos = 2, 1, 4
    clean = forward(cfg, weights, IDS, backend)
    z_clean = hf_captured_z(model, IDS, layer)

    def put_head(z):
        z[:, head] = z_clean[:, head]
        return z
    expected = hf_logits(model, OTHER, z_hook=put_head, layer=layer)
    patched = forward(cfg, weights, OTHER, backend, interventions=[Patch("z", layer, clean, head=head)])
    assert max_scaled_error(patched["logits"], expected) <= TOL[backend]

    x_clean = {}

    def grab(x):
        x_clean["x"] = x.clone()
        return x
    hf_logits(model, IDS, resid_hook=grab, layer=1)

    def put_pos(x):
        x[pos] = x_clean["x"][pos]
        return x
    expected = hf_logits(model, OTHER, resid_hook=put_pos, layer=1)
    patched = forward(cfg, weights, OTHER, backend, interventions=[Patch("resid_pre", 1, clean, positions=[pos])])
    assert max_scaled_error(patched["logits"], expected) <= TOL[backend]


def test_cpu_interventions_equal_the_float64_reference(llama):
    _, cfg, weights = llama
    clean = forward(cfg, weights, IDS, "reference")
    ivs = [Ablate(0, 3, "mean"), Patch("pattern", 1, clean, head=0, positions=[3, 5]), Patch("mlp_out", 2, clean)]
    ref = forward(cfg, weights, OTHER, "reference", interventions=ivs)
    cpu = forward(cfg, weights, OTHER, "cpu", interventions=[Ablate(0, 3, "mean"),
                  Patch("pattern", 1, forward(cfg, weights, IDS, "cpu"), head=0, positions=[3, 5]),
                  Patch("mlp_out", 2, forward(cfg, weights, IDS, "cpu"))])
    for key in cpu.keys():
        assert max_scaled_error(cpu[key], ref[key]) <= 2e-4, key
    assert np.allclose(ref["mlp_out", 2], clean["mlp_out", 2])


def test_the_torch_model_takes_the_same_interventions():
    from compute.torch_model import torch_trace

    cfg = Config(d_model=12, n_heads=3, d_head=4, n_ctx=16, d_vocab=20, n_layers=3)
    w = Weights.random(cfg, seed=5)
    ids, other = [1, 4, 9, 4, 9, 2, 7], [1, 4, 8, 4, 9, 3, 7]
    source = forward(cfg, w, ids, "reference")
    ivs = [Ablate(0, 1), Patch("v", 1, source, head=2, positions=[2]), Patch("resid_post", 2, source, positions=[6])]
    ours = forward(cfg, w, other, "reference", interventions=ivs)
    theirs = torch_trace(cfg, w, other, interventions=ivs)
    for key in ours.keys():
        assert max_scaled_error(ours[key], theirs[key]) <= 1e-10, key
    assert max_scaled_error(ours["logits"], forward(cfg, w, other, "reference")["logits"]) > 1e-3


@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_reuse_recomputes_only_from_the_first_intervened_layer(llama, backend):
    _, cfg, weights = llama
    clean = forward(cfg, weights, OTHER, backend)
    full = forward(cfg, weights, OTHER, backend, interventions=[Ablate(2, 0), Ablate(1, 3)])
    reused = forward(cfg, weights, OTHER, backend, interventions=[Ablate(2, 0), Ablate(1, 3)], reuse=clean)
    assert (full.reused_layers, reused.reused_layers) == (0, 1)
    assert reused.stored(("pattern", 0)) is clean.stored(("pattern", 0))          # taken, not recomputed
    assert reused.stored(("ln1_out", 1)) is not clean.stored(("ln1_out", 1))
    for key in full.keys():
        assert max_scaled_error(reused[key], full[key]) <= 1e-6, key
    other = forward(cfg, weights, IDS, backend)                                   # other tokens: not usable
    assert forward(cfg, weights, OTHER, backend, interventions=[Ablate(2, 0)], reuse=other).reused_layers == 0
    # An intervened Trace is never the source of an incremental (row) pass.
    assert reusable_rows(reused, cfg, weights, np.asarray(OTHER), None, type("B", (), {
        "supports_reuse": True, "name": backend})()) == 0
    assert forward(cfg, weights, OTHER + [3], backend, reuse=reused).reused_rows == 0


@pytest.mark.parametrize("make, match", [
    (lambda src: Ablate(5, 0), r"layer 5 does not exist; this model has layers 0\.\.2"),
    (lambda src: Ablate(0, 4), r"head 4 does not exist; layer 0 has heads 0\.\.3"),
    (lambda src: Ablate(0, 1, "median"), r"'zero' or 'mean'"),
    (lambda src: Ablate(0.5, 1), r"whole number"),
    (lambda src: Patch("zz", 0, src), r"cannot patch 'zz': this model has no such.*patchable: resid_pre"),
    (lambda src: Patch("ln1_scale", 0, src), r"output only"),
    (lambda src: Patch("z", 0, src, head=9), r"head 9 does not exist; 'z' has heads 0\.\.3"),
    (lambda src: Patch("k", 0, src, head=2), r"'k' has K/V heads 0\.\.1"),
    (lambda src: Patch("resid_pre", 0, src, head=0), r"no head axis"),
    (lambda src: Patch("z", 0, src, positions=[40]), r"positions \[40\] are outside 0\.\.11"),
    (lambda src: Patch("z", 0, "not a trace"), r"must be a Trace"),
    (lambda src: "ablate", r"compute.Ablate or compute.Patch"),
])
def test_a_wrong_intervention_is_a_clear_error(llama, make, match):
    _, cfg, weights = llama
    src = forward(cfg, weights, IDS, "cpu")
    with pytest.raises(InterventionError, match=match):
        forward(cfg, weights, OTHER, "cpu", interventions=[make(src)])


def test_a_source_of_another_length_is_refused(llama):
    _, cfg, weights = llama
    src = forward(cfg, weights, IDS[:5], "cpu")
    with pytest.raises(InterventionError, match="5 tokens, this pass 12: patching needs prompts of equal length"):
        forward(cfg, weights, OTHER, "cpu", interventions=[Patch("z", 0, src)])


# -- direct logit attribution, the logit lens, the score decomposition ------------------------------------
def gpt2_model():
    cfg = Config(d_model=16, n_heads=4, d_head=4, n_ctx=32, d_vocab=60, n_layers=3)
    return cfg, Weights.random(cfg, seed=11)


@pytest.mark.parametrize("backend", ["reference", "cpu"])
@pytest.mark.parametrize("family", ["gpt2", "llama"])
def test_attribution_sums_to_the_logit(llama, family, backend):
    cfg, weights = gpt2_model() if family == "gpt2" else llama[1:]
    trace = forward(cfg, weights, IDS, backend)
    for token, position in ((5, -1), (17, 3)):
        att = logit_attribution(trace, token, position)
        assert att.heads.shape == (cfg.n_layers, cfg.n_heads) and att.mlps.shape == (cfg.n_layers,)
        assert att.total == pytest.approx(att.logit, abs=1e-4 * max(1.0, abs(att.logit)))
        assert att.logit == pytest.approx(float(trace["logits"][position, token]), abs=1e-5)
        assert np.array_equal(head_attribution(trace, token, position), att.heads)
    # A head ablated (zero) contributes nothing directly.
    knocked = forward(cfg, weights, IDS, backend, interventions=[Ablate(cfg.n_layers - 1, 1)])
    assert head_attribution(knocked, 5)[-1, 1] == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize("family", ["gpt2", "llama"])
def test_the_logit_lens_ends_at_the_models_prediction(llama, family):
    cfg, weights = gpt2_model() if family == "gpt2" else llama[1:]
    trace = forward(cfg, weights, IDS, "cpu")
    for position in (-1, 4):
        lens = logit_lens(trace, position, k=3)
        assert [r.layer for r in lens] == list(range(-1, cfg.n_layers))
        assert lens[-1].tokens[0] == int(np.argmax(trace["logits"][position]))
        assert max_scaled_error(lens_logits(trace, position)[-1], trace["logits"][position]) <= 1e-5
        assert np.all(np.diff(lens[-1].probs) <= 0) and 0 < lens[-1].probs[0] <= 1
    with pytest.raises(InterventionError, match="position 99 is outside 0..11"):
        logit_lens(trace, 99)


@pytest.mark.parametrize("backend", ["reference", "cpu"])
@pytest.mark.parametrize("family", ["gpt2", "llama"])
def test_the_score_decomposition_sums_to_the_score(llama, family, backend):
    cfg, weights = gpt2_model() if family == "gpt2" else llama[1:]
    trace = forward(cfg, weights, IDS, backend)
    tol = 1e-9 if backend == "reference" else 2e-4
    for layer, head, i, j in ((0, 0, 5, 2), (cfg.n_layers - 1, 3, 11, 7), (1, 2, 4, 4)):
        parts = score_parts(trace, layer, head, i, j)
        score = float(trace["attn_scores_raw", layer][head, i, j])
        bound = tol * max(1.0, abs(score))
        assert parts.score == pytest.approx(score)
        assert parts.by_dim.sum() == pytest.approx(score, abs=bound)
        if cfg.positions == "rope":
            assert parts.by_pair.shape == (cfg.rotary_dim // 2,)
            assert parts.by_pair.sum() == pytest.approx(score, abs=bound)
        assert len(parts.sources) == 2 + layer * (cfg.n_heads + 1)
        assert parts.sources[0] == "embed" and parts.sources[-1] == "bias"
        assert parts.by_key_source.sum() == pytest.approx(score, abs=10 * bound)
        assert parts.by_query_source.sum() == pytest.approx(score, abs=10 * bound)
        assert parts.matrix.sum() == pytest.approx(score, abs=10 * bound)
        assert np.allclose(parts.matrix.sum(axis=0), parts.by_key_source, atol=10 * bound)


# -- the head finder and activation patching -----------------------------------------------------------
def test_head_scores_are_the_pattern_entries_they_name():
    cfg, weights = gpt2_model()
    n = 6
    tokens = repeated_tokens(cfg, n, seed=2, low=1)
    assert len(tokens) == 13 and np.array_equal(tokens[1:7], tokens[7:])
    trace = forward(cfg, weights, tokens, "reference")
    scores = head_scores(trace, n)
    layer, head = 2, 1
    pat = trace["pattern", layer][head]
    assert scores.induction[layer, head] == pytest.approx(np.mean([pat[i, i - n + 1] for i in range(7, 13)]))
    assert scores.duplicate[layer, head] == pytest.approx(np.mean([pat[i, i - n] for i in range(7, 13)]))
    assert scores.previous[layer, head] == pytest.approx(np.mean([pat[i, i - 1] for i in range(1, 13)]))
    assert scores.sink[layer, head] == pytest.approx(np.mean([pat[i, 0] for i in range(1, 13)]))
    found = find_heads(cfg, weights, "cpu", n=n, seed=2, low=1)
    assert np.allclose(found.induction, scores.induction, atol=1e-5)
    assert found.best("sink") == np.unravel_index(np.argmax(scores.sink), scores.sink.shape)
    with pytest.raises(InterventionError, match="2 ≤ n ≤ 15"):
        repeated_tokens(cfg, 16)


def test_patching_restores_where_the_prompts_differ_and_cells_equal_single_patches(llama):
    _, cfg, weights = llama
    cells = []
    run = patching(cfg, weights, IDS, OTHER, answer=5, wrong=9, on_cell=lambda *c: cells.append(c))
    L, T = cfg.n_layers, len(IDS)
    assert run.heads.shape == (L, cfg.n_heads) and run.positions.shape == (L, T)
    assert len(cells) == L * cfg.n_heads + L * T and not np.isnan(run.heads).any()
    differ = [p for p in range(T) if IDS[p] != OTHER[p]]
    assert np.allclose(run.positions[0, [p for p in range(T) if p not in differ]], 0.0, atol=1e-4)
    # All of layer 0's resid_pre from the clean pass is the clean pass: one patch of every differing
    # position restores everything; and one cell is the pass with that one patch.
    clean = forward(cfg, weights, IDS, "cpu")
    whole = forward(cfg, weights, OTHER, "cpu", interventions=[Patch("resid_pre", 0, clean, positions=differ)])
    row = whole.logits_rows([T - 1])[0]
    assert run.restored(row[5] - row[9]) == pytest.approx(1.0, abs=1e-3)
    one = forward(cfg, weights, OTHER, "cpu", interventions=[Patch("z", 2, clean, head=3)])
    value = run.restored(run.metric(one))
    assert run.heads[2, 3] == pytest.approx(value, abs=1e-4)
    for p in (differ[0], T - 1):                                  # a position cell is the pass with that patch
        one = forward(cfg, weights, OTHER, "cpu", interventions=[Patch("resid_pre", 1, clean, positions=[p])])
        assert run.positions[1, p] == pytest.approx(run.restored(run.metric(one)), abs=1e-4)


def test_patching_cancels_and_refuses_prompts_of_other_lengths(llama):
    _, cfg, weights = llama
    cells = []
    with pytest.raises(Cancelled):
        patching(cfg, weights, IDS, OTHER, 5, 9, on_cell=lambda *c: cells.append(c), cancelled=lambda: len(cells) >= 3)
    assert len(cells) == cfg.n_heads                   # the first layer's heads, one batch, then it stopped
    with pytest.raises(InterventionError, match="equal length"):
        patching(cfg, weights, IDS, OTHER[:-1], 5, 9)
    with pytest.raises(InterventionError, match="token 999 is outside"):
        patching(cfg, weights, IDS, OTHER, 999, 9)


def test_patching_in_one_sweep_over_the_layers_equals_one_batch_per_layer(llama, monkeypatch):
    import compute.instruments.patching as patching_module

    _, cfg, weights = llama
    per_layer = patching(cfg, weights, IDS, OTHER, 5, 9)                 # 3 layers, 6 sweeps: one start layer each
    monkeypatch.setattr(patching_module, "SWEEPS", 1)                    # every start layer in one sweep
    snapshots = []
    one = patching(cfg, weights, IDS, OTHER, 5, 9, on_run=snapshots.append)
    np.testing.assert_allclose(one.heads, per_layer.heads, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(one.positions, per_layer.positions, rtol=1e-4, atol=1e-5)
    assert len(snapshots) == 3 and np.isnan(snapshots[0].heads).all() and not np.isnan(snapshots[1].heads).any()
    clean = forward(cfg, weights, IDS, "cpu")
    single = forward(cfg, weights, OTHER, "cpu", interventions=[Patch("z", 1, clean, head=2)])
    assert one.heads[1, 2] == pytest.approx(one.restored(one.metric(single)), abs=1e-4)
