"""Every kernel compiles to PTX for an H200 (sm_90): the type check the simulator never does.

Runs in a process of its own without the simulator (this folder's process has it on) and skips
when NVIDIA's compiler libraries are missing (they come with `pip install "numba-cuda[cu13]"`).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CODE = r"""
import json, sys
from numba import cuda, float32
from cuda_kernels import ptx
ok, why = ptx.compiler_available()
if not ok:
    print(why)
    sys.exit(77)
info = {name: ptx.inspect_ptx(text) for name, text in ptx.compile_all().items()}

def promotes(a):            # float32 * a Python float: double arithmetic, which the check must see
    a[0] = a[0] * 0.1

info["_probe_f64"] = ptx.inspect_ptx(cuda.compile_ptx(promotes, (float32[::1],), cc=(9, 0))[0])
print(json.dumps(info))
"""


def test_every_kernel_compiles_to_ptx_in_float32_with_registers_only():
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    run = subprocess.run([sys.executable, "-c", CODE], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=600)
    if run.returncode == 77:
        pytest.skip(f"no CUDA compiler here: {run.stdout.strip()}")
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-8000:]
    info = json.loads(run.stdout.strip().splitlines()[-1])
    assert info.pop("_probe_f64")["f64_ops"] > 0                          # the check can fail
    from cuda_kernels.ptx import SIGNATURES

    assert set(info) == set(SIGNATURES)
    for name, counts in info.items():
        assert counts["f64_ops"] == 0, f"{name} does float64 arithmetic (a float32 kernel promoted)"
        assert counts["local_ops"] == 0, f"{name} keeps values in local memory (not in registers)"
