"""Compile every kernel to PTX on a machine without a GPU: the type check the simulator never does.

Needs NVIDIA's compiler libraries (`pip install "numba-cuda[cu13]"`) and no simulator:

    python -m cuda_kernels.ptx            # compiles all kernels for sm_90, prints a summary
    python -m cuda_kernels.ptx --sass DIR --json out.json   # also cubin (nvJitLink) and SASS (cuobjdump in DIR)

`inspect_ptx` reports what would quietly cost speed on hardware: float64 arithmetic (a float32
kernel that promotes to double) and local-memory traffic (accumulators spilled out of registers).
"""
from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from numba import cuda, types

from . import elementwise, experts, products, rows
from .source_map import python_function
from .target import SIMULATOR


def _a(ndim: int, dtype=types.float32):
    return types.Array(dtype, ndim, "C")


def _v(ndim: int, dtype=types.float32):
    """A strided view (layout "A"), such as rows p.. of every head of a map."""
    return types.Array(dtype, ndim, "A")


_b = types.boolean
# kernel name -> (kernel, argument types as the CUDA backend passes them)
_i = types.int64
_f = types.float32
SIGNATURES = {
    "project_qkv": (products.project_qkv, (_a(2), _a(3), _a(2), _a(3), _a(3), _a(3))),
    "scores": (products.scores, (_a(3), _a(3), _b, _a(2, types.boolean), _b, _f, _i, _i, _i, _a(3), _a(3), _a(3))),
    "weighted_sum": (products.weighted_sum, (_a(3), _a(3), _b, _i, _i, _i, _a(3))),
    "head_results": (products.head_results, (_a(3), _a(3), _a(3))),
    "matmul_bias": (products.matmul_bias, (_a(2), _a(2), _a(1), _a(2))),
    "unembed": (products.unembed, (_a(2), _a(2), _a(2))),
    "layer_norm": (rows.layer_norm, (_a(2), _a(1), _a(1), _f, _a(1), _a(1), _a(2))),
    "rms_norm": (rows.rms_norm, (_a(2), _a(1), _f, _a(1), _a(2))),
    "softmax_rows": (rows.softmax_rows, (_a(3), _b, _i, _i, _a(3))),
    "scale_mask_softmax": (rows.scale_mask_softmax, (_a(3), _b, _a(2, types.boolean), _b, _f, _i, _a(3), _a(3),
                                                     _a(3))),
    "soft_cap_scores": (rows.soft_cap_scores, (_a(3), _f, _a(3), _a(3))),
    "embed": (elementwise.embed, (_a(1, types.int64), _a(2), _a(2), _b, _f, _a(2), _a(2))),
    "rope": (elementwise.rope, (_a(3), _a(2), _a(2), _a(3))),
    "gelu": (elementwise.gelu, (_a(2), _a(2))),
    "gelu_erf": (elementwise.gelu_erf, (_a(2), _a(2))),
    "silu_gate": (elementwise.silu_gate, (_a(2), _a(2), _a(2))),
    "gelu_gate": (elementwise.gelu_gate, (_a(2), _a(2), _a(2))),
    "route": (experts.route, (_a(2), _b, _a(2), _a(2), _a(2, types.int32))),
    "scatter_expert": (experts.scatter_expert, (_a(2), _a(2, types.int32), _i, _a(3))),
    "mix": (experts.mix, (_a(3), _a(2), _a(2, types.int32), _a(2), _a(2), _a(2))),
    "sum_heads": (elementwise.sum_heads, (_a(3), _a(1), _a(2))),
    "sum_heads_residual": (elementwise.sum_heads_residual, (_a(3), _a(1), _a(2), _a(2), _a(2))),
    "add": (elementwise.add, (_a(2), _a(2), _a(2))),
    "gather": (elementwise.gather, (_v(2), _a(2))),   # a strided view in
    # An incremental pass hands the map kernels strided views, which numba compiles apart: rows >= p
    # of the maps ([:, p:] of [H, T, T]), and for a viewed head's rows < p its q and k ([:p, h:h + 1]).
    "scores_rows": (products.scores, (_a(3), _a(3), _b, _a(2, types.boolean), _b, _f, _i, _i, _i, _v(3), _v(3),
                                      _v(3))),
    "scores_head": (products.scores, (_v(3), _v(3), _b, _a(2, types.boolean), _b, _f, _i, _i, _i, _a(3), _a(3),
                                      _a(3))),
    "softmax_rows_rows": (rows.softmax_rows, (_v(3), _b, _i, _i, _v(3))),
    "weighted_sum_rows": (products.weighted_sum, (_v(3), _a(3), _b, _i, _i, _i, _a(3))),
    "scale_mask_softmax_rows": (rows.scale_mask_softmax, (_v(3), _b, _a(2, types.boolean), _b, _f, _i, _v(3),
                                                          _v(3), _v(3))),
    "soft_cap_scores_rows": (rows.soft_cap_scores, (_v(3), _f, _v(3), _v(3))),
}
PRODUCTS = ("project_qkv", "scores", "weighted_sum", "head_results", "matmul_bias", "unembed", "scores_rows",
            "scores_head", "weighted_sum_rows")
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


def compile_cubin(ptx: str, cc: tuple[int, int] = (9, 0)) -> bytes:
    """PTX -> cubin for sm_<cc> with nvJitLink (no GPU needed): what ptxas makes of the kernel."""
    from cuda.bindings import nvjitlink

    handle = nvjitlink.create(2, [f"-arch=sm_{cc[0]}{cc[1]}", "-O3"])
    try:
        data = ptx.encode()
        nvjitlink.add_data(handle, nvjitlink.InputType.PTX, data, len(data), "kernel.ptx")
        nvjitlink.complete(handle)
        out = bytearray(nvjitlink.get_linked_cubin_size(handle))
        nvjitlink.get_linked_cubin(handle, out)
        return bytes(out)
    finally:
        nvjitlink.destroy(handle)


