"""GPU check: the `cuda` backend against `reference`, then one block timed against torch CUDA eager.

    python benchmarks/gpu_check.py                 # on a machine with a GPU (< 5 minutes on an H200)
    python benchmarks/gpu_check.py --simulate      # here, under numba's CUDA simulator, toy sizes only

1. Correctness: every Trace name of `cuda` against the float64 `reference` at toy, andrea-120m
   dimensions at T=256, and andrea-120m at T=1024 (one block each); worst scaled error.
2. Speed, one block (n_layers=1: embeddings, the block, final LayerNorm; logits are on demand in
   QKV Lab and left out on both sides), andrea-120m at T=1024 and gpt3-175b at T=2048:
   - device: `CudaBackend.run_device` (every kernel, results left on the GPU) against torch eager
     computing the same intermediates on the GPU; CUDA events, warm-up, median of --repeat;
   - forward: `forward(backend="cuda")` end to end, every intermediate copied to the host, against
     torch eager plus `.cpu()` of every intermediate; wall clock, median of fewer runs;
   - per kernel (andrea-120m): CUDA events around each launch, summed per kernel, median.
Targets on an H200: andrea-120m device time <= 2 ms and no slower than torch eager; gpt3-175b
completes. Prints a table and writes JSON ($OUT/gpu_check.json when $OUT is set).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_MS = 2.0


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--simulate", action="store_true", help="numba's CUDA simulator, toy sizes, no GPU needed")
    ap.add_argument("--repeat", type=int, default=25, help="timed device runs per size (median; >= 20)")
    ap.add_argument("--json", help="results file (default $OUT/gpu_check.json, else benchmarks/results/)")
    ap.add_argument("--skip-175b", action="store_true", help="leave out the gpt3-175b block")
    ap.add_argument("--budget-s", type=float, default=280.0, help="skip what is left after this many seconds")
    return ap.parse_args(argv)


ARGS = parse_args() if __name__ == "__main__" else None
if ARGS is not None and ARGS.simulate:
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"          # before numba is first imported
    sys.setswitchinterval(1e-4)
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from numba import cuda  # noqa: E402

from benchmarks.torch_block import block_weights, torch_block  # noqa: E402
from compute import PRESETS, Config, Weights, forward, get_backend  # noqa: E402
from cuda_kernels import (  # noqa: E402
    SIMULATOR,  # noqa: E402
    elementwise,
    products,
    rows,
)


def scaled_error(actual, expected) -> float:
    """max |a - e| / max(1, max |e|) over finite entries (tests/compute/helpers.py), inf if the
    infinities differ."""
    a, e = np.asarray(actual, np.float64), np.asarray(expected, np.float64)
    fin = np.isfinite(e)
    if a.shape != e.shape or not np.array_equal(fin, np.isfinite(a)) or not np.array_equal(a[~fin], e[~fin]):
        return float("inf")
    if not fin.any():
        return 0.0
    return float(np.abs(a[fin] - e[fin]).max()) / max(1.0, float(np.abs(e[fin]).max()))


def sizes(simulate: bool):
    """(label, config, T) for the checks and the two timed blocks; toy stand-ins when simulated."""
    toy = PRESETS["toy"]
    if simulate:
        small = Config(d_model=8, n_heads=2, d_head=4, n_ctx=8, d_vocab=16, n_layers=1)
        return ([("toy", toy, 16), ("toy dims, T=8 (stands in for T=256)", small, 8)],
                ("toy (stands in for andrea-120m T=1024)", small, 8),
                ("toy (stands in for gpt3-175b T=2048)", small, 8))
    andrea = PRESETS["andrea-120m"].replace(n_layers=1)
    return ([("toy", toy, 16), ("andrea-120m T=256", andrea, 256), ("andrea-120m T=1024", andrea, 1024)],
            ("andrea-120m T=1024", andrea, 1024),
            ("gpt3-175b T=2048", PRESETS["gpt3-175b"].replace(n_layers=1), 2048))


def check(label, cfg, T, tol) -> dict:
    weights = Weights.random(cfg, seed=0, bias_std=0.02)
    tokens = np.random.default_rng(1).integers(0, cfg.d_vocab, T)
    ref = forward(cfg, weights, tokens, backend="reference")
    got = forward(cfg, weights, tokens, backend="cuda")
    if got.backend != "cuda":
        return {"size": label, "T": T, "ok": False, "error": got.notice}
    errors = {str(key): scaled_error(got[key], ref[key]) for key in got.keys()}
    worst = max(errors, key=errors.get)
    return {"size": label, "T": T, "tol": tol, "worst": errors[worst], "worst_name": worst,
            "ok": errors[worst] <= tol, "errors": errors}


class Timer:
    """CUDA events on a GPU (the device's own clock); perf_counter under the simulator."""

    def __init__(self, kind: str):
        self.kind = kind

    def __call__(self, fn) -> float:
        if SIMULATOR:
            t0 = time.perf_counter()
            fn()
            return (time.perf_counter() - t0) * 1e3
        if self.kind == "torch":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            return start.elapsed_time(end)
        start, end = cuda.event(), cuda.event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        return start.elapsed_time(end)


def torch_side(cfg, weights, tokens, device):
    """torch eager on `device`, the same intermediates: (run, run_and_copy_everything_to_host)."""
    t_tokens = torch.as_tensor(tokens, device=device)
    W_E = torch.as_tensor(weights["embed.W_E"].copy(), device=device)
    W_pos = torch.as_tensor(weights["pos_embed.W_pos"].copy(), device=device)
    W = block_weights(weights, 0, device=device)
    ln_f = [torch.as_tensor(weights[n].copy(), device=device) for n in ("ln_final.w", "ln_final.b")]

    @torch.no_grad()
    def run():
        embed = W_E[t_tokens]                                               # [T, d_model]
        pos_embed = W_pos[: len(tokens)]                                    # [T, d_model]
        out = torch_block(embed + pos_embed, W, cfg.causal, cfg.scale_scores)
        out["ln_final_out"] = F.layer_norm(out["resid_post"], (cfg.d_model,), *ln_f, eps=1e-5)
        out["embed"], out["pos_embed"] = embed, pos_embed
        return out

    def run_and_copy():
        return {name: t.cpu() for name, t in run().items()}

    return run, run_and_copy


def kernel_breakdown(backend, cfg, weights, tokens, runs: int) -> dict:
    """ms per kernel (summed over its launches in one block), median over `runs`: CUDA events
    around each launch (wall clock under the simulator, which runs launches synchronously)."""
    per_run = []
    originals = {}
    for module in (products, rows, elementwise):
        for name in dir(module):
            if name.startswith("launch_"):
                originals[(module, name)] = getattr(module, name)
    try:
        for _ in range(runs):
            events = []
            for (module, name), fn in originals.items():
                short = name.removeprefix("launch_")

                def timed(*args, _fn=fn, _name=short, _events=events):
                    start, end = cuda.event(), cuda.event()
                    t0 = time.perf_counter()
                    start.record()
                    _fn(*args)
                    end.record()
                    _events.append((_name, start, end, (time.perf_counter() - t0) * 1e3))
                setattr(module, name, timed)
            backend.run_device(cfg, weights, tokens)
            totals = collections.Counter()
            for name, start, end, wall_ms in events:
                end.synchronize()
                totals[name] += wall_ms if SIMULATOR else start.elapsed_time(end)
            per_run.append(totals)
    finally:
        for (module, name), fn in originals.items():
            setattr(module, name, fn)
    return {k: statistics.median(r[k] for r in per_run) for k in per_run[0]}


def bench(label, cfg, T, repeat, forward_repeat, breakdown: bool) -> dict:
    backend = get_backend("cuda")
    weights = Weights.random(cfg, seed=0, bias_std=0.02)
    tokens = np.random.default_rng(1).integers(0, cfg.d_vocab, T)
    device = "cpu" if SIMULATOR else "cuda"
    torch_run, torch_run_and_copy = torch_side(cfg, weights, tokens, device)
    ours_timer, torch_timer = Timer("numba"), Timer("torch")
    sync = (lambda: None) if SIMULATOR else torch.cuda.synchronize

    # The same numbers on both sides before timing them.
    ws = backend.run_device(cfg, weights, tokens)
    agree = scaled_error(ws.pattern.copy_to_host(), torch_run()["pattern"].cpu().numpy())
    for _ in range(3):                                                      # warm-up: compile, upload, caches
        backend.run_device(cfg, weights, tokens)
        torch_run()
    sync()
    ours_dev, torch_dev = [], []
    for _ in range(repeat):                                                 # alternate: same machine state
        ours_dev.append(ours_timer(lambda: backend.run_device(cfg, weights, tokens)))
        torch_dev.append(torch_timer(torch_run))

    ours_fwd, torch_fwd = [], []
    for _ in range(forward_repeat):
        t0 = time.perf_counter()
        trace = forward(cfg, weights, tokens, backend="cuda")
        ours_fwd.append((time.perf_counter() - t0) * 1e3)
        assert trace.backend == "cuda", trace.notice
        del trace
        sync()
        t0 = time.perf_counter()
        copied = torch_run_and_copy()
        torch_fwd.append((time.perf_counter() - t0) * 1e3)
        del copied
    row = {"size": label, "T": T, "d_model": cfg.d_model, "n_heads": cfg.n_heads, "d_head": cfg.d_head,
           "pattern_agreement_vs_torch": agree,
           "ours_device_ms": statistics.median(ours_dev), "torch_device_ms": statistics.median(torch_dev),
           "ours_forward_ms": statistics.median(ours_fwd), "torch_with_copies_ms": statistics.median(torch_fwd),
           "ours_device_all_ms": ours_dev, "torch_device_all_ms": torch_dev,
           "ours_forward_all_ms": ours_fwd, "torch_with_copies_all_ms": torch_fwd}
    row["device_ratio"] = row["ours_device_ms"] / row["torch_device_ms"]
    if breakdown:
        row["kernels_ms"] = kernel_breakdown(backend, cfg, weights, tokens, runs=1 if SIMULATOR else 5)
    backend.release()                                                       # room for the next size
    del torch_run, torch_run_and_copy
    if not SIMULATOR:
        torch.cuda.empty_cache()
    return row


def provenance(simulate: bool) -> dict:
    info = {"date": time.strftime("%Y-%m-%d %H:%M:%S"), "host": platform.node(),
            "python": platform.python_version(),
            "numpy": np.__version__, "torch": torch.__version__, "simulated": simulate,
            "tiles": {"TILE": products.TILE, "REG": products.REG, "ROW_THREADS": rows.ROW_THREADS},
            "torch_allow_tf32": torch.backends.cuda.matmul.allow_tf32}
    import numba

    info["numba"] = numba.__version__
    try:
        import numba_cuda

        info["numba_cuda"] = numba_cuda.__version__
    except Exception:  # noqa: BLE001
        pass
    try:
        info["git"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                     text=True, timeout=10).stdout.strip() or None
    except Exception:  # noqa: BLE001
        info["git"] = None
    info["device"] = get_backend("cuda").label()
    if not simulate:
        info["torch_device"] = torch.cuda.get_device_name()
        try:
            info["cuda_driver"] = cuda.cudadrv.driver.driver.get_version()
        except Exception:  # noqa: BLE001 - provenance is best effort
            pass
    return info


def main(args) -> int:
    t_start = time.perf_counter()
    if not args.simulate and not (cuda.is_available() and torch.cuda.is_available()):
        print("no GPU here (numba or torch sees none); run with --simulate to check the script itself")
        return 2
    torch.backends.cuda.matmul.allow_tf32 = False          # float32 products on both sides
    checks, timed, big = sizes(args.simulate)
    result = {"provenance": provenance(args.simulate), "checks": [], "timing": [], "skipped": []}
    print(f"# {result['provenance']['device']} · numba-cuda {result['provenance'].get('numba_cuda')} · "
          f"torch {torch.__version__} · tiles {result['provenance']['tiles']}")

    def time_left(need_s: float = 0.0) -> bool:
        return time.perf_counter() - t_start + need_s < args.budget_s

    print(f"\n{'correctness vs reference':<40}{'T':>6}{'worst scaled error':>20}  {'where':<28}ok")
    for label, cfg, T in checks:
        if not time_left():
            result["skipped"].append(f"check {label}: time budget")
            continue
        tol = 5e-6 if T <= 16 else 5e-5
        row = check(label, cfg, T, tol)
        result["checks"].append(row)
        if "error" in row:
            print(f"{label:<40}{T:>6}  FAILED: {row['error']}")
        else:
            ok = "yes" if row["ok"] else "NO"
            print(f"{label:<40}{T:>6}{row['worst']:>20.3g}  {row['worst_name']:<28}{ok}")

    repeat = 3 if args.simulate else max(args.repeat, 20)
    print(f"\n{'one block (median)':<40}{'ours dev ms':>12}{'torch dev ms':>13}{'ratio':>7}"
          f"{'ours fwd ms':>13}{'torch+copy ms':>15}")
    # (size, device repeats, forward repeats, per-kernel breakdown, seconds it may take on an H200)
    plans = [(timed, repeat, 1 if args.simulate else 7, True, 20)]
    if not args.skip_175b:                       # ~10 GB of random weights, ~35 GB of intermediates
        plans.append((big, 3, 1, False, 0 if args.simulate else 120))
    for (label, cfg, T), n, n_fwd, breakdown, need_s in plans:
        if not time_left(need_s):
            result["skipped"].append(f"timing {label}: time budget")
            continue
        row = bench(label, cfg, T, n, n_fwd, breakdown)
        result["timing"].append(row)
        print(f"{label:<40}{row['ours_device_ms']:>12.3f}{row['torch_device_ms']:>13.3f}"
              f"{row['device_ratio']:>7.2f}"
              f"{row['ours_forward_ms']:>13.1f}{row['torch_with_copies_ms']:>15.1f}")
        for name, ms in sorted(row.get("kernels_ms", {}).items(), key=lambda kv: -kv[1]):
            print(f"    {name:<36}{ms:>12.3f}")

    if not args.simulate and result["timing"]:
        andrea = result["timing"][0]
        result["targets"] = {"andrea_device_le_2ms": andrea["ours_device_ms"] <= TARGET_MS,
                             "andrea_not_slower_than_torch": andrea["device_ratio"] <= 1.0,
                             "gpt3_block_completed": len(result["timing"]) > 1}
        print(f"\ntargets: {result['targets']}")
    result["seconds"] = time.perf_counter() - t_start
    path = Path(args.json) if args.json else (
        Path(os.environ["OUT"]) / "gpu_check.json" if os.environ.get("OUT") else
        Path(tempfile.gettempdir()) / "gpu_check-simulated.json" if args.simulate else
        ROOT / "benchmarks" / "results" / f"gpu_check-{time.strftime('%Y%m%d-%H%M')}.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    from compute import safe_io

    safe_io.write_file(path, json.dumps(result, indent=1, default=str))
    for skipped in result["skipped"]:
        print(f"skipped: {skipped}")
    print(f"\nwrote {path} ({result['seconds']:.0f} s)")
    return 0 if all(c.get("ok") for c in result["checks"]) else 1


if __name__ == "__main__":
    sys.exit(main(ARGS))
