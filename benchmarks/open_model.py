"""Opening a real model: `compute.real_models.load(key)` in a fresh interpreter, three ways alternated.

    python -m benchmarks.open_model                            # Gemma 3 270M, 3 repeats of each
    python -m benchmarks.open_model --repeat 5 --json benchmarks/results/open-gemma3-cpu-<date>.json

Per repeat, one fresh interpreter each, one after the other on the same machine load:
  cached       the float32 weights read from the lab's cache (compute/loaders/float32_cache.py): a
               warm opening, every one after the first
  dequantized  QKV_LAB_FLOAT32_CACHE=0: every tensor dequantized from the GGUF file and laid out, as
               every opening did before the cache (the peer)
  first        the cache entry removed first: dequantized, then the 1.07 GB entry written (once per file)
The figure is the time of real_models.load alone (the file's sha256 check, header, tokenizer,
weights), not the interpreter's start or the imports. The chunks must be assembled already (any
opening does that). `--cache-dir` runs on another lab cache folder (QKV_LAB_CACHE_DIR).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODES = ("cached", "dequantized", "first")
PROGRAM = ("import sys, time; from compute import real_models; t0 = time.perf_counter(); "
           "real_models.load(sys.argv[1]); print('OPEN', time.perf_counter() - t0)")


def run(key: str, mode: str, env: dict) -> float:
    from compute.loaders import float32_cache, real_models

    env = dict(env)
    if mode == "dequantized":
        env[float32_cache.ENV] = "0"
    if mode == "first":
        os.environ.update({k: v for k, v in env.items() if k == "QKV_LAB_CACHE_DIR"})
        path = real_models.MODELS[key].path
        for entry in float32_cache.folder().glob(float32_cache._stem(path) + "-*.safetensors"):
            entry.unlink()
    out = subprocess.run([sys.executable, "-c", PROGRAM, key], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=900)
    line = next((x for x in out.stdout.splitlines() if x.startswith("OPEN ")), None)
    if line is None:
        raise RuntimeError(f"{mode}: {out.stderr[-2000:]}")
    return float(line.split()[1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="gemma3-270m")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cache-dir", help="the lab's cache folder (QKV_LAB_CACHE_DIR) to run on")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    if args.cache_dir:
        env["QKV_LAB_CACHE_DIR"] = args.cache_dir
    os.environ.update({k: v for k, v in env.items() if k == "QKV_LAB_CACHE_DIR"})
    from compute import real_models

    real_models.MODELS[args.model].prepare()                    # the chunks joined (not timed)
    run(args.model, "cached", env)                              # the entry there, the OS's file cache warm
    times: dict[str, list[float]] = {m: [] for m in MODES}
    for _ in range(args.repeat):
        for mode in MODES:
            times[mode].append(run(args.model, mode, env))
    run(args.model, "cached", env)                              # leave an entry behind
    rows = [{"mode": m, "open_s": statistics.median(t), "open_all_s": t} for m, t in times.items()]
    for row in rows:
        print(f"{args.model:<14}{row['mode']:>12}{row['open_s']:>8.2f} s   {[round(x, 2) for x in row['open_all_s']]}")
    if args.json:
        from benchmarks.compute import machine
        from compute import safe_io

        command = "python -m benchmarks.open_model " + " ".join(sys.argv[1:] if argv is None else argv)
        safe_io.write_file(args.json, json.dumps({"date": time.strftime("%Y-%m-%d %H:%M"), "machine": machine(),
                                                  "command": command, "model": args.model, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
