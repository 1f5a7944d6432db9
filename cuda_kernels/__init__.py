"""Numba CUDA kernels for one GPT-2 block (no Qt, no orchestration: compute/backends/cuda.py drives them).

    products     tiled shared-memory matrix products: project_qkv, scores, weighted_sum,
                 head_results, matmul_bias, unembed
    rows         layer_norm, softmax_rows (one block per row, shared-memory reductions)
    elementwise  embed, gelu, sum_heads, add
    source_map   KERNEL_SOURCE / kernel_source(step): the kernel and key line of each step
    ptx          compile every kernel to PTX without a GPU (a type check the simulator never does)

Each module has `launch_<kernel>(...)` helpers that pick the grid from the array shapes.
Set NUMBA_ENABLE_CUDASIM=1 before numba is first imported to run them on the CPU simulator.
"""
from .source_map import KERNEL_SOURCE, STEPS, KernelSource, kernel_source
from .target import SIMULATOR

__all__ = ["SIMULATOR", "KERNEL_SOURCE", "STEPS", "KernelSource", "kernel_source"]
