"""The paint handshake of early results, in one place.

On a long pass the runner hands the UI the selected layer's attention half before the MLP and the
later layers are done (app/runner.py, compute.progress.publish) and waits until the UI has
painted it, so the paint gets the cores; the full result then finds the station already drawn
(the same arrays) and is not drawn again. `rendered` fires once per edit: when the first paint of
its result, early or full, is on screen. This object keeps that sequence; the window only draws
and tells it what it drew and when Qt painted.

    IDLE ──full drawn──────────────▶ FULL_PENDING ──painted──▶ IDLE                    (rendered)
    IDLE ──early drawn─────────────▶ EARLY_PENDING ──painted──▶ EARLY_SHOWN            (rendered; worker goes on)
    EARLY_PENDING ──its full result──▶ FULL_PENDING (no second draw: the paint to come is the full one's)
    EARLY_SHOWN ──its full result────▶ IDLE (nothing to paint again; the status shows the times)
    EARLY_* ──another full result────▶ FULL_PENDING (the early one is forgotten)
    EARLY_* ──the pass ended without its full result (cancelled, failed)──▶ IDLE; the window draws
                                       the result that goes with the inputs on screen again
    *_PENDING ──no paint within the timeout (a hidden window)──▶ as if painted

An early result that arrives while a paint is pending, or that the station cannot draw, is passed
over at once: the worker is told to go on (`Runner.partial_shown`).
"""
from __future__ import annotations

import time
from enum import Enum

from PySide6.QtCore import QObject, QTimer, Signal


class Phase(Enum):
    IDLE = "idle"
    FULL_PENDING = "full drawn, paint pending"
    EARLY_PENDING = "early result drawn, paint pending"
    EARLY_SHOWN = "early result on screen, the pass goes on"


class PaintHandshake(QObject):
    rendered = Signal(float, bool)        # ms from the draw to its paint; True when it was an early result

    def __init__(self, runner, timeout_ms: int = 500, parent: QObject | None = None):
        super().__init__(parent)
        self.runner = runner
        self.phase = Phase.IDLE
        self.early_request: int | None = None     # the request whose early result is on screen
        self._t0 = 0.0
        self._timeout = QTimer(self, singleShot=True, interval=timeout_ms, timeout=self.painted)

    # -- what is on screen ------------------------------------------------------------------------
    @property
    def early_on_screen(self) -> bool:
        """An early result is drawn (painted or about to be) and its full result is not in yet."""
        return self.phase in (Phase.EARLY_PENDING, Phase.EARLY_SHOWN)

    @property
    def paint_pending(self) -> bool:
        return self.phase in (Phase.FULL_PENDING, Phase.EARLY_PENDING)

    def accepts_early(self) -> bool:
        """Whether an early result may be drawn now (not while another paint is pending)."""
        return not self.paint_pending

    # -- what the window drew ---------------------------------------------------------------------
    def pass_early(self) -> None:
        """An early result the window does not draw: the worker goes on at once."""
        self.runner.partial_shown()

    def early_drawn(self, request_id: int) -> None:
        self._t0 = time.perf_counter()
        self.phase, self.early_request = Phase.EARLY_PENDING, request_id
        self._timeout.start()

    def full_drawn(self, request_id: int) -> bool:
        """A full result was handed to the views. True when a paint is to come (wait for
        `rendered`); False when it completes an early result that is already painted."""
        if self.early_on_screen and request_id == self.early_request:
            was_painted = self.phase == Phase.EARLY_SHOWN
            self.early_request = None
            self.phase = Phase.IDLE if was_painted else Phase.FULL_PENDING
            return not was_painted
        self._t0 = time.perf_counter()
        self.phase, self.early_request = Phase.FULL_PENDING, None
        self._timeout.start()
        return True

    def pass_ended(self, shown_request: int | None) -> bool:
        """The pass is over (busy went off). True when an early result of a pass that never
        finished is on screen: the window then draws `shown_request`'s result again."""
        if self.early_on_screen and shown_request != self.early_request:
            self.phase, self.early_request = Phase.IDLE, None
            self._timeout.stop()
            return True
        return False

    # -- what Qt painted --------------------------------------------------------------------------
    def painted(self) -> None:
        """The active station painted (or the timeout passed)."""
        if not self.paint_pending:
            return
        self._timeout.stop()
        ms = (time.perf_counter() - self._t0) * 1e3
        early = self.phase == Phase.EARLY_PENDING
        self.phase = Phase.EARLY_SHOWN if early else Phase.IDLE
        self.rendered.emit(ms, early)
        if early:
            self.runner.partial_shown()           # an early result is on screen: the worker goes on
