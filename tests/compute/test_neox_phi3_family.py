"""GPT-NeoX / Pythia (fused per-head q/k/v, partial rotary, attention and MLP in parallel, LayerNorm
with biases, the exact erf GELU) and Phi-3 (fused qkv_proj and gate_up_proj): tiny random models of
`transformers` itself, saved as real folders and opened with load_checkpoint; logits and every
layer's pattern equal HF's float64 eager forward on the reference and cpu backends."""
from __future__ import annotations

import numpy as np
import pytest

from compute import Config, Weights, forward, load_checkpoint
from compute.names import layer_names

from .helpers import max_scaled_error
from .hf_models import config_json, hf_forward, make_hf_model, save_hf_folder

pytest.importorskip("transformers")

PROMPT = "the capital of france is paris the cat sat on the mat and the dog ran to the big red hat"
TOL = {"reference": 1e-8, "cpu": 2e-4}


@pytest.fixture(scope="module")
def pythia(tmp_path_factory):
    """(HF model, folder): 4 heads of 4, half of each head rotated, attention and MLP in parallel, erf GELU."""
    model = make_hf_model("gpt_neox", seed=7, rotary_pct=0.5, hidden_act="gelu", use_parallel_residual=True)
    return model, save_hf_folder(model, tmp_path_factory.mktemp("hf") / "pythia")


@pytest.fixture(scope="module")
def neox_sequential(tmp_path_factory):
    """GPT-NeoX with use_parallel_residual false and the tanh GELU: the other branch of each choice."""
    model = make_hf_model("gpt_neox", seed=8, rotary_pct=1.0, hidden_act="gelu_new", use_parallel_residual=False,
                          num_hidden_layers=3)
    return model, save_hf_folder(model, tmp_path_factory.mktemp("hf") / "neox_seq")


@pytest.fixture(scope="module")
def phi3(tmp_path_factory):
    """(HF model, folder): GQA 4:2, fused qkv and gate_up, a window of 5 keys, partial rotary 0.5."""
    model = make_hf_model("phi3", seed=9, sliding_window=5, partial_rotary_factor=0.5, pad_token_id=None,
                           eos_token_id=2, bos_token_id=1)
    return model, save_hf_folder(model, tmp_path_factory.mktemp("hf") / "phi3")


def _same_as_hf(model, folder, backend):
    cfg, weights, tok = load_checkpoint(folder)
    ids = tok.encode(PROMPT)
    assert len(ids) >= 16
    logits, patterns = hf_forward(model, ids)
    trace = forward(cfg, weights, ids, backend=backend)
    assert max_scaled_error(trace["logits"], logits) <= TOL[backend]
    for layer in range(cfg.n_layers):
        assert max_scaled_error(trace["pattern", layer], patterns[layer]) <= TOL[backend], layer
    return cfg


@pytest.mark.parametrize("backend", ["reference", "cpu"])
@pytest.mark.parametrize("which", ["pythia", "neox_sequential", "phi3"])
def test_logits_and_patterns_equal_transformers(request, which, backend):
    model, folder = request.getfixturevalue(which)
    _same_as_hf(model, folder, backend)


def test_the_neox_config_maps_its_parts(pythia, neox_sequential):
    model, folder = pythia
    assert config_json(folder)["model_type"] == "gpt_neox"
    cfg, w, _ = load_checkpoint(folder)
    c = cfg.components
    assert cfg.parallel and c.parallel and c.mlp_input == "resid_pre" and c.has("parallel")
    assert c.mlp.exact and c.has("gelu") and c.norm.has_bias and c.attention.has_bias
    assert c.positions.partial and cfg.rotary_dim == cfg.d_head // 2 and not cfg.tied_embeddings
    # The fused tensor's rows are [H, (q, k, v), dh]: head 1's query is rows 3·dh .. 4·dh.
    dh = cfg.d_head
    fused = model.gpt_neox.layers[1].attention.query_key_value.weight.detach().numpy()   # [3·H·dh, d_model]
    np.testing.assert_array_equal(w["blocks.1.attn.W_Q"][1], fused[3 * dh:4 * dh].T)
    np.testing.assert_array_equal(w["blocks.1.attn.W_V"][1], fused[5 * dh:6 * dh].T)
    seq, _, _ = load_checkpoint(neox_sequential[1])
    assert not seq.parallel and seq.components.mlp_input == "resid_mid" and not seq.components.mlp.exact
    assert not seq.components.positions.partial
    assert "parallel" not in Config().to_dict() and Config.from_dict(cfg.to_dict()).parallel   # sessions keep it


def test_the_phi3_fused_products_are_split(phi3):
    model, folder = phi3
    cfg, w, _ = load_checkpoint(folder)
    assert cfg.windows == (5, 5) and cfg.n_kv_heads == 2 and cfg.components.positions.partial
    H, KV, dh, dm = cfg.n_heads, cfg.n_kv_heads, cfg.d_head, cfg.d_model
    qkv = model.model.layers[0].self_attn.qkv_proj.weight.detach().numpy()          # [(H + 2KV)·dh, d_model]
    k_rows = qkv[H * dh:(H + KV) * dh]                                               # [KV·dh, d_model]
    np.testing.assert_array_equal(w["blocks.0.attn.W_K"], k_rows.reshape(KV, dh, dm).transpose(0, 2, 1))
    gate_up = model.model.layers[0].mlp.gate_up_proj.weight.detach().numpy()         # [2·d_mlp, d_model]
    np.testing.assert_array_equal(w["blocks.0.mlp.W_in"], gate_up[cfg.d_mlp:].T)    # up is the second half


