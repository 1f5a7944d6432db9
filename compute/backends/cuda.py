"""Placeholder for the `cuda` backend (Numba CUDA kernels in cuda_kernels/, its own issue).

Until it lands, asking for "cuda" computes on the CPU and the Trace's notice says so.
"""
from __future__ import annotations

from .base import Backend, BackendUnavailable


class CudaBackend(Backend):
    name = "cuda"

    def available(self) -> tuple[bool, str]:
        return False, "the CUDA backend is not part of this build yet"

    def run(self, cfg, weights, tokens, attn_mask):
        raise BackendUnavailable(self.available()[1])
