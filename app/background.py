"""Work off the UI thread: one small abstraction for the instruments, the kernel warm-up and model
opening. `Background.run(tag, fn)` runs fn on a daemon thread and delivers `done(tag, value,
error)` on the UI thread; `wait_for_background` lets the app wait for them before it exits."""
from __future__ import annotations

import threading
import time

from PySide6.QtCore import QObject, Signal

_THREADS: set[threading.Thread] = set()         # background work still running (see wait_for_background)


def track(thread: threading.Thread) -> None:
    """Count a thread started elsewhere as background work (wait_for_background waits for it)."""
    _THREADS.add(thread)


def untrack(thread: threading.Thread | None = None) -> None:
    _THREADS.discard(thread or threading.current_thread())


def wait_for_background(timeout: float) -> bool:
    """Wait (up to `timeout` s in all) for background work to end; True if all of it did. The app
    calls it before exiting: torch still running in a daemon thread while Python shuts down
    aborts the process."""
    end = time.monotonic() + timeout
    for thread in list(_THREADS):
        thread.join(max(0.0, end - time.monotonic()))
    return not any(t.is_alive() for t in _THREADS)


class Background(QObject):
    """Run a function on a daemon thread; `done(tag, value, error)` arrives on the UI thread."""

    done = Signal(object, object, object)

    def run(self, tag, fn) -> None:
        def work():
            try:
                value, error = fn(), None
            except Exception as exc:  # noqa: BLE001 - shown to the user as a message
                value, error = None, exc
            try:
                self.done.emit(tag, value, error)
            except RuntimeError:                      # the window closed meanwhile: nobody to tell
                pass
            finally:
                untrack()

        thread = threading.Thread(target=work, daemon=True, name=f"qkv-{tag[0]}")
        track(thread)
        thread.start()
