"""Cost as the context grows (issue 29): a real model (SmolLM2-135M, Gemma 3 270M: `--model`) on the cpu
backend at T = 256 … 8,192.

Each row runs in a fresh process (its peak resident memory is its own, VmHWM): load the model, warm
the kernels, then time
  - the full pass of T tokens, and its peak resident memory (whole process, and above the warm start);
  - an edit of the last token (the incremental pass: one row through every layer);
  - the Scores station: one head's four T×T maps of the last layer (the first made: fresh memory), of
    another layer, another head, and three more switches (a checkpointed Trace makes the viewed head's
    q, k and maps from the layer's input; a stored one reads them): each, and their median;
  - three appends with the Scores station on screen: the pass, then the window's four maps (the earlier
    rows and keys reused, the new key and row made), each, and the median of pass + maps;
and, in another fresh process, torch eager computing the same intermediates layer by layer
(benchmarks/torch_block.py; each layer's values dropped after it, only the residual kept) where its
one layer of four [H, T, T] maps fits in memory, and one layer again from its input (what eager needs
to show another layer's maps when it keeps only the residual stream; an append is a full pass for it).
Linux only.

    python -m benchmarks.long_context --json benchmarks/results/long-context-cpu-<date>.json
    python -m benchmarks.long_context --model gemma3-270m --sizes 256 1024 4096 --json ...
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SIZES = (256, 1024, 4096, 8192)
GIB = float(1 << 30)


def peak_bytes() -> int:
    with open("/proc/self/status", encoding="ascii") as fh:
        return next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmHWM:"))


def reset_peak() -> None:
    with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
        fh.write("5")                                              # the peak starts again from here


def tokens(T: int, d_vocab: int) -> list[int]:
    return (3 + __import__("numpy").arange(T) * 7919 % (d_vocab - 3)).tolist()


def scores_station(trace, layer: int, head: int = 0) -> float:
    """Seconds to read what the Scores station draws of one head of one layer (its four T×T maps)."""
    start = time.perf_counter()
    for name in ("attn_scores_raw", "attn_scores_scaled", "attn_scores", "pattern"):
        trace.read(name, layer, head=head)
    return time.perf_counter() - start


def median(values) -> float:
    return sorted(values)[len(values) // 2]


def measure_lab(T: int, model: str = "smollm2-135m") -> dict:
    from compute import forward, memory, real_models
    from compute.trace import Lazy

    cfg, weights, _ = real_models.load(model)
    ids = tokens(T, cfg.d_vocab)
    warm = forward(cfg, weights, ids[:16], backend="cpu")          # compiled and warm
    forward(cfg, weights, ids[:15] + [5], backend="cpu", reuse=warm)
    del warm
    base = memory.resident_bytes()
    reset_peak()
    start = time.perf_counter()
    trace = forward(cfg, weights, ids, backend="cpu")
    full_s = time.perf_counter() - start
    pass_peak = peak_bytes()
    stored = trace.stored(("pattern", 0))
    checkpointed = isinstance(stored, Lazy) and not stored.cached    # as the pass chose (the free memory then)
    start = time.perf_counter()
    edited = forward(cfg, weights, ids[:-1] + [ids[-1] + 1], backend="cpu", reuse=trace)
    edit_s = time.perf_counter() - start
    assert edited.reused_rows == T - 1
    del trace
    L, mid = cfg.n_layers, cfg.n_layers // 2
    first = scores_station(edited, L - 1)                          # the first maps made: fresh memory
    switch = scores_station(edited, mid)                           # another layer (its buffers recycled)
    head = scores_station(edited, mid, head=1)                     # another head of it
    switches = [scores_station(edited, layer, head=h) for layer, h in ((1, 0), (L - 2, 1), (mid, 0))]
    # Appends with the Scores station on screen (layer mid, head 0): the pass (one row through every
    # layer), then the window's maps (the earlier rows and keys reused, the new ones made).
    # At T = n_ctx nothing can be appended: the last token is replaced instead (the same one row).
    appends, follows, prev = [], [], edited
    full_context = T + 3 > cfg.n_ctx
    for k in range(3):
        toks = list(prev.tokens)
        toks = toks[:-1] + [ids[k] + 1 + k] if full_context else toks + [ids[k]]
        start = time.perf_counter()
        longer = forward(cfg, weights, toks, backend="cpu", reuse=prev)
        appends.append(time.perf_counter() - start)
        follows.append(scores_station(longer, mid))
        prev = longer
    est = memory.estimate(cfg, T, checkpoints=True)
    r = 4
    return {"T": T, "model": model, "checkpointed": checkpointed, "full_pass_s": round(full_s, 3),
            "peak_rss_gib": round(pass_peak / GIB, 3), "peak_above_warm_gib": round((pass_peak - base) / GIB, 3),
            "warm_rss_gib": round(base / GIB, 3), "edit_last_s": round(edit_s, r),
            "scores_first_layer_s": round(first, r), "layer_switch_s": round(switch, r),
            "head_switch_s": round(head, r), "layer_switches_s": [round(x, r) for x in switches],
            "layer_switch_median_s": round(median([switch, head, *switches]), r),
            "append_kind": "replace last (T = n_ctx)" if full_context else "append",
            "append_pass_s": [round(x, r) for x in appends], "append_maps_s": [round(x, r) for x in follows],
            "append_window_median_s": round(median([a + f for a, f in zip(appends, follows, strict=True)]), r),
            "peak_rss_with_views_gib": round(peak_bytes() / GIB, 3),
            "estimate_compute_gib": round(est.compute / GIB, 3), "estimate_weights_gib": round(est.weights / GIB, 3)}


def measure_torch(T: int, model: str = "smollm2-135m") -> dict:
    import numpy as np
    import torch

    from benchmarks.torch_block import family_block_weights, rope_tables, torch_family_block
    from compute import memory, real_models

    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    cfg, weights, _ = real_models.load(model)
    ids = np.asarray(tokens(T, cfg.d_vocab))
    W = [family_block_weights(weights, layer) for layer in range(cfg.n_layers)]
    W_E = torch.as_tensor(np.array(weights["embed.W_E"]))                # a writable copy
    c = cfg.components
    bases = {layer: c.rotary(layer).base for layer in range(cfg.n_layers)} if c.positions.rotates else {}

    def tables(n: int) -> dict:
        return {b: rope_tables(n, c.positions.rotary_dim, b) for b in set(bases.values())}

    def embed(rows):
        x = W_E[torch.as_tensor(rows)]                             # [n, d_model]
        return x * c.embed_scale if c.embed_scale != 1.0 else x    # Gemma: · √d_model

    def block(x, layer, tabs):
        cos, sin = tabs[bases[layer]] if bases else (None, None)
        return torch_family_block(x, W[layer], cfg, cos, sin, window=cfg.window(layer))

    small = tables(16)
    block(embed(ids[:16]), 0, small)                               # warm
    big = tables(T)
    base = memory.resident_bytes()
    reset_peak()
    start = time.perf_counter()
    x = embed(ids)                                                 # [T, d_model]
    for layer in range(cfg.n_layers):
        out = block(x, layer, big)
        x = out["resid_post"]
        del out                                                    # one layer's values at a time
    seconds = time.perf_counter() - start
    # What torch eager needs to show another layer's maps when it keeps the residual stream only:
    # that layer again from its input (every head's maps and the MLP), the median of three.
    again = []
    for _ in range(3):
        start = time.perf_counter()
        del_out = block(x, cfg.n_layers // 2, big)
        again.append(time.perf_counter() - start)
        del del_out
    return {"T": T, "torch_full_pass_s": round(seconds, 3), "torch_peak_rss_gib": round(peak_bytes() / GIB, 3),
            "torch_peak_above_warm_gib": round((peak_bytes() - base) / GIB, 3),
            "torch_layer_again_s": round(median(again), 4), "torch": torch.__version__}


def torch_fits(T: int, model: str = "smollm2-135m") -> bool:
    """One layer's four [H, T, T] maps (and the softmax's and masks' temporaries) in half the free memory."""
    from compute import PRESETS, memory

    return 7 * PRESETS[model].n_heads * T * T * 4 < memory.available_bytes() // 2


