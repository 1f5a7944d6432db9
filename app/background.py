"""Work off the UI thread, the one way the app does it.

`spawn(fn, name)` is where every thread of the app starts (the runner's loop, the instruments',
training, model opening, the download's requests, the sessions' checksums): a daemon named
`qkv-<name>`, counted as background work until fn returns (`wait_for_background` lets the app wait
for it before it exits: torch still running in a daemon thread while Python shuts down aborts the
process). `Background.run(tag, fn)` is spawn for a job with an answer: `done(tag, value, error)`
arrives on the UI thread, and what the job reports on the way (`report(tag, x)`: a training step,
a checksum's warning) arrives as `progress(tag, x)`.

Qt objects are freed on the GUI thread (app/gc_guard.py has the cyclic collector's side of it): a
thread hands what it made to the UI through queued signals, and the job's function (whose closure
may hold a page, a controller, a window) is held by the Background until `done` has been
delivered, so its last reference never drops on the worker.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

_THREADS: set[threading.Thread] = set()         # background work still running (see wait_for_background)


def track(thread: threading.Thread) -> None:
    """Count a thread as background work (wait_for_background waits for it)."""
    _THREADS.add(thread)


def untrack(thread: threading.Thread | None = None) -> None:
    _THREADS.discard(thread or threading.current_thread())


def spawn(fn: Callable[[], object], name: str, *, tracked: bool = True) -> threading.Thread:
    """Run fn on a daemon thread `qkv-<name>`, started now. Tracked (the default), it counts as
    background work until fn returns; a thread with its own shutdown (the runner's loop) or one
    whose caller is tracked (the download's requests) is not."""
    def work() -> None:
        try:
            fn()
        finally:
            if tracked:
                untrack()

    thread = threading.Thread(target=work, daemon=True, name=f"qkv-{name}")
    if tracked:
        track(thread)
    thread.start()
    return thread


def wait_for_background(timeout: float) -> bool:
    """Wait (up to `timeout` s in all) for background work to end; True if all of it did."""
    end = time.monotonic() + timeout
    for thread in list(_THREADS):
        thread.join(max(0.0, end - time.monotonic()))
    return not any(t.is_alive() for t in _THREADS)


class Background(QObject):
    """Jobs on threads of their own; their answers and reports arrive on the UI thread."""

    done = Signal(object, object, object)       # tag, value, error (an Exception or None)
    progress = Signal(object, object)           # tag, what the job reported
    _ended = Signal(object)                     # a job's key, after its `done`: its function is let go here

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._held: dict[object, Callable] = {}
        self._ended.connect(self._release)

    def run(self, tag, fn: Callable[[], object], *, tracked: bool = True) -> threading.Thread:
        """fn() on its own thread; done(tag, fn's value or None, its exception or None) on the UI
        thread. A tag is a tuple whose first item names the job (and its thread)."""
        key = object()
        self._held[key] = fn
        box = [fn]
        done, ended = self.done.emit, self._ended.emit

        def work() -> None:
            job = box.pop()
            try:
                value, error = job(), None
            except Exception as exc:  # noqa: BLE001 - shown to the user as a message
                value, error = None, exc
            del job                                   # the UI thread holds the last reference
            try:
                done(tag, value, error)
                ended(key)
            except RuntimeError:                      # the window closed meanwhile: nobody to tell
                pass

        return spawn(work, str(tag[0]), tracked=tracked)

    def report(self, tag, value) -> None:
        """From a job's thread: `progress(tag, value)` on the UI thread."""
        try:
            self.progress.emit(tag, value)
        except RuntimeError:                          # the window closed meanwhile
            pass

    def _release(self, key) -> None:
        self._held.pop(key, None)
