"""Freed memory goes back to the OS: glibc keeps freed heap pages of 8 MB blocks (what weights and
intermediates are) resident until malloc_trim; compute.memory.give_back_freed_memory calls it
once resident memory has grown by a step, and forward() asks at every pass."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from compute import PRESETS, Weights, forward, memory

pytestmark = pytest.mark.skipif(memory._malloc_trim() is None or memory.resident_bytes() == 0,
                                reason="needs glibc and /proc (Linux)")


def _retained_heap_blocks(n: int = 30) -> None:
    """Leave ~n × 8 MB of freed heap blocks behind, as a worker thread making weights does."""
    def work():
        big = np.ones(16 << 18, np.float32)             # 16 MB, freed: glibc's mmap threshold goes up
        del big
        blocks = [np.ones(2 << 20, np.float32) for _ in range(n)]   # 8 MB each, now from the heap
        pin = np.ones(16, np.float32)                   # a later block at the top of the heap
        del blocks
        keep.append(pin)
    keep: list = []
    thread = threading.Thread(target=work)
    thread.start()
    thread.join()


def test_freed_heap_blocks_are_given_back():
    memory.give_back_freed_memory(force=True)
    before = memory.resident_bytes()
    _retained_heap_blocks()
    retained = memory.resident_bytes() - before
    assert memory.give_back_freed_memory(force=True)
    returned = before + retained - memory.resident_bytes()
    assert retained < 100e6 or returned > 0.6 * retained, (retained, returned)


def test_forward_gives_back_what_dropped_weights_held(monkeypatch):
    cfg = PRESETS["toy"]
    w = Weights.random(cfg, 0)
    forward(cfg, w, [1, 2, 3])                           # the backend loaded and compiled first
    monkeypatch.setattr(memory, "TRIM_FREE", 64 << 20)
    memory.give_back_freed_memory(force=True)
    before = memory.resident_bytes()
    _retained_heap_blocks()
    retained = memory.resident_bytes() - before
    forward(cfg, w, [1, 2, 3])
    assert retained < 100e6 or memory.resident_bytes() - before < 0.4 * retained, retained
