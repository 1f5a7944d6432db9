"""Shared fixtures for the widget tests."""
from __future__ import annotations

import pyqtgraph as pg
import pytest


@pytest.fixture
def canvas(qtbot):
    """A shown 600 × 600 GraphicsLayoutWidget to put plots in."""
    w = pg.GraphicsLayoutWidget()
    w.resize(600, 600)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w