def run_one(T: int, which: str, timeout: float, model: str = "smollm2-135m") -> dict:
    cmd = [sys.executable, "-m", "benchmarks.long_context", "--one", str(T), "--which", which, "--model", model]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          cwd=Path(__file__).resolve().parent.parent)
    if done.returncode != 0:
        return {"T": T, f"{which}_error": done.stderr.strip().splitlines()[-1:] or [str(done.returncode)]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="*", default=list(SIZES))
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--which", default="lab", help=argparse.SUPPRESS)
    ap.add_argument("--no-torch", action="store_true", help="skip the torch eager rows")
    ap.add_argument("--model", default="smollm2-135m", help="a compute.real_models key (gemma3-270m, ...)")
    ap.add_argument("--json", help="also write the result to this JSON file")
    args = ap.parse_args(argv)
    if args.one is not None:
        print(json.dumps(measure_lab(args.one, args.model) if args.which == "lab" else
                         measure_torch(args.one, args.model)))
        return
    rows = []
    for T in args.sizes:
        row = run_one(T, "lab", 1800, args.model)
        if not args.no_torch:
            fits = torch_fits(T, args.model)
            row.update(run_one(T, "torch", 1800, args.model) if fits else {"torch": "does not fit"})
        row["load_average_1min"] = round(os.getloadavg()[0], 2)         # a shared machine: how busy it was
        row["uptime"] = uptime()
        print(json.dumps(row), flush=True)
        rows.append(row)
    if args.json:
        from benchmarks.compute import machine
        from compute import safe_io

        command = "python -m benchmarks.long_context " + " ".join(argv if argv is not None else sys.argv[1:])
        safe_io.write_file(args.json, json.dumps({"date": time.strftime("%Y-%m-%d %H:%M"), "machine": machine(),
                                                  "model": args.model, "load_uptime": uptime(),
                                                  "command": command, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
