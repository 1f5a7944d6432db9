"""A fix for numba's CUDA simulator: one shared array per block, however its threads interleave.

The simulator runs each CUDA thread as a Python thread and finds a block's `cuda.shared.array`
by the line that asks for it: the first thread to get there allocates, the others look it up.
numba-cuda 0.30 does that as look-up, then allocate, then store, with no lock; a thread switch
in between gives two threads of the first block two different arrays (the later store wins, so
every later block shares one again). A thread that loads its part of a slab into an array
nobody else reads, and multiplies slabs nobody wrote, computes garbage for that block only: a
scaled error of ~0.5 on the first output tile about once in a hundred launches with the kernel
tests' fast thread switching. A GPU has one shared array per block by construction, so only
the simulator needs this. `install()` makes the look-up-or-allocate atomic.
"""
from __future__ import annotations

import sys
import threading
import traceback

import numpy as np

_lock = threading.Lock()
_installed = False


def install() -> bool:
    """Replace the simulator's shared-array allocator with one that holds a lock while it looks
    up or allocates; returns False where there is no simulator to fix."""
    global _installed
    try:
        from numba.cuda.simulator import kernelapi
    except ImportError:  # pragma: no cover - numba without the simulator
        return False
    if _installed:
        return True
    original = kernelapi.FakeCUDAShared.array

    def array(self, shape, dtype, alignment=None):
        if alignment is not None or shape == 0:   # errors and dynamic shared memory: as numba does them
            return original(self, shape, dtype, alignment)
        if isinstance(dtype, kernelapi.types.Type):
            dtype = kernelapi.numpy_support.as_dtype(dtype)
        caller = traceback.extract_stack(sys._getframe(1), limit=1)[-1][0:2]   # (file, line) of the kernel's call
        with _lock:
            found = self._allocations.get(caller)
            if found is None:
                found = self._allocations[caller] = np.empty(shape, dtype)
        return found

    kernelapi.FakeCUDAShared.array = array
    _installed = True
    return True
