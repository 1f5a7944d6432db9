"""One command for a GPU machine: the GPU tests, then the GPU check, the results as JSON in one folder.

    python benchmarks/gpu_run.py --commit <sha>          # from the repository root; <= 8 minutes, no network

Runs, in order, each with its own time limit (the whole run stays under --minutes, default 8):
  1. tests/cuda_kernels with NUMBA_ENABLE_CUDASIM=0: the kernel and backend tests on the real GPU,
     the `gpu` ones at real sizes included (pytest's JUnit XML, summarised as JSON);
  2. benchmarks/gpu_check.py: correctness of both product paths, speed against torch, the app's own
     path with a growing T (app_path), memory; it gets what time the tests left.
Writes OUT/gpu_tests.xml, OUT/gpu_tests.json, OUT/gpu_check.json and OUT/gpu_run.json (what ran,
how long, what it said), OUT being $OUT, else --out, else gpu-results/. Copy the JSON files to
benchmarks/results/ with the date in their names.

The CUDA toolkit (NVVM, NVRTC, nvJitLink, libcudart): NVIDIA's pip packages when they are installed
(requirements-gpu.txt), else the machine's own under CUDA_HOME (or CUDA_PATH, or /usr/local/cuda),
which numba-cuda and cuda-pathfinder then find. On a machine without a GPU (or without numba-cuda)
every step runs and says what it skipped, so the script itself is checked anywhere.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PIP_TOOLKIT = ("nvidia.cuda_nvrtc", "nvidia.nvjitlink", "nvidia.cuda_nvcc")   # NVIDIA's wheels (any of them)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--commit", default=os.environ.get("QKV_COMMIT", "unknown"),
                    help="the commit being checked (.git may not travel)")
    ap.add_argument("--out", default="gpu-results", help="results folder (default: $OUT, else gpu-results/)")
    ap.add_argument("--minutes", type=float, default=8.0, help="the whole run's limit")
    ap.add_argument("--tests-s", type=float, default=200.0, help="the GPU tests' share of it, at most")
    return ap.parse_args(argv)


def toolkit_env(env: dict) -> tuple[dict, str]:
    """`env` with the CUDA toolkit numba-cuda should use, and which one it is, in words."""
    env = dict(env)
    for name in PIP_TOOLKIT:
        try:
            if importlib.util.find_spec(name) is not None:
                return env, f"NVIDIA's pip packages ({name})"
        except (ImportError, ValueError):
            continue
    home = env.get("CUDA_HOME") or env.get("CUDA_PATH") or ("/usr/local/cuda" if Path("/usr/local/cuda").is_dir()
                                                            else "")
    if not home:
        return env, "none found (no NVIDIA pip packages, no CUDA_HOME, no /usr/local/cuda)"
    env["CUDA_HOME"] = env["CUDA_PATH"] = home
    libs = [str(Path(home) / sub) for sub in ("lib64", "lib", "nvvm/lib64") if (Path(home) / sub).is_dir()]
    if libs:
        env["LD_LIBRARY_PATH"] = os.pathsep.join(libs + [p for p in [env.get("LD_LIBRARY_PATH", "")] if p])
    return env, f"the machine's toolkit at {home} (CUDA_HOME)"


def run(cmd: list[str], env: dict, timeout_s: float, log: Path) -> dict:
    """cmd with a time limit; its output to `log` and its end in the summary."""
    t0 = time.perf_counter()
    try:
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=max(timeout_s, 1))
        rc, text = done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired as exc:
        rc = "timeout"
        text = (exc.stdout or b"").decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
    log.write_text(text)
    return {"command": " ".join(cmd), "returncode": rc, "seconds": round(time.perf_counter() - t0, 1),
            "log": log.name, "tail": text[-1500:]}


def junit_summary(path: Path) -> dict:
    """passed / failed / errors / skipped and the failing tests' names, from pytest's JUnit XML."""
    if not path.exists():
        return {"error": "pytest wrote no report"}
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else list(root)
    counts = {k: sum(int(s.get(k, 0)) for s in suites) for k in ("tests", "failures", "errors", "skipped")}
    failing, skips = [], {}
    for case in root.iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        if case.find("failure") is not None or case.find("error") is not None:
            failing.append(name)
        skipped = case.find("skipped")
        if skipped is not None:
            why = (skipped.get("message") or "")[:120]
            skips[why] = skips.get(why, 0) + 1
    counts["passed"] = counts["tests"] - counts["failures"] - counts["errors"] - counts["skipped"]
    return {**counts, "failing": failing, "skip_reasons": skips}


def gpu_here(env: dict) -> tuple[bool, str]:
    """Whether numba sees a real GPU (asked in a fresh process, with the simulator off)."""
    probe = ("import sys\ntry:\n    from numba import cuda\n    ok = cuda.is_available()\nexcept Exception as e:\n"
             "    print(type(e).__name__, e); sys.exit(3)\nprint('gpu' if ok else 'no gpu'); sys.exit(0 if ok else 4)")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    return done.returncode == 0, (done.stdout + done.stderr).strip()[-300:]


def main(argv=None) -> int:
    args = parse_args(argv)
    t_start = time.perf_counter()
    limit_s = args.minutes * 60
    out = Path(os.environ.get("OUT") or args.out)
    if not out.is_absolute():
        out = ROOT / out
    out.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "OUT"}
    env["NUMBA_ENABLE_CUDASIM"] = "0"                                    # the real GPU, never the simulator
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in [env.get("PYTHONPATH", "")] if p])
    env, toolkit = toolkit_env(env)
    summary: dict = {"commit": args.commit, "date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "toolkit": toolkit,
                     "python": sys.version.split()[0], "limit_s": limit_s, "steps": {}}
    has_gpu, said = gpu_here(env)
    summary["gpu"] = {"found": has_gpu, "numba_says": said}
    print(f"toolkit: {toolkit}\nGPU: {said}", flush=True)

    def write() -> None:
        summary["seconds"] = round(time.perf_counter() - t_start, 1)
        (out / "gpu_run.json").write_text(json.dumps(summary, indent=1))

    # 1. the GPU tests (skipped, each with its reason, where there is no GPU)
    if importlib.util.find_spec("pytest") is None:
        summary["steps"]["tests"] = {"skipped": "pytest is not installed here"}
    else:
        xml = out / "gpu_tests.xml"
        step = run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                    f"--junitxml={xml}", "tests/cuda_kernels"], env, min(args.tests_s, limit_s - 60),
                   out / "gpu_tests.log")
        step["result"] = junit_summary(xml)
        (out / "gpu_tests.json").write_text(json.dumps(step["result"], indent=1))
        summary["steps"]["tests"] = step
        r = step["result"]
        print(f"tests: {r.get('passed')} passed, {r.get('failures')} failed, {r.get('errors')} errors, "
              f"{r.get('skipped')} skipped ({step['seconds']} s)", flush=True)
    write()

    # 2. the GPU check, in the time left
    left = limit_s - (time.perf_counter() - t_start) - 20
    if not has_gpu:
        summary["steps"]["gpu_check"] = {"skipped": f"no GPU here ({said})"}
    elif left < 60:
        summary["steps"]["gpu_check"] = {"skipped": f"only {left:.0f} s left of the limit"}
    else:
        step = run([sys.executable, "benchmarks/gpu_check.py", "--commit", args.commit, "--json",
                    str(out / "gpu_check.json"), "--budget-s", str(int(left - 30))], env, left, out / "gpu_check.log")
        summary["steps"]["gpu_check"] = step
        print(f"gpu_check: exit {step['returncode']} ({step['seconds']} s)", flush=True)
    write()
    print(f"wrote {out}/gpu_run.json ({time.perf_counter() - t_start:.0f} s)")
    tests = summary["steps"]["tests"]
    result = tests.get("result") if isinstance(tests.get("result"), dict) else {}
    failed = result.get("failures") or result.get("errors") or tests.get("returncode") == "timeout"
    check = summary["steps"]["gpu_check"]
    return 1 if failed or check.get("returncode") not in (None, 0) else 0


if __name__ == "__main__":
    sys.exit(main())
