"""GPU check for a borrowed machine: the `cuda` backend's correctness, then its speed against torch.

    python benchmarks/gpu_check.py --commit <sha>            # on a GPU: < 5 minutes on an H200
    python benchmarks/gpu_check.py --simulate                # here: the same stages, toy sizes, numba's simulator

Needs only numpy, numba, numba-cuda and torch (no Qt, no app/ or widgets/; the lent machine has no
more). Every stage runs wrapped: a failure is recorded with its traceback and the next stage runs,
and the JSON is rewritten as each stage finishes ($OUT/gpu_check.json when $OUT is set, else
--json, else benchmarks/results/), so a run cut short still leaves what it measured.

Stages, in order (numba before any torch GPU work, so a torch problem cannot hide a numba one):
  provenance        GPU, driver, CUDA, numba, numba-cuda, torch, cupy, tile sizes, the commit passed in
  numba_correct     the numba path against the float64 CPU reference, every Trace name: toy, andrea-120m
                    dims at T=256 and T=1024, a LLaMA-family model (GQA, RoPE, SwiGLU, a window) at T=256
  registers         registers, shared and local memory per kernel, as compiled here
  cublas_correct    the same checks on the cuBLAS path (torch's GEMMs on the backend's own buffers)
  block_timing      one andrea-120m block, T=1024, every intermediate on the device: numba path, cuBLAS
                    path, torch FP32 eager (same intermediates), torch TF32, torch SDPA (no T x T
                    intermediates: a floor); CUDA events, >= 1 s warm-up, median; per-kernel times
  copies            a pinned (and a pageable) host copy of the same bytes as one block's intermediates
  station_latency   12 layers x T=1024: forward() to the attention station's data on the host (one
                    head's pattern and masked scores) - only what is shown crosses the bus
  incremental       forward(..., reuse=trace): append / replace the last token, 12 layers x T=1024, against
                    a full pass of the same tokens (both paths), and equal to it
  app_path          typing at andrea-120m, 12 layers, T 1000 -> 1024: the runner's forward(..., reuse=) and what
                    the Scores and Softmax stations read, per append: ms, bytes copied vs drawn, new device
                    buffers (none after the first), against a full pass
  memory            device memory of one pass, of a live Trace, and of the pool after the Trace is dropped
  gpt3_block        one gpt3-175b block at T=2048 (its vocabulary cut to 1024: the block never reads it)
  summary           the targets of issue 19, true or false
"""
from __future__ import annotations

import argparse
import collections
import json
import math
import os
import platform
import statistics
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {"block_vs_torch_eager": 1.0, "station_ms": 8.0, "gpt3_block_ms": 200.0}


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--commit", default="unknown", help="the commit being checked (.git does not travel)")
    ap.add_argument("--simulate", action="store_true",
                    help="numba's CUDA simulator, toy sizes, torch on the CPU: checks this script, not a GPU")
    ap.add_argument("--repeat", type=int, default=30, help="timed runs per measurement (median)")
    ap.add_argument("--json", help="results file (default $OUT/gpu_check.json, else benchmarks/results/)")
    ap.add_argument("--skip-gpt3", action="store_true", help="leave out the gpt3-175b block")
    ap.add_argument("--budget-s", type=float, default=270.0, help="skip the stages left after this many seconds")
    ap.add_argument("--stages", help="run only these stages (comma-separated names, e.g. for a rerun); "
                                     "provenance and summary always run")
    return ap.parse_args(argv)


ARGS = parse_args() if __name__ == "__main__" else None
if ARGS is not None:
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0") and not ARGS.simulate:
        print("refusing to run: NUMBA_ENABLE_CUDASIM is set, so these would be the simulator's numbers "
              "(unset it on a GPU, or pass --simulate to check the script itself)")
        sys.exit(2)
    if ARGS.simulate:
        os.environ["NUMBA_ENABLE_CUDASIM"] = "1"      # before numba is first imported
        sys.setswitchinterval(1e-4)
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from numba import cuda  # noqa: E402

from compute import PRESETS, Config, Weights, forward, get_backend  # noqa: E402
from compute.backends import cuda as cuda_backend  # noqa: E402
from cuda_kernels import SIMULATOR, elementwise, products, rows  # noqa: E402


