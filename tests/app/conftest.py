"""Fixtures for the window tests (Qt offscreen is set in tests/conftest.py)."""
from __future__ import annotations

import gc

import pyqtgraph as pg
import pytest

from app.main_window import MainWindow
from app.state import LabState

pg.setConfigOptions(antialias=True, background="w", foreground="k")


@pytest.fixture(autouse=True)
def settings(tmp_path):
    """Every window test gets a fresh INI store: never the user's preferences."""
    from app.settings import Settings

    store = Settings.at(tmp_path / "settings.ini")
    yield store                                   # handed to the window by the `window` fixture
    from PySide6.QtWidgets import QApplication

    if QApplication.instance() is not None:
        QApplication.setPalette(QApplication.style().standardPalette())   # a dark theme must not leak


@pytest.fixture
def window(qtbot, settings):
    from app.gc_guard import MainThreadGC

    guard = MainThreadGC()                 # as main.py: the collector runs on the GUI thread only
    state = LabState()
    win = MainWindow(state, settings=settings)
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    with qtbot.waitSignal(win.rendered, timeout=60_000):
        state.start()
    gc.collect()
    gc.freeze()          # as main.py does after start-up: a full collection must not stall the UI
    yield win
    state.runner.shutdown()
    guard.stop()


def wait_render(qtbot, win, action, timeout=60_000):
    """Run `action` (an edit) and wait until the window has drawn its result."""
    with qtbot.waitSignal(win.rendered, timeout=timeout):
        action()


def settle(qtbot, win, quiet_ms: int = 200, timeout: int = 20_000) -> None:
    """Wait until the window's layout stops moving: no visible widget's geometry changed for
    `quiet_ms`. A fixed wait after a resize or presentation mode is enough on an idle machine
    and not under load (the docks and the bar were still being laid out when a test measured)."""
    from PySide6.QtWidgets import QWidget

    def snapshot():
        return tuple(w.geometry().getRect() for w in win.findChildren(QWidget) if w.isVisible())

    last, still = snapshot(), 0
    deadline = timeout
    while still < quiet_ms:
        qtbot.wait(50)
        deadline -= 50
        now = snapshot()
        still = still + 50 if now == last else 0
        last = now
        if deadline <= 0:
            raise AssertionError(f"the window's layout kept moving for {timeout} ms")
