"""benchmarks/gpu_check.py's own machinery, under the simulator at toy sizes: every stage runs and is
written to the JSON, with only what the lent GPU machine has (numpy, numba, numba-cuda, torch; no
Qt, no app/, no safetensors or tokenizers); and it refuses to time the simulator by accident."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "gpu_check.py"
# Run the script with the modules the lent machine lacks made unimportable.
BLOCKED_RUN = r"""
import importlib.abc, runpy, sys
BLOCKED = {"PySide6", "shiboken6", "pyqtgraph", "safetensors", "threadpoolctl", "tokenizers", "gguf",
           "transformers", "huggingface_hub", "app", "widgets", "pytest", "hypothesis", "main"}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{name} is not on the lent machine")
sys.meta_path.insert(0, Block())
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def _run(args, env_extra=None, tmp_path=None):
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_ENABLE_CUDASIM", "OUT")}
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-c", BLOCKED_RUN, str(SCRIPT), *args], cwd=tmp_path or ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


def test_every_stage_runs_and_is_written_as_it_finishes(tmp_path):
    out = tmp_path / "gpu_check.json"
    run = _run(["--simulate", "--commit", "abc1234", "--json", str(out)], tmp_path=tmp_path)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    data = json.loads(out.read_text())
    expected = ["provenance", "numba_correct", "registers", "cublas_correct", "block_timing", "copies",
                "station_latency", "incremental", "app_path", "memory", "gpt3_block", "summary"]
    assert data["order"] == expected                                    # numba's checks before torch's
    for name in expected:
        assert data["stages"][name]["ok"], (name, data["stages"][name])
    prov = data["stages"]["provenance"]["result"]
    assert prov["commit"] == "abc1234" and prov["simulated"] is True and "torch" in prov
    for stage in ("numba_correct", "cublas_correct"):
        checks = data["stages"][stage]["result"]["checks"]
        assert len(checks) == 2 and all(c["worst"] <= c["tol"] for c in checks)
    assert data["stages"]["cublas_correct"]["result"]["gemm"] == "cublas"
    timing = data["stages"]["block_timing"]["result"]
    for key in ("numba", "cublas", "torch_eager_fp32", "torch_eager_tf32", "torch_sdpa_fp32"):
        assert timing[key]["median_ms"] > 0
    assert timing["numba_pattern_vs_torch"] < 1e-5 and timing["cublas_pattern_vs_torch"] < 1e-5
    assert data["stages"]["summary"]["result"]["correct_numba"] is True
    for gemm in ("numba", "cublas"):                                      # forward(..., reuse=) on the device
        assert data["stages"]["incremental"]["result"][gemm]["append"]["reused_rows"] == 7
        typed = data["stages"]["app_path"]["result"][gemm]                # the app's own path, T growing
        assert [r["reused_rows"] for r in typed["appends"]] == [5, 6, 7]
        assert typed["new_device_buffers_after_the_first_append"] == 0
        assert typed["worst_copied_over_drawn"] <= 1.5


def test_a_failing_stage_is_recorded_and_the_rest_still_run(tmp_path):
    out = tmp_path / "gpu_check.json"
    # one stage broken on purpose: it is recorded with its traceback, the others still run
    run = _run(["--simulate", "--json", str(out), "--stages", "cublas_correct,memory"],
               env_extra={"QKV_GPU_CHECK_BREAK": "cublas_correct"}, tmp_path=tmp_path)
    data = json.loads(out.read_text())
    assert run.returncode == 1
    stage = data["stages"]["cublas_correct"]
    assert not stage["ok"] and "broken on purpose" in stage["error"] and "Traceback" in stage["traceback"]
    assert data["order"] == ["provenance", "cublas_correct", "memory", "summary"]   # --stages: only these
    assert data["stages"]["memory"]["ok"]


def test_it_refuses_to_time_the_simulator_by_accident(tmp_path):
    run = _run(["--json", str(tmp_path / "x.json")], env_extra={"NUMBA_ENABLE_CUDASIM": "1"})
    assert run.returncode == 2 and "refusing to run" in run.stdout
    assert not (tmp_path / "x.json").exists()