class Report:
    """The JSON of the run, rewritten after every stage."""

    def __init__(self, path: Path, t_start: float, budget_s: float):
        self.path, self.t_start, self.budget_s = path, t_start, budget_s
        self.data: dict = {"stages": {}, "order": []}

    def elapsed(self) -> float:
        return time.perf_counter() - self.t_start

    def write(self) -> None:
        self.data["seconds"] = round(self.elapsed(), 2)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        from compute import safe_io  # the project's one writer (checked, then replaced)

        safe_io.write_file(self.path, json.dumps(self.data, indent=1, default=_jsonable))

    def stage(self, name: str, fn, *args, need_s: float = 0.0):
        """Run one stage: its result (a dict) or its error goes into the JSON, which is written."""
        only = self.data.get("args", {}).get("stages")
        if only and name not in ("provenance", "summary") and name not in only.split(","):
            return None
        entry = {"ok": False}
        if self.elapsed() + need_s > self.budget_s:
            entry.update(skipped=f"time budget ({self.elapsed():.0f} s used of {self.budget_s:.0f} s)")
            print(f"[{name}] skipped: {entry['skipped']}", flush=True)
        else:
            t0 = time.perf_counter()
            print(f"[{name}] ...", flush=True)
            try:
                if os.environ.get("QKV_GPU_CHECK_BREAK") == name:   # tests: a stage that fails
                    raise RuntimeError(f"stage {name} broken on purpose (QKV_GPU_CHECK_BREAK)")
                entry["result"] = fn(*args)
                entry["ok"] = bool(entry["result"].get("ok", True)) if isinstance(entry["result"], dict) else True
            except Exception as exc:  # noqa: BLE001 - a borrowed machine: record it, go on
                entry["error"] = f"{type(exc).__name__}: {exc}"
                entry["traceback"] = traceback.format_exc()[-4000:]
                print(f"[{name}] FAILED: {entry['error']}", flush=True)
            entry["seconds"] = round(time.perf_counter() - t0, 2)
            print(f"[{name}] {'ok' if entry['ok'] else 'NOT OK'} ({entry['seconds']} s)", flush=True)
        self.data["stages"][name] = entry
        self.data["order"].append(name)
        self.write()
        return entry.get("result")


def _jsonable(x):
    if isinstance(x, (np.floating, np.integer)):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    return str(x)


# -- shared pieces -------------------------------------------------------------------------------------
def scaled_error(actual, expected) -> float:
    """max |a - e| / max(1, max |e|) over finite entries (tests/compute/helpers.py); inf when the
    infinities differ."""
    a, e = np.asarray(actual, np.float64), np.asarray(expected, np.float64)
    fin = np.isfinite(e)
    if a.shape != e.shape or not np.array_equal(fin, np.isfinite(a)) or not np.array_equal(a[~fin], e[~fin]):
        return float("inf")
    if not fin.any():
        return 0.0
    return float(np.abs(a[fin] - e[fin]).max()) / max(1.0, float(np.abs(e[fin]).max()))


def llama_like(d_model: int, n_heads: int, n_kv: int, d_head: int, d_mlp: int, n_ctx: int, n_layers: int = 2):
    return Config(d_model=d_model, n_heads=n_heads, n_kv_heads=n_kv, d_head=d_head, d_mlp=d_mlp, n_ctx=n_ctx,
                  d_vocab=512, n_layers=n_layers, norm="rmsnorm", positions="rope", rope_theta=1e5, mlp="swiglu",
                  attn_bias=False, mlp_bias=False, tied_embeddings=False, windows=(None, 64)[:n_layers])


def check_sizes(simulate: bool):
    """(label, config, T, tolerance) for the correctness stages."""
    toy = PRESETS["toy"]
    if simulate:
        return [("toy T=12", toy, 12, 5e-6),
                ("llama-like GQA+RoPE+SwiGLU+window, T=10", Config(
                    d_model=8, n_heads=4, n_kv_heads=2, d_head=4, d_mlp=10, n_ctx=12, d_vocab=16, n_layers=2,
                    norm="rmsnorm", positions="rope", mlp="swiglu", attn_bias=False, mlp_bias=False,
                    tied_embeddings=False, windows=(None, 3)), 10, 5e-6)]
    andrea = PRESETS["andrea-120m"].replace(n_layers=1)
    smol = llama_like(576, 9, 3, 64, 1536, 1024)                            # SmolLM2-135M's dimensions
    return [("toy T=16", toy, 16, 5e-6), ("andrea-120m T=256", andrea, 256, 2e-5),
            ("andrea-120m T=1024", andrea, 1024, 5e-5), ("smollm2-135m dims, 2 layers (window 64), T=256", smol,
                                                        256, 2e-5)]


_REFS: dict = {}


def reference(cfg, weights, tokens):
    key = (cfg, weights.uid, tuple(tokens))
    if key not in _REFS:
        _REFS[key] = forward(cfg, weights, tokens, backend="reference")
    return _REFS[key]


