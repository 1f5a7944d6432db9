"""Where the kernels run (a GPU or numba's CUDA simulator) and the two decorators every kernel uses.

The simulator is chosen by NUMBA_ENABLE_CUDASIM=1 before numba is first imported; it runs each CUDA
thread as a Python thread, so tile sizes are smaller there (see each module's constants).
"""
from __future__ import annotations

from numba import cuda

try:  # numba-cuda keeps its own config; numba's built-in target read numba.config
    from numba.cuda.core.config import ENABLE_CUDASIM
except ImportError:  # pragma: no cover - older numba-cuda
    from numba.core.config import ENABLE_CUDASIM

SIMULATOR: bool = bool(ENABLE_CUDASIM)
if SIMULATOR:  # the simulator's shared arrays race between its threads without this (cuda_kernels/simulator.py)
    from .simulator import install

    install()


def kernel(fn):
    """@cuda.jit a kernel; on hardware the compiled code is cached next to the source."""
    return cuda.jit(fn) if SIMULATOR else cuda.jit(cache=True)(fn)


def device_function(fn):
    """@cuda.jit(device=True), inlined into its callers on hardware (the simulator knows no inlining)."""
    if SIMULATOR:
        return cuda.jit(device=True)(fn)
    try:
        return cuda.jit(device=True, forceinline=True)(fn)
    except TypeError:  # pragma: no cover - numba-cuda before `forceinline`: NVVM still inlines small ones
        return cuda.jit(device=True)(fn)


def cdiv(n: int, d: int) -> int:
    """ceil(n / d) for launch sizes."""
    return -(-n // d)
