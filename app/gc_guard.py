"""The garbage collector runs on the GUI thread only (the classic PyQt/PySide recipe).

Python starts a collection on whichever thread happens to allocate past a threshold: the runner's
compute thread, the background jobs', numba's. When the garbage it finds holds Qt objects (a page
built lazily and dropped, a closed dialog in a reference cycle), their C++ side is deleted on that
thread, and Qt crashes later on the GUI thread — seen as an intermittent segfault in the event loop
while a window computes. So automatic collection is off, and a timer on the GUI thread runs the
generation whose threshold was passed, as the collector would have (thresholds kept)."""
from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer


class MainThreadGC(QObject):
    """While it lives (and is not stopped), cyclic garbage is collected here, on the GUI thread."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = 250):
        super().__init__(parent)
        self.threshold = gc.get_threshold()                   # (700, 10, 10) unless changed
        self._was_enabled = gc.isenabled()                    # (the tests keep it off: tests/conftest.py)
        gc.disable()
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.check)
        self._timer.start(interval_ms)

    def check(self) -> int:
        """Collect the oldest generation past its threshold (none: 0 objects); what it freed."""
        c0, c1, c2 = gc.get_count()
        if c0 <= self.threshold[0]:
            return 0
        generation = 2 if c2 > self.threshold[2] else 1 if c1 > self.threshold[1] else 0
        return gc.collect(generation)

    def stop(self) -> None:
        """Collect once more here and give collection back to Python's own thresholds."""
        self._timer.stop()
        gc.collect()
        if self._was_enabled:
            gc.enable()