def correctness(gemm: str, simulate: bool) -> dict:
    backend = get_backend("cuda")
    backend.gemm = gemm
    rows_out, ok = [], True
    for label, cfg, T, tol in check_sizes(simulate):
        weights = Weights.random(cfg, seed=0, bias_std=0.02)
        tokens = np.random.default_rng(1).integers(0, cfg.d_vocab, T)
        got = forward(cfg, weights, tokens, backend="cuda")
        if got.backend != "cuda":
            rows_out.append({"size": label, "ok": False, "error": got.notice})
            ok = False
            continue
        ref = reference(cfg, weights, tokens)
        errors = {str(key): scaled_error(got[key], ref[key]) for key in got.keys()}
        head = scaled_error(got.part("pattern", 0, 0), ref["pattern", 0][0])
        worst = max(errors, key=errors.get)
        row = {"size": label, "T": T, "tol": tol, "worst": errors[worst], "worst_name": worst,
               "part_pattern_head0": head, "ok": errors[worst] <= tol and head <= tol, "label": got.backend_label}
        ok &= row["ok"]
        rows_out.append(row)
        print(f"    {label:<52} worst {errors[worst]:.3g} at {worst}  {'ok' if row['ok'] else 'NOT OK'}")
        del got
        backend.release()
    return {"ok": ok, "gemm": backend.gemm_path(), "checks": rows_out}


def provenance(args) -> dict:
    import numba

    info = {"commit": args.commit, "date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "host": platform.node(),
            "python": platform.python_version(), "numpy": np.__version__, "numba": numba.__version__,
            "simulated": SIMULATOR, "cpu": platform.processor() or platform.machine(),
            "tiles": {"TILE": products.TILE, "REG": products.REG, "ROW_THREADS": rows.ROW_THREADS}}
    for module in ("numba_cuda", "torch", "cupy"):
        try:
            info[module] = __import__(module).__version__
        except Exception as exc:  # noqa: BLE001 - provenance is best effort
            info[module] = f"not importable: {type(exc).__name__}"
    backend = get_backend("cuda")
    backend.gemm = "numba"                           # no torch GPU work before the numba checks
    info["backend_label"] = backend.label()
    info["cuda_available"] = backend.available()
    if not SIMULATOR:
        dev = cuda.get_current_device()
        name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
        info.update(gpu=name, compute_capability=dev.compute_capability,
                    multiprocessors=dev.MULTIPROCESSOR_COUNT)
        try:
            info["driver_cuda_version"] = cuda.cudadrv.driver.driver.get_version()
        except Exception as exc:  # noqa: BLE001
            info["driver_cuda_version"] = str(exc)
        try:
            info["runtime_cuda_version"] = cuda.runtime.get_version()
        except Exception as exc:  # noqa: BLE001
            info["runtime_cuda_version"] = str(exc)
        try:
            import subprocess

            smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm",
                                  "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
            info["nvidia_smi"] = smi.stdout.strip()
        except Exception as exc:  # noqa: BLE001
            info["nvidia_smi"] = str(exc)
    return info


def registers() -> dict:
    """Registers, shared and local memory per kernel, for every signature compiled so far."""
    out = {}
    for module in (products, rows, elementwise):
        for name in dir(module):
            k = getattr(module, name)
            if not hasattr(k, "py_func") or name.startswith("_"):
                continue
            if SIMULATOR:
                out[name] = "simulator: not compiled"
                continue
            try:
                regs = k.get_regs_per_thread()
                out[name] = {"registers": {str(s): r for s, r in regs.items()},
                             "shared_bytes": {str(s): v for s, v in k.get_shared_mem_per_block().items()},
                             "local_bytes": {str(s): v for s, v in k.get_local_mem_per_thread().items()}}
            except Exception as exc:  # noqa: BLE001
                out[name] = f"{type(exc).__name__}: {exc}"
    return {"kernels": out}


# -- timing --------------------------------------------------------------------------------------------
def _torch():
    import torch

    return torch


def device_timer(fn, repeat: int, warm_s: float = 1.0) -> list[float]:
    """ms per call of fn (which returns after enqueueing on the GPU or after finishing): CUDA events
    around each call on the current torch stream plus a device synchronisation; >= warm_s of
    warm-up first. Under the simulator: wall clock."""
    t0 = time.perf_counter()
    n = 0
    while n < (1 if SIMULATOR else 3) or time.perf_counter() - t0 < (0.0 if SIMULATOR else warm_s):
        fn()
        n += 1
    times = []
    for _ in range(repeat):
        if SIMULATOR:
            t = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t) * 1e3)
            continue
        torch = _torch()
        torch.cuda.synchronize()
        cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        cuda.synchronize()                          # numba's streams too
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return times


def wall_timer(fn, repeat: int, warm_s: float = 1.0) -> list[float]:
    t0, n = time.perf_counter(), 0
    while n < (1 if SIMULATOR else 2) or time.perf_counter() - t0 < (0.0 if SIMULATOR else warm_s):
        fn()
        n += 1
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return times


def _stats(times: list[float]) -> dict:
    return {"median_ms": statistics.median(times), "min_ms": min(times), "max_ms": max(times), "n": len(times)}


