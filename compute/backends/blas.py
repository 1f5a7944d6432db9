"""The process's BLAS threads, without numba: LabState limits them at start-up (before the cpu
backend, whose kernels import numba, is needed), and the cpu backend shares the lock and the
controller."""
from __future__ import annotations

import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

from threadpoolctl import ThreadpoolController

# numba's parallel kernels are entered by one thread at a time (the app computes off-thread,
# tests may too; not every numba threading layer is safe for concurrent entry).
KERNEL_LOCK = threading.RLock()
BLAS = ThreadpoolController()
_GLOBAL_LIMIT = None


def keep_blas_single_threaded() -> None:
    """Limit OpenBLAS to one thread for the whole process (an application's choice, made by
    app/). The forward pass splits its products over its own two threads; a BLAS call anywhere
    else (a view computing a row of logits on the UI thread) would otherwise wake OpenBLAS's pool,
    whose threads then spin on the cores the next forward needs (measured in the app: andrea-120m
    T=256 took 53 ms with the MLP station shown, 27 ms with this)."""
    global _GLOBAL_LIMIT
    if _GLOBAL_LIMIT is not None:
        return
    with KERNEL_LOCK:                                  # not while a forward holds its own limit
        if _GLOBAL_LIMIT is None:
            _GLOBAL_LIMIT = BLAS.limit(limits=1, user_api="blas")


# The forward pass's second thread (cpu.py splits row stages and attention blocks over two).
_N_SPLIT = max(1, min(2, os.cpu_count() or 1))
_HELPER = ThreadPoolExecutor(max_workers=_N_SPLIT - 1, thread_name_prefix="qkv-blas") if _N_SPLIT > 1 else None


def lower_priority(nice: int) -> None:
    """Run the calling thread and the helper thread at a lower CPU priority (Linux `nice`; a no-op
    elsewhere). An application computing off its UI thread calls this from its worker: both cores
    are then busy with the pass, and the UI thread must still get a core the moment it wakes.
    Threads made later by these two (numba's pool) inherit the value."""
    if not sys.platform.startswith("linux"):
        return

    def lower() -> None:
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)
        except (OSError, AttributeError):
            pass

    lower()
    if _HELPER is not None:
        _HELPER.submit(lower).result()
