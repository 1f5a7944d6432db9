"""Start-up: from `python main.py` to the first painted view, warm and cold, against the bare imports.

    python -m benchmarks.startup                       # 3 repeats of each
    python -m benchmarks.startup --repeat 5 --json benchmarks/results/startup-cpu-<date>.json

Three fresh interpreters per repeat, one after the other on the same machine load:
  bare   python -c "import numpy, numba, pyqtgraph, PySide6.QtWidgets"  (the floor: what any
         start of the lab must import)
  warm   python main.py --smoke --clean  with numba's cache filled (a later start)
  cold   the same with an empty numba cache (NUMBA_CACHE_DIR a new folder: the first start)
For warm and cold the figure is the time to the first paint (main.py --smoke prints when its first
full view is drawn), not to the exit (a cold start then finishes compiling before it quits).
Reported: the median of each, and warm − bare, cold − bare (the targets: ≤ 2.5 s and ≤ 5 s).
Python's own bytecode cache is on for all three, as on any machine after the first run (an
environment with PYTHONDONTWRITEBYTECODE set compiled the lab's ~80 modules from source at every
start). `--root PATH` times another checkout (e.g. an older commit, exported to a folder) with the
same interpreter, for a before/after on the same machine load.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BARE = "import numpy, numba, pyqtgraph, PySide6.QtWidgets"


def timed(argv: list[str], env: dict, cwd: Path = ROOT) -> tuple[float, float | None, str]:
    """(wall seconds to exit, seconds to the first paint or None, output)."""
    t0 = time.time()
    run = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    wall = time.time() - t0
    paint = next((float(line.rsplit(" ", 1)[1]) - t0 for line in run.stdout.splitlines()
                  if line.startswith("smoke: first paint at ")), None)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {run.returncode}: {run.stdout[-2000:]}{run.stderr[-2000:]}")
    return wall, paint, run.stdout


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout whose main.py is timed (default: this one)")
    args = ap.parse_args(argv)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["QT_QPA_PLATFORM"] = "offscreen"
    smoke = [sys.executable, str(args.root.resolve() / "main.py"), "--smoke", "--clean"]
    with tempfile.TemporaryDirectory(prefix="qkv-startup-") as tmp:
        warm_cache = Path(tmp) / "warm"
        warm_env = {**env, "NUMBA_CACHE_DIR": str(warm_cache)}
        timed(smoke, warm_env, args.root)                  # fills the warm caches (numba, bytecode, the OS files)
        rows = []
        for k in range(args.repeat):
            bare, _, _ = timed([sys.executable, "-c", BARE], env)
            warm_wall, warm, _ = timed(smoke, warm_env, args.root)
            cold_env = {**env, "NUMBA_CACHE_DIR": str(Path(tmp) / f"cold-{k}")}
            cold_wall, cold, out = timed(smoke, cold_env, args.root)
            row = {"bare_s": round(bare, 2), "warm_first_paint_s": round(warm, 2), "warm_exit_s": round(warm_wall, 2),
                   "cold_first_paint_s": round(cold, 2), "cold_exit_s": round(cold_wall, 2),
                   "load_average": round(os.getloadavg()[0], 1),
                   "first_view": next((line for line in out.splitlines() if line.startswith("smoke: rendered")), "")}
            rows.append(row)
            print(row, flush=True)
    med = {key: round(statistics.median(r[key] for r in rows), 2)
           for key in ("bare_s", "warm_first_paint_s", "cold_first_paint_s", "warm_exit_s", "cold_exit_s")}
    med["warm_minus_bare_s"] = round(med["warm_first_paint_s"] - med["bare_s"], 2)
    med["cold_minus_bare_s"] = round(med["cold_first_paint_s"] - med["bare_s"], 2)
    print("median:", med)
    if args.json:
        from benchmarks.compute import machine
        from compute import safe_io

        command = "python -m benchmarks.startup " + " ".join(sys.argv[1:] if argv is None else argv)
        safe_io.write_file(args.json, json.dumps({"date": time.strftime("%Y-%m-%d %H:%M"), "machine": machine(),
                                                  "command": command, "rows": rows, "median": med}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
