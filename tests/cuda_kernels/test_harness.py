"""The kernel-test harness itself: which tests it skips, and when the PTX check may skip."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_only_the_gpu_marker_skips_a_test_not_a_folder_named_gpu(tmp_path):
    """A checkout under a folder called `gpu` (a node of that name) must still run every kernel
    test under the simulator; only tests marked `gpu` are skipped there."""
    here = tmp_path / "gpu" / "kernels"
    here.mkdir(parents=True)
    shutil.copy(Path(__file__).with_name("conftest.py"), here / "conftest.py")
    (here / "test_x.py").write_text("import pytest\n\n"
                                    "def test_plain():\n    pass\n\n"
                                    "@pytest.mark.gpu\ndef test_marked():\n    pass\n")
    (tmp_path / "gpu" / "pytest.ini").write_text("[pytest]\nmarkers =\n    gpu: needs a GPU\n")
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", str(here)],
                         cwd=tmp_path / "gpu", env=env, capture_output=True, text=True, timeout=300)
    assert "1 passed, 1 skipped" in run.stdout, run.stdout[-3000:] + run.stderr[-2000:]


def test_the_ptx_check_skips_without_nvrtc():
    """compile_ptx needs NVRTC too: without it the check says so (and the PTX test skips)."""
    code = ("from numba.cuda.cudadrv import nvrtc\n"
            "def gone():\n    raise OSError('libnvrtc.so.13: cannot open shared object file')\n"
            "nvrtc._get_nvrtc_version = gone\n"
            "from cuda_kernels import ptx\n"
            "ok, why = ptx.compiler_available()\n"
            "print(ok, why)\n")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    if "numba-cuda is not installed" in run.stdout or "NVVM" in run.stdout:
        return                                  # no compiler at all here: nothing more to see
    assert run.stdout.startswith("False") and "NVRTC" in run.stdout, run.stdout


def test_sass_summary_counts_a_k_step_with_its_inner_loop_taken_tile_times():
    from cuda_kernels.ptx import sass_summary

    sass = "\n".join([
        "        /*0000*/                   MOV R1, c[0x0][0x28] ;",
        "        /*0010*/                   LDG.E R2, desc[UR4][R4.64] ;",          # outer loop starts here
        "        /*0020*/                   STS [R3], R2 ;",
        "        /*0030*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;",
        "        /*0040*/                   LDS R5, [R3] ;",                        # inner loop starts here
        "        /*0050*/                   FFMA R6, R5, R5, R6 ;",
        "        /*0060*/                   FFMA R7, R5, R5, R7 ;",
        "        /*0070*/               @P0 BRA 0x40 ;",
        "        /*0080*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;",
        "        /*0090*/               @P1 BRA 0x10 ;",
        "        /*00a0*/                   EXIT ;"])
    got = sass_summary(sass, unroll_hint=4)
    assert got["instructions"] == 11 and got["ffma"] == 2
    assert got["k_step"]["instructions"] == 9 - 4 + 4 * 4 and got["k_step"]["ffma"] == 8    # 21, 8
    assert got["k_step"]["ffma_share"] == round(8 / 21, 3)
