"""Runs tests/cuda_kernels under numba's CUDA simulator, in a Python process of its own.

The simulator must be switched on before numba is first imported, and this process has already
imported numba for the CPU backend; so the kernel tests get a fresh interpreter. Their own report
is shown when they fail.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_cuda_kernel_suite_passes_under_the_simulator():
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=5",
         str(ROOT / "tests" / "cuda_kernels")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    report = run.stdout[-12000:] + run.stderr[-4000:]
    print(report)                                   # shown with -s or -rA, and on failure
    assert run.returncode == 0, f"tests/cuda_kernels failed under the simulator:\n{report}"
    assert " passed" in run.stdout and " failed" not in run.stdout
