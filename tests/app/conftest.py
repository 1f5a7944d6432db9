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


def wait_render(qtbot, win, action, timeout=60_000):
    """Run `action` (an edit) and wait until the window has drawn its result."""
    with qtbot.waitSignal(win.rendered, timeout=timeout):
        action()
