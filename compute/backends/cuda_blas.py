"""The `cuda` backend's cuBLAS path: the block's matrix products as torch calls on the backend's own
device buffers, with no copy (torch reads numba's device arrays through `__cuda_array_interface__`).

The numba kernels keep the fused row-wise steps (norms, RoPE, scale + mask + softmax, GELU/SwiGLU,
the heads' sum with the residual); only the products move here, where cuBLAS runs them at the
hardware's float32 rate. Every product writes into a Trace buffer (`out=`), strided where the
Trace layout asks: q/k/v [T, n, d_head] seen head-major as [n, T, d_head], z and result likewise
(cuBLAS takes the row stride as its leading dimension; no transposed copies).

Numbers: float32 products, never TF32 (`fp32()` holds torch's switches off during a pass), so the
Trace matches the float64 reference as closely as the numba path does. The switches are the
process's (the training page runs torch on another thread at the same time): passes count
themselves in under a lock, the first one in turns TF32 off, the last one out puts back what it
found, so overlapping passes never restore each other's setting, and another thread's products
meanwhile run in strict float32 (slower, never wrong).

Streams: one torch stream; numba launches on the same stream (`numba_stream`), so kernels and
products run in order without host synchronisation. Under numba's CUDA simulator the device
arrays are numpy arrays and torch runs on the CPU on the same memory: the same calls, checked by
the simulator suite.

Imported only when the path is chosen (torch is a large import): compute may import torch here
and in the modules the import contract names (pyproject.toml).
"""
from __future__ import annotations

import threading
from contextlib import contextmanager

import torch
from numba import cuda

from cuda_kernels import SIMULATOR

_TF32_LOCK = threading.Lock()
_tf32 = {"passes": 0, "saved": None}        # passes inside fp32() now; the switches found by the first


@contextmanager
def no_tf32():
    """TF32 off for as long as any pass is inside (thread-safe; nested and overlapping passes too)."""
    with _TF32_LOCK:
        if _tf32["passes"] == 0:
            _tf32["saved"] = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
            torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
        _tf32["passes"] += 1
    try:
        yield
    finally:
        with _TF32_LOCK:
            _tf32["passes"] -= 1
            if _tf32["passes"] == 0:
                torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = _tf32["saved"]


def why_not() -> str | None:
    """None when this path can run here, else why not (torch without CUDA, say)."""
    if SIMULATOR:
        return None                                         # torch on the CPU, on the simulator's memory
    if not torch.cuda.is_available():
        return f"torch {torch.__version__} has no CUDA here"
    return None


class TorchProducts:
    """The products of one block, on torch views of numba device arrays."""

    def __init__(self) -> None:
        self.on_device = not SIMULATOR
        self.stream = torch.cuda.Stream() if self.on_device else None
        self._numba_stream = cuda.external_stream(self.stream.cuda_stream) if self.on_device else 0

    @property
    def numba_stream(self):
        """The numba stream that is torch's stream: launches there run in order with the products."""
        return self._numba_stream

    def view(self, device_array) -> torch.Tensor:
        """A torch tensor on the same memory as a numba device array (no copy)."""
        if self.on_device:
            return torch.as_tensor(device_array, device="cuda")
        return torch.from_numpy(device_array._ary)          # the simulator's device array is a numpy array

    @contextmanager
    def fp32(self):
        """Strict float32 products (no TF32) on this path's stream, for the length of a pass."""
        with no_tf32():
            if self.on_device:
                with torch.cuda.stream(self.stream):
                    yield
            else:
                yield

    def copy_all(self, dsts, srcs) -> None:
        """dst = src for every pair (an incremental pass's reused rows), in one batched launch on this
        path's stream (torch's multi-tensor copy) instead of one copy per buffer."""
        if self.on_device:
            with torch.cuda.stream(self.stream):
                torch._foreach_copy_(dsts, srcs)
        else:
            torch._foreach_copy_(dsts, srcs)

    # -- the products, each a Trace equation ----------------------------------------------------------
    @staticmethod
    def linear(x, W, b, out) -> None:
        """out = x @ W + b  ([M, K] @ [K, N] + [N]: q, k, v as [T, n·d_head]; mlp_pre; mlp_out)."""
        torch.addmm(b, x, W, out=out)

    @staticmethod
    def scores(q, k, raw) -> None:
        """raw[h] = q[:, h] @ k[:, h // groups]ᵀ  (q [T, H, dh], k [T, KV, dh], raw [H, T, T])."""
        H, KV = q.shape[1], k.shape[1]
        qh, kt = q.permute(1, 0, 2), k.permute(1, 2, 0)     # [H, T, dh], [KV, dh, T] (strided views)
        groups = H // KV
        for r in range(groups):                             # heads r, r + groups, ... read K heads 0, 1, ...
            torch.bmm(qh[r::groups], kt, out=raw[r::groups])    # [KV, T, T]

    @staticmethod
    def weighted_sum(pattern, v, z) -> None:
        """z[:, h] = pattern[h] @ v[:, h // groups]  (pattern [H, T, T], v [T, KV, dh], z [T, H, dh])."""
        H, KV = z.shape[1], v.shape[1]
        vh, zh = v.permute(1, 0, 2), z.permute(1, 0, 2)     # [KV, T, dh], [H, T, dh] (strided views)
        groups = H // KV
        for r in range(groups):
            torch.bmm(pattern[r::groups], vh, out=zh[r::groups])

    @staticmethod
    def head_results(z, W_O, result) -> None:
        """result[:, h] = z[:, h] @ W_O[h]  (z [T, H, dh], W_O [H, dh, d_model], result [T, H, d_model])."""
        torch.bmm(z.permute(1, 0, 2), W_O, out=result.permute(1, 0, 2))
