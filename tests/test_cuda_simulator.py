"""Runs tests/cuda_kernels under numba's CUDA simulator, in a Python process of its own.

The simulator must be switched on before numba is first imported, and this process has already
imported numba for the CPU backend; so the kernel tests get a fresh interpreter. It is started as
soon as collection has chosen this test (tests/conftest.py calls `start`), so the kernel suite
runs on the second core beside the rest of the suite, and this test waits for its end. Its own
report is shown when it fails.
"""
from __future__ import annotations

import faulthandler
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT_S = 900                       # from the start of the kernel suite

_run: dict = {}                       # "process", "output": the one kernel-suite run of this session


def start() -> None:
    """Start the kernel suite in the background (once per session)."""
    if _run:
        return
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    output = tempfile.TemporaryFile(mode="w+", encoding="utf-8")     # a file: a pipe not read would fill
    _run["output"] = output
    _run["process"] = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=5",
         str(ROOT / "tests" / "cuda_kernels")],
        cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT, text=True)


def stop() -> None:
    """End a kernel suite still running when the session ends early (-x, Ctrl+C)."""
    process = _run.get("process")
    if process is not None and process.poll() is None:
        process.kill()
        process.wait()


def test_cuda_kernel_suite_passes_under_the_simulator():
    start()                                           # run alone (or by name): started here
    process, output = _run["process"], _run["output"]
    # Waiting is not hanging: the process has its own limit, so pytest's hang report (faulthandler
    # after 300 s, which a wait from the start of an xdist run exceeds) is off until it ends.
    faulthandler.cancel_dump_traceback_later()
    try:
        process.wait(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        stop()
    output.seek(0)
    text = output.read()
    report = text[-16000:]
    print(report)                                   # shown with -s or -rA, and on failure
    assert process.returncode == 0, f"tests/cuda_kernels failed under the simulator:\n{report}"
    assert " passed" in text and " failed" not in text
