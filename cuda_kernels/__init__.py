"""Numba CUDA kernels (no Qt, no orchestration). Built in the CUDA issue."""
