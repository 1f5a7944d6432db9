"""cuda_kernels/simulator.py: the simulator's shared arrays are one per block, whatever the thread switches."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from cuda_kernels import SIMULATOR

pytestmark = pytest.mark.skipif(not SIMULATOR, reason="a fix for numba's CUDA simulator")


class SlowShape:
    """A shape numpy reads slowly (sleeping gives the other threads the GIL): a thread switch is
    then certain to land between one thread's look-up of the block's array and its store."""

    def __init__(self, *dims):
        self.dims = dims

    def __len__(self):
        time.sleep(0.02)
        return len(self.dims)

    def __getitem__(self, i):
        return self.dims[i]


def test_threads_racing_to_allocate_a_shared_array_all_get_the_same_one():
    """numba-cuda's look-up-then-allocate gave two threads of a block two arrays: each loaded its
    part of a slab where no other thread read it (a 0.5 scaled error in the first tile of
    weighted_sum, seed 4246571519, about once in 100 launches)."""
    from numba.cuda.simulator.kernelapi import FakeCUDAShared

    shared = FakeCUDAShared(0)
    start = threading.Barrier(4)
    got = [None] * 4

    def thread(n):
        start.wait()
        got[n] = shared.array(SlowShape(8, 3), np.float32)    # one line: one array for the block

    threads = [threading.Thread(target=thread, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert all(a is got[0] for a in got), f"{len({id(a) for a in got})} arrays for one block"
    assert got[0].shape == (8, 3) and got[0].dtype == np.float32


def test_two_lines_still_get_two_arrays_and_numba_types_still_work():
    from numba import float32
    from numba.cuda.simulator.kernelapi import FakeCUDAShared

    shared = FakeCUDAShared(0)
    a = shared.array((2, 2), float32)
    b = shared.array((2, 2), float32)
    assert a is not b and a.dtype == np.float32 and b.shape == (2, 2)
    assert shared.array(0, np.dtype(np.float32)).size == 0                   # dynamic shared memory: as numba has it