def torch_side(cfg, weights, tokens):
    """torch eager on the GPU (the CPU under the simulator) computing the same intermediates, and the
    SDPA floor (no T x T intermediates)."""
    torch = _torch()
    import torch.nn.functional as F

    from benchmarks.torch_block import block_weights, torch_block

    device = "cpu" if SIMULATOR else "cuda"
    t_tokens = torch.as_tensor(tokens, device=device)
    W_E = torch.as_tensor(weights["embed.W_E"].copy(), device=device)
    W_pos = torch.as_tensor(weights["pos_embed.W_pos"].copy(), device=device)
    W = block_weights(weights, 0, device=device)
    ln_f = [torch.as_tensor(weights[n].copy(), device=device) for n in ("ln_final.w", "ln_final.b")]

    @torch.no_grad()
    def eager():
        embed = W_E[t_tokens]                                               # [T, d_model]
        out = torch_block(embed + W_pos[: len(tokens)], W, cfg.causal, cfg.scale_scores)
        out["ln_final_out"] = F.layer_norm(out["resid_post"], (cfg.d_model,), *ln_f, eps=1e-5)
        out["embed"] = embed
        return out

    @torch.no_grad()
    def sdpa():
        x = W_E[t_tokens] + W_pos[: len(tokens)]                            # [T, d_model]
        h = F.layer_norm(x, (cfg.d_model,), W["ln1.w"], W["ln1.b"], eps=1e-5)
        q = (torch.einsum("td,hde->hte", h, W["attn.W_Q"]) + W["attn.b_Q"][:, None])  # [H, T, dh]
        k = (torch.einsum("td,hde->hte", h, W["attn.W_K"]) + W["attn.b_K"][:, None])
        v = (torch.einsum("td,hde->hte", h, W["attn.W_V"]) + W["attn.b_V"][:, None])
        z = F.scaled_dot_product_attention(q[None], k[None], v[None], is_causal=cfg.causal)[0]   # [H, T, dh]
        x = x + torch.einsum("hte,hed->td", z, W["attn.W_O"]) + W["attn.b_O"]
        h = F.layer_norm(x, (cfg.d_model,), W["ln2.w"], W["ln2.b"], eps=1e-5)
        x = x + F.gelu(h @ W["mlp.W_in"] + W["mlp.b_in"], approximate="tanh") @ W["mlp.W_out"] + W["mlp.b_out"]
        return F.layer_norm(x, (cfg.d_model,), *ln_f, eps=1e-5)

    return eager, sdpa


def kernel_breakdown(backend, cfg, weights, tokens) -> dict:
    """ms per numba kernel (summed over its launches in one pass), CUDA events on the launch's own
    stream; the rest of the device time is the products (cuBLAS) and gaps."""
    originals = {(m, n): getattr(m, n) for m in (products, rows, elementwise) for n in dir(m)
                 if n.startswith("launch_")}
    events = []
    try:
        for (module, name), fn in originals.items():
            short = name.removeprefix("launch_")

            def timed(*args, _fn=fn, _name=short, **kw):
                stream = kw.get("stream", 0)
                if SIMULATOR:
                    t = time.perf_counter()
                    _fn(*args, **kw)
                    events.append((_name, (time.perf_counter() - t) * 1e3))
                    return
                start, end = cuda.event(), cuda.event()
                start.record(stream)
                _fn(*args, **kw)
                end.record(stream)
                events.append((_name, (start, end)))
            setattr(module, name, timed)
        backend.run_device(cfg, weights, tokens)
    finally:
        for (module, name), fn in originals.items():
            setattr(module, name, fn)
    totals = collections.Counter()
    for name, ev in events:
        totals[name] += ev if SIMULATOR else ev[0].elapsed_time(ev[1])
    return dict(totals)


def block_timing(args) -> dict:
    torch = _torch()
    cfg = PRESETS["andrea-120m"].replace(n_layers=1) if not SIMULATOR else Config(
        d_model=8, n_heads=2, d_head=4, n_ctx=8, d_vocab=16, n_layers=1)
    T = 1024 if not SIMULATOR else 8
    repeat = args.repeat if not SIMULATOR else 1
    weights = Weights.random(cfg, seed=0, bias_std=0.02)
    tokens = np.random.default_rng(1).integers(0, cfg.d_vocab, T)
    backend = get_backend("cuda")
    eager, sdpa = torch_side(cfg, weights, tokens)
    out = {"size": f"{cfg.name or 'toy'} one block T={T}", "T": T}
    ref_pattern = eager()["pattern"].cpu().numpy()
    for gemm in ("numba", "cublas"):
        backend.gemm = gemm
        run = backend.run_device(cfg, weights, tokens)
        out[f"{gemm}_pattern_vs_torch"] = scaled_error(run.d(("pattern", 0)).copy_to_host(), ref_pattern)
        del run
        times = device_timer(lambda: backend.run_device(cfg, weights, tokens), repeat)
        out[gemm] = _stats(times)
        out[f"{gemm}_kernels_ms"] = kernel_breakdown(backend, cfg, weights, tokens)
        out[f"{gemm}_device_bytes"] = backend.device_bytes()
        backend.release()
    tf32 = torch.backends.cuda.matmul.allow_tf32
    try:
        torch.backends.cuda.matmul.allow_tf32 = False
        out["torch_eager_fp32"] = _stats(device_timer(eager, repeat))
        out["torch_sdpa_fp32"] = _stats(device_timer(sdpa, repeat))
        torch.backends.cuda.matmul.allow_tf32 = True
        out["torch_eager_tf32"] = _stats(device_timer(eager, repeat))
    finally:
        torch.backends.cuda.matmul.allow_tf32 = tf32
    peer = out["torch_eager_fp32"]["median_ms"]
    for gemm in ("numba", "cublas"):
        out[f"{gemm}_vs_torch_eager"] = out[gemm]["median_ms"] / peer
        print(f"    {gemm:<8} {out[gemm]['median_ms']:8.3f} ms  ({out[f'{gemm}_vs_torch_eager']:.2f}x torch eager)")
    for key in ("torch_eager_fp32", "torch_eager_tf32", "torch_sdpa_fp32"):
        print(f"    {key:<18} {out[key]['median_ms']:8.3f} ms")
    out["intermediate_bytes"] = sum(t.numel() * t.element_size() for t in eager().values())
    return out