_INSTR = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)[^;]*;")
_BRANCH_TARGET = re.compile(r"BRA\s+(?:`?\(?\.?L?_?x?_?)?(0x[0-9a-f]+)")


def sass_summary(sass: str, unroll_hint: int = 1) -> dict:
    """Instruction counts of one kernel's SASS (cuobjdump -sass): all, FFMA, and for its loops (a
    backward branch closes one) the instructions and FFMAs per trip. `k_step` is the shared-memory
    product's k-step: the outermost loop with an inner FFMA loop, that inner loop taken
    `unroll_hint` times (TILE), as the issue's review counted it."""
    instrs = [(int(a, 16), op) for a, _, op in _INSTR.findall(sass)]
    addr = {a: i for i, (a, _) in enumerate(instrs)}
    loops = []
    for i, (a, op) in enumerate(instrs):
        if op.startswith("BRA"):
            line = next((ln for ln in sass.splitlines() if f"/*{a:04x}*/" in ln), "")
            m = _BRANCH_TARGET.search(line)
            if m and int(m.group(1), 16) < a and int(m.group(1), 16) in addr:
                j = addr[int(m.group(1), 16)]
                body = [o for _, o in instrs[j:i + 1]]
                loops.append({"from": j, "to": i, "instructions": len(body),
                              "ffma": sum(o.startswith("FFMA") for o in body)})
    out = {"instructions": len(instrs), "ffma": sum(op.startswith("FFMA") for _, op in instrs),
           "loops": [{k: v for k, v in lp.items() if k in ("instructions", "ffma")} for lp in loops]}
    inner = [lp for lp in loops if lp["ffma"] and not any(o is not lp and lp["from"] <= o["from"] and
                                                             o["to"] <= lp["to"] for o in loops)]
    for lp in inner:
        outer = [o for o in loops if o is not lp and o["from"] <= lp["from"] and lp["to"] <= o["to"]]
        if outer:
            o = max(outer, key=lambda x: x["instructions"])
            total = o["instructions"] - lp["instructions"] + unroll_hint * lp["instructions"]
            ffma = o["ffma"] - lp["ffma"] + unroll_hint * lp["ffma"]
        else:
            total, ffma = lp["instructions"], lp["ffma"]
        out["k_step"] = {"instructions": total, "ffma": ffma, "ffma_share": round(ffma / max(total, 1), 3),
                         "inner_loop_unrolled": outer == []}
        break
    return out


def _tool(tools: str | None, name: str) -> str | None:
    found = [p for p in ([str(Path(tools) / name)] if tools else []) if Path(p).exists()]
    return found[0] if found else shutil.which(name)


def sass_report(tools: str | None = None, cc: tuple[int, int] = (9, 0)) -> dict:
    """Per kernel: registers and stack (cuobjdump -res-usage), and the SASS summary; needs
    cuobjdump (pip install nvidia-cuda-cuobjdump; its bin/ as `tools`). Registers alone without it."""
    from . import products

    cuobjdump = _tool(tools, "cuobjdump")
    report = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, ptx in compile_all(cc).items():
            cubin = compile_cubin(ptx, cc)
            entry: dict = {"cubin_bytes": len(cubin), **inspect_ptx(ptx)}
            if cuobjdump:
                path = Path(tmp) / f"{name}.cubin"
                path.write_bytes(cubin)
                usage = subprocess.run([cuobjdump, "-res-usage", str(path)], capture_output=True, text=True).stdout
                found = re.findall(r"REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:(\d+)", usage)
                if found:                                   # the kernel (its helpers may be listed too)
                    reg, stack, shared, local = max(tuple(map(int, f)) for f in found)
                    entry.update(registers=reg, stack=stack, shared=shared, local=local)
                sass = subprocess.run([cuobjdump, "-sass", str(path)], capture_output=True, text=True).stdout
                entry["sass"] = sass_summary(sass, unroll_hint=products.TILE)
                if name not in PRODUCTS:
                    entry["sass"].pop("k_step", None)       # no shared-memory k-loop there
            report[name] = entry
    return report


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="compile every kernel for sm_90 without a GPU")
    ap.add_argument("--sass", nargs="?", const="", help="also cubin and SASS (folder with cuobjdump; PATH if none)")
    ap.add_argument("--json", help="write the report here")
    args = ap.parse_args(argv)
    ok, why = compiler_available()
    if not ok:
        print(f"skipped: {why}")
        return 77
    if args.sass is None:
        for name, ptx in compile_all().items():
            info = inspect_ptx(ptx)
            print(f"{name:14s} {info['lines']:6d} lines  f64 ops {info['f64_ops']:3d}  "
                  f"local ld/st {info['local_ops']:3d}")
        return 0
    report = sass_report(args.sass or None)
    for name, e in report.items():
        ks = e.get("sass", {}).get("k_step")
        extra = f"  k-step {ks['ffma']}/{ks['instructions']} FFMA ({ks['ffma_share']:.0%})" if ks else ""
        print(f"{name:20s} regs {e.get('registers', '?'):>4}  sass {e.get('sass', {}).get('instructions', '?'):>6}"
              f"  ffma {e.get('sass', {}).get('ffma', '?'):>5}{extra}")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
