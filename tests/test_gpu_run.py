"""benchmarks/gpu_run.py, the one command for a GPU machine, runs end to end here: without a GPU it
runs the GPU tests (each skipped with its reason), skips the check, and writes its JSON."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_gpu_run_script_runs_here_and_says_what_it_skipped(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_ENABLE_CUDASIM", "OUT")}
    run = subprocess.run([sys.executable, "benchmarks/gpu_run.py", "--commit", "abc", "--out", str(tmp_path)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    summary = json.loads((tmp_path / "gpu_run.json").read_text())
    assert summary["commit"] == "abc" and summary["toolkit"] and summary["seconds"] < summary["limit_s"]
    tests = json.loads((tmp_path / "gpu_tests.json").read_text())
    assert tests["tests"] > 100 and tests["failures"] == tests["errors"] == 0
    if not summary["gpu"]["found"]:
        assert tests["skipped"] == tests["tests"]
        # every kernel test skips for want of a GPU; the simulator's own fix skips off the simulator
        assert "no GPU here (NUMBA_ENABLE_CUDASIM=0)" in tests["skip_reasons"]
        assert set(tests["skip_reasons"]) <= {"no GPU here (NUMBA_ENABLE_CUDASIM=0)",
                                              "a fix for numba's CUDA simulator"}
        assert "no GPU here" in summary["steps"]["gpu_check"]["skipped"]