def copies(args) -> dict:
    """The same bytes as one block's intermediates, device -> pinned host and -> pageable host."""
    torch = _torch()
    cfg = PRESETS["andrea-120m"].replace(n_layers=1)
    T = 1024 if not SIMULATOR else 8
    nbytes = cuda_backend.run_bytes(cfg, T)
    if SIMULATOR:
        return {"skipped": "simulator: no bus to measure", "bytes": nbytes}
    src = torch.empty(nbytes // 4, dtype=torch.float32, device="cuda")
    pinned = torch.empty(nbytes // 4, dtype=torch.float32, pin_memory=True)
    pageable = torch.empty(nbytes // 4, dtype=torch.float32)
    out = {"bytes": nbytes}
    for label, dst in (("pinned", pinned), ("pageable", pageable)):
        times = device_timer(lambda d=dst: d.copy_(src, non_blocking=False), max(5, args.repeat // 3), warm_s=0.3)
        out[label] = _stats(times)
        out[f"{label}_GBps"] = nbytes / (out[label]["median_ms"] * 1e-3) / 1e9
        print(f"    {label:<9} {out[label]['median_ms']:8.2f} ms for {nbytes / 1e6:.0f} MB "
              f"({out[f'{label}_GBps']:.1f} GB/s)")
    head = 4 * T * T
    out["one_head_map_bytes"] = head
    out["one_head_map_pinned_ms_est"] = head / (out["pinned_GBps"] * 1e9) * 1e3
    return out


def station_latency(args) -> dict:
    """forward() with every layer, then what the attention station draws (pattern and masked scores of
    one head of the last layer) on the host; both product paths."""
    cfg = PRESETS["andrea-120m"] if not SIMULATOR else Config(d_model=8, n_heads=2, d_head=4, n_ctx=8,
                                                              d_vocab=16, n_layers=3)
    T = 1024 if not SIMULATOR else 8
    weights = Weights.random(cfg, seed=0, bias_std=0.02)
    rng = np.random.default_rng(2)
    backend = get_backend("cuda")
    out = {"size": f"{cfg.name or 'toy'} {cfg.n_layers} layers T={T}"}
    held: list = []
    for gemm in ("numba", "cublas"):
        backend.gemm = gemm

        def edit():
            tokens = rng.integers(0, cfg.d_vocab, T)                         # a new edit each time
            trace = forward(cfg, weights, tokens, backend="cuda", check_memory=False)
            assert trace.backend == "cuda", trace.notice
            layer, head = cfg.n_layers - 1, 0
            trace.part("pattern", layer, head)                               # [T, T]
            trace.part("attn_scores", layer, head)                           # [T, T] (the mask's hatching)
            held[:] = [trace]                                                # the Trace on screen stays alive
            return trace

        times = wall_timer(edit, max(5, args.repeat // 3) if not SIMULATOR else 1)
        trace = held[0]
        out[gemm] = _stats(times)
        out[f"{gemm}_forward_timing_ms"] = dict(trace.timing_ms)
        out[f"{gemm}_copied_bytes"] = trace._arrays["pattern", 0].make.func.__self__.copied_bytes
        print(f"    {gemm:<8} edit -> station data {out[gemm]['median_ms']:8.2f} ms "
              f"({out[f'{gemm}_copied_bytes'] / 1e6:.1f} MB copied)")
        held.clear()
        del trace
        backend.release()
    best = min(out["numba"]["median_ms"], out["cublas"]["median_ms"])
    out["ok"] = True
    out["best_ms"] = best
    return out


def incremental(args) -> dict:
    """forward(..., reuse=trace) on the device: appending or replacing the last token at andrea-120m,
    12 layers, T=1024 (rows < p copied device to device, the row-wise stages on the new row), against
    a full pass of the same tokens, alternated; the incremental Trace equals the full one."""
    cfg = PRESETS["andrea-120m"] if not SIMULATOR else Config(d_model=8, n_heads=2, d_head=4, n_ctx=8,
                                                              d_vocab=16, n_layers=3)
    T = 1024 if not SIMULATOR else 8
    weights = Weights.random(cfg, seed=0, bias_std=0.02)
    tokens = np.random.default_rng(3).integers(0, cfg.d_vocab, T)
    backend = get_backend("cuda")
    out = {"size": f"{cfg.name or 'toy'} {cfg.n_layers} layers T={T}", "ok": True}
    repeat = max(5, args.repeat // 3) if not SIMULATOR else 1
    for gemm in ("numba", "cublas"):
        backend.gemm = gemm
        base = forward(cfg, weights, tokens[:-1], backend="cuda", check_memory=False)   # the Trace on screen
        res: dict = {}
        for edit, new in (("append", tokens), ("replace_last", np.r_[tokens[:-2], (tokens[-2] + 1) % cfg.d_vocab])):
            inc_ms, full_ms = [], []
            for _ in range(repeat + 1):
                t0 = time.perf_counter()
                full = forward(cfg, weights, new, backend="cuda", check_memory=False)
                full.part("pattern", cfg.n_layers - 1, 0)                  # what the station draws
                full_ms.append((time.perf_counter() - t0) * 1e3)
                del full
                t0 = time.perf_counter()
                inc = forward(cfg, weights, new, backend="cuda", check_memory=False, reuse=base)
                inc.part("pattern", cfg.n_layers - 1, 0)
                inc_ms.append((time.perf_counter() - t0) * 1e3)
            full = forward(cfg, weights, new, backend="cuda", check_memory=False)
            worst = max(scaled_error(inc[key], full[key]) for key in full.keys() if key != "logits")
            res[edit] = {"reused_rows": inc.reused_rows, "incremental": _stats(inc_ms[1:]),
                         "full": _stats(full_ms[1:]), "worst_scaled_error_vs_full": worst}
            res[edit]["ratio"] = res[edit]["incremental"]["median_ms"] / res[edit]["full"]["median_ms"]
            out["ok"] = out["ok"] and inc.reused_rows > 0 and worst <= 1e-5
            print(f"    {gemm:<8} {edit:<13} incremental {res[edit]['incremental']['median_ms']:8.2f} ms, "
                  f"full {res[edit]['full']['median_ms']:8.2f} ms, worst error {worst:.2g}")
            del inc, full
        out[gemm] = res
        del base
        backend.release()
    return out


def app_path(args) -> dict:
    """What the app does for each typed token, with a growing T (andrea-120m, 12 layers, T 1000 -> 1024):
    the runner's pass, forward(..., reuse=the Trace on screen), then what the Scores and Softmax stations
    read of it (one head's four maps, one query's row: Trace.read, as app/runner.make_ahead and
    widgets/views.py do); per append its time, the bytes copied to the host (Trace.copied_bytes) against
    the bytes drawn, the device buffers allocated (cudaMalloc: the pool's misses) and the rows reused;
    against a full pass of the same tokens with the same reads. Through app/ and widgets/ themselves
    (SyncRunner, station_panels) when Qt is installed; without it (the lent machine) the same calls
    they make, named in the result."""
    import gc

    from compute.stations import STATIONS  # noqa: F401 - the page table the stations come from

    cfg = PRESETS["andrea-120m"] if not SIMULATOR else Config(d_model=8, n_heads=2, d_head=4, n_ctx=16,
                                                              d_vocab=16, n_layers=2)
    T0, T1 = (1000, 1024) if not SIMULATOR else (5, 8)
    weights = Weights.random(cfg, seed=0, bias_std=0.02)
    tokens = np.random.default_rng(4).integers(0, cfg.d_vocab, T1)
    layer, head = cfg.n_layers - 1, 0
    maps = ("attn_scores_raw", "attn_scores_scaled", "attn_scores", "pattern")
    try:
        from widgets.views import station_panels
        through = "app/ and widgets/ (station_panels)"
    except Exception as exc:  # noqa: BLE001 - no Qt on the lent machine
        station_panels = None
        through = f"Trace.read as widgets/views.py calls it (widgets not importable: {type(exc).__name__})"

    def draw(trace, T) -> int:
        """The Scores station (one head's maps) and the Softmax row of the last query: bytes drawn."""
        if station_panels is not None:
            from app.values import Inputs, LabResult, Selection

            inputs = Inputs(config=cfg, tokens=tuple(int(t) for t in trace.tokens), backend="cuda")
            result = LabResult(request_id=0, inputs=inputs, trace=trace, weights=weights,
                               labels=tuple(str(t) for t in range(T)), compute_ms=0.0)
            sel = Selection(layer=layer, head=head, query=T - 1)
            try:
                panels = station_panels("scores", result, sel) + station_panels("softmax", result, sel)
                return sum(p.values.nbytes for p in panels)
            except Exception:  # noqa: BLE001 - an app this script cannot drive: the reads below
                pass
        drawn = sum(trace.read(n, layer, head=head).nbytes for n in maps)   # [T, T] x4
        drawn += sum(trace.read(n, layer, head=head, rows=T - 1).nbytes for n in ("attn_scores", "pattern"))
        return drawn

    backend = get_backend("cuda")
    out = {"size": f"{cfg.name or 'toy'} {cfg.n_layers} layers T={T0}->{T1}", "through": through, "ok": True}
    for gemm in ("numba", "cublas"):
        backend.gemm = gemm
        backend.release()
        gc.collect()
        on_screen = forward(cfg, weights, tokens[:T0], backend="cuda", check_memory=False)
        draw(on_screen, T0)
        rows = []
        for T in range(T0 + 1, T1 + 1):
            misses = backend.pool.misses
            t0 = time.perf_counter()
            trace = forward(cfg, weights, tokens[:T], backend="cuda", check_memory=False, reuse=on_screen)
            drawn = draw(trace, T)
            ms = (time.perf_counter() - t0) * 1e3
            rows.append({"T": T, "ms": ms, "reused_rows": trace.reused_rows, "copied_bytes": trace.copied_bytes,
                         "drawn_bytes": drawn, "new_device_buffers": backend.pool.misses - misses})
            on_screen = trace                                               # the runner keeps the one on screen
        full_ms = []
        for _ in range(3 if not SIMULATOR else 1):
            t0 = time.perf_counter()
            full = forward(cfg, weights, tokens, backend="cuda", check_memory=False)
            draw(full, T1)
            full_ms.append((time.perf_counter() - t0) * 1e3)
            del full
        later = rows[1:]
        res = {"appends": rows, "append_median_ms": statistics.median(r["ms"] for r in rows),
               "full_pass_median_ms": statistics.median(full_ms),
               "new_device_buffers_after_the_first_append": sum(r["new_device_buffers"] for r in later),
               "worst_copied_over_drawn": max(r["copied_bytes"] / max(r["drawn_bytes"], 1) for r in rows)}
        res["append_vs_full"] = res["append_median_ms"] / res["full_pass_median_ms"]
        out[gemm] = res
        out["ok"] = (out["ok"] and all(r["reused_rows"] == r["T"] - 1 for r in rows)
                     and res["worst_copied_over_drawn"] <= 1.5)
        print(f"    {gemm:<8} append {res['append_median_ms']:8.2f} ms vs full {res['full_pass_median_ms']:8.2f} ms, "
              f"copied/drawn <= {res['worst_copied_over_drawn']:.2f}, new buffers after the first append: "
              f"{res['new_device_buffers_after_the_first_append']}")
        del on_screen, trace
        backend.release()
    return out


def memory_stage(args) -> dict:
    """What one pass holds on the device, and that a dropped Trace's buffers are reused."""
    import gc

    cfg = PRESETS["andrea-120m"] if not SIMULATOR else Config(d_model=8, n_heads=2, d_head=4, n_ctx=8,
                                                              d_vocab=16, n_layers=3)
    T = 1024 if not SIMULATOR else 8
    weights = Weights.random(cfg, seed=0)
    backend = get_backend("cuda")
    backend.release()
    gc.collect()

    def free_now():
        if SIMULATOR:
            return None
        cuda.current_context().deallocations.clear()
        return cuda.current_context().get_memory_info()[0]

    before = free_now()
    tokens = np.random.default_rng(3).integers(0, cfg.d_vocab, T)
    a = forward(cfg, weights, tokens, backend="cuda", check_memory=False)
    one = backend.device_bytes()
    after_one = free_now()
    b = forward(cfg, weights, tokens, backend="cuda", check_memory=False)
    two = backend.device_bytes()
    del a, b
    gc.collect()
    c = forward(cfg, weights, tokens, backend="cuda", check_memory=False)
    reused = backend.device_bytes()
    del c
    gc.collect()
    out = {"size": f"{cfg.n_layers} layers T={T}", "run_bytes_computed": cuda_backend.run_bytes(cfg, T),
           "weights_bytes_computed": cuda_backend.weights_bytes(cfg), "after_one_trace": one,
           "after_two_live_traces": two, "after_both_dropped_and_a_third": reused,
           "device_free_before": before, "device_free_after_one": after_one,
           "ok": reused["live_runs"] + reused["free_pool"] <= two["live_runs"] + two["free_pool"]}
    backend.release()
    return out


def gpt3_block(args) -> dict:
    """One gpt3-175b block at T=2048 on the device (cuBLAS path; numba too when time allows)."""
    torch = _torch()
    if SIMULATOR:
        cfg, T = Config(d_model=16, n_heads=4, d_head=4, n_ctx=8, d_vocab=16, n_layers=1), 8
    else:
        cfg, T = PRESETS["gpt3-175b"].replace(n_layers=1, d_vocab=1024), 2048
    weights = Weights.random(cfg, seed=0, bias_std=0.02)
    tokens = np.random.default_rng(1).integers(0, cfg.d_vocab, T)
    backend = get_backend("cuda")
    out = {"size": f"gpt3-175b dims one block T={T} (d_vocab {cfg.d_vocab})",
           "run_bytes": cuda_backend.run_bytes(cfg, T)}
    paths = ["cublas", "numba"]
    for gemm in paths:
        if gemm == "numba" and ARGS is not None and REPORT.elapsed() > ARGS.budget_s - 40:
            out["numba"] = "skipped: time budget"
            continue
        backend.gemm = gemm
        times = device_timer(lambda: backend.run_device(cfg, weights, tokens), 3 if not SIMULATOR else 1, warm_s=0.0)
        out[gemm] = _stats(times)
        print(f"    {gemm:<8} {out[gemm]['median_ms']:9.1f} ms")
        backend.release()
    eager, _ = torch_side(cfg, weights, tokens)
    tf32 = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        out["torch_eager_fp32"] = _stats(device_timer(eager, 3 if not SIMULATOR else 1, warm_s=0.0))
    finally:
        torch.backends.cuda.matmul.allow_tf32 = tf32
    print(f"    torch eager fp32 {out['torch_eager_fp32']['median_ms']:9.1f} ms")
    if not SIMULATOR:
        torch.cuda.empty_cache()
    return out


def summary(report: Report) -> dict:
    st = report.data["stages"]

    def res(name):
        return (st.get(name) or {}).get("result") or {}

    block, station, gpt3 = res("block_timing"), res("station_latency"), res("gpt3_block")
    out = {"correct_numba": st.get("numba_correct", {}).get("ok"),
           "correct_cublas": st.get("cublas_correct", {}).get("ok"), "simulated": SIMULATOR}
    if block:
        best = min(block.get("numba_vs_torch_eager", math.inf), block.get("cublas_vs_torch_eager", math.inf))
        out["block_best_vs_torch_eager"] = best
        out["block_le_1x_torch_eager"] = best <= TARGETS["block_vs_torch_eager"]
    if station:
        out["station_best_ms"] = station.get("best_ms")
        out["station_le_8ms"] = station.get("best_ms", math.inf) <= TARGETS["station_ms"]
    if gpt3 and isinstance(gpt3.get("cublas"), dict):
        out["gpt3_block_ms"] = gpt3["cublas"]["median_ms"]
        out["gpt3_block_le_200ms"] = out["gpt3_block_ms"] <= TARGETS["gpt3_block_ms"]
    out["ok"] = bool(out["correct_numba"]) and bool(out["correct_cublas"])
    return out


REPORT: Report | None = None


def main(args) -> int:
    global REPORT
    t_start = time.perf_counter()
    if not args.simulate and not cuda.is_available():
        print("no GPU here (numba sees none); pass --simulate to check the script itself")
        return 2
    path = Path(args.json) if args.json else (
        Path(os.environ["OUT"]) / "gpu_check.json" if os.environ.get("OUT") else
        Path(tempfile.gettempdir()) / "gpu_check-simulated.json" if args.simulate else
        ROOT / "benchmarks" / "results" / f"gpu_check-{time.strftime('%Y%m%d-%H%M')}.json")
    report = REPORT = Report(path, t_start, args.budget_s)
    report.data["args"] = vars(args)
    report.stage("provenance", provenance, args)
    report.stage("numba_correct", correctness, "numba", args.simulate)       # before any torch GPU work
    report.stage("registers", registers)
    report.stage("cublas_correct", correctness, "cublas", args.simulate)
    report.stage("block_timing", block_timing, args, need_s=0 if SIMULATOR else 40)
    report.stage("copies", copies, args, need_s=0 if SIMULATOR else 10)
    report.stage("station_latency", station_latency, args, need_s=0 if SIMULATOR else 30)
    report.stage("incremental", incremental, args, need_s=0 if SIMULATOR else 30)
    report.stage("app_path", app_path, args, need_s=0 if SIMULATOR else 30)
    report.stage("memory", memory_stage, args, need_s=0 if SIMULATOR else 15)
    if not args.skip_gpt3:
        report.stage("gpt3_block", gpt3_block, args, need_s=0 if SIMULATOR else 90)
    report.stage("summary", summary, report)
    bad = [n for n in report.data["order"] if not report.data["stages"][n]["ok"]]
    print(f"\nwrote {path} ({report.elapsed():.0f} s); stages not ok: {', '.join(bad) or 'none'}")
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main(ARGS))