def test_a_broken_neox_folder_says_what_is_wrong(pythia, tmp_path):
    import json
    import shutil

    from compute import CheckpointError

    folder = tmp_path / "bad"
    shutil.copytree(pythia[1], folder)
    raw = json.loads((folder / "config.json").read_text())
    raw["hidden_act"] = "relu"
    (folder / "config.json").write_text(json.dumps(raw))
    with pytest.raises(CheckpointError, match="hidden_act='relu' is not supported"):
        load_checkpoint(folder)


@pytest.mark.parametrize("exact", [True, False])
def test_the_torch_block_and_kv_cache_compute_parallel_and_erf(rng, exact):
    torch = pytest.importorskip("torch")
    from benchmarks.torch_block import rope_tables, torch_family_block
    from compute.instruments import kvcache

    cfg = Config(d_model=12, n_heads=3, d_head=4, n_ctx=16, d_vocab=20, n_layers=2, positions="rope", rotary_dim=2,
                 mlp="gelu_erf" if exact else "gelu", parallel=True)
    w = Weights.random(cfg, int(rng.integers(1 << 30)), bias_std=0.3)
    ids = [int(i) for i in rng.integers(0, cfg.d_vocab, 9)]
    want = forward(cfg, w, ids, backend="reference")
    W = {short: torch.as_tensor(a.astype(np.float64)) for short, a in w.block(0).items()}
    cos, sin = rope_tables(len(ids), cfg.rotary_dim, cfg.rope_theta, dtype=torch.float64)
    got = torch_family_block(torch.tensor(np.asarray(want["resid_pre", 0], np.float64)), W, cfg, cos, sin)
    for name in ("ln2_out", "mlp_post", "resid_post"):
        assert max_scaled_error(got[name].numpy(), want[name, 0]) <= 1e-10, name
    gen = kvcache.prefill(cfg, w, ids[:5])                              # the decode row: parallel, erf
    for token in ids[5:]:
        step = kvcache.decode_step(gen, w, token)
        full = forward(cfg, w, gen.tokens, backend="reference")
        np.testing.assert_allclose(step.logits, full["logits"][len(gen.tokens) - 1], atol=1e-10)
    assert "ln2_out" in layer_names(cfg)


def test_parallel_means_ln2_reads_resid_pre(rng):
    cfg = Config(d_model=8, n_heads=2, n_ctx=12, d_vocab=10, n_layers=2, parallel=True, mlp="gelu_erf")
    w = Weights.random(cfg, 3, bias_std=0.3)
    ids = list(rng.integers(0, 10, 7))
    for backend in ("reference", "cpu"):
        t = forward(cfg, w, ids, backend=backend)
        tol = 1e-10 if backend == "reference" else 2e-5
        for layer in range(2):
            x = np.asarray(t["resid_pre", layer], np.float64)
            mean, var = x.mean(1, keepdims=True), x.var(1, keepdims=True)
            ln2 = (x - mean) / np.sqrt(var + 1e-5) * w[f"blocks.{layer}.ln2.w"] + w[f"blocks.{layer}.ln2.b"]
            np.testing.assert_allclose(t["ln2_out", layer], ln2, rtol=tol, atol=tol)
            np.testing.assert_allclose(t["resid_post", layer], t["resid_mid", layer] + t["mlp_out", layer],
                                       rtol=tol, atol=tol)
            from math import erf
            pre = np.asarray(t["mlp_pre", layer], np.float64)
            exact = 0.5 * pre * (1 + np.vectorize(erf)(pre / np.sqrt(2)))
            np.testing.assert_allclose(t["mlp_post", layer], exact, rtol=10 * tol, atol=10 * tol)


def test_an_ablation_in_a_parallel_model_equals_zeroing_its_head(rng):
    """compute.circuits recomputes the layers after an intervention with its own equations: in
    parallel the MLP reads resid_pre there too."""
    from compute import Ablate

    cfg = Config(d_model=12, n_heads=3, n_ctx=16, d_vocab=30, n_layers=3, positions="rope", rotary_dim=2,
                 mlp="gelu_erf", parallel=True, tied_embeddings=False)
    w = Weights.random(cfg, 5, bias_std=0.3)
    ids = list(rng.integers(0, 30, 10))
    arrays = {n: np.array(a) for n, a in w.items()}
    arrays["blocks.1.attn.W_O"][2] = 0.0                                   # head 1.2 writes nothing
    want = forward(cfg, Weights.from_dict(cfg, arrays), ids, "reference")
    for backend in ("reference", "cpu"):
        got = forward(cfg, w, ids, backend, interventions=[Ablate(1, 2)])
        assert max_scaled_error(got["logits"], want["logits"]) <= TOL[backend], backend


def test_an_append_to_a_parallel_model_reuses_rows_and_equals_a_full_pass(rng):
    """The cpu backend's incremental pass: the new rows' ln2 reads their resid_pre too."""
    from .helpers import assert_trace_matches

    cfg = Config(d_model=12, n_heads=3, n_ctx=32, d_vocab=30, n_layers=2, positions="rope", rotary_dim=2,
                 mlp="gelu_erf", parallel=True, tied_embeddings=False)
    w = Weights.random(cfg, 6, bias_std=0.3)
    ids = [int(i) for i in rng.integers(0, 30, 12)]
    base = forward(cfg, w, ids, backend="cpu")
    longer = forward(cfg, w, ids + [3, 7], backend="cpu", reuse=base)
    assert longer.reused_rows == 12
    assert_trace_matches(longer, forward(cfg, w, ids + [3, 7], backend="reference"), 5e-6)
