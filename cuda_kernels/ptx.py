"""Compile every kernel to PTX on a machine without a GPU: the type check the simulator never does.

Needs NVIDIA's compiler libraries (`pip install "numba-cuda[cu13]"`) and no simulator:

    python -m cuda_kernels.ptx            # compiles all kernels for sm_90, prints a summary

`inspect_ptx` reports what would quietly cost speed on hardware: float64 arithmetic (a float32
kernel that promotes to double) and local-memory traffic (accumulators spilled out of registers).
"""
from __future__ import annotations

import importlib.util
import re
import sys

from numba import cuda, types

from . import elementwise, products, rows
from .source_map import python_function
from .target import SIMULATOR


def _a(ndim: int, dtype=types.float32):
    return types.Array(dtype, ndim, "C")


_b = types.boolean
# kernel name -> (kernel, argument types as the CUDA backend passes them)
_i = types.int64
_f = types.float32
SIGNATURES = {
    "project_qkv": (products.project_qkv, (_a(2), _a(3), _a(2), _a(3), _a(3), _a(3))),
    "scores": (products.scores, (_a(3), _a(3), _b, _a(2, types.boolean), _b, _b, _i, _i, _a(3), _a(3), _a(3))),
    "weighted_sum": (products.weighted_sum, (_a(3), _a(3), _b, _i, _i, _a(3))),
    "head_results": (products.head_results, (_a(3), _a(3), _a(3))),
    "matmul_bias": (products.matmul_bias, (_a(2), _a(2), _a(1), _a(2))),
    "unembed": (products.unembed, (_a(2), _a(2), _a(2))),
    "layer_norm": (rows.layer_norm, (_a(2), _a(1), _a(1), _f, _a(1), _a(1), _a(2))),
    "rms_norm": (rows.rms_norm, (_a(2), _a(1), _f, _a(1), _a(2))),
    "softmax_rows": (rows.softmax_rows, (_a(3), _b, _i, _a(3))),
    "scale_mask_softmax": (rows.scale_mask_softmax, (_a(3), _b, _a(2, types.boolean), _b, _f, _i, _a(3), _a(3),
                                                     _a(3))),
    "embed": (elementwise.embed, (_a(1, types.int64), _a(2), _a(2), _b, _a(2), _a(2))),
    "rope": (elementwise.rope, (_a(3), _a(2), _a(2), _a(3))),
    "gelu": (elementwise.gelu, (_a(2), _a(2))),
    "silu_gate": (elementwise.silu_gate, (_a(2), _a(2), _a(2))),
    "sum_heads": (elementwise.sum_heads, (_a(3), _a(1), _a(2))),
    "sum_heads_residual": (elementwise.sum_heads_residual, (_a(3), _a(1), _a(2), _a(2), _a(2))),
    "add": (elementwise.add, (_a(2), _a(2), _a(2))),
}
_F64_OP = re.compile(r"^\s*(?:@%p\d+\s+)?(?:add|sub|mul|fma|div|sqrt|rcp|ex2|lg2|max|min|cvt)\S*\.f64\b",
                     re.M)
_LOCAL = re.compile(r"\b(?:ld|st)\.local\b")


def compiler_available() -> tuple[bool, str]:
    """(True, "") when cuda.compile_ptx can run here, else (False, why)."""
    if SIMULATOR:
        return False, "the CUDA simulator is on (NUMBA_ENABLE_CUDASIM=1); it cannot compile"
    if importlib.util.find_spec("numba_cuda") is None:      # numba's own, deprecated target is not ours
        return False, "numba-cuda is not installed (Linux: pip install -r requirements-gpu.txt)"
    try:
        from numba.cuda.cudadrv import nvvm

        if not nvvm.is_available():
            return False, "NVVM is not installed (pip install \"numba-cuda[cu13]\")"
    except Exception as exc:  # noqa: BLE001 - any failure to load the library means "not here"
        return False, f"NVVM cannot be loaded: {exc}"
    try:  # compile_ptx also asks NVRTC (its version decides the PTX ISA)
        from numba.cuda.cudadrv import nvrtc

        nvrtc._get_nvrtc_version()
    except Exception as exc:  # noqa: BLE001 - a missing or broken NVRTC library
        return False, f"NVRTC cannot be loaded (pip install \"numba-cuda[cu13]\"): {' '.join(str(exc).split())[:200]}"
    return True, ""


def compile_all(cc: tuple[int, int] = (9, 0)) -> dict[str, str]:
    """PTX text of every kernel for compute capability `cc`."""
    from numba.cuda import dispatcher

    class _NoDevice:  # device functions ask the current GPU for its compute capability
        compute_capability = cc

    ask_gpu = dispatcher.get_current_device
    dispatcher.get_current_device = lambda: _NoDevice
    try:
        return {name: cuda.compile_ptx(python_function(k), sig, cc=cc)[0]
                for name, (k, sig) in SIGNATURES.items()}
    finally:
        dispatcher.get_current_device = ask_gpu


def inspect_ptx(ptx: str) -> dict[str, int]:
    """Counts of float64 arithmetic instructions and local-memory loads/stores in a kernel's PTX."""
    return {"f64_ops": len(_F64_OP.findall(ptx)), "local_ops": len(_LOCAL.findall(ptx)),
            "lines": ptx.count("\n")}


def main() -> int:
    ok, why = compiler_available()
    if not ok:
        print(f"skipped: {why}")
        return 77
    for name, ptx in compile_all().items():
        info = inspect_ptx(ptx)
        print(f"{name:14s} {info['lines']:6d} lines  f64 ops {info['f64_ops']:3d}  "
              f"local ld/st {info['local_ops']:3d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
