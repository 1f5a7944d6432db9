"""app/gc_guard.py: cyclic garbage holding Qt objects is collected on the GUI thread, never on the
worker thread that happened to allocate (a crash later in the event loop, seen under xdist)."""
from __future__ import annotations

import gc
import threading

from PySide6.QtCore import QObject

from app.gc_guard import MainThreadGC


class _Cycle:
    """A QObject in a reference cycle: only the cyclic collector frees it."""

    def __init__(self, freed_on: list):
        self.me = self
        self.qobject = QObject()
        self.freed_on = freed_on

    def __del__(self):
        self.freed_on.append(threading.current_thread().name)


def _drop_a_cycle_and_allocate_on_a_worker(freed_on: list) -> None:
    _Cycle(freed_on)                                          # garbage now, in a cycle

    def churn():                                              # allocations past every threshold
        junk = []
        for _ in range(20_000):
            junk.append([[], {}])
        del junk

    worker = threading.Thread(target=churn, name="worker")
    worker.start()
    worker.join()


def test_with_the_guard_a_cycle_is_collected_on_the_gui_thread(qapp):
    gc.collect()
    gc.enable()                                               # as in the app (the suite keeps it off)
    guard = MainThreadGC()
    try:
        freed_on: list = []
        _drop_a_cycle_and_allocate_on_a_worker(freed_on)
        assert freed_on == []                                 # the worker's allocations collected nothing
        while not freed_on:
            guard.check() or gc.collect()
        assert freed_on == [threading.current_thread().name]
    finally:
        guard.stop()
    assert gc.isenabled()                                     # given back as it was
    gc.disable()


def test_without_it_the_worker_thread_collects_the_cycle(qapp):
    """The hazard itself (this test fails if Python ever stops collecting on allocating threads)."""
    gc.collect()
    gc.enable()                                               # Python's own thresholds, for this test
    try:
        freed_on: list = []
        _drop_a_cycle_and_allocate_on_a_worker(freed_on)
        assert freed_on == ["worker"]
    finally:
        gc.disable()
